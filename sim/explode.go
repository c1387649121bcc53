package sim

import "math/bits"

// Explosions, as Armagetron's gExplosion: a dying cycle explodes where it
// stopped, and the blast blows holes into every trail it reaches, its own
// included. The radius grows to EXPLOSION_RADIUS in five steps over 0.2 s
// (step k at int(5 t / 0.2 s) + 1, radius R sqrt(k/5)); at each step the blast
// removes the part of every wall inside that radius that was built by then.
// A wall laid later through the hole is not touched. Armagetron's blast lives
// 4 s but only cuts at its steps, so nothing happens after the first 0.2 s.

// explosionSteps is gExplosion::expansionSteps.
const explosionSteps = 5

// explode runs this tick's explosion steps.
func (s *State) explode() {
	rad := s.dv().explosion
	if rad <= 0 {
		return
	}
	last := s.cfg.TickRate/5 + 1 // an explosion's age past its last step
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.InRound || c.Alive {
			continue
		}
		age := s.c.Tick - c.DeathTick
		if age < 0 || age > last {
			continue
		}
		k := s.blastStep(age)
		if age > 0 && k == s.blastStep(age-1) {
			continue
		}
		// R sqrt(k/5), with the square root taken in Unit.
		r := rad * isqrt(k*Unit*Unit/explosionSteps) / Unit
		s.blast(c.X, c.Y, r)
	}
}

// ExplosionLife is how long an explosion lasts, in seconds: Armagetron's
// gExplosion lives 4 s, though it cuts only in its first 0.2 s. Screens show
// the blast for this long at most.
const ExplosionLife = 4

// Blast returns the radius cycle id's explosion has reached (it cuts at
// that radius) and its age in ticks; ok is false when the cycle has none:
// alive, not in this round, past ExplosionLife, or EXPLOSION_RADIUS 0.
func (s *State) Blast(id int) (radius, age int64, ok bool) {
	c := &s.c.Cycles[id]
	rad := s.dv().explosion
	age = s.c.Tick - c.DeathTick
	if rad <= 0 || !c.InRound || c.Alive || age < 0 || age > ExplosionLife*s.cfg.TickRate {
		return 0, 0, false
	}
	k := s.blastStep(age)
	return rad * isqrt(k*Unit*Unit/explosionSteps) / Unit, age, true
}

// blastStep is the expansion step of an explosion age ticks old: 1 at once,
// then one more every 0.04 s, at most explosionSteps.
func (s *State) blastStep(age int64) int64 {
	return min(explosionSteps, age*explosionSteps*5/s.cfg.TickRate+1)
}

// blast cuts holes of radius r around (x, y) into every wall standing now:
// the closed walls of the round and the open segments of living cycles.
func (s *State) blast(x, y, r int64) {
	slanted := s.dirs != nil // walls may lie at the map's angles (slant.go)
	cx0, cy0, cx1, cy1 := s.grid.cellRange(x-r, y-r, x+r, y+r)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			m := s.grid.mask(cx, cy, x-r, y-r, x+r, y+r)
			for _, e := range s.grid.cells[cy*s.grid.n+cx] {
				if e.mask&m == 0 {
					continue
				}
				w := &s.walls[int64(e.idx)-s.wallBase]
				if !w.inReach(x, y, r) {
					continue
				}
				// A wall is listed in every cell it crosses: cut it only in
				// the cell of its point nearest the blast.
				if slanted && w.X1 != w.X2 && w.Y1 != w.Y2 {
					if nx, ny := nearestSlant(w, x, y); s.grid.clamp(nx) == cx && s.grid.clamp(ny) == cy {
						s.cutSlant(w, x, y, r)
					}
				} else if nx, ny := nearest(w, x, y); s.grid.clamp(nx) == cx && s.grid.clamp(ny) == cy {
					s.cut(w, x, y, r)
				}
			}
		}
	}
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive {
			if w := c.openWall(i, s.c.Tick); !w.inReach(x, y, r) {
				continue
			} else if slanted && w.X1 != w.X2 && w.Y1 != w.Y2 {
				s.cutSlant(&w, x, y, r)
			} else {
				s.cut(&w, x, y, r)
			}
		}
	}
}

// inReach reports whether w comes into the open square of side 2r around
// (x, y): a blast of radius r there can cut nothing of a wall that does not
// (see cut), so blast skips it before anything else.
func (w *Wall) inReach(x, y, r int64) bool {
	return max(w.X1, w.X2) > x-r && min(w.X1, w.X2) < x+r && max(w.Y1, w.Y2) > y-r && min(w.Y1, w.Y2) < y+r
}

// nearest returns the point of w nearest to (x, y).
func nearest(w *Wall, x, y int64) (int64, int64) {
	return min(max(x, min(w.X1, w.X2)), max(w.X1, w.X2)), min(max(y, min(w.Y1, w.Y2)), max(w.Y1, w.Y2))
}

// cut records the hole a blast of radius r at (x, y) makes in w, if any.
func (s *State) cut(w *Wall, x, y, r int64) {
	var across, along, lo, hi int64 // distance across the wall's line; blast centre and wall span along it
	if w.Y1 == w.Y2 {
		across, along, lo, hi = w.Y1-y, x, min(w.X1, w.X2), max(w.X1, w.X2)
	} else {
		across, along, lo, hi = w.X1-x, y, min(w.Y1, w.Y2), max(w.Y1, w.Y2)
	}
	if across <= -r || across >= r || hi == lo {
		return
	}
	half := isqrt(r*r - across*across)
	from, to := max(lo, along-half), min(hi, along+half)
	if from >= to {
		return
	}
	// To the owner's odometer: it grows from (X1,Y1) along the wall.
	start := w.X1
	if w.Y1 != w.Y2 {
		start = w.Y1
	}
	a, b := w.Odo+abs(from-start), w.Odo+abs(to-start)
	s.addHole(Hole{From: min(a, b), To: max(a, b), Owner: w.Owner})
}

// isqrt returns the integer square root of v >= 0 (rounded down).
func isqrt(v int64) int64 {
	if v <= 0 {
		return 0
	}
	x := int64(1) << ((bits.Len64(uint64(v)) + 1) / 2) // at or above the root
	y := (x + v/x) / 2
	for y < x {
		x = y
		y = (x + v/x) / 2
	}
	return x
}

// ownerHoles calls f with each hole in owner's trail this round, newest
// first, until f returns false. Holes are chained by owner (Hole.prev), so
// this costs as many holes as the owner's trail has.
func (s *State) ownerHoles(owner uint8, f func(h *Hole) bool) {
	for k := s.c.Cycles[owner].lastHole; k > s.c.RoundHoleStart; {
		h := &s.holes[k-1-s.holeBase]
		if !f(h) {
			return
		}
		k = h.prev
	}
}

// holed reports whether the round has any hole (most rounds' first seconds
// have none, and nothing needs to look).
func (s *State) holed() bool { return s.c.HoleCount > s.c.RoundHoleStart }

// nearBlast reports whether the box [x0,x1] x [y0,y1] comes within
// EXPLOSION_RADIUS of where a cycle exploded this round: only there can a
// wall have holes, so elsewhere nothing needs to look at them.
func (s *State) nearBlast(x0, y0, x1, y1 int64) bool {
	return len(s.blastsNear(x0, y0, x1, y1)) > 0
}

// blastsNear returns where cycles exploded this round within
// EXPLOSION_RADIUS of the box [x0,x1] x [y0,y1], in scratch space that the
// next call reuses: a search that looks up holes at many points of the box
// tests each against these few (see nearAny).
func (s *State) blastsNear(x0, y0, x1, y1 int64) [][2]int64 {
	if !s.holed() {
		return nil
	}
	r := s.dv().explosion
	if s.blastStamp != s.c.Tick+1 {
		// The bands are only built anew when the blasts moved (a death,
		// a round, a Restore): from one tick to the next they stay.
		var dead uint32
		same := true
		for i := range s.c.Cycles {
			if c := &s.c.Cycles[i]; c.InRound && !c.Alive {
				dead |= 1 << i
				same = same && s.blasts[i] == [2]int64{c.X, c.Y}
			}
		}
		if !same || dead != s.blastSeats || r != s.blastRadius || s.dv().arena != s.blastArena {
			s.blastSeats, s.blastRadius, s.blastArena = dead, r, s.dv().arena
			many := bits.OnesCount32(dead) > fewSeats
			if many {
				s.blastBands.reset(s.blastArena)
			}
			for live := dead; live != 0; live &= live - 1 {
				i := bits.TrailingZeros32(live)
				c := &s.c.Cycles[i]
				s.blasts[i] = [2]int64{c.X, c.Y}
				if many {
					s.blastBands.add(i, c.X-r, c.Y-r, c.X+r, c.Y+r)
				}
			}
		}
		s.blastStamp = s.c.Tick + 1
	}
	in := s.blastSeats
	if bits.OnesCount32(in) > fewSeats {
		in = s.blastBands.in(x0, y0, x1, y1)
	}
	n := 0
	for ; in != 0; in &= in - 1 {
		if b := s.blasts[bits.TrailingZeros32(in)]; b[0] >= x0-r && b[0] <= x1+r && b[1] >= y0-r && b[1] <= y1+r {
			s.near[n] = b
			n++
		}
	}
	return s.near[:n]
}

// nearAny reports whether (x, y) lies within r of any of the blasts bs, as
// nearBlast does for a box that is a point.
func nearAny(bs [][2]int64, x, y, r int64) bool {
	for _, b := range bs {
		if b[0] >= x-r && b[0] <= x+r && b[1] >= y-r && b[1] <= y+r {
			return true
		}
	}
	return false
}

// WallPieces appends to out the parts of w that stand now (after the owner's
// wreck vanished, a finite trail receded, and explosions blew holes) and
// returns it. Renderers and bots draw these; Step itself tests holes point by
// point.
func (s *State) WallPieces(w Wall, out []Wall) []Wall {
	v, ok := s.visible(w)
	if !ok {
		return out
	}
	if !s.nearBlast(min(v.X1, v.X2), min(v.Y1, v.Y2), max(v.X1, v.X2), max(v.Y1, v.Y2)) {
		return append(out, v)
	}
	length := wallLen(&v)
	slanted := v.X1 != v.X2 && v.Y1 != v.Y2
	dx, dy := sign(v.X2-v.X1), sign(v.Y2-v.Y1)
	// The owner's holes that reach into v, on the stack while they are few.
	var buf [16]Hole
	holes := buf[:0]
	s.ownerHoles(v.Owner, func(h *Hole) bool {
		if h.To > v.Odo && h.From < v.Odo+length {
			holes = append(holes, *h)
		}
		return true
	})
	for at := int64(0); at < length; {
		for jumped := true; jumped; { // over the holes at this point
			jumped = false
			for k := range holes {
				if h := &holes[k]; h.From-v.Odo <= at && h.To-v.Odo > at {
					at, jumped = h.To-v.Odo, true
				}
			}
		}
		if at >= length {
			break
		}
		next := length // to the next hole
		for k := range holes {
			if h := &holes[k]; h.From-v.Odo > at && h.From-v.Odo < next {
				next = h.From - v.Odo
			}
		}
		p := v
		if slanted {
			p.X1, p.Y1 = pointAt(&v, at, length)
			p.X2, p.Y2 = pointAt(&v, next, length)
		} else {
			p.X1, p.Y1 = v.X1+dx*at, v.Y1+dy*at
			p.X2, p.Y2 = v.X1+dx*next, v.Y1+dy*next
		}
		p.Odo = v.Odo + at
		out = append(out, p)
		at = next
	}
	return out
}
