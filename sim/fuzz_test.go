package sim

import "testing"

// FuzzStep drives the simulation with arbitrary event streams (any kind, any
// player id, any timing) and checks that nothing panics and that the physical
// invariants hold after every tick.
func FuzzStep(f *testing.F) {
	f.Add([]byte{0, 0, 5, 0, 1, 5, 200, 0, 1, 3, 1, 2})
	f.Add([]byte{0, 0, 5, 0, 1, 5, 0, 2, 5, 50, 0, 3, 1, 1, 1, 1, 2, 2, 9, 0, 6})
	f.Add([]byte{0, 31, 5, 0, 200, 5, 255, 255, 255, 0, 0, 7, 0, 0, 8})
	f.Add([]byte{0, 0, 5, 0, 1, 5, 0, 1, 8, 0, 2, 5, 0, 2, 8, 2, 1, 6, 0, 3, 5, 0, 3, 8}) // a leave, then a spawn, in the countdown
	f.Fuzz(runFuzz)
}

// FuzzStepAxes is FuzzStep on a map of 8 axes (checkSlanted: no living
// cycle's trail through a wall, slanted walls and all), and of 6 for odd
// lengths of input.
func FuzzStepAxes(f *testing.F) {
	f.Add([]byte{0, 0, 5, 0, 1, 5, 200, 0, 1, 3, 1, 2})
	f.Add([]byte{0, 0, 5, 0, 1, 5, 0, 2, 5, 50, 0, 3, 1, 1, 1, 1, 2, 2, 9, 0, 6})
	f.Add([]byte{0, 0, 5, 0, 1, 5, 0, 2, 5, 0, 3, 5, 9, 0, 1, 9, 1, 1, 9, 2, 1, 9, 3, 2, 20, 0, 1, 20, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := DefaultConfig()
		cfg.Map = axesMap(8 - 2*int64(len(data)%2))
		runFuzzWith(t, cfg, data, checkSlanted)
	})
}

func runFuzz(t *testing.T, data []byte) {
	runFuzzWith(t, DefaultConfig(), data, checkInvariants)
}

// runFuzzWith plays data (FuzzStep's events) under cfg, checking the state
// with check after every tick.
func runFuzzWith(t *testing.T, cfg Config, data []byte, checkInvariants func(*testing.T, *State)) {
	{
		s, err := NewState(cfg, uint64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var evs []Event
		if len(data) > 600 { // bound the run: a few thousand ticks at most
			data = data[:600]
		}
		for len(data) >= 3 {
			wait := int(data[0] % 32) // ticks to run before this event
			for i := 0; i < wait; i++ {
				s.Step(nil)
				checkInvariants(t, s)
			}
			// Arg: a turn's instant, now and then out of its range (taken as
			// the nearest), or another kind's argument.
			evs = append(evs[:0], Event{Player: data[1] % 40, Kind: EventKind(data[2] % 12), Seq: uint32(len(data)), Arg: int32(data[0]^data[1]) - 16})
			s.Step(evs)
			checkInvariants(t, s)
			data = data[3:]
		}
		for i := 0; i < 600; i++ {
			s.Step(nil)
			checkInvariants(t, s)
		}
	}
}

// checkInvariants fails if a living cycle is outside the arena or has driven
// through a standing wall: its open segment may touch another wall only at
// that wall's end (where a cycle died crossing it), never cut through it.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	a := s.Arena()
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.Alive {
			continue
		}
		if !c.Present {
			t.Fatalf("tick %d: cycle %d alive with nobody present to drive it", s.c.Tick, i)
		}
		if c.X <= 0 || c.X >= a || c.Y <= 0 || c.Y >= a {
			t.Fatalf("tick %d: living cycle %d at (%d,%d), outside the arena", s.c.Tick, i, c.X, c.Y)
		}
		// Explosions blow holes, and trails may cross where one has a hole:
		// compare what stands of both.
		opens := s.WallPieces(c.openWall(i, s.c.Tick), nil)
		var pieces []Wall
		check := func(w Wall) {
			pieces = s.WallPieces(w, pieces[:0])
			for k := range pieces {
				for o := range opens {
					if cutsThrough(&opens[o], &pieces[k]) {
						t.Fatalf("tick %d: living cycle %d's trail %+v cuts through wall %+v", s.c.Tick, i, opens[o], pieces[k])
					}
				}
			}
		}
		for _, w := range s.RoundWalls() {
			if int(w.Owner) != i {
				check(w)
			}
		}
		for j := range s.c.Cycles {
			if j != i && s.c.Cycles[j].Alive {
				check(s.c.Cycles[j].openWall(j, s.c.Tick))
			}
		}
	}
}

// cutsThrough reports whether axis-aligned segments p and q share a point
// that is strictly inside q (p's own ends count: a cycle's nose may not sit
// inside a wall either), or overlap along one line.
func cutsThrough(p, q *Wall) bool {
	px0, px1, py0, py1 := min(p.X1, p.X2), max(p.X1, p.X2), min(p.Y1, p.Y2), max(p.Y1, p.Y2)
	qx0, qx1, qy0, qy1 := min(q.X1, q.X2), max(q.X1, q.X2), min(q.Y1, q.Y2), max(q.Y1, q.Y2)
	if px1 < qx0 || qx1 < px0 || py1 < qy0 || qy1 < py0 {
		return false
	}
	// Intersection rectangle of the two boxes.
	ix0, ix1, iy0, iy1 := max(px0, qx0), min(px1, qx1), max(py0, qy0), min(py1, qy1)
	if ix0 != ix1 || iy0 != iy1 {
		return true // overlapping along a line
	}
	// One shared point: fine when it is one of q's ends.
	return !((ix0 == q.X1 && iy0 == q.Y1) || (ix0 == q.X2 && iy0 == q.Y2))
}
