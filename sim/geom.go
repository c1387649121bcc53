package sim

import "math/bits"

// Directions: 0 east (+x), 1 north (+y), 2 west, 3 south. A left turn adds one.
// frame returns the forward and left unit vectors of dir, so that every ray and
// sensor can be written once in a local frame (f forward, l to the left).
func frame(dir uint8) (fx, fy, lx, ly int64) {
	switch dir & 3 {
	case 0:
		return 1, 0, 0, 1
	case 1:
		return 0, 1, -1, 0
	case 2:
		return -1, 0, 0, -1
	default:
		return 0, -1, 1, 0
	}
}

// noHit is the gap reported when nothing lies within a ray's range.
const noHit = int64(1) << 62

// OwnerRim is the owner Ray reports for the arena's rim.
const OwnerRim = -1

// hit is what a ray or a sensor found.
type hit struct {
	gap   int64 // distance along the ray (for a sensor: across, to the side), noHit for nothing
	owner int   // player id, or OwnerRim
	built int64 // tick at which the point hit was laid (player walls)
	perp  bool  // the wall runs across the driving direction
}

// ray walks from (x,y) along dir and returns the first standing wall within
// rng: the rim, a closed wall or a living cycle's open segment. self's own
// walls only count at a distance greater than zero: a cycle always touches the
// corner it just left.
func (s *State) ray(x, y int64, dir uint8, rng int64, self int) hit {
	var q rayCast
	s.startRay(&q, x, y, dir, rng, self)
	// Closed walls, through the cells the ray crosses.
	bx0, by0, bx1, by1 := s.rayBox(x, y, dir, rng)
	q.blasts = s.blastsNear(bx0, by0, bx1, by1) // every point the ray meets is in the box
	cx0, cy0, cx1, cy1 := s.grid.cellRange(bx0, by0, bx1, by1)
	q.cx0, q.cy0 = cx0, cy0
	for cy := cy0; cy <= cy1; cy++ {
		rows := s.grid.rows(cy, by0, by1)
		for cx := cx0; cx <= cx1; cx++ {
			cell := s.grid.cells[cy*s.grid.n+cx]
			m := ^uint64(0)
			if len(cell) > 2 { // worth a mask
				m = rows & s.grid.cols(cx, bx0, bx1)
			}
			for _, e := range cell {
				if e.mask&m == 0 {
					continue
				}
				w := &s.walls[int64(e.idx)-s.wallBase]
				// Geometry first: the standing part of a wall is a piece of
				// the whole wall, so a miss on the whole is a miss.
				if q.meets(w) {
					s.rayWall(w, &q, e.idx)
				}
			}
		}
	}
	// Open segments of living cycles (not in the grid: they grow every tick).
	for live := s.openNear(self, bx0, by0, bx1, by1); live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		if c := &s.c.Cycles[i]; c.openTouches(bx0, by0, bx1, by1) {
			w := c.openWall(i, s.c.Tick)
			s.rayWall(&w, &q, int32(-1-i))
		}
	}
	return q.best
}

// rayCast is one ray's search: where it starts and goes, and the nearest
// wall it has met so far.
type rayCast struct {
	x, y   int64
	dir    uint8
	rng    int64
	self   int
	horiz  bool       // along x: u is x and v is y; otherwise u is y and v is x (for meets)
	u, v   int64      // where the ray starts
	fwd    int64      // the sign of going forward along u
	blasts [][2]int64 // the blasts near enough to have holed what the ray meets
	radius int64      // EXPLOSION_RADIUS
	best   hit
	// which wall best is: its global index, -1-i for cycle i's open
	// segment, or rimIdx; between walls as near, the first in the order of
	// the walls wins (the rim, the closed walls in grid.key's order from
	// cell (cx0, cy0), the open segments in seat order).
	bestIdx  int32
	cx0, cy0 int64
}

// startRay starts q, a ray from (x,y) along dir with range rng, the rim its
// first hit if within range; the caller sets the blasts. (Filled in place,
// not returned: WebAssembly copies a returned struct field by field.)
func (s *State) startRay(q *rayCast, x, y int64, dir uint8, rng int64, self int) {
	fx, fy, _, _ := frame(dir)
	q.x, q.y, q.dir, q.rng, q.self, q.horiz, q.u, q.v, q.fwd = x, y, dir, rng, self, dir&1 == 0, x, y, fx+fy
	q.radius, q.best, q.bestIdx = s.dv().explosion, hit{gap: s.rimGap(x, y, dir), owner: OwnerRim, perp: true}, rimIdx
	if !q.horiz {
		q.u, q.v = y, x
	}
	if q.best.gap > rng {
		q.best.gap = noHit
	}
}

// rayBox is the box a ray from (x,y) along dir with range rng sweeps, cut at
// the arena's side.
func (s *State) rayBox(x, y int64, dir uint8, rng int64) (x0, y0, x1, y1 int64) {
	fx, fy, _, _ := frame(dir)
	a := s.dv().arena
	ex, ey := x+fx*min(rng, a), y+fy*min(rng, a)
	return min(x, ex), min(y, ey), max(x, ex), max(y, ey)
}

// meets reports whether the ray meets wall w's line (segGap in world
// coordinates: u along the ray's axis, v across it) within range and no
// farther than what it has met; self's own walls only at a distance greater
// than zero. The standing part of a wall is a piece of the whole wall, so
// rayWall need not look at the others.
func (q *rayCast) meets(w *Wall) bool {
	u1, v1, u2, v2 := w.X1, w.Y1, w.X2, w.Y2
	if !q.horiz {
		u1, v1, u2, v2 = v1, u1, v2, u2
	}
	var g int64
	if v1 == v2 { // along the ray's line (or a point)
		a, b := q.fwd*(u1-q.u), q.fwd*(u2-q.u)
		// A wall on the ray's line that ends where the ray starts lies
		// behind it: two cycles spawned on one point (a sumo map's pairs)
		// ride apart.
		if v1 != q.v || max(a, b) <= 0 {
			return false
		}
		g = max(0, min(a, b))
	} else if g = q.fwd * (u1 - q.u); g < 0 || q.v < min(v1, v2) || q.v > max(v1, v2) {
		return false
	}
	return g <= q.best.gap && g <= q.rng && (g > 0 || int(w.Owner) != q.self)
}

// rayWall makes wall idx (w; -1-i for cycle i's open segment) the ray's best
// hit if the standing part of w is nearer, or as near and first in the order
// of the walls.
func (s *State) rayWall(w *Wall, q *rayCast, idx int32) {
	v := w
	if !s.whole(w.Owner) {
		part, ok := s.visible(*w)
		if !ok {
			return
		}
		v = &part
	}
	fx, fy, lx, ly := frame(q.dir)
	pf, pl := q.x*fx+q.y*fy, q.x*lx+q.y*ly
	g, ok := segGap(v, fx, fy, lx, ly, pf, pl)
	if !ok || s.later(g, w, idx, q.best.gap, q.bestIdx, q.cx0, q.cy0) || g > q.rng || g == 0 && int(v.Owner) == q.self {
		return
	}
	perp := v.X1*lx+v.Y1*ly != v.X2*lx+v.Y2*ly
	// The point hit, and its place on the owner's trail.
	hx, hy := q.x+fx*g, q.y+fy*g
	odo := v.Odo + abs(hx-v.X1) + abs(hy-v.Y1)
	if nearAny(q.blasts, hx, hy, q.radius) {
		step := int64(0) // how the odometer runs as the ray goes on along the wall
		if !perp {
			step = sign((v.X2-v.X1)*fx + (v.Y2-v.Y1)*fy)
		}
		length := abs(v.X2-v.X1) + abs(v.Y2-v.Y1)
		solid, ok := s.solid(v.Owner, odo, step, v.Odo, v.Odo+length)
		if !ok {
			return
		}
		g += abs(solid - odo)
		odo = solid
		if s.later(g, w, idx, q.best.gap, q.bestIdx, q.cx0, q.cy0) || g > q.rng {
			return
		}
	}
	q.best, q.bestIdx = hit{gap: g, owner: int(v.Owner), built: v.builtAt(odo), perp: perp}, idx
}

// solid returns the first point of owner's trail from odometer odo on, going
// the way step says (+1 or -1; 0 stays), that no hole covers, within lo..hi.
func (s *State) solid(owner uint8, odo, step, lo, hi int64) (int64, bool) {
	for moved, ok := true, true; moved; {
		moved = false
		s.ownerHoles(owner, func(h *Hole) bool {
			if odo <= h.From || odo >= h.To {
				return true
			}
			switch {
			case step > 0:
				odo = h.To
			case step < 0:
				odo = h.From
			default:
				ok = false
				return false
			}
			moved = true
			ok = odo >= lo && odo <= hi
			return ok
		})
		if !ok {
			return 0, false
		}
	}
	return odo, true
}

// builtAt returns the tick at which the point of w at odometer odo was laid,
// between T1 and T2 in proportion.
func (w *Wall) builtAt(odo int64) int64 {
	length := abs(w.X2-w.X1) + abs(w.Y2-w.Y1)
	if length == 0 {
		return w.T2
	}
	return w.T1 + (w.T2-w.T1)*min(max(odo-w.Odo, 0), length)/length
}

// segGap returns the forward distance from (pf,pl) to wall w in the local frame.
func segGap(w *Wall, fx, fy, lx, ly, pf, pl int64) (int64, bool) {
	f1, l1 := w.X1*fx+w.Y1*fy, w.X1*lx+w.Y1*ly
	f2, l2 := w.X2*fx+w.Y2*fy, w.X2*lx+w.Y2*ly
	if l1 == l2 { // along the ray's line (or a point)
		if l1 != pl || max(f1, f2) <= pf { // behind, as rayCast.meets says
			return 0, false
		}
		return max(0, min(f1, f2)-pf), true
	}
	// across the ray's line
	if f1 < pf || pl < min(l1, l2) || pl > max(l1, l2) {
		return 0, false
	}
	return f1 - pf, true
}

// rimGap is the distance from (x,y) to the rim along dir: the arena's
// square, and a map's walls.
func (s *State) rimGap(x, y int64, dir uint8) int64 {
	d := s.dv()
	g := boxGap(d.arena, x, y, dir)
	if d.mp != nil {
		g = min(g, d.mp.rimGap(x, y, dir))
	}
	return g
}

// boxGap is the distance from (x,y) to the square of side a along dir.
func boxGap(a, x, y int64, dir uint8) int64 {
	switch dir & 3 {
	case 0:
		return a - x
	case 1:
		return a - y
	case 2:
		return x
	default:
		return y
	}
}

// rimSensors is what the sensors see of the rim alone: on each side, the rim
// behind or on that side, whichever the ray meets first, within WallNear.
func (s *State) rimSensors(x, y int64, dir uint8) (left, right hit) {
	left, right = hit{gap: noHit, owner: OwnerRim}, hit{gap: noHit, owner: OwnerRim}
	d := s.dv()
	if near := s.cfg.WallNear; d.mp == nil && min(x, y, d.arena-x, d.arena-y) > near {
		return left, right // the square's sides are all out of reach (most casts)
	}
	back := boxGap(d.arena, x, y, dir+2)
	for k, side := range [2]*hit{&left, &right} {
		across := boxGap(d.arena, x, y, dir+1+2*uint8(k))
		if t := min(back, across); t > 0 && t <= s.cfg.WallNear {
			*side = hit{gap: t, owner: OwnerRim, perp: back < across}
		}
	}
	if d.mp != nil {
		d.mp.sensors(x, y, dir, s.cfg.WallNear, &left, &right)
	}
	return left, right
}

// sensors casts Armagetron's two acceleration sensors from a cycle at (x,y)
// heading dir: one ray 45 degrees rearward on each side, CYCLE_WALL_NEAR
// long (measured across, as Armagetron's sensor measures along its unnormalised
// (-1, 1) direction). Each returns the first thing it meets, the rim
// included: a wall across the driving direction blocks the ray and gives no
// acceleration, as in gCycleMovement::CalculateAcceleration, which only lets a
// wall nearly parallel to the cycle accelerate it. gap is the distance across.
// Between walls met equally far, a parallel one wins, then the first met:
// the rim, the closed walls in the grid's order, the open segments in seat
// order.
func (s *State) sensors(x, y int64, dir uint8, self int) (left, right hit) {
	if s.dirs != nil {
		return s.slantSensors(x, y, dir, self)
	}
	var c sensorCast
	s.startSensors(&c, x, y, dir)
	x0, y0, x1, y1 := s.sensorBox(x, y, dir)
	c.blasts = s.blastsNear(x0, y0, x1, y1) // every point a sensor meets is in the box
	cx0, cy0, cx1, cy1 := s.grid.cellRange(x0, y0, x1, y1)
	c.cx0, c.cy0 = cx0, cy0
	// The rays lie on the two diagonals through the cycle.
	up, down := diagonalThrough(x, y, cx0, cy0, true), diagonalThrough(x, y, cx0, cy0, false)
	// The cells outward from the cycle's, so that the sides soon know how
	// far they still reach: a cell beyond that is not read.
	ox, oy := s.grid.clamp(x), s.grid.clamp(y)
	for cy := oy; cy <= cy1; cy = outward(cy, oy, cy0) {
		rows := s.grid.rows(cy, y0, y1)
		for cx := ox; cx <= cx1; cx = outward(cx, ox, cx0) {
			if !s.reaches(&c, cx, cy, ox, oy) {
				continue
			}
			cell := s.grid.cells[cy*s.grid.n+cx]
			m := ^uint64(0)
			if len(cell) > 2 { // worth a mask: the sub-cells of the box that the rays cross
				if m = rows & s.grid.cols(cx, x0, x1) & (up.in(cx-cx0, cy-cy0) | down.in(cx-cx0, cy-cy0)); m == 0 {
					continue
				}
			}
			for _, e := range cell {
				if e.mask&m != 0 {
					s.sense(&c, &s.walls[int64(e.idx)-s.wallBase], e.idx)
				}
			}
		}
	}
	// Open segments of living cycles (not in the grid: they grow every tick).
	for live := s.openNear(self, x0, y0, x1, y1); live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		if o := &s.c.Cycles[i]; o.openTouches(x0, y0, x1, y1) {
			w := o.openWall(i, s.c.Tick)
			s.sense(&c, &w, int32(-1-i))
		}
	}
	return c.sides()
}

// outward returns the cell after c in the order o, o-1, ..., lo, o+1, o+2,
// ... (the caller stops past the last).
func outward(c, o, lo int64) int64 {
	if c > o {
		return c + 1
	}
	if c--; c < lo {
		return o + 1
	}
	return c
}

// reaches reports whether cell (cx, cy) holds a point that one of the
// sensors may still meet a wall at to win: out to what that side has met
// (as far wins by kind and order), CYCLE_WALL_NEAR at most. (ox, oy) is the
// cycle's cell.
func (s *State) reaches(c *sensorCast, cx, cy, ox, oy int64) bool {
	if min(c.met[0].gap, c.met[1].gap) >= c.near {
		return true // neither side has met anything: the box is the reach (most casts among sparse walls)
	}
	// How far the cell lies from the cycle, and on which side, along x and y.
	dx, sx := s.grid.away(cx, ox, c.x)
	dy, sy := s.grid.away(cy, oy, c.y)
	du, su, dv, sv := dx, sx, dy, sy
	if !c.horiz {
		du, su, dv, sv = dy, sy, dx, sx
	}
	if su == -c.back { // ahead: the rays go back
		return false
	}
	d := max(du, dv)
	return sv >= 0 && d <= min(c.near, c.met[0].gap) || sv <= 0 && d <= min(c.near, c.met[1].gap)
}

// sensorCast is one cast of a cycle's two sensors, in world coordinates: u
// along the driving axis, v across it, and the sides told apart by the sign
// of v rather than as left and right.
type sensorCast struct {
	horiz    bool  // driving along x: u is x and v is y; otherwise u is y and v is x
	u, v     int64 // the cycle
	x, y     int64 // the same in x and y
	back     int64 // the sign of going back along u
	near     int64 // CYCLE_WALL_NEAR
	left     int   // the side that is on the left: 0 or 1
	blasts   [][2]int64
	radius   int64    // EXPLOSION_RADIUS
	cx0, cy0 int64    // the first cell searched (see grid.key)
	met      [2]hit   // what the sensor on the side of greater v, and of lesser v, has met
	metIdx   [2]int32 // which wall that is: its global index, -1-i for cycle i's open segment, or rimIdx
}

// rimIdx stands for the rim in sensorCast.metIdx.
const rimIdx = -1 - MaxPlayers

// startSensors starts c, a cast from a cycle at (x,y) heading dir, with what
// the rim gives each side; the caller sets the blasts near enough to have
// holed what the sensors meet. (Filled in place, as startRay.)
func (s *State) startSensors(c *sensorCast, x, y int64, dir uint8) {
	fx, fy, lx, ly := frame(dir)
	c.horiz, c.u, c.v, c.x, c.y, c.back, c.near, c.radius = dir&1 == 0, x, y, x, y, -(fx + fy), s.cfg.WallNear, s.dv().explosion
	c.metIdx = [2]int32{rimIdx, rimIdx}
	if !c.horiz {
		c.u, c.v = y, x
	}
	if lx+ly < 0 { // left is towards lesser v
		c.left = 1
	}
	c.met[c.left], c.met[1-c.left] = s.rimSensors(x, y, dir)
}

// sides returns what the left and the right sensor met.
func (c *sensorCast) sides() (left, right hit) { return c.met[c.left], c.met[1-c.left] }

// sensorBox is the rear half of the square around a cycle at (x,y) heading
// dir, WallNear deep and twice as wide: the only place a sensor point can be.
func (s *State) sensorBox(x, y int64, dir uint8) (x0, y0, x1, y1 int64) {
	fx, fy, lx, ly := frame(dir)
	near := s.cfg.WallNear
	bx, by := x-fx*near, y-fy*near
	return min(x, bx) - abs(lx)*near, min(y, by) - abs(ly)*near, max(x, bx) + abs(lx)*near, max(y, by) + abs(ly)*near
}

// sense lets the sensors meet wall idx (w; -1-i for cycle i's open segment).
// A sensor meets a parallel wall where it reaches the wall's line, d across
// and as far back; a wall across the driving direction where it reaches
// that line, t back and t across, if the wall spans that point. It keeps
// the nearest: between two as near, a parallel wall, then the first in the
// order of the walls (the rim, the closed walls in grid.key's order, the
// open segments in seat order).
func (s *State) sense(c *sensorCast, w *Wall, idx int32) {
	u1, v1, u2, v2 := w.X1, w.Y1, w.X2, w.Y2
	if !c.horiz {
		u1, v1, u2, v2 = v1, u1, v2, u2
	}
	if v1 == v2 { // parallel, or a point
		d, k := v1-c.v, 0
		if d < 0 {
			d, k = -d, 1
		}
		at, m := c.u+c.back*d, &c.met[k]
		if d == 0 || d > c.near || d > m.gap || at < min(u1, u2) || at > max(u1, u2) {
			return
		}
		if d < m.gap || m.perp || s.first(c, idx, w, k) {
			s.senseHit(c, w, idx, k, d)
		}
		return
	}
	t := c.back * (u1 - c.u)
	if t <= 0 || t > c.near {
		return
	}
	lo, hi := min(v1, v2), max(v1, v2)
	if p, m := c.v+t, &c.met[0]; p >= lo && p <= hi && (t < m.gap || t == m.gap && m.perp && s.first(c, idx, w, 0)) {
		s.senseHit(c, w, idx, 0, t)
	}
	if p, m := c.v-t, &c.met[1]; p >= lo && p <= hi && (t < m.gap || t == m.gap && m.perp && s.first(c, idx, w, 1)) {
		s.senseHit(c, w, idx, 1, t)
	}
}

// first reports whether wall idx (w) comes before what side k has met in the
// order of the walls.
func (s *State) first(c *sensorCast, idx int32, w *Wall, k int) bool {
	return s.before(idx, w, c.metIdx[k], c.cx0, c.cy0)
}

// before reports whether wall idx (w) comes before wall m in the order of
// the walls of a search from cell (cx0, cy0): the rim (rimIdx), the closed
// walls (their global indices) in grid.key's order, the open segments (-1-i
// for cycle i's) in seat order.
func (s *State) before(idx int32, w *Wall, m int32, cx0, cy0 int64) bool {
	switch {
	case m == rimIdx || m == idx:
		return false
	case idx < 0 || m < 0: // open segments come last, in seat order
		return m < 0 && idx > m
	}
	return s.grid.key(w, idx, cx0, cy0) < s.grid.key(&s.walls[int64(m)-s.wallBase], m, cx0, cy0)
}

// senseHit records that the sensor on side k (0 greater v, 1 lesser v) meets
// wall idx (w) d across, unless the point falls in a hole or on a part of w
// no longer standing.
func (s *State) senseHit(c *sensorCast, w *Wall, idx int32, k int, d int64) {
	pu, pv := c.u+c.back*d, c.v+d-2*d*int64(k)
	hx, hy, perp := pu, pv, w.Y1 != w.Y2
	if !c.horiz {
		hx, hy, perp = pv, pu, w.X1 != w.X2
	}
	v := w
	if !s.whole(w.Owner) {
		part, ok := s.visible(*w)
		if !ok || hx < min(part.X1, part.X2) || hx > max(part.X1, part.X2) || hy < min(part.Y1, part.Y2) || hy > max(part.Y1, part.Y2) {
			return // gone, or on the receded part of a finite trail
		}
		v = &part
	}
	odo := v.Odo + abs(hx-v.X1) + abs(hy-v.Y1)
	if nearAny(c.blasts, hx, hy, c.radius) {
		if _, ok := s.solid(v.Owner, odo, 0, 0, 0); !ok {
			return
		}
	}
	c.met[k], c.metIdx[k] = hit{gap: d, owner: int(v.Owner), built: v.builtAt(odo), perp: perp}, idx
}

// others returns the living cycles but self, a bit each by seat.
func (s *State) others(self int) uint32 {
	live := s.live
	if !s.liveOK {
		live = s.living()
	}
	if uint(self) < MaxPlayers {
		live &^= 1 << self
	}
	return live
}

// indexOpen notes the living cycles' open segments in s.open, for the
// queries of the moves' planning: they stand still until the moves are made.
func (s *State) indexOpen() {
	live := s.others(-1)
	if bits.OnesCount32(live) <= fewSeats {
		return // each query tests them all
	}
	s.open.reset(s.dv().arena)
	for ; live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		c := &s.c.Cycles[i]
		s.open.add(i, min(c.X, c.TurnX), min(c.Y, c.TurnY), max(c.X, c.TurnX), max(c.Y, c.TurnY))
	}
	s.openOK = true
}

// openNear returns the living cycles but self whose open segments may meet
// the box [x0,x1] x [y0,y1] (openTouches tells), a bit each by seat.
func (s *State) openNear(self int, x0, y0, x1, y1 int64) uint32 {
	live := s.others(self)
	if s.openOK {
		live &= s.open.in(x0, y0, x1, y1)
	}
	return live
}

// living returns the living cycles, a bit each by seat.
func (s *State) living() uint32 {
	var live uint32
	for i := range s.c.Cycles {
		if s.c.Cycles[i].Alive {
			live |= 1 << i
		}
	}
	return live
}

// openTouches reports whether the open segment's bounding box meets the box
// [x0,x1] x [y0,y1]: a cheap test that rules out most cycles of a query.
func (c *Cycle) openTouches(x0, y0, x1, y1 int64) bool {
	return max(c.X, c.TurnX) >= x0 && min(c.X, c.TurnX) <= x1 && max(c.Y, c.TurnY) >= y0 && min(c.Y, c.TurnY) <= y1
}

// openWall is the segment cycle id is laying now (tick now).
func (c *Cycle) openWall(id int, now int64) Wall {
	return Wall{X1: c.TurnX, Y1: c.TurnY, X2: c.X, Y2: c.Y, Odo: c.SegOdo, T1: c.SegTick, T2: now, Owner: uint8(id)}
}

// whole reports whether owner's walls stand whole, holes aside: its wreck
// has not vanished and trails do not recede, so visible returns any of its
// walls unchanged.
func (s *State) whole(owner uint8) bool {
	o, d := &s.c.Cycles[owner], s.dv()
	return d.wallsLength <= 0 && (o.Alive || d.deadWall < 0 || s.c.Tick < o.DeathTick+d.deadWall)
}

// visible returns the part of w that still stands, holes aside: none once its
// owner's wreck has vanished (WALLS_STAY_UP_DELAY after death), and with a
// finite trail (WALLS_LENGTH) what the receding tail has left.
func (s *State) visible(w Wall) (Wall, bool) {
	o := &s.c.Cycles[w.Owner]
	d := s.dv()
	if !o.Alive && d.deadWall >= 0 && s.c.Tick >= o.DeathTick+d.deadWall {
		return w, false
	}
	if d.wallsLength <= 0 {
		return w, true
	}
	cut := o.Odo - d.wallsLength - w.Odo // how much of w's start has receded
	if cut <= 0 {
		return w, true
	}
	length := abs(w.X2-w.X1) + abs(w.Y2-w.Y1)
	slanted := w.X1 != w.X2 && w.Y1 != w.Y2 // slant.go
	if slanted {
		length = wallLen(&w)
	}
	if cut >= length {
		return w, false
	}
	if slanted {
		w.X1, w.Y1 = pointAt(&w, cut, length)
	} else {
		w.X1 += sign(w.X2-w.X1) * cut
		w.Y1 += sign(w.Y2-w.Y1) * cut
	}
	w.Odo += cut
	return w, true
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int64) int64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// Ray returns the distance from (x,y) along dir to the first standing wall
// within rng (the rim, a closed wall, or a living cycle's open segment) and
// its owner (a player id, or OwnerRim), or (-1, OwnerRim) when nothing is that
// close. Walls of player self are ignored at distance zero: a cycle always
// touches the corner it just left. Bots and renderers use it; Step uses the
// same code, so what a bot sees is what kills.
func (s *State) Ray(x, y int64, dir uint8, rng int64, self int) (gap int64, owner int) {
	var h hit
	if s.dirs != nil {
		h = s.rayLine(x, y, 0, uint8(int(dir)%len(s.dirs)), rng, self)
	} else {
		h = s.ray(x, y, dir&3, rng, self)
	}
	if h.gap == noHit {
		return -1, OwnerRim
	}
	return h.gap, h.owner
}

// Sensors returns the distances across to the walls that accelerate a cycle
// at (x,y) heading dir (see sensors), -1 for none on that side: a side whose
// ray first meets the rim, or a wall across the driving direction, gets none.
func (s *State) Sensors(x, y int64, dir uint8, self int) (left, right int64) {
	if s.dirs != nil {
		dir = uint8(int(dir) % len(s.dirs))
	} else {
		dir &= 3
	}
	l, r := s.sensors(x, y, dir, self)
	left, right = -1, -1
	if l.gap != noHit && !l.perp && l.owner != OwnerRim {
		left = l.gap
	}
	if r.gap != noHit && !r.perp && r.owner != OwnerRim {
		right = r.gap
	}
	return left, right
}
