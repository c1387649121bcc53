package sim

import (
	"bytes"
	"math/big"
	"testing"

	"webtron/internal/xorshift"
)

// TestWide checks the 128-bit products and the rounded-down quotients of
// the map geometry against math/big.
func TestWide(t *testing.T) {
	r := xorshift.New(5)
	edge := []int64{0, 1, -1, 7, -7, 1 << 40, -(1 << 40), 99_999_999_999_999, -99_999_999_999_999, 1<<62 - 1}
	for i := 0; i < 20000; i++ {
		pick := func() int64 {
			if r.Uint64()%4 == 0 {
				return edge[r.Uint64()%uint64(len(edge))]
			}
			return int64(r.Uint64()>>20) - 1<<43
		}
		a, b, c, d, q := pick(), pick(), pick(), pick(), pick()
		if q == 0 {
			q = 3
		}
		w := mulWide(a, b).sub(mulWide(c, d))
		want := new(big.Int).Sub(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)), new(big.Int).Mul(big.NewInt(c), big.NewInt(d)))
		got := new(big.Int).Lsh(big.NewInt(w.hi), 64)
		got.Add(got, new(big.Int).SetUint64(w.lo))
		if got.Cmp(want) != 0 {
			t.Fatalf("%d*%d - %d*%d = %v, want %v", a, b, c, d, got, want)
		}
		if w.sign() != want.Sign() {
			t.Fatalf("sign of %v: %d", want, w.sign())
		}
		num, den := new(big.Int).Set(want), big.NewInt(q)
		if q < 0 {
			num.Neg(num)
			den.Neg(den)
		}
		quo, _ := new(big.Int).DivMod(num, den, new(big.Int)) // Euclidean: the floor for a positive divisor
		if !quo.IsInt64() {
			continue
		}
		if f := floorDiv(w, q); f != quo.Int64() {
			t.Fatalf("floor(%v / %d) = %d, want %v", want, q, f, quo)
		}
	}
}

// diamondMap is Armagetron's diamond (Anonymous/polygon/regular/diamond-1.0.2:
// the square's corners cut off) with two of its spawn points.
func diamondMap() *Map {
	u := int64(Unit)
	pts := [][2]int64{{0, 250}, {250, 500}, {500, 250}, {250, 0}, {0, 250}}
	m := &Map{Axes: 4, Spawns: []MapSpawn{{X: 255 * u, Y: 50 * u, Dir: 1}, {X: 245 * u, Y: 450 * u, Dir: 3}}}
	for k := 1; k < len(pts); k++ {
		m.Walls = append(m.Walls, MapWall{pts[k-1][0] * u, pts[k-1][1] * u, pts[k][0] * u, pts[k][1] * u})
	}
	return m
}

// TestMapRay checks the rays against map walls at any angle: the diamond's
// edge x - y = 250 m met at the exact point, a slanted wall met where the
// ray's line crosses it rounded toward the ray's start (3/7 m: 428571 um,
// not 428572), and the square arena around them.
func TestMapRay(t *testing.T) {
	cfg := testConfig()
	cfg.Map = diamondMap()
	s := playing(t, cfg, 1)
	for _, c := range []struct {
		x, y int64
		dir  uint8
		want int64
	}{
		{300 * Meter, 100 * Meter, 0, 50 * Meter},  // east to x - y = 250
		{300 * Meter, 100 * Meter, 3, 50 * Meter},  // south to the same edge
		{300 * Meter, 100 * Meter, 2, 150 * Meter}, // west to x + y = 250
		{250 * Meter, 250 * Meter, 1, 250 * Meter}, // north to the corner (250, 500)
		{100 * Meter, 250*Meter + 1, 2, 100*Meter - 1},
	} {
		if g, o := s.Ray(c.x, c.y, c.dir, 1000*Meter, -1); g != c.want || o != OwnerRim {
			t.Errorf("ray from %d,%d dir %d: gap %d owner %d, want %d, the rim", c.x, c.y, c.dir, g, o, c.want)
		}
	}
	m := &Map{Axes: 4, Spawns: []MapSpawn{{X: 1, Y: 1}}, Walls: []MapWall{
		{0, 0, 3 * Unit, 7 * Unit}, {0, 0, 100 * Unit, 0}, {100 * Unit, 0, 100 * Unit, 100 * Unit}}}
	cfg.Map = m
	s = playing(t, cfg, 1)
	if g, _ := s.Ray(0, Meter, 0, 100*Meter, -1); g != 428_571 {
		t.Errorf("ray east at y = 1 m to the wall (0,0)-(3,7) m: gap %d, want 428571", g)
	}
	if g, _ := s.Ray(50*Meter, 0, 2, 100*Meter, -1); g != 0 {
		t.Errorf("ray west along the wall y = 0 it starts on: gap %d, want 0 (as segGap: a wall along the ray's line is met where it starts)", g)
	}
}

// TestMapDeath rides a cycle into the diamond's slanted rim: it dies there
// as on the rim, at the wall (x - y = 250 m), not beyond.
func TestMapDeath(t *testing.T) {
	cfg := testConfig()
	cfg.Map = diamondMap()
	s := playing(t, cfg, 1)
	place(s, 0, 300, 100, 0, 30*Meter)
	steps(s, 3*120)
	c := s.Cycle(0)
	if c.Alive || c.Cause != CauseRim || c.X-c.Y > 250*Meter || c.X-c.Y < 249*Meter || c.Y != 100*Meter {
		t.Fatalf("cycle riding east into x - y = 250 m: alive %v cause %v at %d,%d", c.Alive, c.Cause, c.X, c.Y)
	}
}

// TestMapSensors checks the rear sensors against map walls: a slanted wall
// behind on the right is met across (no acceleration), t back and t across
// where the 45-degree ray meets it; a map wall parallel to the cycle is met
// side-on, and as rim it accelerates by CYCLE_ACCEL_RIM only.
func TestMapSensors(t *testing.T) {
	cfg := testConfig()
	cfg.Map = diamondMap()
	s := playing(t, cfg, 1)
	// Heading north at (345, 100): the right ray (345 + t, 100 - t) meets
	// x - y = 250 at t = 2.5 m; the left ray runs along that edge's direction.
	l, r := s.sensors(345*Meter, 100*Meter, 1, 0)
	if r.gap != 2_500_000 || !r.perp || r.owner != OwnerRim || l.gap != noHit {
		t.Errorf("north at 345,100: left %+v right %+v; want right 2.5 m across, left nothing", l, r)
	}
	m := &Map{Axes: 4, Spawns: []MapSpawn{{X: Unit, Y: Unit}}, Walls: []MapWall{
		{0, 0, 0, 500 * Unit}, {0, 500 * Unit, 500 * Unit, 500 * Unit}, {500 * Unit, 500 * Unit, 500 * Unit, 0}, {500 * Unit, 0, 0, 0},
		{100 * Unit, 100 * Unit, 100 * Unit, 400 * Unit}}}
	cfg.Map = m
	s = playing(t, cfg, 1)
	l, r = s.sensors(102*Meter, 200*Meter, 1, 0) // north, the wall x = 100 2 m to the left
	if l.gap != 2*Meter || l.perp || l.owner != OwnerRim || r.gap != noHit {
		t.Errorf("north 2 m right of x = 100: left %+v right %+v; want left 2 m side-on", l, r)
	}
	if left, right := s.Sensors(102*Meter, 200*Meter, 1, 0); left != -1 || right != -1 {
		t.Errorf("Sensors: %d, %d; the rim gives no acceleration", left, right)
	}
	cfg.AccelRim = Unit
	s = playing(t, cfg, 1)
	place(s, 0, 102, 200, 1, 30*Meter)
	s.c.Cycles[0].Speed = 30 * Meter
	s.accelerate(0)
	if v := s.Cycle(0).Speed; v <= 30*Meter {
		t.Errorf("with CYCLE_ACCEL_RIM 1 the map wall 2 m away should accelerate: %d", v)
	}
}

// TestMapSpawns checks that cycles spawn on the map's points facing their
// directions, moved with the map's box (zonetest's coordinates are
// negative) and scaled with SIZE_FACTOR.
func TestMapSpawns(t *testing.T) {
	u := int64(Unit)
	m := &Map{Axes: 4,
		Spawns: []MapSpawn{{X: -300 * u, Y: 1 * u, Dir: 0}, {X: 300 * u, Y: -1 * u, Dir: 2}},
		Walls:  []MapWall{{-400 * u, 150 * u, 400 * u, 150 * u}, {400 * u, 150 * u, 400 * u, -150 * u}, {400 * u, -150 * u, -400 * u, -150 * u}, {-400 * u, -150 * u, -400 * u, 150 * u}}}
	cfg := testConfig()
	cfg.Map = m
	s := playing(t, cfg, 2)
	if a := s.Arena(); a != 800*Meter {
		t.Errorf("arena %d, want 800 m (the walls' box, wider than high)", a)
	}
	for i, want := range [][3]int64{{100 * Meter, 151 * Meter, 0}, {700 * Meter, 149 * Meter, 2}} {
		c := s.Cycle(i)
		if c.X != want[0] || c.Y != want[1] || int64(c.Dir) != want[2] {
			// The round has started: the cycle has ridden since spawning.
			if c.Y != want[1] || int64(c.Dir) != want[2] {
				t.Errorf("cycle %d at %d,%d dir %d; want on y %d dir %d", i, c.X, c.Y, c.Dir, want[1], want[2])
			}
		}
	}
	set := cfg.MP
	set.SizeFactor = -2 // half the size
	cfg.Both(set)
	s, err := NewState(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Step([]Event{{Kind: EvJoin, Player: 0}})
	steps(s, 2)
	if c := s.Cycle(0); c.X != 50*Meter || c.Y != 75*Meter+Meter/2 {
		t.Errorf("at SIZE_FACTOR -2, spawn 1 at %d,%d; want 50, 75.5 m", c.X, c.Y)
	}
	if w := s.MapWalls(); len(w) != 4 || w[0] != [4]int64{0, 150 * Meter, 400 * Meter, 150 * Meter} {
		t.Errorf("MapWalls at SIZE_FACTOR -2: %v", w)
	}
}

// TestMapEncoded checks that a snapshot carries the map: the decoded state
// plays the same arena to the same hashes, and a corrupt map is refused.
func TestMapEncoded(t *testing.T) {
	cfg := testConfig()
	cfg.Map = diamondMap()
	s := playing(t, cfg, 2)
	b := s.AppendBinary(nil)
	d, err := UnmarshalState(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Config().Map == nil || len(d.Config().Map.Walls) != 4 || d.Config().Map.Spawns[1] != cfg.Map.Spawns[1] {
		t.Fatalf("decoded map %+v", d.Config().Map)
	}
	if !bytes.Equal(d.AppendBinary(nil), b) {
		t.Fatal("re-encoding differs")
	}
	for i := 0; i < 600; i++ {
		s.Step(nil)
		d.Step(nil)
	}
	if s.Hash() != d.Hash() {
		t.Fatal("the decoded state plays differently")
	}
	// A map with a wall of no length fails Validate.
	cfg.Map = &Map{Axes: 4, Spawns: []MapSpawn{{}}, Walls: []MapWall{{1, 1, 1, 1}}}
	if _, err := NewState(cfg, 1); err == nil {
		t.Fatal("a wall of no length was accepted")
	}
}

// TestSpawnPairRidesApart plays sumo_8x2's pairs (Z-Man/fortress/
// sumo_8x2-0.1.0: two spawn points on one spot facing apart) and repeat's
// spawn point on a wall ((100,195) on the wall x = 100, facing east away
// from it): in Armagetron the cycles ride off; a wall ending where a ray
// starts, or lying across its start, is not ahead of it.
func TestSpawnPairRidesApart(t *testing.T) {
	u := int64(Unit)
	m := &Map{Axes: 4,
		Spawns: []MapSpawn{{X: 50 * u, Y: 150 * u, Dir: 3}, {X: 50 * u, Y: 150 * u, Dir: 1}, {X: 100 * u, Y: 195 * u, Dir: 0}},
		Walls: []MapWall{{0, 0, 0, 500 * u}, {0, 500 * u, 500 * u, 500 * u}, {500 * u, 500 * u, 500 * u, 0}, {500 * u, 0, 0, 0},
			{100 * u, 300 * u, 100 * u, 100 * u}}}
	cfg := testConfig()
	cfg.Map = m
	s := playing(t, cfg, 3)
	steps(s, 120)
	for i := 0; i < 3; i++ {
		if c := s.Cycle(i); !c.Alive {
			t.Errorf("cycle %d died (%v) at %d,%d", i, c.Cause, c.X, c.Y)
		}
	}
	if a, b := s.Cycle(0), s.Cycle(1); a.Y >= 150*Meter || b.Y <= 150*Meter {
		t.Errorf("the pair did not ride apart: %d and %d", a.Y, b.Y)
	}
}

// TestSpawnPointGroups checks SPAWN_POINT_GROUP_SIZE as init_game_objects
// (gGame.cpp lines 1503-1515) places single-player teams on sixteen points
// in groups of four: the team whose pick would be the last of a group skips
// it when two teams are left after it, or a multiple of three under nine;
// the picks are counted as there, twice for a team of AIs (which picks
// again for its AI).
func TestSpawnPointGroups(t *testing.T) {
	u := int64(Unit)
	m := &Map{Axes: 4, Walls: []MapWall{{0, 0, 0, 500 * u}, {0, 500 * u, 500 * u, 500 * u}, {500 * u, 500 * u, 500 * u, 0}, {500 * u, 0, 0, 0}}}
	for k := int64(0); k < 16; k++ {
		m.Spawns = append(m.Spawns, MapSpawn{X: (100 + 100*(k/4) + 10*(k%4)) * u, Y: 100 * u, Dir: 1})
	}
	cfg := testConfig()
	cfg.Map = m
	cfg.SpawnPointGroupSize = 4
	for _, c := range []struct {
		players int
		human   bool
		points  []int64
	}{{2, true, []int64{0, 1}}, {3, true, []int64{0, 1, 3}}, {4, true, []int64{0, 1, 2, 3}}, {5, true, []int64{0, 1, 3, 4, 5}},
		{7, true, []int64{0, 1, 2, 3, 4, 5, 7}}, {7, false, []int64{0, 1, 2, 4, 5, 6, 7}}} {
		s, err := NewState(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		var evs []Event
		for i := 0; i < c.players; i++ {
			evs = append(evs, Event{Kind: EvJoin, Player: uint8(i), Arg: JoinArg(c.human, 0)})
		}
		s.Step(evs)
		for i, k := range c.points {
			if x := s.Cycle(i).X; x != (100+100*(k/4)+10*(k%4))*Meter {
				t.Errorf("%d players (human %v): player %d at x %d, want spawn point %d", c.players, c.human, i, x, k)
			}
		}
	}
}
