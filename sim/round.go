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
// someone played alone): the survivor scores the win. It also ends a round
// that no human is playing any more, as Config.FinishType says.
func (s *State) checkRoundEnd() {
	alive, last := 0, -1
	humans, humansAlive := false, false
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if c.Alive {
			alive++
			last = i
		}
		humans = humans || c.Present && c.Human
		humansAlive = humansAlive || c.Alive && c.Human
	}
	if alive <= 1 && (alive == 0 || s.c.Started >= 2) {
		s.c.Winner = -1
		if alive == 1 {
			s.c.Winner = int8(last)
			s.c.Cycles[last].Score += s.cfg.ScoreWin
		}
		s.over(s.d.roundOver)
		return
	}
	if !humans || humansAlive {
		s.c.NoHuman = -1
		return
	}
	if s.c.NoHuman < 0 {
		s.c.NoHuman = s.c.Tick
	}
	if wait, ok := s.finishWait(); ok && s.c.Tick >= max(s.c.LastDeath, s.c.NoHuman)+wait {
		s.c.Winner = -1
		s.over(0)
	}
}

// finishWait returns how long, in ticks, a round goes on once no human cycle
// is alive, or false when FinishType lets it run to its normal end.
//
// Armagetron's gGame::Analysis restarts the round once no human is alive and
// the last death is some time past: 2 s with FINISH_TYPE 0 (express: the
// analysis holds the next round back while the last death is under 2 s old),
// 4 s with 1 (FINISH_TYPE's "immediately", fintime - 2). Deviation: type 2
// fast-forwards the remaining AIs there; every client would have to run its
// simulation faster, so here the round goes on at normal speed, as with 3.
// The time counts from the later of the last death and the moment no human
// was left alive, so that a newcomer who joins a round of bots waits the same
// 2 s however long ago the last bot died.
func (s *State) finishWait() (int64, bool) {
	switch s.cfg.FinishType {
	case FinishExpress:
		return s.d.finishExpress, true
	case FinishReset:
		return s.d.finishReset, true
	}
	return 0, false
}

// over ends the round; the next one starts after pause ticks (or at the next
// tick) while enough players are present.
func (s *State) over(pause int64) {
	s.c.Phase = PhaseOver
	s.c.PhaseEnd = s.c.Tick + pause
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
	s.c.LastDeath, s.c.NoHuman = s.c.Tick, -1
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
			Present: c.Present, Human: c.Human, InRound: true, Alive: true, Dir: dir, Team: uint8(i), Killer: -1,
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
