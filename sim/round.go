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
			s.ownZones()
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

// checkRoundEnd decides the round as Armagetron's gGame::Analysis does, but
// exactly on the tick rather than at its once-a-second poll: nothing is
// decided while the last death is less than a second old; then a team that
// rode into the win zone wins, or in a duel (GAME_TYPE 1) the last team
// alive wins once only one is left of the several that started, or, when
// nobody is left, the round ends without a winner. A round that no human is
// playing any more ends as FINISH_TYPE says (finishRound).
func (s *State) checkRoundEnd() {
	teams, last := s.teamsAlive()
	if s.c.Tick-s.c.LastDeath >= s.d.decide {
		switch {
		case s.c.Wish >= 0:
			s.win(int(s.c.Wish))
			return
		case s.rules().GameType == GameDuel && s.c.Teams > 1 && teams <= 1:
			s.win(last)
			return
		case teams == 0:
			s.win(-1)
			return
		}
	}
	s.finishRound()
}

// teamsAlive returns how many teams have a living cycle, and the last such team.
func (s *State) teamsAlive() (n, last int) {
	var seen uint32
	last = -1
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive && seen&(1<<c.Team) == 0 {
			seen |= 1 << c.Team
			n++
			last = int(c.Team)
		}
	}
	return n, last
}

// win names the round's winning team (-1 none), scores the win and ends the
// round. SCORE_WIN goes to the team; on a team of one that plays every one
// for themselves it is the player's own score too (eTeam::AddScore).
func (s *State) win(team int) {
	s.c.Winner = int8(team)
	// SCORE_WIN is for a legitimate win (gGame::Analysis, 0.2.9.2.3
	// gGame.cpp line 3904): not in freestyle, where the win zone ends the
	// round without it, and only with an enemy team online
	// (sg_EnemyExists, line 3595).
	if team >= 0 && s.rules().GameType != GameFreestyle && s.enemyExists(team) {
		win := s.rules().ScoreWin
		s.c.TeamScore[team] += win
		s.c.TeamRound[team] += win
		if s.dv().teamMaxPlayers == 1 {
			s.c.Cycles[team].Score += win
			s.c.Cycles[team].RoundScore += win
		}
	}
	s.over(s.d.roundOver)
}

// enemyExists reports whether a team other than team has a player present:
// an enemy online (Armagetron's teams exist while they have players).
func (s *State) enemyExists(team int) bool {
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Present && c.Team != NoTeam && int(c.Team) != team {
			return true
		}
	}
	return false
}

// finishRound ends a round in play once no human cycle is alive while a human
// is present (every human died, or the only humans wait for the next round).
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
func (s *State) finishRound() {
	humans, humansAlive := false, false
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		humans = humans || c.Present && c.Human
		humansAlive = humansAlive || c.Alive && c.Human
	}
	if !humans || humansAlive {
		s.c.NoHuman = -1
		return
	}
	if s.c.NoHuman < 0 {
		s.c.NoHuman = s.c.Tick
	}
	if wait := s.dv().finish; wait >= 0 && s.c.Tick >= max(s.c.LastDeath, s.c.NoHuman)+wait {
		s.c.Winner = -1
		// A human who rode this round gets the usual pause to read how it
		// went (issue 22); a newcomer who only waited for it does not wait
		// longer for that (issue 11).
		pause := int64(0)
		for i := range s.c.Cycles {
			if c := &s.c.Cycles[i]; c.Human && c.InRound {
				pause = s.d.roundOver
				break
			}
		}
		s.over(pause)
	}
}

// over ends the round; the next one starts after pause ticks (or at the next
// tick) while enough players are present.
func (s *State) over(pause int64) {
	s.c.Phase = PhaseOver
	s.c.PhaseEnd = s.c.Tick + pause
}

// matchOver reports whether the match has a champion, as gGame::Analysis
// declares one (0.2.9.2.3 gGame.cpp lines 3984-4000): the limits reached
// (LIMIT_ROUNDS rounds played, or the best team at LIMIT_SCORE) and one team
// alone at the top, ahead of the next on score (or the only team). A match
// whose top two are tied plays on until one of them leads.
func (s *State) matchOver() bool {
	r := s.rules()
	var teams uint32
	best, second := int64(-1<<62), int64(-1<<62)
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.Present || c.Team == NoTeam || teams&(1<<c.Team) != 0 {
			continue
		}
		teams |= 1 << c.Team
		switch sc := s.c.TeamScore[c.Team]; {
		case sc > best:
			best, second = sc, best
		case sc > second:
			second = sc
		}
	}
	if teams != 0 && popcount(teams) > 1 && best == second {
		return false // tied at the top
	}
	return s.c.Round >= r.LimitRounds || teams != 0 && best >= r.LimitScore
}

// humansPresent counts the human players present.
func (s *State) humansPresent() int {
	n := 0
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Present && c.Human {
			n++
		}
	}
	return n
}

// startRound clears the arena and spawns every present player for a countdown.
// The round plays under the single-player set with at most one human present
// and under the multiplayer set otherwise; a change of set, like reaching the
// match limits, starts a new match (Armagetron's StartNewMatch): scores reset
// and teams are dealt afresh.
func (s *State) startRound() {
	set := uint8(SetSP)
	if s.humansPresent() > 1 {
		set = SetMP
	}
	if s.c.Round > 0 && (s.matchOver() || set != s.c.Set) {
		s.c.Match++
		s.c.Round = 0
		s.c.TeamScore = [MaxPlayers]int64{}
		for i := range s.c.Cycles {
			c := &s.c.Cycles[i]
			c.Score, c.Kills, c.Deaths = 0, 0, 0
			c.Team = NoTeam
		}
	}
	s.c.Set = set
	s.c.Round++
	s.presses = s.presses[:0] // turns pressed in the round that ends are not made in this one
	s.trimWalls()
	s.c.RoundWallStart = s.c.WallCount
	s.c.RoundHoleStart = s.c.HoleCount
	s.grid.reset(s.c.WallCount)
	s.c.Rng = splitmix(s.c.Rng)
	s.c.Started = 0
	s.c.Wish = -1
	s.c.ZoneTick = -1
	s.c.TeamRound = [MaxPlayers]int64{}
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		c.RoundScore = 0
		if !c.Present {
			// An empty slot keeps nothing of the last round: its cycle
			// stood in that round's arena, which may be larger than this
			// one's (a multiplayer round, then a single-player one), and a
			// state is only valid with every cycle inside its own arena
			// (checkCore). Whoever takes the slot is laid out anew.
			*c = Cycle{Team: NoTeam, Killer: -1, Enemy: -1}
			continue
		}
		c.InRound, c.Alive = true, false
		c.QueueLen, c.Queue, c.Braking = 0, 0, false
		c.lastHole = 0
		s.c.Started++
	}
	if s.c.Started == 0 {
		s.c.Phase = PhaseWaiting
		return
	}
	s.c.Phase = PhasePrepare
	s.c.PhaseEnd = s.c.Tick + s.d.prepare
	s.c.PlayStart = s.c.PhaseEnd
	s.c.LastDeath, s.c.NoHuman = s.c.PhaseEnd, -1
	s.resetZones()
	s.layout()
}

// trimWalls forgets the walls and holes of the round before the previous
// one. Rolling back across one round start needs the previous round's;
// no rollback window spans a whole round (the prepare countdown alone is
// seconds long).
func (s *State) trimWalls() {
	if drop := s.c.RoundWallStart - s.wallBase; drop > 0 {
		n := copy(s.walls, s.walls[drop:])
		s.walls = s.walls[:n]
		s.wallBase = s.c.RoundWallStart
	}
	if drop := s.c.RoundHoleStart - s.holeBase; drop > 0 {
		n := copy(s.holes, s.holes[drop:])
		s.holes = s.holes[:n]
		s.holeBase = s.c.RoundHoleStart
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
