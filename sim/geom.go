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

// ray walks from (x,y) along dir and returns the distance to the first wall
// within rng (the rim, a closed wall or a living cycle's open segment) and its
// owner, or noHit. self's own walls only count at a distance greater than zero:
// a cycle always touches the corner it just left.
func (s *State) ray(x, y int64, dir uint8, rng int64, self int) (gap int64, owner int) {
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	gap, owner = s.rimGap(x, y, dir), OwnerRim
	if gap > rng {
		gap = noHit
	}
	// Closed walls, through the cells the ray crosses.
	ex, ey := x+fx*min(rng, s.cfg.ArenaSize), y+fy*min(rng, s.cfg.ArenaSize)
	cx0, cy0, cx1, cy1 := s.grid.cellRange(min(x, ex), min(y, ey), max(x, ex), max(y, ey))
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, idx := range s.grid.cells[cy*s.grid.n+cx] {
				w := &s.walls[int64(idx)-s.wallBase]
				// Geometry first: the standing part of a wall is a piece of
				// the whole wall, so a miss on the whole is a miss.
				g, hit := segGap(w, fx, fy, lx, ly, pf, pl)
				if !hit || g >= gap || g > rng || (g == 0 && int(w.Owner) == self) {
					continue
				}
				v, ok := s.visible(*w)
				if !ok {
					continue
				}
				if g, hit = segGap(&v, fx, fy, lx, ly, pf, pl); hit && g < gap && g <= rng && (g > 0 || int(v.Owner) != self) {
					gap, owner = g, int(v.Owner)
				}
			}
		}
	}
	// Open segments of living cycles (not in the grid: they grow every tick).
	bx0, by0, bx1, by1 := min(x, ex), min(y, ey), max(x, ex), max(y, ey)
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.Alive || i == self || !c.openTouches(bx0, by0, bx1, by1) {
			continue
		}
		w := c.openWall(i)
		if g, hit := segGap(&w, fx, fy, lx, ly, pf, pl); !hit || g >= gap || g > rng {
			continue
		}
		v, ok := s.visible(w)
		if !ok {
			continue
		}
		if g, hit := segGap(&v, fx, fy, lx, ly, pf, pl); hit && g < gap && g <= rng {
			gap, owner = g, i
		}
	}
	return gap, owner
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
	a := s.cfg.ArenaSize
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

// sensors returns the lateral distance to the nearest accelerating wall on the
// left and on the right of a cycle at (x,y) heading dir, or noHit.
//
// Armagetron casts one ray 45 degrees rearward on each side and lets a nearly
// parallel wall at distance D accelerate the cycle. Deviation: all our walls are
// axis-aligned, so we take the nearest parallel wall at lateral distance
// 0 < D <= WallNear that covers the point D behind the cycle (where the 45-degree
// ray would meet it), and ignore a perpendicular wall that would block that ray
// first. The rim never accelerates (CYCLE_ACCEL_RIM 0): it is not a wall here.
func (s *State) sensors(x, y int64, dir uint8, self int) (left, right int64) {
	fx, fy, lx, ly := frame(dir)
	pf, pl := x*fx+y*fy, x*lx+y*ly
	near := s.cfg.WallNear
	left, right = noHit, noHit
	// consider returns the side and lateral distance at which w would
	// accelerate the cycle, or nil.
	consider := func(w *Wall) (*int64, int64) {
		f1, l1 := w.X1*fx+w.Y1*fy, w.X1*lx+w.Y1*ly
		if l1 != w.X2*lx+w.Y2*ly {
			return nil, 0 // perpendicular: no acceleration
		}
		d := l1 - pl
		side := &left
		if d < 0 {
			d, side = -d, &right
		}
		if d == 0 || d > near || d >= *side {
			return nil, 0
		}
		f2 := w.X2*fx + w.Y2*fy
		if at := pf - d; at < min(f1, f2) || at > max(f1, f2) {
			return nil, 0
		}
		return side, d
	}
	// Only the rear half of the square around the cycle can hold a sensor point.
	bx, by := x-fx*near, y-fy*near
	rx0, ry0 := min(x, bx)-abs(lx)*near, min(y, by)-abs(ly)*near
	rx1, ry1 := max(x, bx)+abs(lx)*near, max(y, by)+abs(ly)*near
	cx0, cy0, cx1, cy1 := s.grid.cellRange(rx0, ry0, rx1, ry1)
	parallel := s.grid.axis[dir&1] // dirs 0 and 2 run along x, 1 and 3 along y
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, idx := range parallel[cy*s.grid.n+cx] {
				w := &s.walls[int64(idx)-s.wallBase]
				if side, _ := consider(w); side == nil {
					continue
				}
				if v, ok := s.visible(*w); ok {
					if side, d := consider(&v); side != nil {
						*side = d
					}
				}
			}
		}
	}
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive && i != self && c.openTouches(rx0, ry0, rx1, ry1) {
			w := c.openWall(i)
			if side, _ := consider(&w); side == nil {
				continue
			}
			if v, ok := s.visible(w); ok {
				if side, d := consider(&v); side != nil {
					*side = d
				}
			}
		}
	}
	return left, right
}

// openTouches reports whether the open segment's bounding box meets the box
// [x0,x1] x [y0,y1]: a cheap test that rules out most cycles of a query.
func (c *Cycle) openTouches(x0, y0, x1, y1 int64) bool {
	return max(c.X, c.TurnX) >= x0 && min(c.X, c.TurnX) <= x1 && max(c.Y, c.TurnY) >= y0 && min(c.Y, c.TurnY) <= y1
}

// openWall is the segment cycle id is laying now.
func (c *Cycle) openWall(id int) Wall {
	return Wall{X1: c.TurnX, Y1: c.TurnY, X2: c.X, Y2: c.Y, Odo: c.SegOdo, Owner: uint8(id)}
}

// visible returns the part of w that still stands.
func (s *State) visible(w Wall) (Wall, bool) {
	o := &s.c.Cycles[w.Owner]
	if !o.Alive && s.c.Tick >= o.DeathTick+s.d.deadWall {
		return w, false
	}
	if s.cfg.WallsLength <= 0 {
		return w, true
	}
	cut := o.Odo - s.cfg.WallsLength - w.Odo // how much of w's start has receded
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
	gap, owner = s.ray(x, y, dir&3, rng, self)
	if gap == noHit {
		return -1, OwnerRim
	}
	return gap, owner
}

// Sensors returns the lateral distances to the nearest walls that accelerate a
// cycle at (x,y) heading dir (see sensors), -1 for none on that side.
func (s *State) Sensors(x, y int64, dir uint8, self int) (left, right int64) {
	left, right = s.sensors(x, y, dir&3, self)
	if left == noHit {
		left = -1
	}
	if right == noHit {
		right = -1
	}
	return left, right
}
