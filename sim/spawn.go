package sim

// spawnPoints is how many spawn points the square map has.
const spawnPoints = 12

// spawnPoint returns spawn point k of Armagetron's square map
// (resource Anonymous/polygon/regular/square-1.0.1: a 500 x 500 field), in its
// units, and the direction a cycle spawned there faces. The first two face
// each other 10 units apart sideways, which is how a duel opens.
func spawnPoint(k int) (x, y int64, dir uint8) {
	p := [spawnPoints][3]int64{
		{255, 50, 1}, {245, 450, 3}, {50, 245, 0}, {450, 255, 2},
		{305, 100, 1}, {195, 400, 3}, {100, 195, 0}, {400, 305, 2},
		{205, 100, 1}, {295, 400, 3}, {100, 295, 0}, {400, 205, 2},
	}[k]
	return p[0], p[1], uint8(p[2])
}

// layout puts the round's cycles on the map's spawn points, team by team, as
// Armagetron's init_game_objects does: each team takes the least dangerous
// point (gArena::LeastDangerousSpawnPoint: the least used one, the first of
// equals; at one moment every used point is equally dangerous beyond its
// uses), and its members spawn there one behind the other in a V
// (gSpawnPoint::Spawn: every second wingman SPAWN_WINGMEN_SIDE to the left,
// every other one to the right, each row SPAWN_WINGMEN_BACK further back).
// Points scale with the arena (SIZE_FACTOR), the wingmen's offsets with
// SPEED_FACTOR. Teams take points in the order of their numbers, and with one
// player per team that is the order of player ids.
//
// A team of AIs alone (no human in it) does not ride in a V: each of its
// AIs takes the least dangerous point for itself, as init_game_objects does
// for a team that is not human (0.2.9.2.3 gGame.cpp line 1524).
//
// layout runs again when a player spawns during the countdown: nothing has
// moved yet, so placing everyone anew is free.
func (s *State) layout() {
	s.assignTeams()
	d := s.dv()
	var teams, human uint32
	var uses [maxMapSpawns]int64
	points := spawnPoints
	if d.mp != nil {
		points = len(d.mp.spawns)
	}
	var pointOf [MaxPlayers]int16 // team -> spawn point, -1 none yet
	for t := range pointOf {
		pointOf[t] = -1
	}
	var size [MaxPlayers]int
	nteams, last := 0, -1 // teams, and the one placed last
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.InRound && c.Present {
			if c.Human {
				human |= 1 << c.Team
			}
			if size[c.Team] == 0 {
				nteams, last = nteams+1, int(c.Team)
			}
			size[c.Team]++
		}
	}
	// SPAWN_POINT_GROUP_SIZE (init_game_objects, gGame.cpp line 1503): with
	// the spawn points in groups of g, a team whose point would be the last
	// of a group skips it (it counts as used) when that keeps the last team
	// from a group of its own: two teams are left, or a multiple of g-1
	// fewer than (g-1)^2. Armagetron asks it of the team it places last
	// being human or alone. picks counts the points picked, as its
	// spawnPointsUsed.
	g := int(s.cfg.SpawnPointGroupSize)
	grouped := g > 2 && last >= 0 && (human&(1<<last) != 0 || size[last] == 1)
	placed, picks := 0, 0
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.InRound || !c.Present {
			continue // a player who left during the countdown stays out
		}
		t := c.Team
		teams |= 1 << t
		if pointOf[t] < 0 {
			p := leastUsed(uses[:points])
			picks++
			if left := nteams - 1 - placed; grouped && picks%g == g-1 && (left == 2 || left%(g-1) == 0 && left < (g-1)*(g-1)) {
				uses[p]++
				p = leastUsed(uses[:points])
				picks++
			}
			placed++
			pointOf[t] = int16(p)
			if human&(1<<t) == 0 {
				picks++ // each AI of a team that is not human picks again, the first too
			}
		} else if human&(1<<t) == 0 {
			pointOf[t] = int16(leastUsed(uses[:points]))
			picks++
		}
		k := int(pointOf[t])
		px, py, dir := s.spawnAt(k)
		n := uses[k]
		uses[k]++
		// gSpawnPoint::Spawn: use n stands `away` rows back, on side d.
		side, away := int64(-1), n/2
		if n%2 == 1 {
			side, away = 1, (n+1)/2
		}
		fx, fy, _, _ := frame(dir)
		// dir.Turn(back, -side*wingSide) as a complex product, times away.
		ox := (fx*d.wingBack + fy*side*d.wingSide) * away
		oy := (fy*d.wingBack - fx*side*d.wingSide) * away
		if s.dirs != nil {
			u := &s.dirs[dir]
			ox = (u[0]*d.wingBack + u[1]*side*d.wingSide) / AxisScale * away
			oy = (u[1]*d.wingBack - u[0]*side*d.wingSide) / AxisScale * away
		}
		x := min(max(px-ox, 1), d.arena-1)
		y := min(max(py-oy, 1), d.arena-1)
		*c = Cycle{
			Present: c.Present, Human: c.Human, Machine: c.Machine, InRound: true, Alive: true, Braking: c.Braking, Dir: dir, Team: c.Team,
			Killer: -1, Enemy: -1, Queue: c.Queue, QueueLen: c.QueueLen,
			X: x, Y: y, TurnX: x, TurnY: y, Speed: d.startSpeed, Brake: Unit,
			SegTick:  s.c.Tick,
			LastLeft: (s.c.Tick-s.d.prepare)*SubTicks - 2*max(d.turnDelay, d.turnDelaySame),
			Latency:  c.Latency,
			Score:    c.Score, Kills: c.Kills, Deaths: c.Deaths, RoundScore: c.RoundScore,
		}
		c.LastRight = c.LastLeft
	}
	s.c.Teams = int64(popcount(teams))
}

// popcount returns the number of set bits of v.
func popcount(v uint32) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// spawnAt returns spawn point k of the round's map, in micrometres, and
// the direction it faces: the square's points scaled with the arena
// (SIZE_FACTOR), or the map's.
func (s *State) spawnAt(k int) (x, y int64, dir uint8) {
	d := s.dv()
	if d.mp != nil {
		p := d.mp.spawns[k]
		return p.X, p.Y, p.Dir
	}
	x, y, dir = spawnPoint(k)
	return x * d.arena / 500, y * d.arena / 500, dir
}

// leastUsed returns the first spawn point with the fewest uses.
func leastUsed(uses []int64) int {
	best := 0
	for k := 1; k < len(uses); k++ {
		if uses[k] < uses[best] {
			best = k
		}
	}
	return best
}

// assignTeams puts every present player in a team of at most TEAM_MAX_PLAYERS
// (the current set's). With 1 every player is a team of their own, numbered
// by the player's id. Otherwise there are as few teams as that allows, but two
// at least when two players are present, and their sizes differ by one at
// most (TEAM_MAX_IMBALANCE 1); players keep their team from round to round
// while that holds, newcomers join the smallest team, and the newest-numbered
// member of a team too large moves to the smallest.
//
// Deviation: Armagetron's auto-team (ePlayerNetID::FindDefaultTeam) lets a
// human join a team while it has fewer than the player's favourite team size
// (3 by default), and fills further seats with AI players on one AI team;
// Webtron fills seats with bots that are players like any other, so humans
// are dealt out first, one per team, then bots, which keeps two humans rivals
// rather than partners against a team of bots.
func (s *State) assignTeams() {
	m := s.dv().teamMaxPlayers
	if m <= 1 {
		for i := range s.c.Cycles {
			s.c.Cycles[i].Team = uint8(i)
		}
		return
	}
	n := int64(0)
	for i := range s.c.Cycles {
		if s.c.Cycles[i].Present {
			n++
		}
	}
	teams := max(min(2, n), (n+m-1)/m)
	if teams == 0 {
		return
	}
	limit := (n + teams - 1) / teams
	var size [MaxPlayers]int64
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		switch {
		case !c.Present:
			c.Team = NoTeam
		case int64(c.Team) < teams && size[c.Team] < limit:
			size[c.Team]++
		default:
			c.Team = NoTeam
		}
	}
	for _, human := range [2]bool{true, false} {
		for i := range s.c.Cycles {
			if c := &s.c.Cycles[i]; c.Present && c.Human == human && c.Team == NoTeam {
				c.Team = uint8(smallest(&size, teams))
				size[c.Team]++
			}
		}
	}
	for {
		lo, hi := smallest(&size, teams), 0
		for t := int64(1); t < teams; t++ {
			if size[t] > size[hi] {
				hi = int(t)
			}
		}
		if size[hi]-size[lo] <= 1 {
			return
		}
		for i := len(s.c.Cycles) - 1; i >= 0; i-- {
			if c := &s.c.Cycles[i]; c.Present && int(c.Team) == hi {
				c.Team = uint8(lo)
				size[hi]--
				size[lo]++
				break
			}
		}
	}
}

// smallest returns the first of teams 0..teams-1 with the fewest members.
func smallest(size *[MaxPlayers]int64, teams int64) int {
	best := 0
	for t := 1; t < int(teams); t++ {
		if size[t] < size[best] {
			best = t
		}
	}
	return best
}
