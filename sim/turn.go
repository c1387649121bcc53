package sim

// press is a turn pressed in play this tick: moveCycles makes it at its
// instant, at (in 1/SubTicks of a tick since tick 0).
type press struct {
	id int
	t  int8 // +1 left, -1 right
	at int64
}

// turn takes a turn request (t = 1 left, -1 right) pressed at at/SubTicks of
// this tick (Event.At). In play it is made in moveCycles, where the cycle is
// at that instant (see turns); in the countdown it is queued, to run at the
// start.
func (s *State) turn(id int, t int8, at int32) {
	c := &s.c.Cycles[id]
	if !c.Alive || s.premature() {
		return
	}
	if s.c.Phase != PhasePlay {
		enqueue(c, t, s.cfg.TurnMemory)
		return
	}
	s.presses = append(s.presses, press{id: id, t: t, at: s.c.Tick*SubTicks + int64(at)})
}

// enqueue queues a turn that cannot run yet, as Armagetron's
// gCycleMovement::DoTurn does: while the queue holds at most
// CYCLE_TURN_MEMORY turns the new one is appended; past that an opposite
// turn cancels the newest queued one (so the cycle still heads where the
// player expects) and a same-side turn is appended all the same.
func enqueue(c *Cycle, t int8, memory int64) {
	n := int64(c.QueueLen)
	if n > memory && queued(c, n-1) != t {
		c.QueueLen--
		return
	}
	if n < maxTurnQueue {
		if t > 0 {
			c.Queue |= 1 << n
		} else {
			c.Queue &^= 1 << n
		}
		c.QueueLen++
	}
}

// premature reports whether the round's clock is below -1 s, where
// Armagetron drops a player's input (gCycle::Act, 0.2.9.2.3 gCycle.cpp line
// 3646: "don't accept premature input", se_mainGameTimer->Time() < -1): a
// turn or brake pressed more than a second before the cycles move is lost,
// one pressed in the last second waits for the start.
func (s *State) premature() bool {
	return s.c.Phase == PhasePrepare && s.c.Tick+s.cfg.TickRate < s.c.PlayStart
}

// queued returns the k-th queued turn of c (+1 left, -1 right).
func queued(c *Cycle, k int64) int8 {
	if c.Queue>>k&1 != 0 {
		return 1
	}
	return -1
}

// nextTurn returns the first instant (in 1/SubTicks of a tick) at which c
// may turn to side t: Armagetron's GetNextTurn, CYCLE_DELAY after the last
// turn to the other side and CYCLE_DELAY x CYCLE_DELAY_DOUBLEBIND_BONUS after
// the last to the same, counted from the instants the turns were made.
func (s *State) nextTurn(c *Cycle, t int8) int64 {
	same, other := c.LastLeft, c.LastRight
	if t < 0 {
		same, other = other, same
	}
	d := s.dv()
	return max(other+d.turnDelay, same+d.turnDelaySame)
}

// corner is where a cycle turned this tick, and its odometer there: laid as
// a wall by layCorners.
type corner struct {
	id        int
	x, y, odo int64
}

// turns makes cycle i's turns of this tick, each at its instant, as
// Armagetron makes them in continuous time: the presses of this tick
// (ps, in canonical order; one pressed before an earlier turn of this tick
// is made at that turn's instant) and the queued turns, each at the instant
// its delays allow (gCycleMovement::Timestep: "simulate exactly to the time
// of the next turn"), those due first. Before each turn the cycle rides on
// in its old direction to where it is at that instant, as plan lets it
// (see reach: rubber spent where a wall holds it back); a cycle that would
// ride into a wall first makes no more turns this tick, and plan takes it
// there. m.from is left at the instant of the last turn, from which plan
// moves the rest of the tick.
//
// The corners are noted in s.corners, not laid: the cycle's position and
// open segment stay as the tick found them until every cycle has made its
// turns (layCorners), so that each meets the walls as they stood at the
// start of the tick, whatever the seat order.
//
// Deviation: in Armagetron the leg a cycle rides up to its corner is a wall
// for the others from the instants it is laid. Here that leg meets only the
// walls standing at the start of the tick, and is a wall for the others'
// moves of the whole tick (plan): where a cycle that turned within the tick
// and one that did not cross paths in it, the one that turned passes
// first, whatever the order they got there in; two such legs of one tick
// do not meet at all. The window is a tick, 8.3 ms at 120 Hz.
func (s *State) turns(i int, ps []press, m *move) {
	c := &s.c.Cycles[i]
	if len(ps) == 0 && (c.QueueLen == 0 || s.nextTurn(c, queued(c, 0)) >= (s.c.Tick+1)*SubTicks) {
		return
	}
	r := ride{x: c.X, y: c.Y, odo: c.Odo, at: s.c.Tick * SubTicks, sx: c.TurnX, sy: c.TurnY, sodo: c.SegOdo}
	s.makeTurns(i, ps, &r)
	m.from = r.at - s.c.Tick*SubTicks
}

// makeTurns is turns' loop, r where the cycle has got to: presses and
// queued turns in the order of their instants, until the tick ends or the
// cycle would ride into a wall first.
func (s *State) makeTurns(i int, ps []press, r *ride) {
	c := &s.c.Cycles[i]
	end := (s.c.Tick + 1) * SubTicks
	for k := 0; ; k++ {
		at := end
		if k < len(ps) {
			at = max(ps[k].at, r.at)
		}
		for c.QueueLen > 0 {
			t := queued(c, 0)
			q := max(s.nextTurn(c, t), r.at)
			if q > at || q >= end {
				break
			}
			if !s.rideTo(i, r, q) {
				return
			}
			c.Queue >>= 1
			c.QueueLen--
			s.applyTurn(i, t, r)
		}
		if k == len(ps) {
			return
		}
		if t := ps[k].t; at >= s.nextTurn(c, t) {
			if !s.rideTo(i, r, at) {
				return
			}
			s.applyTurn(i, t, r)
		} else {
			enqueue(c, t, s.cfg.TurnMemory)
		}
	}
}

// ride is where a cycle making its turns has got to this tick, and when.
type ride struct {
	x, y, odo    int64
	at           int64 // 1/SubTicks of a tick since tick 0
	sx, sy, sodo int64 // where the leg it rides started, and the odometer there (the slanted geometry casts from there)
}

// rideTo moves cycle i along its direction from r to the instant at, at its
// speed, as far as reach lets it, and reports false if it would ride into a
// wall on the way: then it has spent no rubber, and plan rides it on from r
// into that wall.
func (s *State) rideTo(i int, r *ride, at int64) bool {
	c := &s.c.Cycles[i]
	if at == r.at {
		return true
	}
	total := c.Speed*(at-r.at) + c.Sub
	unit := SubTicks * s.cfg.TickRate
	used := c.RubberUsed
	var ln *line
	if s.dirs != nil {
		ln = &line{r.sx, r.sy, r.odo - r.sodo}
	}
	travel, h := s.reach(i, r.x, r.y, ln, c.Dir, total/unit, at-r.at)
	if h.gap != noHit && travel >= h.gap {
		c.RubberUsed = used
		return false
	}
	c.Sub = total % unit
	if s.dirs != nil {
		r.x, r.y = s.along(r.sx, r.sy, c.Dir, r.odo+travel-r.sodo)
		r.odo, r.at = r.odo+travel, at
		return true
	}
	fx, fy, _, _ := frame(c.Dir)
	r.x, r.y, r.odo, r.at = r.x+fx*travel, r.y+fy*travel, r.odo+travel, at
	return true
}

// applyTurn heads cycle i to the next axis to the left (t = 1) or right
// (t = -1), 90 degrees on four axes, 360/Axes on a map's others (the next
// winding: eAxis::Turn, from gCycleMovement::DoTurn), where r has taken it,
// losing speed as Armagetron's cycles do (CYCLE_TURN_SPEED_FACTOR), and
// notes the corner, from which the next leg starts.
//
// Deviation: Armagetron's dedicated server grants 0.95 of the delay
// (CYCLE_DELAY_BONUS) so that timing noise never rejects a client's turn;
// with one shared clock there is no such noise, so the delay is exact (in
// 1/SubTicks of a tick, rounded up).
func (s *State) applyTurn(i int, t int8, r *ride) {
	c := &s.c.Cycles[i]
	s.corners = append(s.corners, corner{id: i, x: r.x, y: r.y, odo: r.odo})
	if s.dirs != nil {
		c.Dir = s.Turned(c.Dir, int(t))
		r.sx, r.sy, r.sodo = r.x, r.y, r.odo
	} else {
		c.Dir = uint8(int8(c.Dir)+t) & 3
	}
	c.Speed = max(s.dv().minSpeed, c.Speed*s.cfg.TurnSpeed/Unit)
	if t > 0 {
		c.LastLeft = r.at
	} else {
		c.LastRight = r.at
	}
}

// layCorners moves every cycle that turned this tick to its last corner and
// lays the walls up to it, in seat order and each cycle's in the order made.
func (s *State) layCorners() {
	for _, k := range s.corners {
		c := &s.c.Cycles[k.id]
		c.X, c.Y, c.Odo = k.x, k.y, k.odo
		s.closeSegment(k.id)
	}
}
