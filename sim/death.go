package sim

// DeathCause says how a cycle died. The HUD's kill feed, replays and the
// scenario runner read it from Cycle.Cause.
type DeathCause uint8

// Death causes. Cycle.Killer says who is credited (see kill).
const (
	CauseNone      DeathCause = iota // alive, or not in the round
	CauseRim                         // drove into the arena's rim
	CauseWall                        // drove into another cycle's wall
	CauseOwnWall                     // drove into its own wall
	CauseCollision                   // met another cycle at the same instant (head-on)
	CauseLeft                        // its player left the room
	CauseZone                        // rode into a map's death zone
)

// String returns the cause's stable name ("rim", "wall", "own_wall",
// "collision", "left", or "" for none): the scenario runner's JSON uses it.
func (c DeathCause) String() string {
	switch c {
	case CauseRim:
		return "rim"
	case CauseWall:
		return "wall"
	case CauseOwnWall:
		return "own_wall"
	case CauseCollision:
		return "collision"
	case CauseLeft:
		return "left"
	case CauseZone:
		return "zone"
	}
	return ""
}

// influence notes that cycle i met a wall of player j laid at tick built
// (seen by a side sensor, or hit), as Armagetron's gEnemyInfluence::AddWall:
// the most recently built wall of another player is the one a death is
// credited to. One's own walls do not count; a teammate's counts as built no
// later than the teammate's last turn and ENEMY_TEAMMATE_PENALTY earlier
// still, so that an enemy's wall almost always wins over it.
func (s *State) influence(i, j int, built int64) {
	if i == j || j < 0 {
		return
	}
	c, o := &s.c.Cycles[i], &s.c.Cycles[j]
	// "don't accept milkers" (gCycleMovement.cpp line 645): a wall of a
	// player who is no enemy, one of the same machine (ePlayer.cpp line
	// 8965, ALLOW_ENEMIES_SAME_IP 0), takes no credit.
	if c.Machine != 0 && c.Machine == o.Machine && s.cfg.AllowEnemiesSameIP == 0 {
		return
	}
	if o.Team == c.Team {
		built = min(built, o.LastTurn()) - s.d.teammate
	}
	if c.Enemy < 0 || built > c.EnemyTick {
		c.Enemy, c.EnemyTick = int8(j), built
	}
}

// kill ends cycle id's round and scores it as gCycle::KillAt does. The death
// is credited to the enemy influence (see influence) unless it is older than
// ENEMY_SUICIDE_TIMEOUT: then it is a suicide, SCORE_SUICIDE. Otherwise the
// victim scores SCORE_DIE and the credited player SCORE_KILL, or nothing for
// killing a teammate. So a cycle trapped against the rim or its own wall by an
// enemy's wall is that enemy's kill. A player who left scores nothing, and
// the influence of a player who left counts for nobody.
func (s *State) kill(id int, why DeathCause) {
	c := &s.c.Cycles[id]
	c.Alive = false
	c.Braking = false
	c.DeathTick = s.c.Tick
	c.Killer = -1
	if e := c.Enemy; e >= 0 && s.c.Tick-c.EnemyTick <= s.d.suicide && s.c.Cycles[e].Present && s.c.Cycles[e].InRound {
		c.Killer = e // a credited player who has left the room has no cycle to take it: a suicide
	}
	c.Cause = why
	s.c.LastDeath = s.c.Tick
	s.blastStamp = 0
	s.closeSegment(id)
	c.QueueLen = 0
	if why == CauseLeft {
		return
	}
	c.Deaths++
	if c.Killer < 0 {
		s.score(id, s.cfg.ScoreSuicide)
		return
	}
	s.score(id, s.cfg.ScoreDie)
	if k := &s.c.Cycles[c.Killer]; k.Team != c.Team {
		s.score(int(c.Killer), s.cfg.ScoreKill)
		k.Kills++
	}
}

// score adds points to a player and to its team.
func (s *State) score(id int, points int64) {
	c := &s.c.Cycles[id]
	c.Score += points
	c.RoundScore += points
	if c.Team != NoTeam {
		s.c.TeamScore[c.Team] += points
		s.c.TeamRound[c.Team] += points
	}
}
