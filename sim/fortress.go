package sim

// A map's zones (Armagetron's gWinZone.cpp): a win zone names the team of a
// cycle inside it the round's winner (gWinZoneHack::OnEnter), a death zone
// kills a cycle inside it (gDeathZoneHack), and a fortress zone
// (gBaseZoneHack) belongs to the team that spawned nearest and is conquered
// by enemies inside it: its "conquered" value grows by FORTRESS_CONQUEST_RATE
// a second for each enemy inside, falls by FORTRESS_DEFEND_RATE for each
// owner inside and by FORTRESS_CONQUEST_DECAY_RATE, within 0..1.01; at 1 the
// zone is conquered and collapses (its radius shrinks by
// FORTRESS_COLLAPSE_SPEED of itself a second). A conquest names the first
// enemy team inside the winner with FORTRESS_CONQUERED_WIN, and with
// FORTRESS_SURVIVE_WIN the last team that owns a zone not conquered wins.
// A zone's radius changes by its growth a second from the round's start
// (sumo's zones shrink) and a zone that has shrunk to nothing is gone.

// maxZones bounds a map's zones: their states live in the flat core.
const maxZones = 32

// Zone states (ZoneState.State).
const (
	ZoneOpen       = 0 // in play
	ZoneCollapsing = 1 // a conquered fortress, shrinking away
	ZoneGone       = 2 // shrunk to nothing, or a fortress nobody owns
)

// ZoneState is the state of a map zone in the current round.
type ZoneState struct {
	State uint8
	Owner int8 // a fortress's team, -1 none
	// First is the first enemy team found inside a fortress in the latest
	// tick that had one inside (Armagetron's enemies_[0]), -1 none; Enemies
	// are those teams, a bit each.
	First   int8
	Enemies uint32
	// Conquered is the fortress's conquest, in Unit x TickRate (1 is
	// conquered), so that rates add without rounding.
	Conquered int64
	// The radius is R0 plus Growth (micrometres a second) for every second
	// since tick From.
	From, R0, Growth int64
}

func (z *ZoneState) visit(v visitor) {
	v.u8(&z.State)
	v.i8(&z.Owner)
	v.i8(&z.First)
	var e uint64 = uint64(z.Enemies)
	v.u64(&e)
	z.Enemies = uint32(e)
	for _, p := range [...]*int64{&z.Conquered, &z.From, &z.R0, &z.Growth} {
		v.i64(p)
	}
}

// zoneCount is how many zones the current round's map has.
func (s *State) zoneCount() int {
	if m := s.dv().mp; m != nil {
		return len(m.zones)
	}
	return 0
}

// visitZones lets v see the round's zone states (after the core, and only
// on a map with zones: the square's hashes and encodings do not change).
func (s *State) visitZones(v visitor) {
	for i := 0; i < s.zoneCount(); i++ {
		s.c.Zones[i].visit(v)
	}
}

// resetZones opens the map's zones for a round starting now, as
// Armagetron creates them with the grid: their radii count from here.
func (s *State) resetZones() {
	m := s.dv().mp
	s.c.Zones = [maxZones]ZoneState{}
	if m == nil {
		return
	}
	for i, z := range m.zones {
		s.c.Zones[i] = ZoneState{Owner: -1, First: -1, From: s.c.Tick, R0: z.Radius, Growth: z.Growth}
	}
}

// ZoneRadiusAt returns zone i's radius now, at least 0.
func (s *State) zoneRadius(i int) int64 {
	z := &s.c.Zones[i]
	return max(0, z.R0+z.Growth*(s.c.Tick-z.From)/s.cfg.TickRate)
}

// ownZones gives each fortress zone its team as the round's play begins
// (gBaseZoneHack::OnRoundBegin): the team of the cycle nearest its centre,
// zones taken in the map's order; with FORTRESS_MAX_PER_TEAM a team owns at
// most that many, the nearest: a cycle of a team that has them all counts
// only if it is nearer than that team's farthest zone, which is then
// dropped. Between cycles as near, the highest seat (Armagetron looks
// through its objects from the newest). A fortress nobody owns is gone.
func (s *State) ownZones() {
	m := s.dv().mp
	if m == nil {
		return
	}
	var dist [maxZones]int64 // squared distance of the owner, mm^2
	maxPer := int(s.cfg.FortressMaxPerTeam)
	count := func(team int8) (n, farthest int) {
		farthest = -1
		for k := range m.zones {
			if z := &s.c.Zones[k]; z.State == ZoneOpen && z.Owner == team && m.zones[k].Effect == ZoneFortress {
				n++
				if farthest < 0 || dist[k] > dist[farthest] {
					farthest = k
				}
			}
		}
		return n, farthest
	}
	for k, mz := range m.zones {
		if mz.Effect != ZoneFortress {
			continue
		}
		z := &s.c.Zones[k]
		best, bestD := -1, int64(0)
		for i := MaxPlayers - 1; i >= 0; i-- {
			c := &s.c.Cycles[i]
			if !c.InRound || !c.Alive {
				continue
			}
			dx, dy := (c.X-mz.X)/1000, (c.Y-mz.Y)/1000
			d := dx*dx + dy*dy
			if best >= 0 && d >= bestD {
				continue
			}
			if maxPer > 0 {
				if n, far := count(int8(c.Team)); n >= maxPer && (far < 0 || dist[far] <= d) {
					continue
				}
			}
			best, bestD = i, d
		}
		if best < 0 {
			z.State = ZoneGone
			continue
		}
		z.Owner, dist[k] = int8(s.c.Cycles[best].Team), bestD
		if maxPer > 0 {
			if n, far := count(z.Owner); n > maxPer {
				s.c.Zones[far].State, s.c.Zones[far].Owner = ZoneGone, -1
			}
		}
	}
}

// checkZones plays the map's zones for a tick of play.
func (s *State) checkZones() {
	m := s.dv().mp
	if m == nil || len(m.zones) == 0 {
		return
	}
	cfg := &s.cfg
	for k, mz := range m.zones {
		z := &s.c.Zones[k]
		if z.State == ZoneGone {
			continue
		}
		r := s.zoneRadius(k)
		if r <= 0 && z.Growth < 0 { // gZone::Timestep: shrunk to nothing
			z.State = ZoneGone
			if mz.Effect == ZoneFortress {
				s.checkSurvivor()
			}
			continue
		}
		rm := min(r, 4*s.dv().arena) / 1000 // millimetres, as the win zone
		var owners, enemies int64
		first, mask := int8(-1), uint32(0)
		for i := range s.c.Cycles {
			c := &s.c.Cycles[i]
			if !c.Alive {
				continue
			}
			dx, dy := (c.X-mz.X)/1000, (c.Y-mz.Y)/1000
			if dx*dx+dy*dy >= rm*rm {
				continue
			}
			switch {
			case mz.Effect == ZoneDeath:
				s.kill(i, CauseZone)
			case mz.Effect == ZoneWin:
				if s.c.Wish < 0 {
					s.c.Wish = int8(c.Team)
				}
			case z.State != ZoneOpen || z.Owner < 0:
			case int8(c.Team) == z.Owner:
				owners++
			default:
				enemies++
				if first < 0 {
					first = int8(c.Team)
				}
				mask |= 1 << c.Team
			}
		}
		if mz.Effect != ZoneFortress || z.State != ZoneOpen {
			continue
		}
		if enemies > 0 { // enemies_ holds the teams inside in the latest tick with any
			z.First, z.Enemies = first, mask
		}
		full := Unit * cfg.TickRate
		z.Conquered = min(max(0, z.Conquered+cfg.FortressConquestRate*enemies-cfg.FortressDefendRate*owners-cfg.FortressDecayRate), full+full/100)
		if z.Conquered >= full {
			s.conquer(k, r)
		}
	}
}

// conquer collapses fortress k (radius r now) and names the winner
// (gBaseZoneHack::OnConquest): with FORTRESS_CONQUERED_WIN the first enemy
// team inside that is still alive.
func (s *State) conquer(k int, r int64) {
	z := &s.c.Zones[k]
	z.State, z.From, z.R0 = ZoneCollapsing, s.c.Tick, r
	z.Growth = -r * s.cfg.FortressCollapseSpeed / Unit
	if z.Growth == 0 {
		z.Growth = -1 // a zone that should collapse, collapses
	}
	if s.cfg.FortressConqueredWin != 0 && s.c.Wish < 0 {
		alive := s.aliveTeams()
		switch {
		case z.First >= 0 && alive&(1<<z.First) != 0:
			s.c.Wish = z.First
		case z.Enemies&alive != 0:
			for t := 0; t < MaxPlayers; t++ {
				if z.Enemies&alive&(1<<t) != 0 {
					s.c.Wish = int8(t)
					break
				}
			}
		}
	}
	s.checkSurvivor()
}

// checkSurvivor names the winner when one team alone owns fortresses not
// conquered (FORTRESS_SURVIVE_WIN; gBaseZoneHack::CheckSurvivor).
func (s *State) checkSurvivor() {
	if s.cfg.FortressSurviveWin == 0 || s.c.Wish >= 0 {
		return
	}
	survivor := int8(-1)
	for k := 0; k < s.zoneCount(); k++ {
		z := &s.c.Zones[k]
		if z.State != ZoneOpen || z.Owner < 0 {
			continue
		}
		if survivor >= 0 && survivor != z.Owner {
			return
		}
		survivor = z.Owner
	}
	if survivor >= 0 {
		s.c.Wish = survivor
	}
}

// aliveTeams returns the teams with a living cycle, a bit each.
func (s *State) aliveTeams() uint32 {
	var m uint32
	for i := range s.c.Cycles {
		if c := &s.c.Cycles[i]; c.Alive && c.Team < MaxPlayers {
			m |= 1 << c.Team
		}
	}
	return m
}

// MapZone returns zone i of the current round's map as it is now: where,
// its effect, its radius, its state, and for a fortress its team (-1 none)
// and conquest (Unit is conquered). ok is false past the last zone.
func (s *State) MapZone(i int) (x, y, radius int64, effect uint8, z ZoneState, conquered int64, ok bool) {
	m := s.dv().mp
	if m == nil || i < 0 || i >= len(m.zones) {
		return 0, 0, 0, 0, ZoneState{}, 0, false
	}
	mz := &m.zones[i]
	z = s.c.Zones[i]
	return mz.X, mz.Y, s.zoneRadius(i), mz.Effect, z, z.Conquered / s.cfg.TickRate, true
}
