package sim

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
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	best := hit{gap: s.rimGap(x, y, dir), owner: OwnerRim, perp: true}
	if best.gap > rng {
		best.gap = noHit
	}
	// Closed walls, through the cells the ray crosses.
	bx0, by0, bx1, by1 := s.rayBox(x, y, dir, rng)
	cx0, cy0, cx1, cy1 := s.grid.cellRange(bx0, by0, bx1, by1)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, idx := range s.grid.cells[cy*s.grid.n+cx] {
				w := &s.walls[int64(idx)-s.wallBase]
				// Geometry first: the standing part of a wall is a piece of
				// the whole wall, so a miss on the whole is a miss.
				if g, ok := segGap(w, fx, fy, lx, ly, pf, pl); ok && g < best.gap && g <= rng && (g > 0 || int(w.Owner) != self) {
					s.rayWall(w, x, y, dir, rng, self, &best)
				}
			}
		}
	}
	// Open segments of living cycles (not in the grid: they grow every tick).
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.Alive || i == self || !c.openTouches(bx0, by0, bx1, by1) {
			continue
		}
		w := c.openWall(i, s.c.Tick)
		s.rayWall(&w, x, y, dir, rng, self, &best)
	}
	return best
}

// rayBox is the box a ray from (x,y) along dir with range rng sweeps, cut at
// the arena's side.
func (s *State) rayBox(x, y int64, dir uint8, rng int64) (x0, y0, x1, y1 int64) {
	fx, fy, _, _ := frame(dir)
	a := s.dv().arena
	ex, ey := x+fx*min(rng, a), y+fy*min(rng, a)
	return min(x, ex), min(y, ey), max(x, ex), max(y, ey)
}

// rayWall makes wall w the ray's best hit if the standing part of w is nearer.
func (s *State) rayWall(w *Wall, x, y int64, dir uint8, rng int64, self int, best *hit) {
	v, ok := s.visible(*w)
	if !ok {
		return
	}
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	g, ok := segGap(&v, fx, fy, lx, ly, pf, pl)
	if !ok || g >= best.gap || g > rng || g == 0 && int(v.Owner) == self {
		return
	}
	perp := v.X1*lx+v.Y1*ly != v.X2*lx+v.Y2*ly
	// The point hit, and its place on the owner's trail.
	hx, hy := x+fx*g, y+fy*g
	odo := v.Odo + abs(hx-v.X1) + abs(hy-v.Y1)
	if s.nearBlast(hx, hy, hx, hy) {
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
		if g >= best.gap || g > rng {
			return
		}
	}
	*best = hit{gap: g, owner: int(v.Owner), built: v.builtAt(odo), perp: perp}
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
		if l1 != pl || max(f1, f2) < pf {
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

// rimGap is the distance from (x,y) to the rim along dir.
func (s *State) rimGap(x, y int64, dir uint8) int64 {
	a := s.dv().arena
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
	back := s.rimGap(x, y, dir+2)
	for k, side := range [2]*hit{&left, &right} {
		across := s.rimGap(x, y, dir+1+2*uint8(k))
		if t := min(back, across); t > 0 && t <= s.cfg.WallNear {
			*side = hit{gap: t, owner: OwnerRim, perp: back < across}
		}
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
func (s *State) sensors(x, y int64, dir uint8, self int) (left, right hit) {
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	left, right = s.rimSensors(x, y, dir)
	rx0, ry0, rx1, ry1 := s.sensorBox(x, y, dir)
	cx0, cy0, cx1, cy1 := s.grid.cellRange(rx0, ry0, rx1, ry1)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, idx := range s.grid.cells[cy*s.grid.n+cx] {
				w := &s.walls[int64(idx)-s.wallBase]
				if max(w.X1, w.X2) < rx0 || min(w.X1, w.X2) > rx1 || max(w.Y1, w.Y2) < ry0 || min(w.Y1, w.Y2) > ry1 {
					continue
				}
				s.sense(w, fx, fy, lx, ly, pf, pl, self, &left, &right)
			}
		}
	}
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive && i != self && c.openTouches(rx0, ry0, rx1, ry1) {
			w := c.openWall(i, s.c.Tick)
			s.sense(&w, fx, fy, lx, ly, pf, pl, self, &left, &right)
		}
	}
	return left, right
}

// sensorBox is the rear half of the square around a cycle at (x,y) heading
// dir, WallNear deep and twice as wide: the only place a sensor point can be.
func (s *State) sensorBox(x, y int64, dir uint8) (x0, y0, x1, y1 int64) {
	fx, fy, lx, ly := frame(dir)
	near := s.cfg.WallNear
	bx, by := x-fx*near, y-fy*near
	return min(x, bx) - abs(lx)*near, min(y, by) - abs(ly)*near, max(x, bx) + abs(lx)*near, max(y, by) + abs(ly)*near
}

// sense lets the sensor rays meet wall w: a parallel wall where the ray
// reaches its line, a wall across where the ray reaches its line and the
// wall spans the ray's point there. Equal distances keep the parallel wall.
func (s *State) sense(w *Wall, fx, fy, lx, ly, pf, pl int64, self int, left, right *hit) {
	near := s.cfg.WallNear
	f1, l1 := w.X1*fx+w.Y1*fy, w.X1*lx+w.Y1*ly
	f2, l2 := w.X2*fx+w.Y2*fy, w.X2*lx+w.Y2*ly
	if l1 == l2 { // parallel: the ray meets its line at t = |d|, at f = pf - t
		d := l1 - pl
		side := left
		if d < 0 {
			d, side = -d, right
		}
		if d == 0 || d > near || d > side.gap || d == side.gap && !side.perp {
			return
		}
		if at := pf - d; at < min(f1, f2) || at > max(f1, f2) {
			return
		}
		s.senseHit(w, fx, fy, lx, ly, pf-d, l1, d, false, side)
		return
	}
	// across: the ray meets its line at t = pf - f1, at l = pl +- t
	t := pf - f1
	if t <= 0 || t > near {
		return
	}
	for k, side := range [2]*hit{left, right} {
		l := pl + t - 2*t*int64(k)
		if t >= side.gap || l < min(l1, l2) || l > max(l1, l2) {
			continue
		}
		s.senseHit(w, fx, fy, lx, ly, f1, l, t, true, side)
	}
}

// senseHit records a sensor's hit on w at local (f, l), t across, unless it
// falls in a hole or on a part of w no longer standing.
func (s *State) senseHit(w *Wall, fx, fy, lx, ly, f, l, t int64, perp bool, side *hit) {
	v, ok := s.visible(*w)
	if !ok {
		return
	}
	// Back to world coordinates: the frame is orthonormal.
	hx, hy := f*fx+l*lx, f*fy+l*ly
	if hx < min(v.X1, v.X2) || hx > max(v.X1, v.X2) || hy < min(v.Y1, v.Y2) || hy > max(v.Y1, v.Y2) {
		return // on the receded part of a finite trail
	}
	odo := v.Odo + abs(hx-v.X1) + abs(hy-v.Y1)
	if s.nearBlast(hx, hy, hx, hy) {
		if _, ok := s.solid(v.Owner, odo, 0, 0, 0); !ok {
			return
		}
	}
	*side = hit{gap: t, owner: int(v.Owner), built: v.builtAt(odo), perp: perp}
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
	if cut >= length {
		return w, false
	}
	w.X1 += sign(w.X2-w.X1) * cut
	w.Y1 += sign(w.Y2-w.Y1) * cut
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
	h := s.ray(x, y, dir&3, rng, self)
	if h.gap == noHit {
		return -1, OwnerRim
	}
	return h.gap, h.owner
}

// Sensors returns the distances across to the walls that accelerate a cycle
// at (x,y) heading dir (see sensors), -1 for none on that side: a side whose
// ray first meets the rim, or a wall across the driving direction, gets none.
func (s *State) Sensors(x, y int64, dir uint8, self int) (left, right int64) {
	l, r := s.sensors(x, y, dir&3, self)
	left, right = -1, -1
	if l.gap != noHit && !l.perp && l.owner != OwnerRim {
		left = l.gap
	}
	if r.gap != noHit && !r.perp && r.owner != OwnerRim {
		right = r.gap
	}
	return left, right
}
