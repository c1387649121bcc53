package sim

// DeathCause says how a cycle died. The HUD's kill feed, replays and the
// scenario runner read it from Cycle.Cause.
type DeathCause uint8

// Death causes. Cycle.Killer says who is credited: for CauseWall the wall's
// owner, for CauseRim and CauseOwnWall an enemy whose wall the cycle was
// trapped by, or -1.
const (
	CauseNone      DeathCause = iota // alive, or not in the round
	CauseRim                         // drove into the arena's rim
	CauseWall                        // drove into another cycle's wall
	CauseOwnWall                     // drove into its own wall
	CauseCollision                   // met another cycle at the same instant (head-on): nobody is credited
	CauseLeft                        // its player left the room
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
	}
	return ""
}

// kill ends cycle id's round and scores the death: a suicide when nobody is
// credited for a rim or own-wall death, a death plus a kill for the credited
// enemy otherwise, nothing for a player who left.
func (s *State) kill(id, killer int, why DeathCause) {
	c := &s.c.Cycles[id]
	c.Alive = false
	c.Braking = false
	c.DeathTick = s.c.Tick
	c.Killer = int8(killer)
	c.Cause = why
	s.c.LastDeath = s.c.Tick
	s.closeSegment(id)
	c.QueueLen = 0
	if why == CauseLeft {
		return
	}
	c.Deaths++
	if killer < 0 && (why == CauseRim || why == CauseOwnWall) {
		c.Score += s.cfg.ScoreSuicide
		return
	}
	c.Score += s.cfg.ScoreDeath
	if killer >= 0 && killer != id {
		k := &s.c.Cycles[killer]
		k.Score += s.cfg.ScoreKill
		k.Kills++
	}
}
