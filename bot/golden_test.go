package bot

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"webtron/sim"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden plays seeded games of bots and compares the final hashes with
// testdata: the same file must pass natively (GOAMD64=v1 and v3) and under
// js/wasm in Node, because the browser runs this exact simulation. A change
// to the bot or the simulation that changes play must come with new hashes
// (go test ./bot -run Golden -update), reviewed like any other change.
func TestGolden(t *testing.T) {
	const file = "testdata/golden.txt"
	want := map[string]string{}
	if b, err := os.ReadFile(file); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				want[line[:i]] = line[i+1:]
			}
		}
	} else if !*update {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, c := range []struct {
		players int
		arena   int64 // metres; small arenas make rounds end within the run
		seed    uint64
	}{{2, 500, 1}, {8, 500, 2}, {8, 56, 3}, {32, 104, 4}} {
		cfg := withArena(sim.DefaultConfig(), c.arena)
		s, err := sim.NewState(cfg, c.seed)
		if err != nil {
			t.Fatal(err)
		}
		bots := make([]*Bot, c.players)
		for p := range bots {
			bots[p] = New(p, c.seed*1000+uint64(p))
		}
		s.Step(Joins(c.players))
		Play(s, bots, 20000)
		round, _ := s.Round()
		key := fmt.Sprintf("players=%d arena=%dm seed=%d ticks=20001", c.players, c.arena, c.seed)
		got := fmt.Sprintf("%016x", s.Hash())
		fmt.Fprintf(&out, "%s %s\n", key, got)
		if !*update && want[key] != got {
			t.Errorf("%s: hash %s, want %s (round %d)", key, got, want[key], round)
		}
	}
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
