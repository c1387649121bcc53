package sim

import "testing"

// fortressMap is Z-Man's for_old_clients (Z-Man/fortress/for_old_clients-
// 0.1.0): the square with two spawn points and a fortress zone of radius 40
// in front of each.
func fortressMap(zones ...MapZone) *Map {
	u := int64(Unit)
	m := &Map{Axes: 4,
		Spawns: []MapSpawn{{X: 255 * u, Y: 50 * u, Dir: 1}, {X: 245 * u, Y: 450 * u, Dir: 3}},
		Walls:  []MapWall{{0, 0, 0, 500 * u}, {0, 500 * u, 500 * u, 500 * u}, {500 * u, 500 * u, 500 * u, 0}, {500 * u, 0, 0, 0}},
		Zones:  zones}
	if len(zones) == 0 {
		m.Zones = []MapZone{{Effect: ZoneFortress, X: 250 * u, Y: 50 * u, Radius: 40 * u}, {Effect: ZoneFortress, X: 250 * u, Y: 450 * u, Radius: 40 * u}}
	}
	return m
}

// crawling is testConfig on a map with cycles at 1 m/s, so that they stay
// inside a zone for as long as a test wants.
func crawling(m *Map) Config {
	cfg := testConfig()
	cfg.Map = m
	cfg.BaseSpeed, cfg.StartSpeed = Meter, Meter
	return cfg
}

// TestFortressConquest plays a fortress conquest with Armagetron's stock
// rates (config/settings.cfg: FORTRESS_CONQUEST_RATE .5, FORTRESS_DEFEND_RATE
// .25, FORTRESS_CONQUEST_DECAY_RATE .1; gBaseZoneHack::Timestep: conquered
// += dt (.5 enemies - .25 owners - .1), conquered at 1): one attacker alone
// takes the zone in 1/.4 = 2.5 s (300 ticks), and with the owner inside too
// in 1/.15 = 6.67 s (800 ticks). The conquest ends the round: with
// FORTRESS_SURVIVE_WIN 1 the last team owning a zone not conquered wins
// (gBaseZoneHack::CheckSurvivor), here the conqueror.
func TestFortressConquest(t *testing.T) {
	for _, c := range []struct {
		name     string
		defender bool
		ticks    int64
	}{{"alone", false, 300}, {"defended", true, 800}} {
		s := playing(t, crawling(fortressMap()), 2)
		for k, want := range []int8{0, 1} {
			if _, _, _, _, z, _, _ := s.MapZone(k); z.Owner != want || z.State != ZoneOpen {
				t.Fatalf("%s: zone %d owned by %d (state %d), want team %d: the team that spawned nearest", c.name, k, z.Owner, z.State, want)
			}
		}
		place(s, 0, 250, 420, 0, Meter) // in team 1's zone, crawling east
		place(s, 1, 100, 250, 1, Meter)
		if c.defender {
			place(s, 1, 250, 440, 2, Meter)
		}
		steps(s, int(c.ticks-1))
		_, _, _, _, z, conquered, _ := s.MapZone(1)
		if want := (c.ticks - 1) * Unit / c.ticks; z.State != ZoneOpen || s.Winner() != -1 || conquered != want {
			t.Fatalf("%s: after %d ticks: state %d, conquered %d, winner %d; want open, %d", c.name, c.ticks-1, z.State, conquered, s.Winner(), want)
		}
		steps(s, 1)
		_, _, _, _, z, _, _ = s.MapZone(1)
		if ph, _ := s.Phase(); z.State != ZoneCollapsing || s.Winner() != 0 || ph != PhaseOver {
			t.Fatalf("%s: after %d ticks: zone state %d, winner %d, phase %d; want collapsing, team 0, over", c.name, c.ticks, z.State, s.Winner(), ph)
		}
	}
}

// TestFortressDecay checks that a zone's conquest decays by .1 a second
// once the enemy has left, and that without FORTRESS_SURVIVE_WIN (and
// FORTRESS_CONQUERED_WIN 0, settings.cfg's) a conquest names no winner;
// with FORTRESS_CONQUERED_WIN 1 the conqueror wins.
func TestFortressDecay(t *testing.T) {
	cfg := crawling(fortressMap())
	s := playing(t, cfg, 2)
	place(s, 0, 250, 420, 0, Meter)
	place(s, 1, 100, 250, 1, Meter)
	steps(s, 120) // .4 conquered
	place(s, 0, 250, 300, 0, Meter)
	steps(s, 120) // .3
	if _, _, _, _, _, c, _ := s.MapZone(1); c != 300_000 {
		t.Fatalf("conquest after 1 s in, 1 s out: %d, want 300000", c)
	}
	for _, conqueredWin := range []int64{0, 1} {
		cfg.FortressSurviveWin, cfg.FortressConqueredWin = 0, conqueredWin
		s = playing(t, cfg, 2)
		place(s, 0, 250, 420, 0, Meter)
		place(s, 1, 100, 250, 1, Meter)
		steps(s, 300)
		_, _, _, _, z, _, _ := s.MapZone(1)
		want := -1 // no zone rule names a winner
		if conqueredWin == 1 {
			want = 0 // the conqueror
		}
		if z.State != ZoneCollapsing || s.Winner() != want {
			t.Fatalf("FORTRESS_CONQUERED_WIN %d: state %d, winner %d, want %d", conqueredWin, z.State, s.Winner(), want)
		}
		if want >= 0 {
			continue // the round is over: zones no longer change
		}
		// The conquered zone collapses at .5 of its radius a second: gone
		// 2 s (240 ticks) after the conquest.
		steps(s, 239)
		if _, _, _, _, z, _, _ := s.MapZone(1); z.State != ZoneCollapsing {
			t.Fatalf("collapsing zone 239 ticks after the conquest: state %d", z.State)
		}
		steps(s, 1)
		if _, _, _, _, z, _, _ := s.MapZone(1); z.State != ZoneGone {
			t.Fatalf("collapsing zone 240 ticks after the conquest: state %d", z.State)
		}
	}
}

// TestFortressMaxPerTeam plays sumo's four fortress zones on one spot with
// FORTRESS_MAX_PER_TEAM 1 (Z-Man/fortress/sumo_4x4): the nearest team takes
// the first, the other team the second, and the two left are nobody's and
// gone (gBaseZoneHack::OnRoundBegin, CountZonesOfTeam).
func TestFortressMaxPerTeam(t *testing.T) {
	u := int64(Unit)
	z := MapZone{Effect: ZoneFortress, X: 255 * u, Y: 100 * u, Radius: 40 * u, Growth: -400_000}
	cfg := crawling(fortressMap(z, z, z, z))
	cfg.FortressMaxPerTeam = 1
	s := playing(t, cfg, 2)
	for k, want := range []ZoneState{{State: ZoneOpen, Owner: 0}, {State: ZoneOpen, Owner: 1}, {State: ZoneGone, Owner: -1}, {State: ZoneGone, Owner: -1}} {
		if _, _, _, _, z, _, _ := s.MapZone(k); z.State != want.State || z.Owner != want.Owner {
			t.Errorf("zone %d: state %d owner %d, want %d, %d", k, z.State, z.Owner, want.State, want.Owner)
		}
	}
	// Growth -0.4 m/s from the round's start (the countdown included): 40 m
	// at the start of the countdown, 38.4 m as play begins 4 s later.
	elapsed := s.Tick() - s.c.PlayStart + s.d.prepare
	if _, _, r, _, _, _, _ := s.MapZone(0); r != 40*Meter-400_000*elapsed/120 {
		t.Errorf("radius %d ticks after the countdown began: %d, want %d", elapsed, r, 40*Meter-400_000*elapsed/120)
	}
}

// TestDeathAndWinZones checks a death zone (gDeathZoneHack: the cycle inside
// dies) and a win zone (gWinZoneHack: its team wins the round).
func TestDeathAndWinZones(t *testing.T) {
	u := int64(Unit)
	s := playing(t, crawling(fortressMap(MapZone{Effect: ZoneDeath, X: 400 * u, Y: 400 * u, Radius: 10 * u},
		MapZone{Effect: ZoneWin, X: 100 * u, Y: 100 * u, Radius: 10 * u})), 2)
	place(s, 0, 400, 395, 1, Meter)
	steps(s, 1)
	if c := s.Cycle(0); c.Alive || c.Cause != CauseZone {
		t.Fatalf("cycle in the death zone: alive %v cause %v", c.Alive, c.Cause)
	}
	s = playing(t, crawling(fortressMap(MapZone{Effect: ZoneWin, X: 100 * u, Y: 100 * u, Radius: 10 * u})), 2)
	place(s, 1, 100, 95, 1, Meter)
	steps(s, 120) // a round is decided a second after the last death, or its start
	if s.Winner() != 1 {
		t.Fatalf("cycle 1 in the win zone: winner %d", s.Winner())
	}
}

// TestZonesEncoded checks that the zones' states travel in a snapshot.
func TestZonesEncoded(t *testing.T) {
	s := playing(t, crawling(fortressMap()), 2)
	place(s, 0, 250, 420, 0, Meter)
	place(s, 1, 100, 250, 1, Meter)
	steps(s, 100)
	d, err := UnmarshalState(s.AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	if d.Hash() != s.Hash() {
		t.Fatal("hash differs after decoding")
	}
	steps(s, 250)
	steps(d, 250)
	if d.Hash() != s.Hash() || d.Winner() != 0 {
		t.Fatalf("decoded state played differently: winner %d", d.Winner())
	}
}

// FuzzUnmarshalMap decodes damaged encodings of a state on a fortress map:
// never a panic, and a state it accepts steps without one.
func FuzzUnmarshalMap(f *testing.F) {
	s := playing(f, crawling(fortressMap()), 2)
	place(s, 0, 250, 420, 0, Meter)
	steps(s, 50)
	f.Add(s.AppendBinary(nil))
	s = onAxes(f, 8, 2) // cycles heading beyond 3, slanted walls
	place(s, 0, 100, 100, 1, 20*Meter)
	steps(s, 30)
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
	steps(s, 30)
	f.Add(s.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := UnmarshalState(b)
		if err != nil {
			return
		}
		for i := 0; i < 20; i++ {
			d.Step(nil)
		}
		d.Hash()
	})
}

// TestBigZoneEncoded: a zone far larger than its arena (here 400 km across
// in a 500 m arena) is a possible state, and a snapshot of it decodes.
func TestBigZoneEncoded(t *testing.T) {
	u := int64(Unit)
	m := &Map{Axes: 4, Spawns: []MapSpawn{{X: 10 * u, Y: 10 * u, Dir: 1}, {X: 40 * u, Y: 40 * u, Dir: 3}},
		Walls: []MapWall{{0, 0, 0, 50 * u}, {0, 50 * u, 50 * u, 50 * u}, {50 * u, 50 * u, 50 * u, 0}, {50 * u, 0, 0, 0}},
		Zones: []MapZone{{Effect: ZoneFortress, X: 25 * u, Y: 25 * u, Radius: 20000 * u}}}
	cfg := crawling(m)
	cfg.ArenaSize = 5000 * Meter // a map unit of 10 m
	s := playing(t, cfg, 2)
	if _, err := UnmarshalState(s.AppendBinary(nil)); err != nil {
		t.Fatal(err)
	}
}
