package replay

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"webtron/aamap"
	"webtron/history"
	"webtron/internal/aamaptest"
	"webtron/room"
	"webtron/sim"
)

// TestVerifyFortressMap records a round of bots on Z-Man's fortress map
// for_old_clients and checks that its replay carries the map: read back
// from its bytes, it re-simulates the arena, the fortress zones included
// (their states are hashed), to the recorded hashes and winner.
func TestVerifyFortressMap(t *testing.T) {
	aamaptest.Paths(t)
	m, err := aamap.Load(filepath.Join(aamaptest.Dir, "Z-Man/fortress/for_old_clients-0.1.0.aamap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := sim.DefaultConfig()
	if _, err := m.Apply(&rules); err != nil {
		t.Fatal(err)
	}
	var f *File
	r, err := room.New("fortress", room.Config{Seed: 5, Bots: 4, Seats: 4, Sim: rules, OnRound: func(rec history.RoundRecord, names []string) {
		if f == nil && rec.Decided {
			f = &File{Kind: KindRound, Room: "fortress", Round: 1, Created: time.UnixMilli(1_700_000_000_000), Names: slices.Clone(names), Record: rec}
		}
	}}, 0, room.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); f == nil && now < 20*time.Minute; now += r.TickDuration() {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	if f == nil {
		t.Fatal("no round was decided in 20 minutes")
	}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Verify(g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Winner != f.Record.Winner {
		t.Fatalf("replayed winner %d, recorded %d", s.Winner, f.Record.Winner)
	}
}
