package sim

// Step applies the events of tick s.Tick(), in canonical order whatever their
// order in the slice, advances the world by one tick and increments Tick.
// Events that make no sense in the current state (a dead cycle turning, an
// unknown player) are ignored, identically on every machine: the history layer
// is where bad input is refused with a reason. Step never allocates once the
// state has warmed up (scratch buffers grow to the largest tick seen).
func (s *State) Step(events []Event) {
	s.evBuf = append(s.evBuf[:0], events...)
	SortEvents(s.evBuf)
	for _, e := range s.evBuf {
		s.apply(e)
	}
	s.advancePhase()
	if s.c.Phase == PhasePlay {
		s.moveCycles()
		s.checkRoundEnd()
	}
	s.c.Tick++
}

func (s *State) apply(e Event) {
	if int(e.Player) >= MaxPlayers || !e.Kind.Valid() {
		return
	}
	id := int(e.Player)
	c := &s.c.Cycles[id]
	switch e.Kind {
	case EvTurnLeft:
		s.turn(id, 1)
	case EvTurnRight:
		s.turn(id, -1)
	case EvBrakeOn, EvBrakeOff:
		if c.Present {
			c.Braking = e.Kind == EvBrakeOn
		}
	case EvJoin:
		if !c.Present {
			c.Present = true
			c.Human = e.Arg&JoinHuman != 0
			c.Score, c.Kills, c.Deaths = 0, 0, 0
			c.Braking = false
		}
	case EvLeave:
		if c.Present {
			c.Present = false
			if c.Alive {
				s.kill(int(e.Player), -1, CauseLeft)
			}
		}
	case EvRoundStart:
		s.startRound()
	case EvSpawn:
		if s.c.Phase == PhasePrepare && c.Present && !c.InRound {
			c.InRound = true
			s.c.Started++
			s.layout()
		}
	}
}

// turn takes a turn request: applied now if the turn delay has passed and none
// is waiting, otherwise queued. An opposite turn cancels the newest queued one,
// as in Armagetron, so a quick left-right does nothing.
func (s *State) turn(id int, t int8) {
	c := &s.c.Cycles[id]
	if !c.Alive {
		return
	}
	if c.QueueLen > 0 && c.Queue[c.QueueLen-1] == -t {
		c.QueueLen--
		return
	}
	if c.QueueLen == 0 && s.c.Phase == PhasePlay && s.c.Tick-c.LastTurn >= s.d.turnDelay {
		s.applyTurn(id, t)
		return
	}
	if int64(c.QueueLen) < s.cfg.TurnQueue {
		c.Queue[c.QueueLen] = t
		c.QueueLen++
	}
}

// applyTurn closes the open segment into a wall and heads the cycle 90 degrees
// to the left (t = 1) or right (t = -1), losing speed as Armagetron's cycles do.
// Deviation: Armagetron grants the server a 0.95 bonus on the turn delay so
// that timing noise never rejects a turn; with one shared tick clock there is
// no such noise, so the delay is exact (rounded up to whole ticks).
func (s *State) applyTurn(id int, t int8) {
	c := &s.c.Cycles[id]
	s.closeSegment(id)
	c.Dir = uint8(int8(c.Dir)+t) & 3
	c.Speed = max(s.d.minSpeed, c.Speed*s.cfg.TurnSpeed/Unit)
	c.LastTurn = s.c.Tick
}

// closeSegment turns the open segment into a wall (if it has any length) and
// starts a new one where the cycle stands.
func (s *State) closeSegment(id int) {
	c := &s.c.Cycles[id]
	if c.X != c.TurnX || c.Y != c.TurnY {
		s.addWall(c.openWall(id))
	}
	c.TurnX, c.TurnY, c.SegOdo = c.X, c.Y, c.Odo
}

func (s *State) addWall(w Wall) {
	idx := s.c.WallCount
	s.walls = append(s.walls, w)
	s.grid.add(&s.walls[len(s.walls)-1], idx)
	s.c.WallCount++
	h := s.c.WallHash
	for _, v := range [...]uint64{uint64(w.X1), uint64(w.Y1), uint64(w.X2), uint64(w.Y2), uint64(w.Odo), uint64(w.Owner)} {
		h = mix(h, v)
	}
	s.c.WallHash = h
}
