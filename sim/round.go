package sim

// advancePhase moves the round along the clock: Waiting starts a round once
// enough players are present, Prepare turns into Play when the countdown ends,
// and Over starts the next round.
func (s *State) advancePhase() {
	switch s.c.Phase {
	case PhaseWaiting:
		if s.present() >= s.cfg.MinPlayers {
			s.startRound()
		}
	case PhasePrepare:
		if s.c.Tick >= s.c.PhaseEnd {
			s.c.Phase = PhasePlay
		}
	case PhaseOver:
		if s.c.Tick >= s.c.PhaseEnd {
			if s.present() >= s.cfg.MinPlayers {
				s.startRound()
			} else {
				s.c.Phase = PhaseWaiting
			}
		}
	}
}

func (s *State) present() int64 {
	n := int64(0)
	for i := range s.c.Cycles {
		if s.c.Cycles[i].Present {
			n++
		}
	}
	return n
}

// checkRoundEnd decides the round once at most one cycle is left (or none, when
// someone played alone): the survivor scores the win.
func (s *State) checkRoundEnd() {
	alive, last := 0, -1
	for i := range s.c.Cycles {
		if s.c.Cycles[i].Alive {
			alive++
			last = i
		}
	}
	if alive > 1 || (alive == 1 && s.c.Started < 2) {
		return
	}
	s.c.Winner = -1
	if alive == 1 {
		s.c.Winner = int8(last)
		s.c.Cycles[last].Score += s.cfg.ScoreWin
	}
	s.c.Phase = PhaseOver
	s.c.PhaseEnd = s.c.Tick + s.d.roundOver
}

// matchOver reports whether the match limits are reached.
func (s *State) matchOver() bool {
	if s.c.Round >= s.cfg.MatchRounds {
		return true
	}
	for i := range s.c.Cycles {
		if s.c.Cycles[i].Present && s.c.Cycles[i].Score >= s.cfg.MatchScore {
			return true
		}
	}
	return false
}

// startRound clears the arena and spawns every present player for a countdown.
// When the match limits were reached it starts a new match: scores reset.
func (s *State) startRound() {
	if s.matchOver() {
		s.c.Match++
		s.c.Round = 0
		for i := range s.c.Cycles {
			c := &s.c.Cycles[i]
			c.Score, c.Kills, c.Deaths = 0, 0, 0
		}
	}
	s.c.Round++
	s.trimWalls()
	s.c.RoundWallStart = s.c.WallCount
	s.grid.reset(s.c.WallCount)
	s.c.Rng = splitmix(s.c.Rng)
	s.c.Started = 0
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		c.InRound, c.Alive = c.Present, false
		if c.Present {
			s.c.Started++
		}
	}
	if s.c.Started == 0 {
		s.c.Phase = PhaseWaiting
		return
	}
	s.c.Phase = PhasePrepare
	s.c.PhaseEnd = s.c.Tick + s.d.prepare
	s.layout()
}

// trimWalls forgets the walls of the round before the previous one. Rolling
// back across one round start needs the previous round's walls; no rollback
// window spans a whole round (the prepare countdown alone is seconds long).
func (s *State) trimWalls() {
	drop := s.c.RoundWallStart - s.wallBase
	if drop <= 0 {
		return
	}
	n := copy(s.walls, s.walls[drop:])
	s.walls = s.walls[:n]
	s.wallBase = s.c.RoundWallStart
}

// layout puts the cycles of the round on evenly spread spawn points of a square
// ring around the centre, facing inwards, rotated by the round's random draw so
// nobody always gets the same spot. It runs again when a player spawns during
// the countdown: nothing has moved yet, so spreading everyone anew is free.
//
// Deviation: Armagetron's maps list 12 fixed spawn points; we compute points for
// any count up to MaxPlayers. The ring is offset by a third of a spacing so that
// cycles on opposite sides never face each other on one line.
func (s *State) layout() {
	n := s.c.Started
	if n == 0 {
		return
	}
	a := s.cfg.ArenaSize
	half := a * 35 / 100
	perim := 8 * half
	rot := int64(s.c.Rng % uint64(n))
	k := int64(0)
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.InRound {
			continue
		}
		slot := (k + rot) % n
		k++
		along := (slot*perim + perim/3) / n % perim
		x, y, dir := ringPoint(a/2, half, along)
		*c = Cycle{
			Present: c.Present, InRound: true, Alive: true, Dir: dir, Killer: -1,
			X: x, Y: y, TurnX: x, TurnY: y, Speed: s.cfg.StartSpeed, Brake: Unit,
			LastTurn: s.c.Tick - s.d.turnDelay - s.d.prepare,
			Score:    c.Score, Kills: c.Kills, Deaths: c.Deaths,
		}
	}
}

// ringPoint walks `along` micrometres counter-clockwise around the square of
// half-side h centred on (m, m), starting at the middle of the bottom side, and
// returns the point and the inward direction there.
func ringPoint(m, h, along int64) (x, y int64, dir uint8) {
	side := 2 * h
	switch {
	case along < h: // bottom, right half
		return m + along, m - h, 1
	case along < h+side: // right side, going up
		return m + h, m - h + (along - h), 2
	case along < h+2*side: // top, going left
		return m + h - (along - h - side), m + h, 3
	case along < h+3*side: // left, going down
		return m - h, m + h - (along - h - 2*side), 0
	default: // bottom, left half
		return m - h + (along - h - 3*side), m - h, 1
	}
}

// splitmix is SplitMix64's step: a tiny, well-mixed integer generator whose
// whole state is one uint64 inside core, so snapshots cover it.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	z := x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
