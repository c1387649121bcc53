package sim

import (
	"testing"
	"time"
)

// TestSlantHitRoundedPoint: where a ray along an axis of n meets a segment,
// the point the simulation puts a cycle at (the parameter returned, then
// each coordinate rounded down, as along does) has not crossed the
// segment's line. Rounding the parameter down alone is not enough off the
// axes: rounding a coordinate down can move the point across a line that
// runs near the direction (failed before: thousands of the 20,000 rays
// met put the point strictly across).
func TestSlantHitRoundedPoint(t *testing.T) {
	rng, met, across := uint64(5), 0, 0
	r := func(m int64) int64 { rng = splitmix(rng); return int64(rng % uint64(m)) }
	for i := 0; i < 20_000; i++ {
		n := []int{3, 5, 6, 8, 12, 16, 40}[r(7)]
		ux, uy := AxisVector(n, int(r(int64(n))))
		px, py := 200*Meter+r(Meter), 200*Meter+r(Meter)
		// A segment across the ray's line some metres on, at any angle.
		d := Meter + r(50*Meter)
		cx, cy := px+d*ux/AxisScale, py+d*uy/AxisScale
		wx, wy := r(20*Meter)-10*Meter, r(20*Meter)-10*Meter
		ax, ay, bx, by := cx-wx, cy-wy, cx+wx+r(3), cy+wy+r(3)
		t0 := r(Meter / 2)
		tt, ok := slantHit(px, py, ux, uy, AxisScale*AxisScale, ax, ay, bx, by, t0, false, true)
		if !ok {
			continue
		}
		met++
		side := func(x, y int64) int { return mulWide(bx-ax, y-ay).sub(mulWide(by-ay, x-ax)).sign() }
		x, y := px+(tt*ux)>>24, py+(tt*uy)>>24
		if s0, s := side(px, py), side(x, y); s0 != 0 && s == -s0 {
			if across++; across > 3 {
				continue
			}
			t.Errorf("ray %d of %d axes from %d,%d (t0 %d) meets %d,%d-%d,%d at t %d: the point %d,%d is across its line",
				i, n, px, py, t0, ax, ay, bx, by, tt, x, y)
		}
	}
	if across > 0 {
		t.Errorf("%d of the %d rays met put the point across", across, met)
	}
	if met < 10_000 {
		t.Fatalf("only %d of 20,000 rays met their segment", met)
	}
}

// TestSlantedGrindStaysInside: a cycle on a map of 6 axes grinding into a
// rim wall at 55 degrees (5 degrees off its heading of 60) is held on the
// arena's side of it to the micrometre, and a turn to the left after that
// (to 120 degrees, away from the wall's inside) meets the wall. Before,
// for some starting points the rounded position came to rest a fraction of
// a micrometre across the rim's line, and the left turn rode out of the
// arena through the rim (13.6 m out after half a second, alive).
func TestSlantedGrindStaysInside(t *testing.T) {
	u := int64(Unit)
	m := &Map{Axes: 6, Spawns: []MapSpawn{{X: 300 * u, Y: 50 * u, Dir: 0}},
		Walls: []MapWall{{0, 0, 500 * u, 0}, {500 * u, 0, 500 * u, 500 * u}, {500 * u, 500 * u, 350 * u, 500 * u}, {350 * u, 500 * u, 0, 0}}}
	inside := func(x, y int64) int64 { // > 0 on the arena's side of the rim from (0,0) to (350 m, 500 m)
		return floorDiv(mulWide(500*Meter, x).sub(mulWide(350*Meter, y)), 610*Meter)
	}
	turned := 0
	for off := int64(0); off < 40; off++ {
		cfg := testConfig()
		cfg.Map = m
		cfg.Rubber = 100 * Meter // grinds until it is micrometres from the wall
		s := playing(t, cfg, 2)
		place(s, 1, 450, 50, 3, 20*Meter)
		place(s, 0, 200, 280, 1, 30*Meter)
		c := &s.c.Cycles[0]
		c.X += off * 7919
		c.TurnX = c.X
		for k := 0; k < 400 && c.Alive; k++ {
			s.Step(nil)
			if c.Alive && inside(c.X, c.Y) < 0 || mulWide(500*Meter, c.X).sub(mulWide(350*Meter, c.Y)).sign() < 0 {
				t.Fatalf("start %d um east: tick %d, cycle 0 at %d,%d is across the rim (alive %v)", off*7919, k, c.X, c.Y, c.Alive)
			}
			if c.Alive && c.RubberUsed > 8*Meter { // micrometres from the wall: turn away from the arena's side
				s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
				steps(s, 60)
				turned++
				if c.Alive || inside(c.X, c.Y) < 0 {
					t.Fatalf("start %d um east: after a left turn into the rim, cycle 0 at %d,%d, %d um inside, alive %v", off*7919, c.X, c.Y, inside(c.X, c.Y), c.Alive)
				}
				break
			}
		}
	}
	if turned < 30 {
		t.Fatalf("only %d of 40 cycles ground into the rim and turned", turned)
	}
}

// TestSlantedOwnTrailAfterTurn: a cycle on a map of 6 axes grinding into an
// older trail of its own at 55 degrees, then turning left across it, dies
// on it. Only the wall ending where a leg starts is the corner just left;
// before, any wall of one's own met where the ray starts counted as that
// corner, and 103 of these 200 cycles rode through their own trail.
func TestSlantedOwnTrailAfterTurn(t *testing.T) {
	inside := func(x, y int64) int64 { // > 0 below-right of the trail's line
		return floorDiv(mulWide(500*Meter, x).sub(mulWide(350*Meter, y)), 610*Meter)
	}
	turned := 0
	for off := int64(0); off < 200; off++ {
		s := onAxes(t, 6, 2)
		s.cfg.Rubber = 100 * Meter // grinds until it is micrometres from the trail
		s.c.Cycles[0].Odo = 1000 * Meter
		s.addWall(Wall{X1: 140 * Meter, Y1: 200 * Meter, X2: 280 * Meter, Y2: 400 * Meter, Owner: 0})
		place(s, 1, 450, 50, 3, 20*Meter)
		place(s, 0, 200, 280, 1, 30*Meter)
		c := &s.c.Cycles[0]
		c.X += off * 7919
		c.TurnX = c.X
		for k := 0; k < 400 && c.Alive; k++ {
			s.Step(nil)
			if c.Alive && c.RubberUsed > 8*Meter {
				turned++
				s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
				steps(s, 60)
				if c.Alive || inside(c.X, c.Y) < 0 {
					t.Fatalf("start %d um east: after a left turn into its own trail, cycle 0 at %d,%d, %d um inside, alive %v", off*7919, c.X, c.Y, inside(c.X, c.Y), c.Alive)
				}
				break
			}
		}
	}
	if turned < 190 {
		t.Fatalf("only %d of 200 cycles ground into their trail and turned", turned)
	}
}

// TestSlantedDecodeLeg: a snapshot whose cycle is further along its leg
// (Odo - SegOdo, where the slanted geometry puts it on the line from
// TurnX, TurnY) than any leg in the arena reaches is refused. Before, such
// a state decoded, and its first steps put the cycle where the next
// snapshot of it was refused as impossible.
func TestSlantedDecodeLeg(t *testing.T) {
	for _, c := range []struct{ odo, seg int64 }{{1 << 62, 0}, {1<<63 - 1, 0}, {1 << 40, 0}, {0, 1}, {5 * Meter, -(1 << 62)}, {-(1 << 62), 1 << 62}} {
		s := onAxes(t, 6, 2)
		place(s, 0, 100, 100, 1, 30*Meter)
		s.c.Cycles[0].Odo, s.c.Cycles[0].SegOdo = c.odo, c.seg
		if _, err := UnmarshalState(s.AppendBinary(nil)); err == nil {
			t.Errorf("Odo %d, SegOdo %d: decoded", c.odo, c.seg)
		}
	}
	s := onAxes(t, 6, 2)
	place(s, 0, 100, 100, 1, 30*Meter)
	s.c.Cycles[0].Odo = 1 << 40 // a long ride, on a leg of 300 m
	s.c.Cycles[0].SegOdo = 1<<40 - 300*Meter
	if _, err := UnmarshalState(s.AppendBinary(nil)); err != nil {
		t.Errorf("a leg of 300 m: %v", err)
	}
}

// TestSlantedWallGridCost: a slanted wall goes into the grid's cells at a
// cost of the cells it runs through, not of its box: a snapshot of 200
// walls corner to corner across an arena of 10 km (1,250 x 1,250 cells)
// decodes in well under 2 s (a few tens of milliseconds). Before, every
// cell of each wall's box was tested: 47 ms a wall, about 10 s in all,
// and a hostile snapshot of 64 KB could hold some 2,000 of them.
func TestSlantedWallGridCost(t *testing.T) {
	cfg := testConfig()
	cfg.Map = axesMap(8)
	cfg.ArenaSize = 5000 * Meter
	set := cfg.MP
	set.SizeFactor = 2 // 10 km
	cfg.Both(set)
	s := playing(t, cfg, 2)
	a := s.Arena()
	for i := int64(0); i < 200; i++ {
		s.walls = append(s.walls, Wall{X1: 0, Y1: i * Meter, X2: a - i*Meter, Y2: a, Owner: 1})
		s.c.WallCount++
	}
	b := s.AppendBinary(nil)
	start := time.Now()
	d, err := UnmarshalState(b)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("decoding 200 walls across 10 km took %v", took)
	}
	// The cells listing a wall are those it runs through, as before: the
	// first walls here, and walls at any angle, steep and shallow.
	rng := uint64(11)
	for i := 0; i < 200; i++ {
		rng = splitmix(rng)
		x1, y1 := int64(rng%uint64(a)), int64(rng>>20%uint64(a))
		x2, y2 := min(max(x1+int64(rng>>40%1000)*Meter-500*Meter, 0), a), min(max(y1+int64(rng>>50%1000)*Meter-500*Meter, 0), a)
		if i%4 == 0 {
			y2 = min(y1+int64(i), a) // shallow: micrometres of rise over hundreds of metres
		}
		if x1 != x2 && y1 != y2 {
			d.addWall(Wall{X1: x1, Y1: y1, X2: x2, Y2: y2, Owner: 1})
		}
	}
	g := &d.grid
	for i := range d.walls {
		if i >= 3 && i < 200 {
			continue
		}
		w := &d.walls[i]
		cx0, cy0, cx1, cy1 := g.span(w)
		for cy := cy0; cy <= cy1; cy++ {
			for cx := cx0; cx <= cx1; cx++ {
				listed := false
				for _, e := range g.cells[cy*g.n+cx] {
					listed = listed || int64(e.idx) == d.wallBase+int64(i)
				}
				if listed != g.crosses(w, cx, cy) {
					t.Fatalf("wall %d in cell %d,%d: listed %v, runs through it %v", i, cx, cy, listed, !listed)
				}
			}
		}
	}
}
