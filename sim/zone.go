package sim

// checkZone opens the win zone and lets a cycle that rides into it win for
// its team. As in Armagetron (gGame::Analysis, gWinZoneHack), the zone opens
// once the round has been played WIN_ZONE_MIN_ROUND_TIME and no one has died
// for WIN_ZONE_MIN_LAST_DEATH, at a random point (WIN_ZONE_RANDOMNESS: 0 the
// centre, 1 anywhere in the arena), with radius WIN_ZONE_INITIAL_SIZE growing
// by WIN_ZONE_EXPANSION a second; a living cycle strictly inside it wins the
// round for its team (compared in whole millimetres). Deviation: Armagetron checks the opening once a second;
// here it is the first tick both times have passed.
func (s *State) checkZone() {
	d := s.dv()
	if s.c.ZoneTick < 0 {
		if s.c.Wish < 0 && s.c.Tick-s.c.PlayStart >= d.zoneRound && s.c.Tick-s.c.LastDeath >= d.zoneDeath {
			s.openZone()
		}
		return
	}
	if s.c.Wish >= 0 {
		return
	}
	// In millimetres, so that the squares of a 10 km arena stay in range.
	r := min(s.ZoneRadius(), 4*d.arena) / 1000
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		if !c.Alive {
			continue
		}
		dx, dy := (c.X-s.c.ZoneX)/1000, (c.Y-s.c.ZoneY)/1000
		if dx*dx+dy*dy < r*r {
			s.c.Wish = int8(c.Team)
			return
		}
	}
}

// openZone places the win zone: a point drawn uniformly in the middle
// WIN_ZONE_RANDOMNESS of the arena on each axis (gArena::GetRandomPos: of
// the rim's bounds).
func (s *State) openZone() {
	d, f := s.dv(), s.cfg.WinZoneRandomness
	w, h := d.arena, d.arena
	if d.mp != nil { // the box of the map's walls (eWallRim::GetBounds)
		w, h = d.mp.w, d.mp.h
	}
	s.c.Rng = splitmix(s.c.Rng)
	rx := int64(s.c.Rng % Unit)
	s.c.Rng = splitmix(s.c.Rng)
	ry := int64(s.c.Rng % Unit)
	at := func(a, r int64) int64 { return a * (r*f/Unit + (Unit-f)/2) / Unit }
	s.c.ZoneTick, s.c.ZoneX, s.c.ZoneY = s.c.Tick, at(w, rx), at(h, ry)
}

// Zone returns where the win zone is and its radius now, or ok false while it
// is not open.
func (s *State) Zone() (x, y, radius int64, ok bool) {
	if s.c.ZoneTick < 0 {
		return 0, 0, 0, false
	}
	return s.c.ZoneX, s.c.ZoneY, s.ZoneRadius(), true
}

// ZoneRadius returns the win zone's radius now (0 while it is not open):
// WIN_ZONE_INITIAL_SIZE plus WIN_ZONE_EXPANSION for every second open.
func (s *State) ZoneRadius() int64 {
	if s.c.ZoneTick < 0 {
		return 0
	}
	return max(0, s.cfg.WinZoneInitialSize+s.cfg.WinZoneExpansion*(s.c.Tick-s.c.ZoneTick)/s.cfg.TickRate)
}
