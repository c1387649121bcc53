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
	s.presses = s.presses[:0]
	for _, e := range s.evBuf {
		s.apply(e)
	}
	s.advancePhase()
	if s.c.Phase == PhasePlay {
		s.moveCycles()
		s.explode()
		s.checkZone()
		s.checkZones()
		s.checkRoundEnd()
	}
	s.c.Tick++
}

// maxLatency bounds EvLatency's value (10 s): ping rubber beyond it would
// make a cycle all but unkillable.
const maxLatency = 10_000_000

func (s *State) apply(e Event) {
	if int(e.Player) >= MaxPlayers || !e.Kind.Valid() {
		return
	}
	id := int(e.Player)
	c := &s.c.Cycles[id]
	switch e.Kind {
	case EvTurnLeft:
		s.turn(id, 1, e.At())
	case EvTurnRight:
		s.turn(id, -1, e.At())
	case EvBrakeOn, EvBrakeOff:
		if c.Present && !s.premature() {
			c.Braking = e.Kind == EvBrakeOn
		}
	case EvJoin:
		if !c.Present {
			c.Present = true
			c.Human = e.Arg&JoinHuman != 0
			c.Machine = uint8(e.Arg >> 8)
			c.Score, c.Kills, c.Deaths, c.RoundScore = 0, 0, 0, 0
			c.Braking = false
			c.Latency = 0
			c.Team = NoTeam
		}
	case EvLeave:
		if c.Present {
			c.Present = false
			if c.Alive {
				s.kill(int(e.Player), CauseLeft)
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
	case EvLatency:
		if c.Present {
			c.Latency = min(max(int64(e.Arg), 0), maxLatency)
		}
	}
}

// closeSegment turns the open segment into a wall (if it has any length) and
// starts a new one where the cycle stands.
func (s *State) closeSegment(id int) {
	c := &s.c.Cycles[id]
	if c.X != c.TurnX || c.Y != c.TurnY {
		s.addWall(c.openWall(id, s.c.Tick))
	}
	c.TurnX, c.TurnY, c.SegOdo, c.SegTick = c.X, c.Y, c.Odo, s.c.Tick
}

func (s *State) addWall(w Wall) {
	idx := s.c.WallCount
	s.walls = append(s.walls, w)
	s.grid.add(&s.walls[len(s.walls)-1], idx)
	s.c.WallCount++
	h := s.c.WallHash
	for _, v := range [...]uint64{uint64(w.X1), uint64(w.Y1), uint64(w.X2), uint64(w.Y2), uint64(w.Odo), uint64(w.T1), uint64(w.T2), uint64(w.Owner)} {
		h = mix(h, v)
	}
	s.c.WallHash = h
}

// addHole appends a hole (see Hole).
func (s *State) addHole(h Hole) {
	o := &s.c.Cycles[h.Owner]
	h.prev = o.lastHole
	s.holes = append(s.holes, h)
	s.c.HoleCount++
	o.lastHole = s.c.HoleCount
	s.c.WallHash = mix(mix(mix(s.c.WallHash, uint64(h.From)), uint64(h.To)), uint64(h.Owner)|1<<8)
}
