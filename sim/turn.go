package sim

// turn takes a turn request (t = 1 left, -1 right), as Armagetron's
// gCycleMovement::DoTurn does: run now if the turn delays allow it, otherwise
// queue it. While the queue holds at most CYCLE_TURN_MEMORY turns the new one
// is appended; past that an opposite turn cancels the newest queued one
// (so the cycle still heads where the player expects) and a same-side turn is
// appended all the same.
func (s *State) turn(id int, t int8) {
	c := &s.c.Cycles[id]
	if !c.Alive || s.premature() {
		return
	}
	if s.c.Phase == PhasePlay && s.c.Tick >= s.nextTurn(c, t) {
		s.applyTurn(id, t)
		return
	}
	n := int64(c.QueueLen)
	if n > s.cfg.TurnMemory && queued(c, n-1) != t {
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

// nextTurn returns the first tick at which c may turn to side t:
// Armagetron's GetNextTurn, CYCLE_DELAY after the last turn to the other side
// and CYCLE_DELAY x CYCLE_DELAY_DOUBLEBIND_BONUS after the last to the same.
func (s *State) nextTurn(c *Cycle, t int8) int64 {
	same, other := c.LastLeft, c.LastRight
	if t < 0 {
		same, other = other, same
	}
	d := s.dv()
	return max(other+d.turnDelay, same+d.turnDelaySame)
}

// runQueue runs the queued turns that the delays allow, oldest first, as
// Armagetron runs them at the exact time each becomes possible (here the
// first tick).
func (s *State) runQueue(id int) {
	c := &s.c.Cycles[id]
	for c.QueueLen > 0 {
		t := queued(c, 0)
		if s.c.Tick < s.nextTurn(c, t) {
			return
		}
		c.Queue >>= 1
		c.QueueLen--
		s.applyTurn(id, t)
	}
}

// applyTurn closes the open segment into a wall and heads the cycle 90 degrees
// to the left (t = 1) or right (t = -1), losing speed as Armagetron's cycles do
// (CYCLE_TURN_SPEED_FACTOR).
//
// Deviation: Armagetron's dedicated server grants 0.95 of the delay
// (CYCLE_DELAY_BONUS) so that timing noise never rejects a client's turn; with
// one shared tick clock there is no such noise, so the delay is exact (rounded
// up to whole ticks).
func (s *State) applyTurn(id int, t int8) {
	c := &s.c.Cycles[id]
	s.closeSegment(id)
	c.Dir = uint8(int8(c.Dir)+t) & 3
	c.Speed = max(s.dv().minSpeed, c.Speed*s.cfg.TurnSpeed/Unit)
	if t > 0 {
		c.LastLeft = s.c.Tick
	} else {
		c.LastRight = s.c.Tick
	}
}
