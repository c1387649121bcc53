package sim

import "math/bits"

// The slanted geometry: rays, sensors and walls of a map whose Axes is not
// 4, where trails run at the map's angles (axes.go). The axis-aligned code
// (geom.go, cross.go) plays the four unchanged; every function here is
// reached only when s.dirs is set.
//
// A cycle on a slanted axis is at TurnX, TurnY + t (ux, uy) / AxisScale,
// t = Odo - SegOdo its parameter along the open segment, its position the
// point rounded down (along). Its rays are cast from the segment's start at
// parameter t, not from the rounded point: a point rounded across a wall's
// line would have the ray miss that wall, and a grinding cycle held back
// micrometres from a wall would ride through it. A wall met is reported at
// the parameter where the line meets it, rounded toward the cycle and less
// what rounding the point down can move it across (slantHit), so a cycle
// stopped there has not crossed it.

// line is where a cycle on a slanted axis rides: from (x, y), the start of
// its leg, now at parameter t0 along it.
type line struct{ x, y, t0 int64 }

// along returns the point t along direction dir from (x, y), rounded down.
func (s *State) along(x, y int64, dir uint8, t int64) (int64, int64) {
	u := &s.dirs[dir]
	return x + (t*u[0])>>24, y + (t*u[1])>>24 // AxisScale is 2^24; >> rounds down
}

// slantHit returns the parameter t >= t0, rounded down, at which the ray
// (px, py) + t (vx, vy) / AxisScale meets the segment from (ax, ay) to
// (bx, by); vv is vx^2 + vy^2. A segment on the ray's line is met at its
// nearer end (at t0 if the ray starts on it), unless it ends at or before
// t0: two cycles spawned on one point ride apart. A rim segment across the
// ray exactly at t0 is not in its way (a map's spawn point on a wall, as
// mapArena.rimGap says). A ray that places a cycle where it meets (place:
// a cycle's way, not its sensors) meets the segment soon enough that the
// point rounded as along rounds it has not crossed the segment's line.
func slantHit(px, py, vx, vy, vv, ax, ay, bx, by, t0 int64, rim, place bool) (int64, bool) {
	ex, ey := bx-ax, by-ay
	rx, ry := ax-px, ay-py
	den := vx*ey - vy*ex // cross(v, e)
	if den == 0 {
		if rx*vy-ry*vx != 0 {
			return 0, false // parallel, off the ray's line
		}
		// On the line: the ends' parameters, S dot(r, v) / |v|^2.
		ta := floorDiv(mulWide(rx*vx+ry*vy, AxisScale), vv)
		tb := floorDiv(mulWide((bx-px)*vx+(by-py)*vy, AxisScale), vv)
		if max(ta, tb) <= t0 {
			return 0, false
		}
		return max(t0, min(ta, tb)), true
	}
	// Both numerators are linear in r: flip their signs with den's, and
	// e's for push below.
	fx, fy := ex, ey
	if den < 0 {
		den, rx, ry, fx, fy = -den, -rx, -ry, -ex, -ey
	}
	// The segment's parameter cross(r, v) / den must lie in [0, 1].
	if sn := rx*vy - ry*vx; sn < 0 || sn > den {
		return 0, false
	}
	// t = S cross(r, e) / den.
	tn := mulWide(rx*AxisScale, ey).sub(mulWide(ry*AxisScale, ex))
	switch c := tn.cmp(mulWide(t0, den)); {
	case c < 0, c == 0 && rim:
		return 0, false
	}
	// The point t along is put at its coordinates rounded down (along): a
	// move of less than a micrometre in x and in y, which can take it
	// across the segment's line, and a cycle held there by rubber would
	// turn and ride on beyond the wall. push bounds what the rounding of
	// an inexact coordinate (a direction's part not 0 or AxisScale) takes
	// off S cross(r, e) - t den, the point's distance from the line
	// toward the near side times |e| S: met that much sooner, the rounded
	// point has not crossed.
	push := int64(0)
	if place && vx%AxisScale != 0 && fy < 0 {
		push -= fy
	}
	if place && vy%AxisScale != 0 && fx > 0 {
		push += fx
	}
	return max(t0, floorDiv(tn.sub(mulWide(push, AxisScale)), den)), true
}

// parallel reports whether wall w runs along the direction (ux, uy), within
// 26.6 degrees (the cross product under half the dot product): such a wall
// is met side-on. Armagetron counts a wall parallel when its edge's
// projection on the driving direction exceeds 0.9
// (gCycleMovement::CalculateAcceleration, which measures the grid's edge
// pieces), within 25.8 degrees; on n axes a wall of another cycle is either
// along or at 360/n degrees or more, which this tells apart up to 13 axes
// (27.7 degrees) and, as Armagetron's test, not from 14 on (25.7).
func parallel(x1, y1, x2, y2, ux, uy int64) bool {
	ex, ey := x2-x1, y2-y1
	return 2*abs(ex*uy-ey*ux) < abs(ex*ux+ey*uy)
}

// wallLen is the length of w: along its axis, or its diagonal's.
func wallLen(w *Wall) int64 {
	dx, dy := abs(w.X2-w.X1), abs(w.Y2-w.Y1)
	if dx == 0 || dy == 0 {
		return dx + dy
	}
	return hypot(dx, dy)
}

// hypot returns sqrt(dx^2 + dy^2) for dx, dy >= 0, rounded down (the last
// bits dropped first where the squares would not fit 64 bits).
func hypot(dx, dy int64) int64 {
	sh := 0
	for max(dx, dy) >= 1<<31 {
		dx, dy, sh = dx>>1, dy>>1, sh+1
	}
	return isqrt(dx*dx+dy*dy) << sh
}

// builtAtSlant is builtAt for a wall of any angle.
func (w *Wall) builtAtSlant(odo int64) int64 {
	length := wallLen(w)
	if length == 0 {
		return w.T2
	}
	return w.T1 + (w.T2-w.T1)*min(max(odo-w.Odo, 0), length)/length
}

// odoAt returns the owner's odometer at (x, y), a point of w.
func odoAt(w *Wall, x, y int64) int64 {
	if w.X1 == w.X2 || w.Y1 == w.Y2 {
		return w.Odo + abs(x-w.X1) + abs(y-w.Y1)
	}
	return w.Odo + min(hypot(abs(x-w.X1), abs(y-w.Y1)), wallLen(w))
}

// pointAt returns the point of w at distance d from (X1, Y1), rounded down.
func pointAt(w *Wall, d, length int64) (int64, int64) {
	if length == 0 {
		return w.X1, w.Y1
	}
	return w.X1 + mulDiv(w.X2-w.X1, d, length), w.Y1 + mulDiv(w.Y2-w.Y1, d, length)
}

// slantRay is one ray of the slanted geometry: along (vx, vy) from the
// point t0 along it from (px, py), within rng of there; the nearest wall it
// has met so far, as rayCast.
type slantRay struct {
	px, py, t0 int64
	dir        uint8
	rng        int64
	self       int
	blasts     [][2]int64
	radius     int64
	best       hit
	bestIdx    int32
	cx0, cy0   int64
}

// rayLine is ray on a slanted map: from (px, py), the start of the line a
// cycle rides on, at its parameter t0 (0 for a ray from a point).
func (s *State) rayLine(px, py, t0 int64, dir uint8, rng int64, self int) hit {
	q := slantRay{px: px, py: py, t0: t0, dir: dir, rng: rng, self: self, radius: s.dv().explosion, bestIdx: rimIdx}
	a := s.dv().arena
	reach := min(rng, 2*a)
	x0, y0 := s.along(px, py, dir, t0)
	x1, y1 := s.along(px, py, dir, t0+reach)
	bx0, by0, bx1, by1 := min(x0, x1)-1, min(y0, y1)-1, max(x0, x1)+1, max(y0, y1)+1
	q.best = hit{gap: noHit, owner: OwnerRim, perp: true}
	if g := s.slantRim(px, py, t0, dir, bx0, by0, bx1, by1) - t0; g <= rng {
		q.best.gap = g
	}
	q.blasts = s.blastsNear(bx0, by0, bx1, by1)
	cx0, cy0, cx1, cy1 := s.grid.cellRange(bx0, by0, bx1, by1)
	q.cx0, q.cy0 = cx0, cy0
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			m := s.grid.mask(cx, cy, bx0, by0, bx1, by1)
			for _, e := range s.grid.cells[cy*s.grid.n+cx] {
				if e.mask&m != 0 {
					s.slantRayWall(&q, &s.walls[int64(e.idx)-s.wallBase], e.idx)
				}
			}
		}
	}
	for live := s.openNear(self, bx0, by0, bx1, by1); live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		if c := &s.c.Cycles[i]; c.openTouches(bx0, by0, bx1, by1) {
			w := c.openWall(i, s.c.Tick)
			s.slantRayWall(&q, &w, int32(-1-i))
		}
	}
	return q.best
}

// slantRim returns the parameter at which the line from (px, py) along dir
// leaves the arena's square or meets a map wall within the box
// [x0,x1] x [y0,y1] (the ray's), from t0 on: noHit for none.
func (s *State) slantRim(px, py, t0 int64, dir uint8, x0, y0, x1, y1 int64) int64 {
	u := &s.dirs[dir]
	d := s.dv()
	best := noHit
	// The square: where x or y reaches its side, rounded down.
	for k, p := range [2]int64{px, py} {
		switch v := u[k]; {
		case v > 0:
			best = min(best, (d.arena-p)*AxisScale/v)
		case v < 0:
			best = min(best, p*AxisScale/-v)
		}
	}
	if d.mp != nil {
		for i := range d.mp.rim {
			w := &d.mp.rim[i]
			if w.bx1 < x0 || w.bx0 > x1 || w.by1 < y0 || w.by0 > y1 {
				continue
			}
			if t, ok := slantHit(px, py, u[0], u[1], AxisScale*AxisScale, w.x1, w.y1, w.x2, w.y2, t0, true, true); ok {
				best = min(best, t)
			}
		}
	}
	return best
}

// slantRayWall makes wall idx (w) the ray's best hit if the standing part
// of w is nearer, or as near and first in the order of the walls (as
// rayWall).
func (s *State) slantRayWall(q *slantRay, w *Wall, idx int32) {
	u := &s.dirs[q.dir]
	if _, ok := slantHit(q.px, q.py, u[0], u[1], AxisScale*AxisScale, w.X1, w.Y1, w.X2, w.Y2, q.t0, false, true); !ok {
		return // the standing part is a piece of the whole wall
	}
	v := w
	if !s.whole(w.Owner) {
		part, ok := s.visible(*w)
		if !ok {
			return
		}
		v = &part
	}
	t, ok := slantHit(q.px, q.py, u[0], u[1], AxisScale*AxisScale, v.X1, v.Y1, v.X2, v.Y2, q.t0, false, true)
	g := t - q.t0
	// One's own wall ending where the ray starts is the corner just left,
	// unless it runs on along the ray: a cycle that turned back (a map of
	// 2 axes) would ride its own trail. Any other of one's walls met there
	// is in the way: a cycle that turned micrometres from its own trail
	// would ride through it.
	corner := g == 0 && int(v.Owner) == q.self && v.X2 == q.px && v.Y2 == q.py && (v.X2-v.X1)*u[1] != (v.Y2-v.Y1)*u[0]
	if !ok || g > q.rng || corner || s.later(g, w, idx, q.best.gap, q.bestIdx, q.cx0, q.cy0) {
		return
	}
	perp := !parallel(v.X1, v.Y1, v.X2, v.Y2, u[0], u[1])
	hx, hy := s.along(q.px, q.py, q.dir, t)
	odo := odoAt(v, hx, hy)
	if nearAny(q.blasts, hx, hy, q.radius) {
		step := int64(0) // how the odometer runs as the ray goes on along the wall
		if !perp {
			step = sign((v.X2-v.X1)*u[0] + (v.Y2-v.Y1)*u[1])
		}
		solid, ok := s.solid(v.Owner, odo, step, v.Odo, v.Odo+wallLen(v))
		if !ok {
			return
		}
		g += abs(solid - odo)
		odo = solid
		if g > q.rng || s.later(g, w, idx, q.best.gap, q.bestIdx, q.cx0, q.cy0) {
			return
		}
	}
	q.best, q.bestIdx = hit{gap: g, owner: int(v.Owner), built: v.builtAtSlant(odo), perp: perp}, idx
}

// later reports whether wall idx (w), met g along, comes after the best hit
// so far, best met gap along: ties go by the order of the walls (before).
// Rays and sensors, on the axes or slanted, all decide by it.
func (s *State) later(g int64, w *Wall, idx int32, gap int64, best int32, cx0, cy0 int64) bool {
	return g > gap || g == gap && !s.before(idx, w, best, cx0, cy0)
}

// slantSensors is sensors on a slanted map: the two rays go back at 45
// degrees to each side of the driving direction, their parameter the
// distance across as on the axes (the rays' vectors are sqrt 2 long).
// Between walls met as far, a parallel one, then the first in the order of
// the walls (the rim, the closed walls in grid.key's order, the open
// segments in seat order).
func (s *State) slantSensors(x, y int64, dir uint8, self int) (left, right hit) {
	u := &s.dirs[dir]
	ux, uy := u[0], u[1]
	near := s.cfg.WallNear
	c := slantSense{x: x, y: y, ux: ux, uy: uy, near: near, radius: s.dv().explosion}
	// back and to the left (-u + l, l = (-uy, ux)), back and to the right
	c.v = [2][2]int64{{-ux - uy, -uy + ux}, {-ux + uy, -uy - ux}}
	c.met = [2]hit{{gap: noHit, owner: OwnerRim}, {gap: noHit, owner: OwnerRim}}
	c.metIdx = [2]int32{rimIdx, rimIdx}
	// A ray's point is at most sqrt 2 x near from the cycle along x or y
	// (its vector's parts are |ux| + |uy| at most).
	r := near*3/2 + 1
	x0, y0, x1, y1 := x-r, y-r, x+r, y+r
	// The rim: the square's sides and the map's walls.
	a := s.dv().arena
	sq := [4]MapWall{{0, 0, a, 0}, {a, 0, a, a}, {a, a, 0, a}, {0, a, 0, 0}}
	for i := range sq {
		s.senseRim(&c, sq[i].X1, sq[i].Y1, sq[i].X2, sq[i].Y2)
	}
	if mp := s.dv().mp; mp != nil {
		for i := range mp.rim {
			if w := &mp.rim[i]; w.bx1 >= x0 && w.bx0 <= x1 && w.by1 >= y0 && w.by0 <= y1 {
				s.senseRim(&c, w.x1, w.y1, w.x2, w.y2)
			}
		}
	}
	c.blasts = s.blastsNear(x0, y0, x1, y1)
	cx0, cy0, cx1, cy1 := s.grid.cellRange(x0, y0, x1, y1)
	c.cx0, c.cy0 = cx0, cy0
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			m := s.grid.mask(cx, cy, x0, y0, x1, y1)
			for _, e := range s.grid.cells[cy*s.grid.n+cx] {
				if e.mask&m != 0 {
					s.senseSlant(&c, &s.walls[int64(e.idx)-s.wallBase], e.idx)
				}
			}
		}
	}
	for live := s.openNear(self, x0, y0, x1, y1); live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		if o := &s.c.Cycles[i]; o.openTouches(x0, y0, x1, y1) {
			w := o.openWall(i, s.c.Tick)
			s.senseSlant(&c, &w, int32(-1-i))
		}
	}
	return c.met[0], c.met[1]
}

// slantSense is one cast of the sensors on a slanted map: side 0 the left,
// 1 the right.
type slantSense struct {
	x, y, ux, uy int64
	v            [2][2]int64 // each side's ray, sqrt 2 x AxisScale long
	near         int64
	blasts       [][2]int64
	radius       int64
	cx0, cy0     int64
	met          [2]hit
	metIdx       [2]int32
}

// senseRim lets the sensors meet a piece of the rim.
func (s *State) senseRim(c *slantSense, x1, y1, x2, y2 int64) {
	for k := range c.v {
		t, ok := slantHit(c.x, c.y, c.v[k][0], c.v[k][1], 2*AxisScale*AxisScale, x1, y1, x2, y2, 0, true, false)
		if !ok || t <= 0 || t > c.near {
			continue
		}
		perp := !parallel(x1, y1, x2, y2, c.ux, c.uy)
		if m := &c.met[k]; t < m.gap || t == m.gap && m.perp && !perp {
			*m = hit{gap: t, owner: OwnerRim, perp: perp}
		}
	}
}

// senseSlant lets the sensors meet wall idx (w; -1-i for cycle i's open
// segment), unless the point met is in a hole or on a part of w no longer
// standing.
func (s *State) senseSlant(c *slantSense, w *Wall, idx int32) {
	for k := range c.v {
		t, ok := slantHit(c.x, c.y, c.v[k][0], c.v[k][1], 2*AxisScale*AxisScale, w.X1, w.Y1, w.X2, w.Y2, 0, false, false)
		m := &c.met[k]
		if !ok || t <= 0 || t > c.near || t > m.gap {
			continue
		}
		perp := !parallel(w.X1, w.Y1, w.X2, w.Y2, c.ux, c.uy)
		if t == m.gap && (perp && !m.perp || !s.before(idx, w, c.metIdx[k], c.cx0, c.cy0) && (perp || !m.perp)) {
			continue
		}
		hx, hy := c.x+(t*c.v[k][0])>>24, c.y+(t*c.v[k][1])>>24
		v := w
		if !s.whole(w.Owner) {
			part, ok := s.visible(*w)
			if !ok {
				continue
			}
			if _, on := slantHit(c.x, c.y, c.v[k][0], c.v[k][1], 2*AxisScale*AxisScale, part.X1, part.Y1, part.X2, part.Y2, 0, false, false); !on {
				continue // on the receded part of a finite trail
			}
			v = &part
		}
		odo := odoAt(v, hx, hy)
		if nearAny(c.blasts, hx, hy, c.radius) {
			if _, ok := s.solid(v.Owner, odo, 0, 0, 0); !ok {
				continue
			}
		}
		*m, c.metIdx[k] = hit{gap: t, owner: int(v.Owner), built: v.builtAtSlant(odo), perp: perp}, idx
	}
}

// crossSlant is cross on a slanted map: where the lines of two moves meet,
// and when each gets there.
func (s *State) crossSlant(a, b int) (crossing, bool) {
	ma, mb := &s.moves[a], &s.moves[b]
	ca, cb := &s.c.Cycles[a], &s.c.Cycles[b]
	ua, ub := &s.dirs[ca.Dir], &s.dirs[cb.Dir]
	sa, sb := ca.Odo-ca.SegOdo, cb.Odo-cb.SegOdo // where the moves start on their lines
	rx, ry := cb.TurnX-ca.TurnX, cb.TurnY-ca.TurnY
	den := ua[0]*ub[1] - ua[1]*ub[0]
	if den == 0 {
		if ca.Dir == cb.Dir {
			return crossing{}, false // same direction: the walls at tick start already separate them
		}
		if abs(rx*ua[1]-ry*ua[0]) >= AxisScale {
			return crossing{}, false // parallel lines, a micrometre apart or more
		}
		// Head-on on one line: a moves forward, b back toward it.
		gap := ((mb.X0-ma.X0)*ua[0] + (mb.Y0-ma.Y0)*ua[1]) >> 24
		sum := ma.Len + mb.Len
		if gap <= 0 || gap > sum {
			return crossing{}, false
		}
		meet := int64(0)
		if sum > 0 {
			meet = gap * ma.Len / sum
		}
		x := crossing{a: a, b: b, both: true, da: meet, db: gap - meet}
		x.X, x.Y = s.along(ca.TurnX, ca.TurnY, ca.Dir, sa+meet)
		x.N, x.D = ma.when(frac(gap, sum))
		return x, true
	}
	// a's parameter S cross(r, ub) / den, b's S cross(r, ua) / den.
	ta := floorDiv(mulWide(rx*AxisScale, ub[1]).sub(mulWide(ry*AxisScale, ub[0])), den)
	tb := floorDiv(mulWide(rx*AxisScale, ua[1]).sub(mulWide(ry*AxisScale, ua[0])), den)
	da, db := ta-sa, tb-sb
	if da < 0 || da > ma.Len || db < 0 || db > mb.Len {
		return crossing{}, false
	}
	c := crossing{}
	c.X, c.Y = s.along(ca.TurnX, ca.TurnY, ca.Dir, ta)
	na, ea := ma.when(frac(da, ma.Len))
	nb, eb := mb.when(frac(db, mb.Len))
	switch cmpFrac(na, ea, nb, eb) {
	case 0:
		c.a, c.b, c.both, c.N, c.D, c.da, c.db = a, b, true, na, ea, da, db
	case 1: // a arrives later
		c.a, c.b, c.N, c.D, c.da, c.db = a, b, na, ea, da, db
	default:
		c.a, c.b, c.N, c.D, c.da, c.db = b, a, nb, eb, db, da
	}
	return c, true
}

// brakeSlant is brake on a slanted map: it holds cycle a back from the wall
// another cycle laid gap along its move earlier in this tick, with rubber,
// or stops it there dead.
func (s *State) brakeSlant(a int, m *move, x, y, gap int64) {
	keep := max(1, gap*s.shrink(SubTicks-m.from)/Unit)
	travel := max(0, gap-keep)
	if s.spend(a, m.Len-travel) {
		m.stop(x, y, CauseWall)
		m.Len = gap
		return
	}
	c := &s.c.Cycles[a]
	m.X1, m.Y1 = s.along(c.TurnX, c.TurnY, c.Dir, c.Odo-c.SegOdo+travel)
	m.Len = travel
}

// cutSlant is cut for a slanted wall: the chord of the blast's circle of
// radius r at (x, y) on w's line, to the owner's odometer.
func (s *State) cutSlant(w *Wall, x, y, r int64) {
	ex, ey := w.X2-w.X1, w.Y2-w.Y1
	length := wallLen(w)
	if length == 0 {
		return
	}
	cx, cy := x-w.X1, y-w.Y1
	across := floorDiv(mulWide(ex, cy).sub(mulWide(ey, cx)), length)
	if across <= -r || across >= r {
		return
	}
	at := floorDiv(mulWide(ex, cx).add(mulWide(ey, cy)), length)
	half := isqrt(r*r - across*across)
	from, to := max(0, at-half), min(length, at+half)
	if from >= to {
		return
	}
	s.addHole(Hole{From: w.Odo + from, To: w.Odo + to, Owner: w.Owner})
}

// nearestSlant is nearest for a slanted wall: its point nearest (x, y).
func nearestSlant(w *Wall, x, y int64) (int64, int64) {
	length := wallLen(w)
	if length == 0 {
		return w.X1, w.Y1
	}
	at := floorDiv(mulWide(w.X2-w.X1, x-w.X1).add(mulWide(w.Y2-w.Y1, y-w.Y1)), length)
	return pointAt(w, min(max(at, 0), length), length)
}
