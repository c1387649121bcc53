package sim

// crossMoves finds where this tick's moves cut each other and settles them in
// the order they happened, so that a cycle stopped early in the tick cannot
// reach anyone further along its path.
//
// Armagetron decides who was first at a crossing by the walls' build times; we
// do the same with the arrival times inside the tick (a move starts at its
// cycle's last turn this tick), compared by cross-multiplication. The one
// that arrives later meets a wall built within this tick, and rubber holds
// it back from that wall as from any other: it closes the gap only to
// g*e^(-RubberSpeed*dt), and dies against the wall once its rubber is used
// up. Two cycles that get
// to the same point at the same instant, or meet head-on, both die.
func (s *State) crossMoves() {
	s.findCrossings()
	xs := s.crossings
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && cmpFrac(xs[j].N, xs[j].D, xs[j-1].N, xs[j-1].D) < 0; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
	for _, x := range xs {
		ma, mb := &s.moves[x.a], &s.moves[x.b]
		if s.dirs != nil {
			if x.da > ma.Len || x.db > mb.Len {
				continue // one of them was stopped before getting there
			}
		} else if !ma.reaches(x.X, x.Y) || !mb.reaches(x.X, x.Y) {
			continue // one of them was stopped before getting there
		}
		if x.both {
			ma.stop(x.X, x.Y, CauseCollision)
			mb.stop(x.X, x.Y, CauseCollision)
			if s.dirs != nil {
				ma.Len, mb.Len = x.da, x.db
			}
			s.influence(x.a, x.b, s.c.Tick)
			s.influence(x.b, x.a, s.c.Tick)
			continue
		}
		if s.dirs != nil {
			s.brakeSlant(x.a, ma, x.X, x.Y, x.da)
		} else {
			s.brake(x.a, ma, x.X, x.Y)
		}
		if ma.Dead {
			s.influence(x.a, x.b, s.c.Tick)
		}
	}
}

// findCrossings lists in s.crossings where this tick's moves cut each other,
// pair by pair in seat order.
func (s *State) findCrossings() {
	s.crossings = s.crossings[:0]
	// Only the moving cycles (a round seats 8 of 32), and only the pairs
	// whose moves' boxes meet (a crossing lies on both moves): sorted by
	// the left side of their boxes, a move can only meet those after it
	// that start left of where it ends.
	var act [MaxPlayers]int
	var left [MaxPlayers]int64
	n := 0
	for a := range s.moves {
		if m := &s.moves[a]; m.active {
			x, j := min(m.X0, m.X1), n
			for ; j > 0 && left[j-1] > x; j-- {
				act[j], left[j] = act[j-1], left[j-1]
			}
			act[j], left[j] = a, x
			n++
		}
	}
	var pairs [MaxPlayers * (MaxPlayers - 1) / 2]int16 // a*MaxPlayers + b, a < b
	np := 0
	for i, a := range act[:n] {
		ma := &s.moves[a]
		right := max(ma.X0, ma.X1)
		for k := i + 1; k < n && left[k] <= right; k++ {
			if b := act[k]; ma.meets(&s.moves[b]) {
				pairs[np] = int16(min(a, b)*MaxPlayers + max(a, b))
				np++
			}
		}
	}
	// Back to seat order.
	for i := 1; i < np; i++ {
		for j := i; j > 0 && pairs[j] < pairs[j-1]; j-- {
			pairs[j], pairs[j-1] = pairs[j-1], pairs[j]
		}
	}
	for _, p := range pairs[:np] {
		if s.dirs != nil {
			if x, ok := s.crossSlant(int(p)/MaxPlayers, int(p)%MaxPlayers); ok {
				s.crossings = append(s.crossings, x)
			}
		} else if x, ok := s.cross(int(p)/MaxPlayers, int(p)%MaxPlayers); ok {
			s.crossings = append(s.crossings, x)
		}
	}
}

// brake holds cycle a back from the wall that another cycle laid at (x, y)
// earlier in this tick, with rubber, or stops it there dead.
func (s *State) brake(a int, m *move, x, y int64) {
	gap := abs(x-m.X0) + abs(y-m.Y0)
	keep := max(1, gap*s.shrink(SubTicks-m.from)/Unit)
	travel := max(0, gap-keep)
	if s.spend(a, m.Len-travel) {
		m.stop(x, y, CauseWall)
		return
	}
	fx, fy := sign(x-m.X0), sign(y-m.Y0)
	m.X1, m.Y1, m.Len = m.X0+fx*travel, m.Y0+fy*travel, travel
}

// meets reports whether the boxes of two moves touch.
func (m *move) meets(o *move) bool {
	return max(m.X0, m.X1) >= min(o.X0, o.X1) && max(o.X0, o.X1) >= min(m.X0, m.X1) &&
		max(m.Y0, m.Y1) >= min(o.Y0, o.Y1) && max(o.Y0, o.Y1) >= min(m.Y0, m.Y1)
}

// reaches reports whether (x,y) lies on the move (as truncated so far).
func (m *move) reaches(x, y int64) bool {
	return x >= min(m.X0, m.X1) && x <= max(m.X0, m.X1) && y >= min(m.Y0, m.Y1) && y <= max(m.Y0, m.Y1)
}

// stop ends the move at (x,y) with a death.
func (m *move) stop(x, y int64, why DeathCause) {
	m.X1, m.Y1 = x, y
	m.Len = abs(x-m.X0) + abs(y-m.Y0)
	m.Dead, m.Why = true, why
}

// frac returns t/l as a fraction with a positive denominator; a cycle that does
// not move is at its point from the start of its move.
func frac(t, l int64) (int64, int64) {
	if l == 0 {
		return 0, 1
	}
	return t, l
}

// when returns the instant, as the fraction N/D of the tick, at which m has
// gone the fraction n/e (e > 0) of its way.
func (m *move) when(n, e int64) (int64, int64) {
	return m.from*e + (SubTicks-m.from)*n, SubTicks * e
}

// cmpFrac compares a/b with c/d (b, d > 0): -1, 0 or +1. The products are
// taken in 128 bits: an instant's terms are SubTicks times a tick's travel,
// which at 10 Hz and 500 m/s is 50 m.
func cmpFrac(a, b, c, d int64) int { return mulWide(a, d).cmp(mulWide(c, b)) }

// cross returns the collision between the moves of a and b, if any.
func (s *State) cross(a, b int) (crossing, bool) {
	ma, mb := &s.moves[a], &s.moves[b]
	da, db := s.c.Cycles[a].Dir, s.c.Cycles[b].Dir
	if da&1 != db&1 {
		return perpendicular(a, b, ma, mb, da)
	}
	if (da-db)&3 != 2 {
		return crossing{}, false // same direction: the walls at tick start already separate them
	}
	fx, fy, lx, ly := frame(da)
	if ma.X0*lx+ma.Y0*ly != mb.X0*lx+mb.Y0*ly {
		return crossing{}, false // parallel lines
	}
	// Head-on on one line, in a's frame: a moves forward from fa0, b backward from fb0.
	fa0, fb0 := ma.X0*fx+ma.Y0*fy, mb.X0*fx+mb.Y0*fy
	gap := fb0 - fa0
	sum := ma.Len + mb.Len
	if gap <= 0 || gap > sum { // at one point moving apart (a sumo map's spawns): no meeting
		return crossing{}, false
	}
	meet := int64(0)
	if sum > 0 {
		meet = gap * ma.Len / sum
	}
	// Deviation: they meet where they would had they set off together; one
	// that turned this tick set off later.
	x := crossing{a: a, b: b, both: true, X: ma.X0 + fx*meet, Y: ma.Y0 + fy*meet}
	x.N, x.D = ma.when(frac(gap, sum))
	return x, true
}

// perpendicular handles two moves at right angles; da is a's direction.
func perpendicular(a, b int, ma, mb *move, da uint8) (crossing, bool) {
	h, v := ma, mb
	if da&1 == 1 {
		h, v = mb, ma
	}
	x, y := v.X0, h.Y0
	if !h.reaches(x, y) || !v.reaches(x, y) {
		return crossing{}, false
	}
	na, ea := ma.when(frac(abs(x-ma.X0)+abs(y-ma.Y0), ma.Len))
	nb, eb := mb.when(frac(abs(x-mb.X0)+abs(y-mb.Y0), mb.Len))
	c := crossing{X: x, Y: y}
	switch cmpFrac(na, ea, nb, eb) {
	case 0:
		c.a, c.b, c.both, c.N, c.D = a, b, true, na, ea
	case 1: // a arrives later
		c.a, c.b, c.N, c.D = a, b, na, ea
	default:
		c.a, c.b, c.N, c.D = b, a, nb, eb
	}
	return c, true
}
