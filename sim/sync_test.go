package sim

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// randomEvents is a seeded stream of plausible inputs: joins at tick 0, turns
// (pressed at random instants within their ticks) and brakes now and then,
// and a player leaving and coming back. It stands in for players so the
// simulation's own tests need nothing outside the package.
type randomEvents struct {
	rng     uint64
	players int
	seq     uint32
}

func (r *randomEvents) next() uint64 {
	r.rng = splitmix(r.rng)
	return r.rng
}

func (r *randomEvents) tick(t int64, out []Event) []Event {
	if t == 0 {
		for p := 0; p < r.players; p++ {
			out = append(out, Event{Kind: EvJoin, Player: uint8(p)})
		}
		return out
	}
	for p := 0; p < r.players; p++ {
		v := r.next()
		if v%40 != 0 { // a decision every 40 ticks on average
			continue
		}
		r.seq++
		e := Event{Player: uint8(p), Seq: r.seq}
		switch k := (v >> 8) % 100; {
		case k < 40:
			e.Kind, e.Arg = EvTurnLeft, int32(v>>16%SubTicks)
		case k < 80:
			e.Kind, e.Arg = EvTurnRight, int32(v>>16%SubTicks)
		case k < 88:
			e.Kind = EvBrakeOn
		case k < 97:
			e.Kind = EvBrakeOff
		case k < 99:
			e.Kind = EvLeave
		default:
			e.Kind = EvJoin
		}
		out = append(out, e)
	}
	return out
}

func newGame(t testing.TB, players int, seed uint64) (*State, *randomEvents) {
	s, err := NewState(DefaultConfig(), seed)
	if err != nil {
		t.Fatal(err)
	}
	return s, &randomEvents{rng: seed, players: players}
}

// TestRollbackSync plays a long game twice: straight through, and rolling back
// N ticks every tick (restore the snapshot from N ticks ago, replay). The
// hashes must agree at every tick, GGRS's SyncTest.
func TestRollbackSync(t *testing.T) {
	for _, n := range []int{1, 7, 30} {
		t.Run(fmt.Sprintf("rollback%d", n), func(t *testing.T) {
			ticks := 6000
			if testing.Short() {
				ticks = 1500
			}
			a, gen := newGame(t, 8, 42)
			b, _ := newGame(t, 8, 42)
			hist := make([][]Event, ticks)
			ring := make([]Snapshot, n+1)
			for tick := 0; tick < ticks; tick++ {
				hist[tick] = gen.tick(int64(tick), nil)
				b.Save(&ring[tick%len(ring)])
				if tick >= n {
					from := tick - n
					if err := b.Restore(&ring[from%len(ring)]); err != nil {
						t.Fatalf("tick %d: restore to %d: %v", tick, from, err)
					}
					for r := from; r < tick; r++ {
						b.Save(&ring[r%len(ring)])
						b.Step(hist[r])
					}
				}
				a.Step(hist[tick])
				b.Step(hist[tick])
				if ha, hb := a.Hash(), b.Hash(); ha != hb {
					t.Fatalf("tick %d: hash %x straight, %x with rollback", tick, ha, hb)
				}
			}
			if r, _ := a.Round(); r < 2 {
				t.Fatalf("only %d rounds in %d ticks: the test should cross round starts", r, ticks)
			}
		})
	}
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	s, gen := newGame(t, 8, 3)
	var sn Snapshot
	if err := s.Restore(&sn); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("restoring an empty snapshot: got %v, want ErrSnapshot", err)
	}
	for tick := int64(0); tick < 1000; tick++ {
		s.Step(gen.tick(tick, nil))
	}
	s.Save(&sn)
	h := s.Hash()
	for tick := int64(1000); tick < 1300; tick++ {
		s.Step(gen.tick(tick, nil))
	}
	if err := s.Restore(&sn); err != nil {
		t.Fatal(err)
	}
	if got := s.Hash(); got != h {
		t.Fatalf("hash after restore %x, want %x", got, h)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	s, gen := newGame(t, 8, 5)
	for tick := int64(0); tick < 3000; tick++ {
		s.Step(gen.tick(tick, nil))
		if tick%500 != 0 {
			continue
		}
		b := s.AppendBinary(nil)
		d, err := UnmarshalState(b)
		if err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if d.Hash() != s.Hash() {
			t.Fatalf("tick %d: decoded hash %x, want %x", tick, d.Hash(), s.Hash())
		}
		if !bytes.Equal(d.AppendBinary(nil), b) {
			t.Fatalf("tick %d: re-encoding differs", tick)
		}
		// The decoded state must go on exactly like the original.
		var sn Snapshot
		s.Save(&sn)
		g := *gen
		for k := tick + 1; k < tick+200; k++ {
			evs := g.tick(k, nil)
			s.Step(evs)
			d.Step(evs)
		}
		if s.Hash() != d.Hash() {
			t.Fatalf("tick %d: decoded state diverged from the original", tick)
		}
		if err := s.Restore(&sn); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(stateMagic)+40; i++ {
		if _, err := UnmarshalState(s.AppendBinary(nil)[:i]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: got %v, want ErrCorrupt", i, err)
		}
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden checks seeded games against final hashes recorded in testdata.
// The same file must pass natively (GOAMD64=v1 and v3) and under js/wasm.
func TestGolden(t *testing.T) {
	const file = "testdata/golden_random.txt"
	cases := []struct {
		players int
		seed    uint64
	}{{2, 1}, {8, 2}, {32, 3}}
	const ticks = 20000
	var out strings.Builder
	want := readGolden(t, file)
	changed := false
	rules := fmt.Sprintf("%x", RulesVersion)
	for _, c := range cases {
		s, gen := newGame(t, c.players, c.seed)
		var evs []Event
		for tick := int64(0); tick < ticks; tick++ {
			evs = gen.tick(tick, evs[:0])
			s.Step(evs)
		}
		key := fmt.Sprintf("players=%d seed=%d ticks=%d", c.players, c.seed, ticks)
		got := fmt.Sprintf("%016x", s.Hash())
		fmt.Fprintf(&out, "%s %s\n", key, got)
		changed = changed || want[key] != got
		if !*update && want[key] != got {
			t.Errorf("%s: hash %s, want %s", key, got, want[key])
		}
	}
	// New results under the same rules version would let a replay of the
	// old rules pass as current (RulesVersion).
	if changed && want["rules"] == rules {
		t.Errorf("the golden hashes changed under RulesVersion %d: bump sim.RulesVersion", RulesVersion)
	}
	if !changed && want["rules"] != rules {
		t.Errorf("the golden file was made under rules %s, this is %s: run with -update", want["rules"], rules)
	}
	fmt.Fprintf(&out, "rules %s\n", rules)
	if *update && !(changed && want["rules"] == rules) {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readGolden(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		if *update {
			return nil
		}
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("bad golden line %q", line)
		}
		if _, err := strconv.ParseUint(line[i+1:], 16, 64); err != nil {
			t.Fatalf("bad golden hash in %q", line)
		}
		m[line[:i]] = line[i+1:]
	}
	return m
}
