package sim

import "math/bits"

// Map is an Armagetron map other than the square one the simulation plays
// without a map (Config.Map nil): its walls, spawn points and zones, in
// millionths of a map unit (package aamap reads them from a map file). A
// map unit is ArenaSize/500 x 2^(SIZE_FACTOR/2): a metre at the defaults, as
// in Armagetron, which multiplies the map's coordinates by its size factor.
//
// Every map wall is rim (Armagetron's gParser::DrawRim makes a gWallRim of
// each piece): deadly, owned by nobody, never holed. The walls may lie at
// any angle. Cycles drive along the map's Axes, evenly spaced (axes.go):
// four play the axis-aligned geometry, any other number the slanted one
// (slant.go). A Map is shared, never modified, once in a Config.
type Map struct {
	Axes   int64      // the number of driving directions, 1..256 (4 when the map says nothing)
	Walls  []MapWall  // the straight pieces of the map's walls
	Spawns []MapSpawn // in the order of the file: teams take the least used first
	Zones  []MapZone
}

// MapWall is one straight piece of a map's wall, from (X1,Y1) to (X2,Y2).
type MapWall struct{ X1, Y1, X2, Y2 int64 }

// MapSpawn is a spawn point and the axis a cycle spawned there faces, the
// nearest to the map's direction (NearestAxis): 0..Axes-1, with four axes 0
// east, 1 north, 2 west, 3 south.
type MapSpawn struct {
	X, Y int64
	Dir  uint8
}

// Zone effects (MapZone.Effect), as Armagetron's Zone effect attribute.
const (
	ZoneDeath    = 0
	ZoneWin      = 1
	ZoneFortress = 2
)

// MapZone is a zone of the map: a circle at (X,Y) whose Radius changes by
// Growth a second.
type MapZone struct {
	Effect               uint8
	X, Y, Radius, Growth int64
}

// Bounds on a map, so that a hostile snapshot or file cannot make a tick
// slow or the geometry overflow.
const (
	maxMapWalls  = 4096
	maxMapSpawns = 256
	maxMapZones  = maxZones
	maxMapCoord  = 100_000 * Unit // millionths of a map unit
)

// validate reports the first thing that makes m unplayable.
func (m *Map) validate() string {
	in := func(v int64) bool { return v >= -maxMapCoord && v <= maxMapCoord }
	switch {
	case m.Axes < 1 || m.Axes > maxAxes:
		return "map: Axes must be 1.." + itoa(maxAxes)
	case len(m.Walls) == 0 || len(m.Walls) > maxMapWalls:
		return "map: 1.." + itoa(maxMapWalls) + " wall pieces"
	case len(m.Spawns) == 0 || len(m.Spawns) > maxMapSpawns:
		return "map: 1.." + itoa(maxMapSpawns) + " spawn points"
	case len(m.Zones) > maxMapZones:
		return "map: at most " + itoa(maxMapZones) + " zones"
	}
	for _, w := range m.Walls {
		if !in(w.X1) || !in(w.Y1) || !in(w.X2) || !in(w.Y2) {
			return "map: a wall lies out of range"
		}
		if w.X1 == w.X2 && w.Y1 == w.Y2 {
			return "map: a wall piece of no length"
		}
	}
	x0, y0, x1, y1 := m.bounds()
	for _, p := range m.Spawns {
		if int64(p.Dir) >= m.Axes || p.X < x0 || p.X > x1 || p.Y < y0 || p.Y > y1 {
			return "map: a spawn point lies outside its walls' bounds"
		}
	}
	for _, z := range m.Zones {
		if z.Effect > ZoneFortress || !in(z.X) || !in(z.Y) || z.Radius < 0 || z.Radius > maxMapCoord || !in(z.Growth) {
			return "map: a zone is out of range"
		}
	}
	return ""
}

// bounds is the box of the map's walls, in map coordinates.
func (m *Map) bounds() (x0, y0, x1, y1 int64) {
	w := m.Walls[0]
	x0, y0, x1, y1 = min(w.X1, w.X2), min(w.Y1, w.Y2), max(w.X1, w.X2), max(w.Y1, w.Y2)
	for _, w := range m.Walls[1:] {
		x0, y0 = min(x0, w.X1, w.X2), min(y0, w.Y1, w.Y2)
		x1, y1 = max(x1, w.X1, w.X2), max(y1, w.Y1, w.Y2)
	}
	return x0, y0, x1, y1
}

// rimWall is a map wall in the arena's coordinates (micrometres, the box of
// the walls starting at 0,0), with its box for a quick rejection.
type rimWall struct {
	x1, y1, x2, y2 int64
	bx0, by0       int64
	bx1, by1       int64
}

// mapArena is a map scaled for one set (SIZE_FACTOR): the rim, the spawn
// points and the zones in micrometres, moved so that the walls' box starts
// at 0,0, and that box's size.
type mapArena struct {
	rim    []rimWall
	walls  [][4]int64 // the rim as MapWalls returns it
	spawns []MapSpawn
	zones  []MapZone
	w, h   int64 // the walls' box
}

// scaleMap lays m out for an arena whose square map would be side long
// (500 map units): coordinates x side/500, rounded down after moving the
// walls' box to 0,0.
func scaleMap(m *Map, side int64) *mapArena {
	x0, y0, x1, y1 := m.bounds()
	at := func(v, o int64) int64 { return mulDiv(v-o, side, 500*Unit) }
	a := &mapArena{w: at(x1, x0), h: at(y1, y0)}
	for _, w := range m.Walls {
		r := rimWall{x1: at(w.X1, x0), y1: at(w.Y1, y0), x2: at(w.X2, x0), y2: at(w.Y2, y0)}
		r.bx0, r.by0, r.bx1, r.by1 = min(r.x1, r.x2), min(r.y1, r.y2), max(r.x1, r.x2), max(r.y1, r.y2)
		a.rim = append(a.rim, r)
		a.walls = append(a.walls, [4]int64{r.x1, r.y1, r.x2, r.y2})
	}
	for _, p := range m.Spawns {
		a.spawns = append(a.spawns, MapSpawn{X: at(p.X, x0), Y: at(p.Y, y0), Dir: p.Dir})
	}
	for _, z := range m.Zones {
		a.zones = append(a.zones, MapZone{Effect: z.Effect, X: at(z.X, x0), Y: at(z.Y, y0),
			Radius: mulDiv(z.Radius, side, 500*Unit), Growth: mulDiv(z.Growth, side, 500*Unit)})
	}
	return a
}

// side returns the side of the square that holds the map's box.
func (a *mapArena) side() int64 { return max(a.w, a.h) }

// mapRimGap is the distance from (x,y) along dir to the nearest map wall,
// noHit for none: where the ray's line meets the wall, rounded toward the
// cycle, so that a cycle stopped there has not crossed it.
func (a *mapArena) rimGap(x, y int64, dir uint8) int64 {
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	best := noHit
	for i := range a.rim {
		w := &a.rim[i]
		// Behind the cycle, or wholly to one side of its line: no meeting.
		switch dir & 3 {
		case 0:
			if w.bx1 < x || w.by0 > y || w.by1 < y {
				continue
			}
		case 1:
			if w.by1 < y || w.bx0 > x || w.bx1 < x {
				continue
			}
		case 2:
			if w.bx0 > x || w.by0 > y || w.by1 < y {
				continue
			}
		default:
			if w.by0 > y || w.bx0 > x || w.bx1 < x {
				continue
			}
		}
		f1, l1 := w.x1*fx+w.y1*fy, w.x1*lx+w.y1*ly
		f2, l2 := w.x2*fx+w.y2*fy, w.x2*lx+w.y2*ly
		var g int64
		if l1 == l2 { // along the ray's line
			if max(f1, f2) < pf {
				continue
			}
			g = max(0, min(f1, f2)-pf)
		} else {
			// f where the wall crosses the line l = pl, rounded down.
			f := f1 + floorDiv(mulWide(f2-f1, pl-l1), l2-l1)
			if f < pf {
				continue
			}
			// A wall across the ray exactly where it starts is not in its
			// way: a line has no thickness, and a cycle on it (a map's
			// spawn point on a wall: repeat's (100,195)) rides off it. A
			// living cycle is never there otherwise: it dies on arriving.
			if f == pf && mulWide(f2-f1, pl-l1).cmp(mulWide(pf-f1, l2-l1)) == 0 {
				continue
			}
			g = f - pf
		}
		best = min(best, g)
	}
	return best
}

// sensors is what the rear sensors of a cycle at (x,y) heading dir meet of
// the map's walls within near: each side's ray goes back and to that side
// at 45 degrees, t back and t across (t the gap). A wall parallel to the
// driving direction is met side-on (perp false); any other across.
func (a *mapArena) sensors(x, y int64, dir uint8, near int64, left, right *hit) {
	fx, fy, lx, ly := frame(dir)
	for k, side := range [2]*hit{left, right} {
		s := int64(1 - 2*k) // +1 left, -1 right
		dx, dy := -fx+s*lx, -fy+s*ly
		bx0, by0 := min(x, x+dx*near), min(y, y+dy*near)
		bx1, by1 := max(x, x+dx*near), max(y, y+dy*near)
		for i := range a.rim {
			w := &a.rim[i]
			if w.bx1 < bx0 || w.bx0 > bx1 || w.by1 < by0 || w.by0 > by1 {
				continue
			}
			t, ok := diagonalMeets(w, x, y, dx, dy, near)
			if !ok || t > side.gap {
				continue
			}
			// Parallel to the driving axis: the wall's extent along l is nil.
			perp := w.x1*lx+w.y1*ly != w.x2*lx+w.y2*ly
			if t < side.gap || side.perp && !perp {
				*side = hit{gap: t, owner: OwnerRim, perp: perp}
			}
		}
	}
}

// diagonalMeets returns t in (0, near] at which the ray (x,y) + t (dx,dy),
// dx and dy each +1 or -1, meets wall w, rounded down.
func diagonalMeets(w *rimWall, x, y, dx, dy, near int64) (int64, bool) {
	ex, ey := w.x2-w.x1, w.y2-w.y1
	den := dx*ey - dy*ex // cross(d, e)
	if den == 0 {
		return 0, false // parallel to the ray
	}
	ax, ay := w.x1-x, w.y1-y
	if den < 0 { // both numerators below are linear in a: flip their signs with den's
		den, ax, ay = -den, -ax, -ay
	}
	// The wall's parameter s = cross(a, d) / den must lie in [0, 1].
	if sn := ax*dy - ay*dx; sn < 0 || sn > den {
		return 0, false
	}
	// t = cross(a, e) / den, wanted in (0, near].
	tn := mulWide(ax, ey).sub(mulWide(ay, ex))
	if tn.sign() <= 0 || tn.cmp(mulWide(near, den)) > 0 {
		return 0, false
	}
	return max(1, floorDiv(tn, den)), true
}

// wide is a signed 128-bit integer: the cross products of map geometry
// (two coordinates of up to 10^13 micrometres) overflow 64 bits.
type wide struct {
	hi int64
	lo uint64
}

// mulWide returns a x b.
func mulWide(a, b int64) wide {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	// From the unsigned product to the signed one.
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	return wide{int64(hi), lo}
}

func (x wide) add(y wide) wide {
	lo, carry := bits.Add64(x.lo, y.lo, 0)
	return wide{x.hi + y.hi + int64(carry), lo}
}

func (x wide) sub(y wide) wide {
	lo, borrow := bits.Sub64(x.lo, y.lo, 0)
	return wide{x.hi - y.hi - int64(borrow), lo}
}

func (x wide) neg() wide { return wide{}.sub(x) }

func (x wide) sign() int {
	switch {
	case x.hi < 0:
		return -1
	case x.hi == 0 && x.lo == 0:
		return 0
	}
	return 1
}

func (x wide) cmp(y wide) int {
	switch {
	case x.hi != y.hi:
		if x.hi < y.hi {
			return -1
		}
		return 1
	case x.lo != y.lo:
		if x.lo < y.lo {
			return -1
		}
		return 1
	}
	return 0
}

// floorDiv returns floor(n / d), d != 0, for a quotient that fits 64 bits.
func floorDiv(n wide, d int64) int64 {
	if d < 0 {
		n, d = n.neg(), -d
	}
	neg := n.sign() < 0
	if neg {
		n = n.neg()
	}
	if uint64(n.hi) >= uint64(d) { // the quotient would not fit: saturate rather than panic
		if neg {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	q, r := bits.Div64(uint64(n.hi), n.lo, uint64(d))
	if neg {
		if r != 0 {
			q++
		}
		return -int64(q)
	}
	return int64(q)
}

// mulDiv returns floor(a x b / c), c > 0, for a quotient that fits 64 bits.
func mulDiv(a, b, c int64) int64 { return floorDiv(mulWide(a, b), c) }

// MapWalls returns the current round's map walls in the arena's coordinates
// (micrometres), each as X1, Y1, X2, Y2, or nil on the square map, whose rim
// is the square of side Arena(). Renderers draw them. The slice is shared:
// do not modify it.
func (s *State) MapWalls() [][4]int64 {
	if a := s.dv().mp; a != nil {
		return a.walls
	}
	return nil
}

// mapOf appends m (nil: the square) to the encoding of the rules.
func (e *encoder) mapOf(m *Map) {
	if m == nil {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.i64(&m.Axes)
	for _, n := range [3]int{len(m.Walls), len(m.Spawns), len(m.Zones)} {
		v := int64(n)
		e.i64(&v)
	}
	for i := range m.Walls {
		w := &m.Walls[i]
		for _, p := range [...]*int64{&w.X1, &w.Y1, &w.X2, &w.Y2} {
			e.i64(p)
		}
	}
	for i := range m.Spawns {
		p := &m.Spawns[i]
		e.i64(&p.X)
		e.i64(&p.Y)
		e.u8(&p.Dir)
	}
	for i := range m.Zones {
		z := &m.Zones[i]
		e.u8(&z.Effect)
		for _, p := range [...]*int64{&z.X, &z.Y, &z.Radius, &z.Growth} {
			e.i64(p)
		}
	}
}

// mapOf reads what encoder.mapOf wrote; Config.Validate checks the map.
func (d *decoder) mapOf() *Map {
	var has bool
	if d.flag(&has); !has || d.err != nil {
		return nil
	}
	m := &Map{}
	d.i64(&m.Axes)
	var n [3]int64
	for i := range n {
		d.i64(&n[i])
	}
	if d.err != nil {
		return nil
	}
	// Each piece takes a byte at least: bound the allocation by the input.
	if n[0] < 0 || n[0] > maxMapWalls || n[1] < 0 || n[1] > maxMapSpawns || n[2] < 0 || n[2] > maxMapZones ||
		n[0]+n[1]+n[2] > int64(len(d.b)) {
		d.fail()
		return nil
	}
	m.Walls, m.Spawns, m.Zones = make([]MapWall, n[0]), make([]MapSpawn, n[1]), make([]MapZone, n[2])
	for i := range m.Walls {
		w := &m.Walls[i]
		for _, p := range [...]*int64{&w.X1, &w.Y1, &w.X2, &w.Y2} {
			d.i64(p)
		}
	}
	for i := range m.Spawns {
		p := &m.Spawns[i]
		d.i64(&p.X)
		d.i64(&p.Y)
		d.u8(&p.Dir)
	}
	for i := range m.Zones {
		z := &m.Zones[i]
		d.u8(&z.Effect)
		for _, p := range [...]*int64{&z.X, &z.Y, &z.Radius, &z.Growth} {
			d.i64(p)
		}
	}
	if d.err != nil {
		return nil
	}
	return m
}
