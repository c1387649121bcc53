package sim

import (
	"cmp"
	"slices"
	"testing"
)

// TestGoldenQueries: the pruned searches the step uses find exactly what the
// straightforward ones find, in the same order, over random worlds: the
// golden hashes only cover the situations the recorded games happen to reach.
func TestGoldenQueries(t *testing.T) {
	t.Run("walls", func(t *testing.T) {
		for _, walls := range []int{50, 2000} {
			s := queryWorld(t, walls)
			a := s.Arena()
			rng := uint64(walls)
			hits := 0
			for range 5000 {
				rng = splitmix(rng)
				// Near the walls: a point on a random wall, moved up to 8 m.
				ws := s.RoundWalls()
				w := ws[rng%uint64(len(ws))]
				x := min(max(w.X1+int64(rng>>10%16)*Meter/2-4*Meter, 0), a)
				y := min(max(w.Y1+int64(rng>>20%16)*Meter/2-4*Meter, 0), a)
				dir, self := uint8(rng>>30&3), int(rng>>32%8)
				l, r := s.sensors(x, y, dir, self)
				bl, br := bruteSensors(s, x, y, dir, self)
				if l != bl || r != br {
					t.Fatalf("sensors at (%d, %d) dir %d: %+v %+v, every wall: %+v %+v", x, y, dir, l, r, bl, br)
				}
				rg := int64(rng>>40%20+1) * Meter
				if got, want := s.ray(x, y, dir, rg, self), bruteRay(s, x, y, dir, rg, self); got != want {
					t.Fatalf("ray from (%d, %d) dir %d range %d: %+v, every wall: %+v", x, y, dir, rg, got, want)
				}
				if l.gap != noHit && l.owner >= 0 {
					hits++
				}
			}
			if hits < 250 {
				t.Fatalf("%d walls: only %d sensor hits on walls: the test does not exercise the search", walls, hits)
			}
		}
	})
	t.Run("ties", func(t *testing.T) {
		// Walls on a 1 m lattice: many are equally near a query point, and
		// which of them a query reports depends on the order it meets them.
		s := playing(t, testConfig(), 8)
		rng := uint64(3)
		at := func(k uint64) int64 { return int64(k%40+230) * Meter }
		for s.WallCount() < 3000 {
			rng = splitmix(rng)
			x, y, l := at(rng), at(rng>>20), int64(rng>>40%6+1)*Meter
			w := Wall{X1: x, Y1: y, X2: x + l, Y2: y, Owner: uint8(rng % 8), T1: int64(rng >> 50 % 100), T2: 100 + int64(rng>>56%100)}
			if rng&(1<<63) != 0 {
				w.X2, w.Y2 = x, y+l
			}
			s.addWall(w)
		}
		// Cycles among them, dying and blowing holes in them, and cycles
		// riding on along their edges, laying open walls beside them.
		for i := range 4 {
			place(s, i, 231+int64(i)*10, 231+int64(i)*10, uint8(i%4), 20*Meter)
		}
		place(s, 4, 232, 229, 0, 20*Meter)
		place(s, 5, 240, 228, 0, 20*Meter)
		place(s, 6, 229, 232, 1, 20*Meter)
		place(s, 7, 228, 240, 1, 20*Meter)
		steps(s, 30)
		for i := 4; i < 8; i++ {
			if !s.c.Cycles[i].Alive {
				t.Fatalf("cycle %d died: the test does not exercise open walls", i)
			}
		}
		if !s.holed() {
			t.Fatal("no holes: the test does not exercise them")
		}
		ordered := 0
		for range 4000 {
			rng = splitmix(rng)
			x, y := at(rng)-2*Meter+int64(rng>>8%2)*Meter/2, at(rng>>20)-2*Meter
			dir, self := uint8(rng>>30&3), int(rng>>32%8)
			l, r := s.sensors(x, y, dir, self)
			bl, br := bruteSensors(s, x, y, dir, self)
			if l != bl || r != br {
				t.Fatalf("sensors at (%d, %d) dir %d: %+v %+v, every wall in grid order: %+v %+v", x, y, dir, l, r, bl, br)
			}
			rg := int64(rng>>40%20+1) * Meter
			got, want := s.ray(x, y, dir, rg, self), bruteRay(s, x, y, dir, rg, self)
			if got != want {
				t.Fatalf("ray from (%d, %d) dir %d range %d: %+v, every wall in grid order: %+v", x, y, dir, rg, got, want)
			}
			if il, ir := indexOrderSensors(s, x, y, dir, self); il != l || ir != r {
				ordered++
			}
		}
		if ordered < 200 {
			t.Fatalf("only %d queries of 4000 depend on the order: the test does not exercise it", ordered)
		}
	})
	t.Run("crossings", func(t *testing.T) {
		s := playing(t, testConfig(), MaxPlayers)
		rng := uint64(7)
		found := 0
		for round := range 2000 {
			// Moves packed into a few metres so that many of them meet; some
			// seats idle, some moves of length zero.
			for i := range s.moves {
				rng = splitmix(rng)
				c := &s.c.Cycles[i]
				c.Dir = uint8(rng & 3)
				x0, y0 := int64(rng>>8%6)*Meter/2, int64(rng>>16%6)*Meter/2
				l := int64(rng>>24%5) * Meter / 2
				fx, fy, _, _ := frame(c.Dir)
				s.moves[i] = move{X0: x0, Y0: y0, X1: x0 + fx*l, Y1: y0 + fy*l, Len: l, active: rng>>40%4 != 0}
			}
			var want []crossing
			for a := range s.moves {
				for b := a + 1; b < len(s.moves); b++ {
					if s.moves[a].active && s.moves[b].active {
						if x, ok := s.cross(a, b); ok {
							want = append(want, x)
						}
					}
				}
			}
			s.findCrossings()
			if !slices.Equal(s.crossings, want) {
				t.Fatalf("world %d: found %v, all pairs find %v", round, s.crossings, want)
			}
			found += len(want)
		}
		if found < 2000 {
			t.Fatalf("only %d crossings in 2000 worlds: the test does not exercise the search", found)
		}
	})
}

// queryWorld is a round in play with 8 cycles spread over the arena, moving,
// and about `walls` random walls of theirs (some blown open by explosions
// when cycles die).
func queryWorld(t testing.TB, walls int) *State {
	s := playing(t, testConfig(), 8)
	rng := uint64(walls)
	a := s.Arena()
	for s.WallCount() < walls {
		rng = splitmix(rng)
		x, y := int64(rng%uint64(a-2*Meter))+Meter, int64((rng>>20)%uint64(a-2*Meter))+Meter
		l := int64((rng>>40)%30+2) * Meter
		w := Wall{X1: x, Y1: y, X2: min(x+l, a-Meter), Y2: y, Owner: uint8(rng % 8), T1: s.c.Tick, T2: s.c.Tick}
		if rng&(1<<63) != 0 {
			w.X2, w.Y2 = x, min(y+l, a-Meter)
		}
		s.addWall(w)
	}
	for range 30 {
		s.Step(nil)
	}
	return s
}

// gridOrder returns the indices in RoundWalls of the walls that a search of
// the grid's cells over the box [x0,x1] x [y0,y1] meets, in the order it
// meets them, worked out from the walls' ends alone: cell by cell, rows of
// cells upward and each row left to right, a wall where it is first met, the
// walls of a cell in the order they were laid. Between walls equally near,
// the searches keep the first they meet, so this order is part of the rules.
func gridOrder(s *State, x0, y0, x1, y1 int64) []int {
	cx0, cy0, cx1, cy1 := s.grid.cellRange(x0, y0, x1, y1)
	type met struct{ cell, idx int64 }
	var ms []met
	for i, w := range s.RoundWalls() {
		wx0, wy0, wx1, wy1 := s.grid.span(&w)
		if max(wx0, cx0) > min(wx1, cx1) || max(wy0, cy0) > min(wy1, cy1) {
			continue
		}
		ms = append(ms, met{max(wy0, cy0)*s.grid.n + max(wx0, cx0), int64(i)})
	}
	slices.SortFunc(ms, func(a, b met) int { return cmp.Or(cmp.Compare(a.cell, b.cell), cmp.Compare(a.idx, b.idx)) })
	order := make([]int, len(ms))
	for k, m := range ms {
		order[k] = int(m.idx)
	}
	return order
}

// bruteSensors is State.sensors over every wall the grid search meets, in
// gridOrder, without the grid's lists or any pruning.
func bruteSensors(s *State, x, y int64, dir uint8, self int) (left, right hit) {
	x0, y0, x1, y1 := s.sensorBox(x, y, dir)
	ws := s.RoundWalls()
	var order []*Wall
	for _, i := range gridOrder(s, x0, y0, x1, y1) {
		order = append(order, &ws[i])
	}
	return senseEvery(s, x, y, dir, self, order)
}

// bruteRay is State.ray over every wall the grid search meets, in
// gridOrder, without the grid's lists or any pruning.
func bruteRay(s *State, x, y int64, dir uint8, rng int64, self int) hit {
	var q rayCast
	s.startRay(&q, x, y, dir, rng, self)
	q.blasts = s.blastsNear(-s.Arena(), -s.Arena(), 2*s.Arena(), 2*s.Arena()) // all of them
	ws := s.RoundWalls()
	x0, y0, x1, y1 := s.rayBox(x, y, dir, rng)
	// Met in gridOrder, a wall as near as the best is never first.
	q.cx0, q.cy0, _, _ = s.grid.cellRange(x0, y0, x1, y1)
	for _, i := range gridOrder(s, x0, y0, x1, y1) {
		s.rayWall(&ws[i], &q, int32(s.c.RoundWallStart+int64(i)))
	}
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive && i != self {
			w := c.openWall(i, s.c.Tick)
			s.rayWall(&w, &q, int32(-1-i))
		}
	}
	return q.best
}

// indexOrderSensors is State.sensors over every wall of the round in the
// order they were laid: where it differs from bruteSensors, the order decided.
func indexOrderSensors(s *State, x, y int64, dir uint8, self int) (left, right hit) {
	ws := s.RoundWalls()
	var order []*Wall
	for i := range ws {
		order = append(order, &ws[i])
	}
	return senseEvery(s, x, y, dir, self, order)
}

// senseEvery is State.sensors as written in the cycle's frame, over the
// given walls in that order and then the open segments, looking up holes at
// every point met: the straightforward form that the search must equal.
func senseEvery(s *State, x, y int64, dir uint8, self int, walls []*Wall) (left, right hit) {
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	near := s.cfg.WallNear
	left, right = s.rimSensors(x, y, dir)
	// meet records a sensor's hit on w at local (f, l), t across, unless it
	// falls in a hole or on a part of w no longer standing.
	meet := func(w *Wall, f, l, t int64, perp bool, side *hit) {
		v, ok := s.visible(*w)
		if !ok {
			return
		}
		hx, hy := f*fx+l*lx, f*fy+l*ly
		if hx < min(v.X1, v.X2) || hx > max(v.X1, v.X2) || hy < min(v.Y1, v.Y2) || hy > max(v.Y1, v.Y2) {
			return
		}
		odo := v.Odo + abs(hx-v.X1) + abs(hy-v.Y1)
		if s.nearBlast(hx, hy, hx, hy) {
			if _, ok := s.solid(v.Owner, odo, 0, 0, 0); !ok {
				return
			}
		}
		side.gap, side.owner, side.built, side.perp = t, int(v.Owner), v.builtAt(odo), perp
	}
	// sense: a parallel wall where the ray reaches its line, a wall across
	// where the ray reaches its line and the wall spans the ray's point
	// there. Equal distances keep the parallel wall, then the first met.
	sense := func(w *Wall) {
		f1, l1 := w.X1*fx+w.Y1*fy, w.X1*lx+w.Y1*ly
		f2, l2 := w.X2*fx+w.Y2*fy, w.X2*lx+w.Y2*ly
		if l1 == l2 { // parallel: the ray meets its line at t = |d|, at f = pf - t
			d := l1 - pl
			side := &left
			if d < 0 {
				d, side = -d, &right
			}
			if d == 0 || d > near || d > side.gap || d == side.gap && !side.perp {
				return
			}
			if at := pf - d; at < min(f1, f2) || at > max(f1, f2) {
				return
			}
			meet(w, pf-d, l1, d, false, side)
			return
		}
		// across: the ray meets its line at t = pf - f1, at l = pl +- t
		t := pf - f1
		if t <= 0 || t > near {
			return
		}
		for k, side := range [2]*hit{&left, &right} {
			l := pl + t - 2*t*int64(k)
			if t >= side.gap || l < min(l1, l2) || l > max(l1, l2) {
				continue
			}
			meet(w, f1, l, t, true, side)
		}
	}
	for _, w := range walls {
		sense(w)
	}
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive && i != self {
			w := c.openWall(i, s.c.Tick)
			sense(&w)
		}
	}
	return left, right
}
