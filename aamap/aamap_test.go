package aamap

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webtron/internal/aamaptest"
	"webtron/sim"
)

// TestStockMaps parses the ten maps of Debian's armagetronad-common and
// checks what each holds against the files themselves (counted by hand from
// the XML): pieces of wall, spawn points, zones, axes and settings.
func TestStockMaps(t *testing.T) {
	want := map[string]struct {
		pieces, spawns, zones, axes, settings int
		first                                 sim.MapSpawn // first spawn point, in map units
	}{
		"square-1.0.1.aamap.xml":                   {4, 12, 0, 4, 0, sim.MapSpawn{X: 255, Y: 50, Dir: 1}},
		"diamond-1.0.2.aamap.xml":                  {4, 12, 0, 4, 0, sim.MapSpawn{X: 255, Y: 50, Dir: 1}},
		"40-gon-0.2.aamap.xml":                     {40, 40, 0, 4, 0, sim.MapSpawn{X: 250, Y: 26, Dir: 1}},
		"inaktek-0.7.2.aamap.xml":                  {40, 12, 0, 8, 0, sim.MapSpawn{X: 600, Y: 500, Dir: 6}},
		"repeat-0.3.2.aamap.xml":                   {20, 12, 0, 4, 0, sim.MapSpawn{X: 255, Y: 50, Dir: 1}},
		"for_old_clients-0.1.0.aamap.xml":          {4, 2, 2, 4, 9, sim.MapSpawn{X: 255, Y: 50, Dir: 1}},
		"fourfold_for_old_clients-0.1.0.aamap.xml": {4, 4, 4, 4, 9, sim.MapSpawn{X: 100, Y: 100, Dir: 1}},
		"sumo_4x4-0.1.1.aamap.xml":                 {4, 16, 16, 4, 3, sim.MapSpawn{X: 180, Y: 170, Dir: 3}},
		"sumo_8x2-0.1.0.aamap.xml":                 {4, 16, 17, 4, 2, sim.MapSpawn{X: 50, Y: 150, Dir: 3}},
		"zonetest-0.1.0.aamap.xml":                 {8, 2, 4, 4, 6, sim.MapSpawn{X: -300, Y: 1, Dir: 0}},
	}
	for _, path := range aamaptest.Paths(t) {
		name := filepath.Base(path)
		m, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		s := m.Sim()
		w := want[name]
		first := s.Spawns[0]
		first.X, first.Y = first.X/Unit, first.Y/Unit
		if got := [5]int{len(s.Walls), len(s.Spawns), len(s.Zones), m.Axes, len(m.Settings)}; got != [5]int{w.pieces, w.spawns, w.zones, w.axes, w.settings} || first != w.first {
			t.Errorf("%s: pieces, spawns, zones, axes, settings %v, first spawn %+v; want %v, %+v", name, got,
				first, [5]int{w.pieces, w.spawns, w.zones, w.axes, w.settings}, w.first)
		}
		cfg := sim.DefaultConfig()
		if _, err := m.Apply(&cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestStockDetails checks values that need exact decimals and the zones'
// attributes: 40-gon's second spawn point and its direction (-0.156434,
// 0.987688: nearest north), sumo_4x4's shrinking fortress zones, sumo_8x2's
// win zone, zonetest's negative coordinates, inaktek's Latin-1 encoding.
func TestStockDetails(t *testing.T) {
	dir := aamaptest.Dir
	aamaptest.Paths(t)
	load := func(p string) *Map {
		m, err := Load(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	gon := load("Anonymous/polygon/regular/40-gon-0.2.aamap.xml")
	if s := gon.Spawns[1]; s != (Spawn{X: 285_041_321, Y: 28_757_812, DX: -156_434, DY: 987_688}) || s.axis() != 1 {
		t.Errorf("40-gon spawn 2 = %+v, axis %d; want 285.041321, 28.757812 facing -0.156434, 0.987688 (north)", s, s.axis())
	}
	// Spawn 6 faces (-0.707107, 0.707107): exactly between north and west;
	// Armagetron's first winding of the two is west.
	if s := gon.Spawns[5]; s.axis() != 2 {
		t.Errorf("40-gon spawn 6 %+v: axis %d, want 2 (west)", s, s.axis())
	}
	sumo := load("Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml")
	if z := sumo.Zones[0]; z != (Zone{Effect: EffectFortress, X: 350 * Unit, Y: 350 * Unit, Radius: 40 * Unit, Growth: -400_000}) {
		t.Errorf("sumo_4x4 zone 1 = %+v", z)
	}
	if s := sumo.Settings; s[1] != (Setting{"FORTRESS_MAX_PER_TEAM", "1"}) {
		t.Errorf("sumo_4x4 settings = %v", s)
	}
	if z := load("Z-Man/fortress/sumo_8x2-0.1.0.aamap.xml").Zones[16]; z.Effect != EffectWin || z.Radius != 20*Unit || z.Growth != -200_000 {
		t.Errorf("sumo_8x2 zone 17 = %+v, want the win zone", z)
	}
	if w := load("Z-Man/fortress/zonetest-0.1.0.aamap.xml").Walls[0][0]; w != (Point{-400 * Unit, 150 * Unit}) {
		t.Errorf("zonetest's first point = %+v", w)
	}
}

// TestAngle checks spawn directions given as angles: the nearest axis, and
// at 45 degrees between two the first of Armagetron's windings (south,
// west, north, east).
func TestAngle(t *testing.T) {
	for _, c := range []struct {
		deg  int64
		want uint8
	}{{0, 0}, {44, 0}, {45, 1}, {90, 1}, {135, 2}, {180, 2}, {225, 3}, {270, 3}, {315, 3}, {316, 0}, {-90, 3}, {405, 1}} {
		if got := (Spawn{Angle: c.deg * Unit, HasAngle: true}).axis(); got != c.want {
			t.Errorf("angle %d: axis %d, want %d", c.deg, got, c.want)
		}
	}
}

// TestAxisOf: a spawn on a map of other Axes faces the nearest of its
// evenly spaced axes (eAxis::NearestWinding), between two as near the
// first winding, our larger number (n-1 over 0); by angle and by xdir, ydir.
func TestAxisOf(t *testing.T) {
	for _, c := range []struct {
		n    int
		deg  int64 // millionths of a degree when dx, dy are 0
		dx   int64
		dy   int64
		want uint8
	}{
		{8, 22_500_000, 0, 0, 1}, {8, 22_499_999, 0, 0, 0}, {8, 337_500_000, 0, 0, 7}, {8, 67_500_000, 0, 0, 2},
		{8, -45_000_000, 0, 0, 7}, {6, 30_000_000, 0, 0, 1}, {6, 90_000_000, 0, 0, 2}, {6, 330_000_000, 0, 0, 5},
		{8, 0, 1, 2, 1}, {8, 0, 0, -1, 6}, {8, 0, -1, -1, 5}, {6, 0, 1, 1, 1}, {4, 0, 1, 1, 1},
	} {
		sp := Spawn{DX: c.dx * Unit, DY: c.dy * Unit}
		if c.dx == 0 && c.dy == 0 {
			sp = Spawn{Angle: c.deg, HasAngle: true}
		}
		if got := sp.axisOf(c.n); got != c.want {
			t.Errorf("%d axes, %+v: axis %d, want %d", c.n, sp, got, c.want)
		}
	}
}

// good is a small valid map; bad files are made from it.
const good = `<?xml version="1.0" encoding="UTF-8"?>
<Resource type="aamap" name="t" version="1" author="me">
 <Map version="2">
  <Settings><Setting name="CYCLE_SPEED" value="40"/></Settings>
  <World><Field>
   <Spawn x="10" y="10" xdir="1" ydir="0"/>
   <Wall><Point x="0" y="0"/><Point x="0" y="100"/><Point x="100" y="100"/><Point x="0" y="0"/></Wall>
   <Zone effect="win"><ShapeCircle radius="5"><Point x="50" y="50"/></ShapeCircle></Zone>
  </Field></World>
 </Map>
</Resource>`

func TestBadFiles(t *testing.T) {
	m, err := Parse(strings.NewReader(good), "good")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	if _, err := m.Apply(&cfg); err != nil || cfg.BaseSpeed != 40*sim.Meter || len(cfg.Map.Walls) != 3 {
		t.Fatalf("good map: %v, speed %d, %d walls", err, cfg.BaseSpeed, len(cfg.Map.Walls))
	}
	for _, c := range []struct{ from, to, want string }{
		{`<Resource`, `<Other`, "not a map file"},
		{`</Resource>`, ``, "not a map file"},
		{`type="aamap"`, `type="aacfg"`, "resource type"},
		{`<Spawn x="10" y="10" xdir="1" ydir="0"/>`, ``, "no Spawn"},
		{`x="10" y="10"`, `x="ten" y="10"`, `Spawn 1: x "ten"`},
		{`x="10" y="10"`, `y="10"`, `Spawn 1: no x`},
		{`xdir="1" ydir="0"`, ``, "Spawn 1: no direction"},
		{`<Point x="0" y="100"/><Point x="100" y="100"/><Point x="0" y="0"/>`, ``, "Wall 1: 1 Point"},
		{`<Point x="0" y="100"/>`, `<Point x="0" y="1e9"/>`, "Wall 1 Point 2: y"},
		{`effect="win"`, `effect="teleport"`, `Zone 1: effect "teleport"`},
		{`radius="5"`, `radius="-5"`, "Zone 1: radius"},
		{`<Point x="50" y="50"/>`, ``, "Zone 1: needs one ShapeCircle"},
		{`<World>`, `<World><Field></Field>`, "needs one World with one Field"},
		{`<Field>`, `<Field><Axes number="0"/>`, "Axes number"},
		{`<Field>`, `<Field><Axes number="2.5"/>`, "Axes number"},
		{`encoding="UTF-8"`, `encoding="EBCDIC"`, "EBCDIC"},
		{`value="40"`, `value="fast"`, "map setting"},
		{`value="40"`, `value="1000"`, "CYCLE_SPEED must be"},
		{`<Point x="100" y="100"/>`, `<Point x="100000" y="100"/>`, "map at SIZE_FACTOR"},
	} {
		text := strings.Replace(good, c.from, c.to, 1)
		m, err := Parse(strings.NewReader(text), "bad")
		if err == nil {
			cfg := sim.DefaultConfig()
			_, err = m.Apply(&cfg)
		}
		if err == nil || !errors.Is(err, ErrMap) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: error %v, want one containing %q", c.from, c.to, err, c.want)
		}
	}
	if _, err := Parse(strings.NewReader(strings.Repeat(" ", maxSize+1)), "big"); err == nil || !strings.Contains(err.Error(), "not a map file") {
		t.Errorf("a 4 MB file: %v", err)
	}
}

// FuzzParse checks that no input makes Parse or Apply panic, and that what
// Parse accepts and Apply validates simulates a round start.
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add(strings.Replace(good, `x="10"`, `x="-0.000001"`, 1))
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(strings.NewReader(text), "fuzz")
		if err != nil {
			return
		}
		cfg := sim.DefaultConfig()
		if _, err := m.Apply(&cfg); err != nil {
			return
		}
		s, err := sim.NewState(cfg, 1)
		if err != nil {
			t.Fatalf("Apply accepted a map NewState refuses: %v", err)
		}
		s.Step([]sim.Event{{Kind: sim.EvJoin, Player: 0}, {Kind: sim.EvJoin, Player: 1}})
		for i := 0; i < 10; i++ {
			s.Step(nil)
		}
	})
}

// TestStock lists the stock maps a server offers (`webtron serve --maps
// all`): the ten of armagetronad-common, as resource paths Find resolves.
func TestStock(t *testing.T) {
	aamaptest.Paths(t)
	got, err := Stock()
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(aamaptest.Stock))
	if !slices.Equal(got, want) {
		t.Fatalf("Stock() = %q, want %q", got, want)
	}
}
