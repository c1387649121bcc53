package sim

import (
	"fmt"
	"testing"
)

// benchState returns a state mid-round with n living cycles and about `walls`
// wall segments scattered over the arena (short random walls, away from the
// spawn ring's lanes is not guaranteed: cycles that crash are fine, the
// benchmark restores the start every few ticks).
func benchState(b *testing.B, n, walls int) *State {
	b.Helper()
	s := playing(b, testConfig(), n)
	rng := uint64(99)
	a := s.Arena()
	for s.WallCount() < walls {
		rng = splitmix(rng)
		x, y := int64(rng%uint64(a-2*Meter))+Meter, int64((rng>>20)%uint64(a-2*Meter))+Meter
		l := int64((rng>>40)%30+2) * Meter
		w := Wall{X1: x, Y1: y, X2: min(x+l, a-Meter), Y2: y, Owner: uint8(rng % uint64(n))}
		if rng&(1<<63) != 0 {
			w.X2, w.Y2 = x, min(y+l, a-Meter)
		}
		s.addWall(w)
	}
	return s
}

// BenchmarkStep measures one tick mid-round. Every 60 ticks the start is
// restored (cost included, and tiny) so cycles keep moving through the walls.
func BenchmarkStep(b *testing.B) {
	for _, c := range []struct{ cycles, walls int }{{8, 2000}, {32, 10000}} {
		b.Run(fmt.Sprintf("cycles=%d/walls=%d", c.cycles, c.walls), func(b *testing.B) {
			s := benchState(b, c.cycles, c.walls)
			var sn Snapshot
			s.Save(&sn)
			evs := make([]Event, 0, 4)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%60 == 59 {
					if err := s.Restore(&sn); err != nil {
						b.Fatal(err)
					}
				}
				evs = evs[:0]
				if i%20 == 0 {
					evs = append(evs, Event{Kind: EvTurnLeft + EventKind(i/20%2), Player: uint8(i / 20 % c.cycles), Seq: uint32(i)})
				}
				s.Step(evs)
			}
		})
	}
}

// BenchmarkSnapshotRestore measures Save plus Restore; it must not depend on
// the number of walls.
func BenchmarkSnapshotRestore(b *testing.B) {
	for _, walls := range []int{2000, 20000} {
		b.Run(fmt.Sprintf("cycles=8/walls=%d", walls), func(b *testing.B) {
			s := benchState(b, 8, walls)
			var sn Snapshot
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Save(&sn)
				if err := s.Restore(&sn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRollback30 restores the snapshot of 30 ticks ago and replays 30
// ticks, as a client does for a remote event 30 ticks late.
func BenchmarkRollback30(b *testing.B) {
	s := benchState(b, 8, 2000)
	var sn Snapshot
	s.Save(&sn)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Restore(&sn); err != nil {
			b.Fatal(err)
		}
		for t := 0; t < 30; t++ {
			s.Step(nil)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	s := benchState(b, 8, 2000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = s.Hash()
	}
}
