package sim

import (
	"bytes"
	"testing"
)

// axesMap is Armagetron's square (500 x 500 map units, a metre each at
// testConfig's size) played on n axes, with two spawn points facing each
// other across the middle.
func axesMap(n int64) *Map {
	u := int64(Unit)
	m := &Map{Axes: n, Spawns: []MapSpawn{{X: 100 * u, Y: 100 * u, Dir: 0}, {X: 400 * u, Y: 400 * u, Dir: uint8(n / 2)}}}
	pts := [][2]int64{{0, 0}, {0, 500}, {500, 500}, {500, 0}, {0, 0}}
	for k := 1; k < len(pts); k++ {
		m.Walls = append(m.Walls, MapWall{pts[k-1][0] * u, pts[k-1][1] * u, pts[k][0] * u, pts[k][1] * u})
	}
	return m
}

// onAxes returns a state in play on axesMap(n) with players cycles.
func onAxes(t testing.TB, n int64, players int) *State {
	t.Helper()
	cfg := testConfig()
	cfg.Map = axesMap(n)
	return playing(t, cfg, players)
}

// TestAxisVectors checks the direction table against cos and sin of 2 pi k/n
// x 2^24, rounded (worked out apart, with Python's math module): Armagetron
// spaces a grid's windings evenly (eAxis::ComputeWinding), Webtron numbers
// them counter-clockwise from east. Four give frame's axes exactly; the
// diagonals of eight are exactly alike in x and y.
func TestAxisVectors(t *testing.T) {
	for _, c := range []struct {
		n, k int
		x, y int64
	}{
		{4, 0, AxisScale, 0}, {4, 1, 0, AxisScale}, {4, 2, -AxisScale, 0}, {4, 3, 0, -AxisScale},
		{8, 1, 11863283, 11863283}, {8, 3, -11863283, 11863283}, {8, 5, -11863283, -11863283}, {8, 7, 11863283, -11863283},
		{6, 1, 8388608, 14529495}, {6, 2, -8388608, 14529495}, {6, 4, -8388608, -14529495}, {6, 5, 8388608, -14529495},
		{40, 1, 16570661, 2624535}, {40, 3, 14948609, 7616697}, {40, 7, 7616697, 14948609}, {40, 5, 11863283, 11863283},
		{3, 1, -8388608, 14529495}, {1, 0, AxisScale, 0},
	} {
		if x, y := AxisVector(c.n, c.k); x != c.x || y != c.y {
			t.Errorf("AxisVector(%d, %d) = %d, %d; want %d, %d", c.n, c.k, x, y, c.x, c.y)
		}
	}
	for _, n := range []int{5, 7, 8, 12, 40, 255, 256} {
		for k := 0; k < n; k++ {
			x, y := AxisVector(n, k)
			if d := x*x + y*y - AxisScale*AxisScale; d < -2*AxisScale || d > 2*AxisScale {
				t.Errorf("AxisVector(%d, %d) = %d, %d: length^2 off by %d", n, k, x, y, d)
			}
		}
	}
	// eAxis::NearestWinding: the nearest; between two as near, the first
	// winding (south, west, north, east on four), Webtron's larger number.
	for _, c := range []struct {
		n      int
		dx, dy int64
		want   uint8
	}{
		{8, 10, 9, 1}, {8, 10, 3, 0}, {8, -1, 0, 4}, {8, 1, -1, 7}, {6, 1, 1, 1}, {6, -1, 0, 3},
		{4, 1, 1, 1}, {4, 1, -1, 3}, {40, 1, 1, 5},
	} {
		if got := NearestAxis(c.n, c.dx, c.dy); got != c.want {
			t.Errorf("NearestAxis(%d, %d, %d) = %d, want %d", c.n, c.dx, c.dy, got, c.want)
		}
	}
}

// TestEightAxesTurn: on a map of 8 axes (inaktek's) a turn goes 45
// degrees, to the next winding (eAxis::Turn from gCycleMovement::DoTurn),
// and the trail follows: the leg before it a wall along the old axis
// ending at the corner, the new leg exactly diagonal from there.
func TestEightAxesTurn(t *testing.T) {
	s := onAxes(t, 8, 1)
	place(s, 0, 100, 100, 0, 20*Meter)
	steps(s, 60)
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
	steps(s, 120)
	c := s.Cycle(0)
	if !c.Alive || c.Dir != 1 {
		t.Fatalf("after a left turn: alive %v dir %d, want dir 1 (north-east)", c.Alive, c.Dir)
	}
	walls := s.RoundWalls()
	w := walls[len(walls)-1]
	if w.X1 != 100*Meter || w.Y1 != 100*Meter || w.Y2 != 100*Meter || w.X2 != c.TurnX || c.TurnY != 100*Meter || w.X2 < 110*Meter {
		t.Fatalf("the leg east: %+v, corner %d,%d", w, c.TurnX, c.TurnY)
	}
	dx, dy, d := c.X-c.TurnX, c.Y-c.TurnY, c.Odo-c.SegOdo
	if dx != dy || dx != d*11863283>>24 || d < 15*Meter {
		t.Fatalf("the leg north-east from the corner: %d, %d after %d um, want both %d", dx, dy, d, d*11863283>>24)
	}
	// Seven more left turns come back east, each a wall of its own (the
	// last leg short: seven equal legs of an octagon end on the first).
	for k := 0; k < 7; k++ {
		s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: uint32(2 + k)}})
		steps(s, 30-28*(k/6))
	}
	if c := s.Cycle(0); !c.Alive || c.Dir != 0 || len(s.RoundWalls()) != len(walls)+7 {
		t.Fatalf("after eight left turns: alive %v dir %d, %d walls; want east, %d walls", c.Alive, c.Dir, len(s.RoundWalls()), len(walls)+7)
	}
	// A right turn from east goes to south-east, 7.
	s.Step([]Event{{Kind: EvTurnRight, Player: 0, Seq: 20}})
	steps(s, 30) // after the turn delay
	if c := s.Cycle(0); c.Dir != 7 {
		t.Fatalf("a right turn from east: dir %d, want 7 (south-east)", c.Dir)
	}
}

// TestSixAxesTurn: on 6 axes a turn goes 60 degrees; the leg rises by
// sin 60 x its length and moves by cos 60, and six turns to one side come
// back to the first axis.
func TestSixAxesTurn(t *testing.T) {
	s := onAxes(t, 6, 1)
	place(s, 0, 100, 100, 0, 20*Meter)
	steps(s, 30)
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
	steps(s, 60)
	c := s.Cycle(0)
	d := c.Odo - c.SegOdo
	if c.Dir != 1 || c.X-c.TurnX != d*8388608>>24 || c.Y-c.TurnY != d*14529495>>24 || d < 5*Meter {
		t.Fatalf("60 degrees left: dir %d, leg %d, %d after %d um", c.Dir, c.X-c.TurnX, c.Y-c.TurnY, d)
	}
	for k := 0; k < 5; k++ {
		s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: uint32(2 + k)}})
		steps(s, 30)
	}
	if c := s.Cycle(0); !c.Alive || c.Dir != 0 {
		t.Fatalf("after six left turns: alive %v dir %d, want east", c.Alive, c.Dir)
	}
}

// TestTwoAxesTurnBack: on a map of 2 axes a turn heads the cycle back
// along its own trail, and it dies on it at once rather than ride it.
func TestTwoAxesTurnBack(t *testing.T) {
	s := onAxes(t, 2, 1)
	place(s, 0, 100, 100, 0, 20*Meter)
	steps(s, 60)
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
	steps(s, 2)
	if c := s.Cycle(0); c.Alive || c.Cause != CauseOwnWall || c.Dir != 1 || c.X != c.TurnX {
		t.Fatalf("turned back on 2 axes: alive %v cause %v dir %d at %d (corner %d)", c.Alive, c.Cause, c.Dir, c.X, c.TurnX)
	}
}

// TestDiagonalTrailDeath rides cycles into trails at 45 and 60 degrees.
// Armagetron's cycle stops at a wall while its rubber lasts and dies on
// reaching it once the rubber is used up (gCycleMovement::TimestepCore,
// 0.2.9.2.3 gCycleMovement.cpp line 3928); the point is where the lines
// meet: a cycle riding north at x = 120 m into the diagonal y = x dies at
// (120, 120) m; one riding north-east from (150, 100) m into the trail along
// x = 200 m dies at (200, 150) m, not beyond; on 6 axes one riding at 60
// degrees from (150, 50) m into the trail along y = 100 m dies at y = 100 m,
// x = 150 + 50/tan 60 = 178.87 m.
func TestDiagonalTrailDeath(t *testing.T) {
	s := onAxes(t, 8, 2)
	place(s, 0, 100, 100, 1, 20*Meter) // north-east along y = x
	place(s, 1, 120, 50, 2, 20*Meter)  // north
	untilDead(s, 1, 8*120)
	a, b := s.Cycle(0), s.Cycle(1)
	if !a.Alive || b.Alive || b.Cause != CauseWall || b.Killer != 0 || b.X != 120*Meter || b.Y != 120*Meter {
		t.Fatalf("north into the diagonal: a alive %v; b alive %v cause %v killer %d at %d,%d; want dead at 120,120 m", a.Alive, b.Alive, b.Cause, b.Killer, b.X, b.Y)
	}

	s = onAxes(t, 8, 2)
	place(s, 0, 200, 100, 2, 20*Meter) // north along x = 200
	place(s, 1, 150, 100, 1, 20*Meter) // north-east, 50 m west of it
	untilDead(s, 1, 8*120)
	a, b = s.Cycle(0), s.Cycle(1)
	if !a.Alive || b.Alive || b.Cause != CauseWall || b.X > 200*Meter || b.X < 200*Meter-2 || b.X-150*Meter != b.Y-100*Meter {
		t.Fatalf("north-east into x = 200 m: a alive %v; b alive %v cause %v at %d,%d; want dead at 200,150 m", a.Alive, b.Alive, b.Cause, b.X, b.Y)
	}

	s = onAxes(t, 6, 2)
	place(s, 0, 140, 100, 0, 20*Meter) // east along y = 100
	place(s, 1, 150, 50, 1, 20*Meter)  // at 60 degrees
	untilDead(s, 1, 8*120)
	a, b = s.Cycle(0), s.Cycle(1)
	if !a.Alive || b.Alive || b.Cause != CauseWall || b.Y > 100*Meter || b.Y < 100*Meter-2 || b.X < 178_867_000 || b.X > 178_868_000 {
		t.Fatalf("60 degrees into y = 100 m: a alive %v; b alive %v cause %v at %d,%d; want dead at 178.87,100 m", a.Alive, b.Alive, b.Cause, b.X, b.Y)
	}
}

// untilDead steps s until cycle id dies, n ticks at most: the round that
// ends with it is not played on (the next would spawn it anew).
func untilDead(s *State, id, n int) {
	for k := 0; k < n && s.c.Cycles[id].Alive; k++ {
		s.Step(nil)
	}
}

// TestDiagonalCrossing: two cycles whose diagonal paths cross within one
// tick. Arriving at once (mirror images) both die there, as two cycles
// meeting at one instant on the axes do, and so do two meeting head-on on
// one diagonal; the one arriving later dies at the other's trail, where the
// lines meet (x + y = 290 m meets y = x at 145 m).
func TestDiagonalCrossing(t *testing.T) {
	s := onAxes(t, 8, 2)
	place(s, 0, 100, 100, 1, 20*Meter) // north-east
	place(s, 1, 200, 100, 3, 20*Meter) // north-west: they meet at (150, 150)
	untilDead(s, 1, 5*120)
	a, b := s.Cycle(0), s.Cycle(1)
	if a.Alive || b.Alive || a.Cause != CauseCollision || b.Cause != CauseCollision || a.X != b.X || a.Y != b.Y ||
		abs(a.X-150*Meter) > 2 || abs(a.Y-150*Meter) > 2 {
		t.Fatalf("mirror images: a %v %v at %d,%d; b %v %v at %d,%d; want both dead at 150,150 m", a.Alive, a.Cause, a.X, a.Y, b.Alive, b.Cause, b.X, b.Y)
	}

	s = onAxes(t, 8, 2)
	place(s, 0, 100, 100, 1, 20*Meter) // north-east
	place(s, 1, 200, 200, 5, 20*Meter) // south-west, head-on on y = x
	untilDead(s, 1, 5*120)
	a, b = s.Cycle(0), s.Cycle(1)
	if a.Alive || b.Alive || a.Cause != CauseCollision || b.Cause != CauseCollision || abs(a.X-150*Meter) > 5 || a.X != b.X || a.X != a.Y || b.X != b.Y {
		t.Fatalf("head-on on a diagonal: a %v %v at %d,%d; b %v %v at %d,%d; want both dead at 150,150 m", a.Alive, a.Cause, a.X, a.Y, b.Alive, b.Cause, b.X, b.Y)
	}

	s = onAxes(t, 8, 2)
	place(s, 0, 100, 100, 1, 20*Meter) // north-east: at (145, 145) after 63.6 m
	place(s, 1, 200, 90, 3, 20*Meter)  // north-west: there after 77.8 m
	untilDead(s, 1, 8*120)
	a, b = s.Cycle(0), s.Cycle(1)
	if !a.Alive || b.Alive || b.Cause != CauseWall || b.Killer != 0 || b.X < 145*Meter || b.X > 145*Meter+2 || b.X+b.Y < 290*Meter-2 || b.X+b.Y > 290*Meter {
		t.Fatalf("the later one: a alive %v; b alive %v cause %v killer %d at %d,%d; want dead at 145,145 m", a.Alive, b.Alive, b.Cause, b.Killer, b.X, b.Y)
	}
}

// TestSlantedSensors: the rear sensors at 45 degrees of a cycle riding
// north-east meet a trail along the same diagonal side-on, their parameter
// the distance across (2/sqrt 2 m for a wall 2 m away along x), and a wall
// across the driving direction (north-west) as across: no acceleration.
func TestSlantedSensors(t *testing.T) {
	s := onAxes(t, 8, 2)
	s.addWall(Wall{X1: 100 * Meter, Y1: 100 * Meter, X2: 200 * Meter, Y2: 200 * Meter, Owner: 1})
	l, r := s.slantSensors(150*Meter, 148*Meter, 1, 0)
	if l.gap < 1_414_213 || l.gap > 1_414_214 || l.perp || l.owner != 1 || r.gap != noHit {
		t.Fatalf("north-east beside y = x: left %+v right %+v; want left 1.414 m side-on", l, r)
	}
	if left, right := s.Sensors(150*Meter, 148*Meter, 1, 0); left != l.gap || right != -1 {
		t.Fatalf("Sensors: %d, %d", left, right)
	}
	// North-west 2 m above the line: the wall lies across, behind; the
	// left ray (south) and the right one (east) meet it 1.414 across.
	l, r = s.slantSensors(148*Meter, 150*Meter, 3, 0)
	if l.gap != r.gap || l.gap < 1_414_213 || l.gap > 1_414_214 || !l.perp || !r.perp {
		t.Fatalf("north-west across y = x: left %+v right %+v; want both met across 1.414 m", l, r)
	}
	if left, right := s.Sensors(148*Meter, 150*Meter, 3, 0); left != -1 || right != -1 {
		t.Fatalf("Sensors across: %d, %d; a wall across accelerates nobody", left, right)
	}
	s.c.Cycles[0].Speed = 30 * Meter
	place(s, 0, 150, 148, 1, 30*Meter)
	s.accelerate(0)
	if v := s.Cycle(0).Speed; v <= 30*Meter {
		t.Errorf("a trail 1.4 m beside a cycle riding along it should accelerate it: %d", v)
	}
}

// TestSlantedRay: rays along the axes of 8 meet diagonal walls where the
// lines cross, rounded toward the start, and the square's rim.
func TestSlantedRay(t *testing.T) {
	s := onAxes(t, 8, 2)
	s.addWall(Wall{X1: 100 * Meter, Y1: 100 * Meter, X2: 200 * Meter, Y2: 200 * Meter, Owner: 1})
	for _, c := range []struct {
		x, y  int64
		dir   uint8
		want  int64
		owner int
	}{
		{150 * Meter, 100 * Meter, 2, 50 * Meter, 1},                               // north to (150, 150)
		{200 * Meter, 150 * Meter, 4, 50 * Meter, 1},                               // west to (150, 150)
		{300 * Meter, 100 * Meter, 1, 200 * Meter * 16777216 / 11863283, OwnerRim}, // north-east to the rim x = 500
	} {
		g, o := s.Ray(c.x, c.y, c.dir, 1000*Meter, 0)
		if o != c.owner || g < c.want-1 || g > c.want+1 {
			t.Errorf("ray from %d,%d dir %d: gap %d owner %d, want %d, %d", c.x, c.y, c.dir, g, o, c.want, c.owner)
		}
	}
}

// TestSlantedHole: a blast on a diagonal trail cuts the chord of its circle:
// 8 m of trail around the point nearest the blast, by the owner's
// odometer, and WallPieces draws the two standing pieces.
func TestSlantedHole(t *testing.T) {
	s := onAxes(t, 8, 2)
	s.addWall(Wall{X1: 100 * Meter, Y1: 100 * Meter, X2: 200 * Meter, Y2: 200 * Meter, Owner: 1})
	place(s, 1, 150, 150, 0, 20*Meter) // the owner explodes on its own trail
	s.kill(1, CauseWall)
	s.blast(150*Meter, 150*Meter, 4*Meter)
	hs := s.RoundHoles()
	// 50 sqrt 2 m = 70.710678 m along the wall, 4 m each way.
	if len(hs) != 1 || abs(hs[0].From-66_710_678) > 2 || abs(hs[0].To-74_710_678) > 2 || hs[0].Owner != 1 {
		t.Fatalf("holes %+v, want one from 66.71 m to 74.71 m", hs)
	}
	ps := s.WallPieces(s.RoundWalls()[0], nil)
	if len(ps) != 2 || ps[0].X1 != 100*Meter || ps[1].X2 != 200*Meter || abs(ps[0].X2-147_171_573) > 2 || ps[0].X2 != ps[0].Y2 || abs(ps[1].X1-152_828_427) > 2 {
		t.Fatalf("pieces %+v, want two with the hole between 147.17 and 152.83 m", ps)
	}
}

// TestSlantedEncodeRoundTrip plays churning rooms on maps of 8, 6 and 3
// axes, encoding and decoding every state as TestChurnEncodeRoundTrip does:
// the same hash, the same bytes re-encoded, and a decoded copy stepping on
// as the original. Cycles take directions beyond 3 and walls lie slanted.
func TestSlantedEncodeRoundTrip(t *testing.T) {
	slanted, dirs := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := churnConfig(seed)
		cfg.Map = axesMap([]int64{8, 6, 3}[seed-1])
		s, err := NewState(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		g := &churn{rng: seed, max: 4}
		var evs []Event
		var enc []byte
		var shadow *State
		for tick := 0; tick < 6000; tick++ {
			evs = g.tick(s, evs[:0])
			s.Step(evs)
			if shadow != nil {
				if shadow.Step(evs); shadow.Hash() != s.Hash() {
					t.Fatalf("seed %d tick %d: a decoded state parted from the original", seed, s.Tick())
				}
			}
			enc = s.AppendBinary(enc[:0])
			d, err := UnmarshalState(enc)
			if err != nil {
				t.Fatalf("seed %d tick %d: %v", seed, s.Tick(), err)
			}
			if d.Hash() != s.Hash() || !bytes.Equal(d.AppendBinary(nil), enc) {
				t.Fatalf("seed %d tick %d: decoded state differs", seed, s.Tick())
			}
			switch tick % 501 {
			case 0:
				shadow = d
			case 240:
				shadow = nil
			}
			for _, w := range s.RoundWalls() {
				if w.X1 != w.X2 && w.Y1 != w.Y2 {
					slanted++
				}
			}
			for i := range s.c.Cycles {
				if c := &s.c.Cycles[i]; c.Alive && c.Dir > 3 {
					dirs++
				}
			}
			checkSlanted(t, s)
		}
	}
	if slanted == 0 || dirs == 0 {
		t.Fatalf("%d slanted walls and %d cycles heading beyond 3 seen: the test should see many", slanted, dirs)
	}
	// A direction the map does not have is refused.
	s := onAxes(t, 6, 1)
	s.c.Cycles[0].Dir = 6
	if _, err := UnmarshalState(s.AppendBinary(nil)); err == nil {
		t.Fatal("a cycle heading 6 of 6 axes decoded")
	}
}

// checkSlanted fails if a living cycle's open segment crosses a standing
// wall of another's (pieces, holes left out) farther than rounding from its
// nose: a cycle held micrometres from a wall by rubber is at the wall's
// line within the rounding of its point (2 um), never through it.
func checkSlanted(t *testing.T, s *State) {
	t.Helper()
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.Alive {
			continue
		}
		if a := s.Arena(); c.X < 0 || c.X > a || c.Y < 0 || c.Y > a {
			t.Fatalf("tick %d: living cycle %d at %d,%d, outside the arena", s.c.Tick, i, c.X, c.Y)
		}
		open := c.openWall(i, s.c.Tick)
		var pieces []Wall
		check := func(w Wall) {
			pieces = s.WallPieces(w, pieces[:0])
			for k := range pieces {
				if crossesThrough(&open, &pieces[k]) {
					t.Fatalf("tick %d: living cycle %d's trail %+v crosses wall %+v", s.c.Tick, i, open, pieces[k])
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

// crossesThrough reports whether p's line properly crosses q (each
// segment's ends strictly on both sides of the other's line) with p's end
// more than 2 um across q's line.
func crossesThrough(p, q *Wall) bool {
	side := func(ax, ay, bx, by, x, y int64) int {
		return mulWide(bx-ax, y-ay).sub(mulWide(by-ay, x-ax)).sign()
	}
	if side(q.X1, q.Y1, q.X2, q.Y2, p.X1, p.Y1)*side(q.X1, q.Y1, q.X2, q.Y2, p.X2, p.Y2) >= 0 ||
		side(p.X1, p.Y1, p.X2, p.Y2, q.X1, q.Y1)*side(p.X1, p.Y1, p.X2, p.Y2, q.X2, q.Y2) >= 0 {
		return false
	}
	l := wallLen(q)
	across := abs(floorDiv(mulWide(q.X2-q.X1, p.Y2-q.Y1).sub(mulWide(q.Y2-q.Y1, p.X2-q.X1)), max(l, 1)))
	return across > 2
}

// BenchmarkStepAxes8 is BenchmarkStep's 8 cycles among 2,000 walls on a map
// of 8 axes, the walls 2-100 m long along all eight: the slanted
// geometry's cost.
func BenchmarkStepAxes8(b *testing.B) {
	cfg := testConfig()
	cfg.Map = axesMap(8)
	s := playing(b, cfg, 8)
	rng := uint64(99)
	a := s.Arena()
	for s.WallCount() < 2000 {
		rng = splitmix(rng)
		x, y := int64(rng%uint64(a-220*Meter))+110*Meter, int64((rng>>20)%uint64(a-220*Meter))+110*Meter
		l := int64((rng>>40)%100+2) * Meter // trails ride long legs on a map like inaktek
		ux, uy := AxisVector(8, int(rng>>50%8))
		s.addWall(Wall{X1: x, Y1: y, X2: x + l*ux/AxisScale, Y2: y + l*uy/AxisScale, Owner: uint8(rng % 8)})
	}
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
			evs = append(evs, Event{Kind: EvTurnLeft + EventKind(i/20%2), Player: uint8(i / 20 % 8), Seq: uint32(i)})
		}
		s.Step(evs)
	}
}

// TestSlantedRollbackSync is TestRollbackSync on a map of 8 axes: rolling
// back 7 ticks every tick and replaying them (slanted walls popped off the
// grid's cells and laid again) hashes as playing straight through.
func TestSlantedRollbackSync(t *testing.T) {
	const n, ticks = 7, 4000
	cfg := DefaultConfig()
	cfg.Map = axesMap(8)
	a, err := NewState(cfg, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewState(cfg, 42)
	gen := &randomEvents{rng: 42, players: 8}
	hist := make([][]Event, ticks)
	ring := make([]Snapshot, n+1)
	slanted := 0
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
		if w := a.RoundWalls(); len(w) > 0 && w[len(w)-1].X1 != w[len(w)-1].X2 && w[len(w)-1].Y1 != w[len(w)-1].Y2 {
			slanted++
		}
	}
	r, _ := a.Round()
	t.Logf("%d rounds, %d ticks with a slanted newest wall, %d walls now", r, slanted, a.WallCount())
	if r < 2 || slanted == 0 {
		t.Fatalf("%d rounds, %d ticks with a slanted newest wall: the test should cross round starts and slanted walls", r, slanted)
	}
}
