package history

import (
	"errors"
	"fmt"
	"testing"
	"webtron/sim"
)

// TestSyncTest is GGRS's SyncTest session at the Timeline's level: one
// timeline runs straight, another, fed the same events on time, is forced to
// roll back N ticks after every tick and replay them. Every tick both must
// hold the same state, and the replayed one must have done its replays: a
// snapshot that does not restore exactly, a replay that reads the log
// differently, or a hash recorded from the wrong state shows up here.
func TestSyncTest(t *testing.T) {
	for _, n := range []int64{1, 4, 7, 30} {
		t.Run(fmt.Sprintf("rollback %d", n), func(t *testing.T) {
			straight := newTL(t, Options{})
			synced := newTL(t, Options{})
			g := newGen(11, 6)
			var replayed int64
			for tick := int64(0); tick < 3000; tick++ {
				for _, te := range g.events(tick, nil) {
					mustInsert(t, straight, te)
					mustInsert(t, synced, te)
				}
				if _, err := straight.Advance(tick + 1); err != nil {
					t.Fatal(err)
				}
				if _, err := synced.Advance(tick + 1); err != nil {
					t.Fatal(err)
				}
				// Roll back n ticks (nothing changed) and replay them.
				if back := tick + 1 - n; back >= 0 {
					synced.touch(back)
					depth, err := synced.Advance(tick + 1)
					if err != nil {
						t.Fatal(err)
					}
					replayed += depth
				}
				if got, want := synced.State().Hash(), straight.State().Hash(); got != want {
					t.Fatalf("tick %d: %016x after rolling back %d ticks, %016x straight", tick+1, got, n, want)
				}
				if h := (tick + 1) / DefaultHashEvery * DefaultHashEvery; h > 0 {
					a, okA := synced.PredictedHash(h)
					b, okB := straight.PredictedHash(h)
					if !okA || !okB || a != b {
						t.Fatalf("recorded hash at %d: %016x (%v) replayed, %016x (%v) straight", h, a, okA, b, okB)
					}
				}
			}
			if replayed < n*2900 {
				t.Fatalf("replayed %d ticks in all, want about %d: the rollbacks did not happen", replayed, n*3000)
			}
		})
	}
}

// TestApplyLoadsOnlyTheTickAsked: a load request is for one tick's snapshot;
// when the ring slot holds another tick (or none) Apply refuses, rather than
// restore the timeline's start and replay from the wrong tick.
func TestApplyLoadsOnlyTheTickAsked(t *testing.T) {
	tl := newTL(t, Options{Window: 40, SnapshotEvery: 4})
	if _, err := tl.Advance(100); err != nil {
		t.Fatal(err)
	}
	// The ring holds 12 slots of 4 ticks: tick 8's slot now holds 56 (or 104 later).
	for _, tick := range []int64{8, 6, 200} {
		if err := tl.Apply([]Request{{ReqLoad, tick}}); !errors.Is(err, ErrNoSnapshot) {
			t.Errorf("load %d: got %v, want ErrNoSnapshot", tick, err)
		}
	}
	before := tl.State().Hash()
	if err := tl.Apply([]Request{{ReqLoad, 96}}); err != nil {
		t.Fatalf("load 96, which the ring holds: %v", err)
	}
	if tl.State().Tick() != 96 || tl.State().Hash() == before {
		t.Fatalf("after loading 96 the state is at tick %d", tl.State().Tick())
	}
	tl2 := newTL(t, Options{})
	if err := tl2.Apply([]Request{{ReqLoad, 0}}); err != nil {
		t.Fatalf("load of the starting tick: %v", err)
	}
}

// TestPredictedHashWaitsForReplay: an event that arrives late changes every
// hash after its tick, but the timeline replays only on its next Advance. A
// client that reports hashes in between (the browser's worker answers a
// server ping the moment it arrives, before the next frame advances) must
// not be handed the hash recorded before the event: that was a false desync
// seen in TestBrowserTiming.
func TestPredictedHashWaitsForReplay(t *testing.T) {
	straight := newTL(t, Options{})
	late := newTL(t, Options{})
	g := newGen(5, 4)
	const end = 700
	var held TickEvent
	for tick := int64(0); tick < end; tick++ {
		for _, te := range g.events(tick, nil) {
			mustInsert(t, straight, te)
			if held.Ev.Kind == 0 && tick > 490 && (te.Ev.Kind == sim.EvTurnLeft || te.Ev.Kind == sim.EvTurnRight) {
				held = te
				continue
			}
			mustInsert(t, late, te)
		}
	}
	if held.Ev.Kind == 0 {
		t.Fatal("no input event to hold back")
	}
	for _, tl := range []*Timeline{straight, late} {
		if _, err := tl.Advance(end); err != nil {
			t.Fatal(err)
		}
	}
	h := (held.Tick/DefaultHashEvery + 2) * DefaultHashEvery
	before, _ := late.PredictedHash(h)
	want, ok := straight.PredictedHash(h)
	if !ok || before == want {
		t.Fatalf("hash at %d: the held-back event at tick %d changed nothing (%016x); pick another", h, held.Tick, want)
	}
	mustInsert(t, late, held)
	if got, ok := late.PredictedHash(h); ok {
		t.Fatalf("hash at %d offered before the replay the late event at tick %d needs: %016x, want %016x after it", h, held.Tick, got, want)
	}
	if got, ok := late.PredictedHash(held.Tick / DefaultHashEvery * DefaultHashEvery); !ok || got == 0 {
		t.Fatalf("the hash before the late event's tick is unaffected and should stay offered")
	}
	if _, err := late.Advance(end); err != nil {
		t.Fatal(err)
	}
	if got, ok := late.PredictedHash(h); !ok || got != want {
		t.Fatalf("hash at %d after the replay: %016x (%v), want %016x", h, got, ok, want)
	}
}
