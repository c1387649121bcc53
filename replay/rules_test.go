package replay

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"webtron/sim"
)

// withRules returns the file b with its rules section replaced by rules (or
// removed, for 0): a file as another build of the game wrote it.
func withRules(t *testing.T, b []byte, rules uint64) []byte {
	return rewrite(t, b, b[:headerLen], func(tag byte) bool { return tag != tagRules }, func(out []byte) []byte {
		if rules != 0 {
			out = appendSection(out, tagRules, binary.AppendUvarint(nil, rules))
		}
		return out
	})
}

// TestRulesRecorded: a file records the simulation's rules version; one
// written under other rules is refused as such (ErrRules) before anything
// is re-simulated; one written before the version was recorded still
// plays when its rules are today's, and a failure to reproduce it says that
// an older version probably wrote it.
func TestRulesRecorded(t *testing.T) {
	f := sampleFile(t)
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Unmarshal(b)
	if err != nil || g.Rules != sim.RulesVersion {
		t.Fatalf("rules %d, error %v; want %d", g.Rules, err, sim.RulesVersion)
	}
	for _, v := range []uint64{sim.RulesVersion + 1, 1000} {
		_, err := Unmarshal(withRules(t, b, v))
		if !errors.Is(err, ErrRules) || !strings.Contains(err.Error(), "version of the game") {
			t.Errorf("rules %d: %v, want ErrRules", v, err)
		}
	}
	if _, err := Unmarshal(withRules(t, b, 0)); err != nil {
		t.Fatalf("a file without its rules version: %v", err)
	}
	old, err := Unmarshal(withRules(t, b, 0))
	if err != nil {
		t.Fatal(err)
	}
	if old.Rules != 0 {
		t.Fatalf("rules %d read from a file without them", old.Rules)
	}
	if _, err := Verify(old); err != nil {
		t.Fatalf("a file without its rules version, today's rules: %v", err)
	}
	old.Record.Hashes[len(old.Record.Hashes)/2].Hash ^= 1 // as an older simulation would differ
	if _, err := Verify(old); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "older version of the game") {
		t.Errorf("an old file that does not reproduce: %v", err)
	}
	g.Record.Hashes[len(g.Record.Hashes)/2].Hash ^= 1
	if _, err := Verify(g); !errors.Is(err, ErrMismatch) || strings.Contains(err.Error(), "older version") {
		t.Errorf("a current file that does not reproduce: %v", err)
	}
}
