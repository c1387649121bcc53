package sim

import "testing"

// The tests in this file check Armagetron Advanced 0.2.9's rules (issue 13).
// Each names the function of its source whose formula gives the expected
// values (src/tron/gCycleMovement.cpp, gCycle.cpp, gGame.cpp, gArena.cpp,
// gSpawn.cpp, gExplosion.cpp, gWinZone.cpp).

// game returns a state in play with the given players (true: human), under
// cfg.
func game(t *testing.T, cfg Config, humans ...bool) *State {
	t.Helper()
	s := prepared(t, cfg, humans...)
	for s.c.Phase != PhasePlay {
		s.Step(nil)
	}
	return s
}

// prepared returns a state in its first countdown with the given players.
func prepared(t *testing.T, cfg Config, humans ...bool) *State {
	t.Helper()
	s, err := NewState(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for i, h := range humans {
		e := Event{Kind: EvJoin, Player: uint8(i)}
		if h {
			e.Arg = JoinHuman
		}
		evs = append(evs, e)
	}
	s.Step(evs)
	if s.c.Phase != PhasePrepare {
		t.Fatalf("phase %d after joining, want the countdown", s.c.Phase)
	}
	return s
}

// turnTicks presses the given turns (+1 left, -1 right) for cycle 0 on
// consecutive ticks and returns the ticks at which turns were executed,
// relative to the first press, over the next two seconds.
func turnTicks(t *testing.T, cfg Config, presses ...int8) []int64 {
	t.Helper()
	s := playing(t, cfg, 1)
	place(s, 0, 100, 250, 0, 30*Meter)
	start := s.Tick()
	var got []int64
	left, right := s.c.Cycles[0].LastLeft, s.c.Cycles[0].LastRight
	for k := 0; k < 240; k++ {
		var evs []Event
		if k < len(presses) {
			kind := EvTurnLeft
			if presses[k] < 0 {
				kind = EvTurnRight
			}
			evs = []Event{{Kind: kind, Player: 0, Seq: uint32(k + 1)}}
		}
		s.Step(evs)
		c := &s.c.Cycles[0]
		if c.LastLeft != left || c.LastRight != right {
			got = append(got, c.LastTurn()-start)
			left, right = c.LastLeft, c.LastRight
		}
	}
	return got
}

// TestTurnBuffering checks gCycleMovement::DoTurn and GetNextTurn: a turn
// that cannot run yet is queued while the queue holds at most
// CYCLE_TURN_MEMORY (3) turns; past that an opposite turn cancels the newest
// queued one and a same-side turn is appended anyway. A turn runs
// CYCLE_DELAY (0.1 s = 12 ticks at 120 Hz) after the last turn to the other
// side and CYCLE_DELAY x CYCLE_DELAY_DOUBLEBIND_BONUS after the last to the
// same side.
func TestTurnBuffering(t *testing.T) {
	const d = 12
	L, R := int8(1), int8(-1)
	for _, tc := range []struct {
		name    string
		bonus   int64 // CYCLE_DELAY_DOUBLEBIND_BONUS in Unit
		presses []int8
		want    []int64
	}{
		{"L,L,R", Unit, []int8{L, L, R}, []int64{0, d, 2 * d}},
		{"L,R,R,L,L", Unit, []int8{L, R, R, L, L}, []int64{0, d, 2 * d, 3 * d, 4 * d}},
		{"5xL", Unit, []int8{L, L, L, L, L}, []int64{0, d, 2 * d, 3 * d, 4 * d}},
		{"7xL: same side past the memory is appended", Unit, []int8{L, L, L, L, L, L, L}, []int64{0, d, 2 * d, 3 * d, 4 * d, 5 * d, 6 * d}},
		{"5xL,R: opposite past the memory cancels", Unit, []int8{L, L, L, L, L, R}, []int64{0, d, 2 * d, 3 * d}},
		{"L,R,L,R", Unit, []int8{L, R, L, R}, []int64{0, d, 2 * d, 3 * d}},
		{"double bind bonus 2: L,L", 2 * Unit, []int8{L, L}, []int64{0, 2 * d}},
		{"double bind bonus 2: L,R,R", 2 * Unit, []int8{L, R, R}, []int64{0, d, 3 * d}},
	} {
		cfg := testConfig()
		cfg.DoublebindBonus = tc.bonus
		got := turnTicks(t, cfg, tc.presses...)
		if len(got) != len(tc.want) {
			t.Errorf("%s: turns at %v, want %v", tc.name, got, tc.want)
			continue
		}
		for k := range got {
			if got[k] != tc.want[k] {
				t.Errorf("%s: turns at %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

// TestPingRubber checks sg_RubberValues: with CYCLE_RUBBER > 0 a latency of
// p seconds multiplies rubber's effectiveness by
// (CYCLE_RUBBER + p x CYCLE_PING_RUBBER) / CYCLE_RUBBER, so at 100 ms and the
// defaults (1, 3) a cycle may be denied 1.3 m instead of 1 m, and with
// CYCLE_RUBBER 5 at 500 ms 6.5 m instead of 5 m; with CYCLE_RUBBER <= 0 the
// term adds to the reservoir instead.
func TestPingRubber(t *testing.T) {
	s := playing(t, testConfig(), 1)
	c := &s.c.Cycles[0]
	c.Latency, c.RubberUsed = 100_000, 0
	if s.spend(0, 1_300_000) {
		t.Fatalf("1.3 m denied at 100 ms: dead, want alive (effectiveness 1.3)")
	}
	if c.RubberUsed != Meter {
		t.Fatalf("rubber used after 1.3 m denied at 100 ms: %d, want %d", c.RubberUsed, Meter)
	}
	if !s.spend(0, 2) {
		t.Fatalf("past 1.3 m denied at 100 ms: alive, want dead")
	}
	cfg := testConfig()
	cfg.Rubber = 0
	s = playing(t, cfg, 1)
	c = &s.c.Cycles[0]
	c.Latency = 100_000
	if s.spend(0, 300_000) || !s.spend(0, 1) {
		t.Fatalf("CYCLE_RUBBER 0 at 100 ms: want a 0.3 m reservoir")
	}

	// Against a wall, with CYCLE_RUBBER 5, the 500 ms cycle holds out 1.3
	// times as long.
	cfg = testConfig()
	cfg.Rubber = 5 * Meter
	s = playing(t, cfg, 2)
	for i, lat := range []int64{0, 500_000} {
		y := int64(100 + 100*i)
		place(s, i, 100, y, 0, 30*Meter)
		s.c.Cycles[i].Latency = lat
		s.addWall(Wall{X1: 110 * Meter, Y1: (y - 5) * Meter, X2: 110 * Meter, Y2: (y + 5) * Meter, Owner: uint8(1 - i)})
	}
	var died [2]int64
	for k := int64(0); k < 600 && (died[0] == 0 || died[1] == 0); k++ {
		s.Step(nil)
		for i := range died {
			if died[i] == 0 && !s.Cycle(i).Alive {
				died[i] = k
			}
		}
	}
	// 10 m at 0.25 m a tick is 40 ticks; the rest is rubber.
	r0, r1 := died[0]-40, died[1]-40
	if r0 <= 0 || r1*100 < r0*125 || r1*100 > r0*135 {
		t.Fatalf("ticks on rubber: %d without latency, %d at 500 ms; want a ratio of 1.3", r0, r1)
	}
}

// TestKillCredit checks gCycle::KillAt with gEnemyInfluence: the death goes
// to the owner of the most recently built enemy wall the cycle's side sensors
// (CYCLE_WALL_NEAR, 6 m) saw or that it hit, unless that is older than
// ENEMY_SUICIDE_TIMEOUT: a cycle trapped into the rim or its own wall is the
// trapper's kill (SCORE_KILL +3 to it, SCORE_DIE -2 to the victim), not a
// suicide (SCORE_SUICIDE -4); a teammate's "kill" scores nothing.
func TestKillCredit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		enemy      bool  // an enemy wall 3 m to the left, along the way
		rim        bool  // die on the rim rather than on one's own wall
		timeout    int64 // ENEMY_SUICIDE_TIMEOUT, ms
		team       bool  // the wall's owner is a teammate
		killer     int8
		score, got int64 // victim's and wall owner's score
	}{
		{"own wall, nobody near", false, false, 10_000_000, false, -1, -4, 0},
		{"own wall beside an enemy's", true, false, 10_000_000, false, 1, -2, 3},
		{"rim beside an enemy's", true, true, 10_000_000, false, 1, -2, 3},
		{"influence older than the timeout", true, true, 1000, false, -1, -4, 0},
		{"teammate's wall", true, true, 10_000_000, true, 1, -2, 0},
	} {
		cfg := testConfig()
		cfg.EnemySuicideTimeoutMs = tc.timeout
		s := playing(t, cfg, 3)
		if tc.team {
			s.c.Cycles[1].Team = s.c.Cycles[0].Team
		}
		steps(s, 360) // 3 s into the round: the wall below is built at the start
		x := int64(100)
		if tc.rim {
			x = 480
		}
		place(s, 0, x, 250, 0, 30*Meter)
		place(s, 1, 400, 50, 0, 30*Meter)
		place(s, 2, 50, 450, 0, 30*Meter)
		if tc.enemy {
			s.addWall(Wall{X1: (x - 50) * Meter, Y1: 253 * Meter, X2: 499 * Meter, Y2: 253 * Meter, T1: 0, T2: 0, Owner: 1})
		}
		if !tc.rim {
			s.addWall(Wall{X1: (x + 20) * Meter, Y1: 240 * Meter, X2: (x + 20) * Meter, Y2: 252 * Meter, Owner: 0})
		}
		for s.Cycle(0).Alive {
			s.Step(nil)
		}
		c := s.Cycle(0)
		if c.Killer != tc.killer || c.Score != tc.score || s.Cycle(1).Score != tc.got {
			t.Errorf("%s: killer %d, scores %d / %d; want %d, %d / %d", tc.name, c.Killer, c.Score, s.Cycle(1).Score, tc.killer, tc.score, tc.got)
		}
	}

	// The newest enemy wall wins: 2's wall, built later than 1's, is nearer
	// in time though farther in space.
	s := playing(t, testConfig(), 3)
	steps(s, 360)
	place(s, 0, 100, 250, 0, 30*Meter)
	place(s, 1, 400, 50, 0, 30*Meter)
	place(s, 2, 50, 450, 0, 30*Meter)
	s.addWall(Wall{X1: 50 * Meter, Y1: 252 * Meter, X2: 499 * Meter, Y2: 252 * Meter, T1: 10, T2: 10, Owner: 1})
	s.addWall(Wall{X1: 50 * Meter, Y1: 245 * Meter, X2: 499 * Meter, Y2: 245 * Meter, T1: 300, T2: 300, Owner: 2})
	s.addWall(Wall{X1: 120 * Meter, Y1: 240 * Meter, X2: 120 * Meter, Y2: 251 * Meter, Owner: 0})
	for s.Cycle(0).Alive {
		s.Step(nil)
	}
	if c := s.Cycle(0); c.Killer != 2 || c.Cause != CauseOwnWall {
		t.Fatalf("two enemy walls: killer %d cause %v, want 2 (the newer wall), own_wall", c.Killer, c.Cause)
	}
}

// TestSpawns checks the square map's spawn points (square-1.0.1) as
// gArena::LeastDangerousSpawnPoint hands them out and gSpawnPoint::Spawn
// places a team's members: a duel opens head-on, 10 m apart sideways; the
// single-player arena (SIZE_FACTOR -3) scales them by 2^(-3/2); teammates
// stand SPAWN_WINGMEN_BACK behind and SPAWN_WINGMEN_SIDE beside, left and
// right by turns; a thirteenth team is the first point's second user.
func TestSpawns(t *testing.T) {
	type pos struct {
		x, y int64 // micrometres
		dir  uint8
	}
	at := func(s *State, i int) pos { c := s.Cycle(i); return pos{c.X, c.Y, c.Dir} }
	const back, side = 2_202_896, 2_753_620

	s := prepared(t, DefaultConfig(), true, true) // two humans: multiplayer, 500 m
	if got, want := [2]pos{at(s, 0), at(s, 1)}, [2]pos{{255 * Meter, 50 * Meter, 1}, {245 * Meter, 450 * Meter, 3}}; got != want {
		t.Errorf("duel: %v, want %v", got, want)
	}

	s = prepared(t, DefaultConfig(), true, false) // one human: single player
	if a := s.Arena(); a != 176_776_500 {
		t.Errorf("single-player arena %d, want 500 m x 2^-1.5 = 176776500 um", a)
	}
	if got, want := at(s, 1), (pos{245 * 176_776_500 / 500, 450 * 176_776_500 / 500, 3}); got != want {
		t.Errorf("single player, second cycle: %v, want %v", got, want)
	}

	// Two humans and four bots: two teams of three, one per spawn point.
	s = prepared(t, DefaultConfig(), true, true, false, false, false, false)
	var team0 []pos
	for i := 0; i < 6; i++ {
		if s.Cycle(i).Team == 0 {
			team0 = append(team0, at(s, i))
		}
	}
	want := []pos{{255 * Meter, 50 * Meter, 1}, {255*Meter - side, 50*Meter - back, 1}, {255*Meter + side, 50*Meter - back, 1}}
	if len(team0) != 3 || team0[0] != want[0] || team0[1] != want[1] || team0[2] != want[2] {
		t.Errorf("team 0 spawns at %v, want %v", team0, want)
	}

	// Thirteen teams: the thirteenth is the first point's second user.
	humans := make([]bool, 13)
	s = prepared(t, testConfig(), humans...)
	if got, want := at(s, 12), (pos{255*Meter - side, 50*Meter - back, 1}); got != want {
		t.Errorf("13th player: %v, want %v", got, want)
	}
	for k := 0; k < spawnPoints; k++ {
		px, py, dir := spawnPoint(k)
		if got := at(s, k); got != (pos{px * Meter, py * Meter, dir}) {
			t.Errorf("player %d at %v, want spawn point %d", k, got, k)
		}
	}
}

// TestExplosionHoles checks gExplosion: a dying cycle's blast cuts holes into
// walls built before it, its radius growing to EXPLOSION_RADIUS (4 m) in five
// steps over 0.2 s (step k at int(5t/0.2)+1, radius R sqrt(k/5)). A wall 2 m
// from the blast is first reached at step 2 (2.53 m) and finally loses
// 2 sqrt(4^2 - 2^2) = 6.93 m; a cycle then rides through the hole, and the
// wall it lays there stands.
func TestExplosionHoles(t *testing.T) {
	s := playing(t, testConfig(), 3)
	place(s, 0, 200, 252, 1, 30*Meter)
	place(s, 1, 400, 50, 0, 30*Meter)
	place(s, 2, 200, 230, 1, 0)
	s.addWall(Wall{X1: 100 * Meter, Y1: 250 * Meter, X2: 300 * Meter, Y2: 250 * Meter, Odo: 0, Owner: 1})
	wall := s.RoundWalls()[len(s.RoundWalls())-1]
	s.Step([]Event{{Kind: EvLeave, Player: 0}})
	death := s.Cycle(0).DeathTick
	for age := int64(1); s.Tick() <= death+4; age++ {
		if len(s.WallPieces(wall, nil)) != 1 {
			t.Fatalf("blast age %d ticks (step 1, 1.79 m): the wall 2 m away has a hole already", age)
		}
		s.Step(nil)
	}
	s.Step(nil) // age 5: step 2
	if p := s.WallPieces(wall, nil); len(p) != 2 {
		t.Fatalf("blast step 2 (2.53 m): %d pieces, want a hole", len(p))
	}
	steps(s, 20)
	p := s.WallPieces(wall, nil)
	if len(p) != 2 {
		t.Fatalf("after the blast: %d pieces, want 2", len(p))
	}
	half := isqrt(16*Meter*Meter - 4*Meter*Meter) // 3.464 m
	if lo, hi := p[0].X2, p[1].X1; lo != 200*Meter-half || hi != 200*Meter+half {
		t.Fatalf("hole from %d to %d, want %d to %d", lo, hi, 200*Meter-half, 200*Meter+half)
	}
	// Cycle 2 rides north through the hole.
	place(s, 2, 200, 240, 1, 30*Meter)
	steps(s, 120)
	c := s.Cycle(2)
	if !c.Alive || c.Y < 260*Meter {
		t.Fatalf("cycle through the hole: alive %v at y %d, want alive past y 260 m", c.Alive, c.Y)
	}
	if p := s.WallPieces(c.openWall(2, s.Tick()), nil); len(p) != 1 {
		t.Fatalf("the wall laid through the hole after the blast: %d pieces, want it whole", len(p))
	}
}

// TestWallsStayUp: a dead cycle's walls stand WALLS_STAY_UP_DELAY, 8 s in
// Armagetron's settings_dedicated.cfg for both sets.
func TestWallsStayUp(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.SP.WallsStayUpDelayMs != 8000 || cfg.MP.WallsStayUpDelayMs != 8000 {
		t.Fatalf("WALLS_STAY_UP_DELAY %d / %d ms, want 8000", cfg.SP.WallsStayUpDelayMs, cfg.MP.WallsStayUpDelayMs)
	}
	s := playing(t, testConfig(), 3)
	place(s, 0, 100, 250, 0, 30*Meter)
	steps(s, 60)
	s.Step([]Event{{Kind: EvLeave, Player: 0}})
	w := s.RoundWalls()[len(s.RoundWalls())-1]
	// Deadly until 8 s + 0.2 s past the death (gNetPlayerWall::IsDangerous*,
	// gWall.cpp lines 2396 and 2422: deathTime + WallsStayUpDelay + 0.2 <=
	// time is no longer dangerous); drawn sinking from 8 s over 0.5 s
	// (RenderNormal, line 1073), which DeadWallTicks tells the page.
	steps(s, 8*120+24-2) // the state is then 8.2 s minus a tick past the death
	if _, ok := s.WallVisible(w); !ok {
		t.Fatal("a dead cycle's wall stopped being deadly before 8.2 s")
	}
	s.Step(nil)
	if _, ok := s.WallVisible(w); ok {
		t.Fatal("a dead cycle's wall is still deadly 8.2 s after the death")
	}
	if got := s.DeadWallTicks(); got != 8*120 {
		t.Fatalf("DeadWallTicks %d, want the walls to start sinking at 8 s (960 ticks)", got)
	}
}

// TestWinnerAfterASecond checks gGame::Analysis: the round is decided only
// once the last death is a second old (Armagetron polls once a second, so
// 1-2 s there; exactly 1 s here). A survivor who dies within that second
// leaves no winner.
func TestWinnerAfterASecond(t *testing.T) {
	s := playing(t, testConfig(), 3)
	place(s, 0, 499, 100, 0, 30*Meter)
	place(s, 1, 499, 200, 0, 30*Meter)
	place(s, 2, 100, 300, 0, 30*Meter)
	for s.Cycle(0).Alive || s.Cycle(1).Alive {
		s.Step(nil)
	}
	last := max(s.Cycle(0).DeathTick, s.Cycle(1).DeathTick)
	if end := untilOver(s, 1000); end != last+120 || s.Winner() != 2 {
		t.Fatalf("decided at %d (%d after the last death), winner %d; want 120 ticks after, winner 2", end, end-last, s.Winner())
	}

	s = playing(t, testConfig(), 3)
	place(s, 0, 499, 100, 0, 30*Meter)
	place(s, 1, 485, 200, 0, 30*Meter) // dies about half a second later
	place(s, 2, 100, 300, 0, 30*Meter)
	for s.Cycle(0).Alive {
		s.Step(nil)
	}
	end := untilOver(s, 1000)
	if last := s.Cycle(1).DeathTick; end != last+120 || s.Winner() != 2 {
		t.Fatalf("second death within the second: decided %d after it, winner %d; want 120, 2", end-last, s.Winner())
	}
}

// TestWinZone checks gGame::Analysis and gWinZoneHack under the multiplayer
// settings (WIN_ZONE_MIN_ROUND_TIME 60, WIN_ZONE_MIN_LAST_DEATH 30): the zone
// opens once the round is 60 s old and nobody has died for 30 s, radius
// WIN_ZONE_INITIAL_SIZE 5 m growing WIN_ZONE_EXPANSION 1 m/s, within the
// middle 80 % of the arena (WIN_ZONE_RANDOMNESS 0.8); riding into it wins.
func TestWinZone(t *testing.T) {
	s := game(t, DefaultConfig(), true, true, true)
	start := s.c.PlayStart
	keep := func() { // keep everyone alive and far from the rim
		for i := 0; i < 3; i++ {
			place(s, i, int64(100+100*i), 50, 1, 30*Meter)
		}
	}
	for s.Tick() <= start+60*120 {
		if (s.Tick()-start)%600 == 0 {
			keep()
		}
		if _, _, _, open := s.Zone(); open {
			t.Fatalf("zone open at %d ticks of play, want 7200", s.Tick()-start)
		}
		s.Step(nil)
	}
	// The state is now a tick past the opening: 5 m and 1/120 m.
	x, y, r, open := s.Zone()
	if !open || r != 5*Meter+Meter/120 || s.c.ZoneTick != start+60*120 {
		t.Fatalf("after 60 s: open %v radius %d opened at %d; want open at %d with 5 m", open, r, s.c.ZoneTick, start+60*120)
	}
	a := s.Arena()
	if x < a/10 || x > a*9/10 || y < a/10 || y > a*9/10 {
		t.Fatalf("zone at (%d, %d), want within the middle 80 %% of %d", x, y, a)
	}
	keep()
	steps(s, 120)
	if _, _, r, _ := s.Zone(); r != 6*Meter+Meter/120 {
		t.Fatalf("radius a second later %d, want 6 m", r)
	}
	// Cycle 1 rides straight into it.
	place(s, 1, x/Meter-10, y/Meter, 0, 30*Meter)
	team := s.Cycle(1).Team
	if end := untilOver(s, 240); end < 0 || s.Winner() != int(team) {
		t.Fatalf("ride into the zone: over at %d, winner %d, want team %d", end, s.Winner(), team)
	}
}

// TestSameTickCrossingRubber: a wall crossed in the tick it was built gets
// rubber like any other (Armagetron builds walls continuously); before, the
// later cycle died at once.
func TestSameTickCrossingRubber(t *testing.T) {
	s := playing(t, testConfig(), 3)
	// Within one 0.25 m tick 0 passes (200, 250) at 0.4 of it, 1 at 0.8.
	place(s, 0, 200, 250, 0, 30*Meter)
	s.c.Cycles[0].X -= 100_000
	s.c.Cycles[0].TurnX = s.c.Cycles[0].X
	place(s, 1, 200, 250, 1, 30*Meter)
	s.c.Cycles[1].Y -= 200_000
	s.c.Cycles[1].TurnY = s.c.Cycles[1].Y
	place(s, 2, 50, 50, 1, 30*Meter)
	s.Step(nil)
	c := s.Cycle(1)
	if !c.Alive || c.Y >= 250*Meter || c.RubberUsed == 0 {
		t.Fatalf("same-tick crossing: alive %v y %d rubber %d; want alive, short of the wall, on rubber", c.Alive, c.Y, c.RubberUsed)
	}
	for s.Cycle(1).Alive {
		s.Step(nil)
	}
	if c := s.Cycle(1); c.Killer != 0 || c.Cause != CauseWall {
		t.Fatalf("once the rubber is spent: killer %d cause %v, want 0, wall", c.Killer, c.Cause)
	}
}

// TestSensorBlocked checks gCycleMovement::CalculateAcceleration: the rear
// sensor reports the first wall its ray meets, and only a wall nearly
// parallel to the cycle accelerates it, so a wall across the ray's path hides
// a parallel one behind it.
func TestSensorBlocked(t *testing.T) {
	speed := func(block bool) int64 {
		s := playing(t, testConfig(), 2)
		place(s, 0, 100, 250, 0, 30*Meter)
		place(s, 1, 400, 50, 0, 30*Meter)
		s.addWall(Wall{X1: 50 * Meter, Y1: 253 * Meter, X2: 200 * Meter, Y2: 253 * Meter, Owner: 1})
		if block { // across the left ray's path 1 m behind, before it reaches the parallel wall at 3 m
			s.addWall(Wall{X1: 99 * Meter, Y1: 250*Meter + Meter/2, X2: 99 * Meter, Y2: 252 * Meter, Owner: 1})
		}
		s.Step(nil)
		return s.Cycle(0).Speed
	}
	free, blocked := speed(false), speed(true)
	// 10 x (1/5 - 1/8) = 0.75 m/s^2 from the wall 3 m away: 6250 um/s in a tick.
	if free-blocked != 6250 {
		t.Fatalf("speed after a tick: %d beside the wall, %d with the ray blocked; want 6250 um/s apart", free, blocked)
	}
}

// TestTurbo: a negative CYCLE_BRAKE turns the brake into a turbo
// (CalculateAcceleration subtracts CYCLE_BRAKE while braking).
func TestTurbo(t *testing.T) {
	cfg := testConfig()
	cfg.Brake = -30 * Meter
	s := playing(t, cfg, 1)
	place(s, 0, 50, 250, 0, 30*Meter)
	s.Step([]Event{{Kind: EvBrakeOn, Player: 0, Seq: 1}})
	steps(s, 59) // 0.5 s: dv/dt = 30 - 0.1 (v - 30), v = 30 + 300 (1 - e^-0.05) = 44.63 m/s
	if v := s.Cycle(0).Speed; v < 44_500_000 || v > 44_800_000 {
		t.Fatalf("speed after 0.5 s of turbo: %d, want about 44.63 m/s", v)
	}
	if b := s.Cycle(0).Brake; b < Unit/2-20_000 || b > Unit/2+20_000 {
		t.Fatalf("reservoir after 0.5 s of turbo: %d, want about half", b)
	}
}

// TestTeams checks the multiplayer team rules: TEAM_MAX_PLAYERS 5, so eight
// players make two teams of four, the two humans on different teams; teams
// last from round to round; the last team standing wins the round for the
// team (eTeam::AddScore: SCORE_WIN goes to the team's score, not its
// players'); and killing a teammate scores nothing.
func TestTeams(t *testing.T) {
	s := game(t, DefaultConfig(), true, true, false, false, false, false, false, false)
	var size [2]int
	for i := 0; i < 8; i++ {
		c := s.Cycle(i)
		if c.Team > 1 {
			t.Fatalf("player %d on team %d, want 0 or 1", i, c.Team)
		}
		size[c.Team]++
	}
	if size != [2]int{4, 4} || s.Cycle(0).Team == s.Cycle(1).Team {
		t.Fatalf("teams of %v, humans on %d and %d; want 4 and 4, humans apart", size, s.Cycle(0).Team, s.Cycle(1).Team)
	}
	teams := [8]uint8{}
	for i := range teams {
		teams[i] = s.Cycle(i).Team
	}
	// Team 1 drives into the rim; team 0 rides on.
	for i := 0; i < 8; i++ {
		if s.Cycle(i).Team == 1 {
			place(s, i, 499, int64(20+50*i), 0, 30*Meter)
		} else {
			place(s, i, 10, int64(20+50*i), 0, 30*Meter)
		}
	}
	if end := untilOver(s, 600); end < 0 || s.Winner() != 0 {
		t.Fatalf("team 1 gone: over at %d, winner %d; want team 0", end, s.Winner())
	}
	if got := s.TeamScore(0); got != 10 {
		t.Fatalf("team 0's score %d, want SCORE_WIN 10", got)
	}
	for i := 0; i < 8; i++ {
		if c := s.Cycle(i); c.Team == 0 && c.Score != 0 {
			t.Fatalf("player %d of the winning team scored %d, want 0 (the win is the team's)", i, c.Score)
		}
	}
	for s.c.Phase != PhasePlay {
		s.Step(nil)
	}
	for i := range teams {
		if s.Cycle(i).Team != teams[i] {
			t.Fatalf("next round: player %d moved from team %d to %d", i, teams[i], s.Cycle(i).Team)
		}
	}
}

// TestSettingsSets: a round starts under the SP_ settings while at most one
// human is present and under the multiplayer ones with two or more, and a
// change of set starts a new match (gGame's sg_singlePlayer switch).
func TestSettingsSets(t *testing.T) {
	s := game(t, DefaultConfig(), true, false, false)
	if set, k := s.Rules(); k != SetSP || set.TeamMaxPlayers != 1 || s.Arena() != 176_776_500 {
		t.Fatalf("one human: set %d, team size %d, arena %d; want SP, 1, 176776500", k, set.TeamMaxPlayers, s.Arena())
	}
	_, match := s.Round()
	s.Step([]Event{{Kind: EvJoin, Player: 3, Arg: JoinHuman}})
	for s.c.Phase != PhasePrepare || s.c.Round != 1 {
		s.Step(nil)
	}
	if _, k := s.Rules(); k != SetMP || s.Arena() != 500*Meter {
		t.Fatalf("two humans: set %d arena %d, want MP, 500 m", k, s.Arena())
	}
	if _, m := s.Round(); m != match+1 {
		t.Fatalf("switching sets: match %d, want %d", m, match+1)
	}
}

// TestSpeedBounds checks gCycleMovement::ApplyAcceleration's clamp: speed
// stays between CYCLE_SPEED x CYCLE_SPEED_MIN (7.5 m/s) and, when set,
// CYCLE_SPEED x CYCLE_SPEED_MAX.
func TestSpeedBounds(t *testing.T) {
	cfg := testConfig()
	cfg.Brake = 200 * Meter
	s := playing(t, cfg, 1)
	place(s, 0, 50, 250, 0, 30*Meter)
	s.Step([]Event{{Kind: EvBrakeOn, Player: 0, Seq: 1}})
	steps(s, 60)
	if v := s.Cycle(0).Speed; v != 7_500_000 {
		t.Fatalf("speed after braking hard: %d, want CYCLE_SPEED_MIN x 30 m/s = 7500000", v)
	}
	cfg = testConfig()
	cfg.Brake, cfg.SpeedMax = -100*Meter, 1_100_000
	s = playing(t, cfg, 1)
	place(s, 0, 50, 250, 0, 30*Meter)
	s.Step([]Event{{Kind: EvBrakeOn, Player: 0, Seq: 1}})
	steps(s, 60)
	if v := s.Cycle(0).Speed; v != 33_000_000 {
		t.Fatalf("speed under a turbo with CYCLE_SPEED_MAX 1.1: %d, want 33000000", v)
	}
}

// TestAccelFactors checks CalculateAcceleration's factors by whose wall it
// is: CYCLE_ACCEL_SELF for one's own, _ENEMY for another's, and the sum
// times CYCLE_ACCEL_SLINGSHOT between one's own wall and another, times
// CYCLE_ACCEL_TUNNEL between two walls not one's own.
func TestAccelFactors(t *testing.T) {
	const one = 6250 // um/s gained in a tick from a wall 3 m away (0.75 m/s^2)
	for _, tc := range []struct {
		name         string
		left, right  int // owners of walls 3 m to the left and right, -2 none
		self, enemy  int64
		sling, tunel int64
		want         int64
	}{
		{"enemy", 1, -2, Unit, Unit, Unit, Unit, one},
		{"own, CYCLE_ACCEL_SELF 0", 0, -2, 0, Unit, Unit, Unit, 0},
		{"enemy, CYCLE_ACCEL_ENEMY 2", 1, -2, Unit, 2 * Unit, Unit, Unit, 2 * one},
		{"own and enemy, SLINGSHOT 3", 0, 1, Unit, Unit, 3 * Unit, Unit, 6 * one},
		{"two enemies, TUNNEL 0", 1, 1, Unit, Unit, Unit, 0, 0},
	} {
		cfg := testConfig()
		cfg.AccelSelf, cfg.AccelEnemy, cfg.AccelSlingshot, cfg.AccelTunnel = tc.self, tc.enemy, tc.sling, tc.tunel
		s := playing(t, cfg, 2)
		place(s, 0, 100, 250, 0, 30*Meter)
		place(s, 1, 400, 50, 0, 30*Meter)
		for _, w := range [][2]int64{{int64(tc.left), 253}, {int64(tc.right), 247}} {
			if w[0] >= 0 {
				s.addWall(Wall{X1: 50 * Meter, Y1: w[1] * Meter, X2: 200 * Meter, Y2: w[1] * Meter, Owner: uint8(w[0])})
			}
		}
		s.Step(nil)
		if got := s.Cycle(0).Speed - 30*Meter; got != tc.want {
			t.Errorf("%s: gained %d um/s in a tick, want %d", tc.name, got, tc.want)
		}
	}
}

// TestRubberDecay: used rubber decays as rubber /= 1 + dt/CYCLE_RUBBER_TIME
// (gCycleMovement::TimestepCore), so after 10 s at 120 Hz it is
// (1 + 1/1200)^-1200 = 0.3680 of what it was.
func TestRubberDecay(t *testing.T) {
	s := playing(t, testConfig(), 1)
	place(s, 0, 50, 250, 0, 10*Meter)
	s.c.Cycles[0].RubberUsed = Meter
	for k := 0; k < 1200; k++ {
		s.c.Cycles[0].X, s.c.Cycles[0].TurnX = 50*Meter, 50*Meter // stay clear of the rim
		s.Step(nil)
	}
	if r := s.Cycle(0).RubberUsed; r < 367_000 || r > 369_000 {
		t.Fatalf("rubber after 10 s: %d, want about 368000", r)
	}
}

// TestSpeedFactor checks SPEED_FACTOR as sg_copySettings applies it
// (gCycle::SetSpeedMultiplier(2^(f/2))): at 2 the speeds double and the turn
// delay halves (GetTurnDelay divides by the multiplier).
func TestSpeedFactor(t *testing.T) {
	cfg := testConfig()
	cfg.SP.SpeedFactor, cfg.MP.SpeedFactor = 2, 2
	s := prepared(t, cfg, false)
	if c := s.Cycle(0); c.Speed != 40*Meter {
		t.Fatalf("start speed at SPEED_FACTOR 2: %d, want 40 m/s", c.Speed)
	}
	if other, same := s.TurnDelay(); other != 6 || same != 6 {
		t.Fatalf("turn delay at SPEED_FACTOR 2: %d/%d ticks, want 6 (50 ms)", other, same)
	}
	if d := s.dv(); d.baseSpeed != 60*Meter || d.minSpeed != 15*Meter {
		t.Fatalf("base and least speed %d, %d; want 60 and 15 m/s", d.baseSpeed, d.minSpeed)
	}
}

// TestFreestyle: with GAME_TYPE 0 a round goes on while any cycle lives, and
// ends without a winner a second after the last death (gGame::Analysis).
func TestFreestyle(t *testing.T) {
	cfg := testConfig()
	cfg.SP.GameType, cfg.MP.GameType = GameFreestyle, GameFreestyle
	s := playing(t, cfg, 2)
	place(s, 0, 499, 100, 0, 30*Meter)
	place(s, 1, 400, 200, 0, 30*Meter)
	for s.Cycle(0).Alive {
		s.Step(nil)
	}
	steps(s, 240)
	if ph, _ := s.Phase(); ph != PhasePlay {
		t.Fatalf("freestyle with one cycle left: phase %d, want play", ph)
	}
	for s.Cycle(1).Alive {
		s.Step(nil)
	}
	if end := untilOver(s, 200); end != s.Cycle(1).DeathTick+120 || s.Winner() != -1 {
		t.Fatalf("freestyle: over %d ticks after the last death, winner %d; want 120, none", end-s.Cycle(1).DeathTick, s.Winner())
	}
}

// TestLimitScore: a match ends when a team reaches LIMIT_SCORE; the next
// round starts a new match with scores reset.
func TestLimitScore(t *testing.T) {
	cfg := testConfig()
	cfg.SP.LimitScore, cfg.MP.LimitScore = 10, 10
	s := playing(t, cfg, 2)
	place(s, 0, 499, 250, 0, 30*Meter)
	untilOver(s, 400)
	if s.TeamScore(1) != 10 {
		t.Fatalf("team 1's score %d, want 10", s.TeamScore(1))
	}
	for s.c.Phase != PhasePrepare {
		s.Step(nil)
	}
	if _, m := s.Round(); m != 1 || s.TeamScore(1) != 0 || s.Cycle(1).Score != 0 {
		t.Fatalf("after LIMIT_SCORE: match %d, scores %d / %d; want a new match at 0", m, s.TeamScore(1), s.Cycle(1).Score)
	}
}

// TestSpawnAfterLeave: a player who leaves during the countdown stays out
// when a newcomer's spawn lays the cycles out again (it used to be revived).
func TestSpawnAfterLeave(t *testing.T) {
	for _, cfg := range []Config{testConfig(), DefaultConfig()} {
		s := prepared(t, cfg, true, true, false)
		s.Step([]Event{{Kind: EvLeave, Player: 1}})
		s.Step([]Event{{Kind: EvJoin, Player: 3, Arg: JoinHuman}, {Kind: EvSpawn, Player: 3}})
		if c := s.Cycle(1); c.Alive || c.Present {
			t.Fatalf("player who left: alive %v present %v, want neither", c.Alive, c.Present)
		}
		if c := s.Cycle(3); !c.Alive || !c.InRound {
			t.Fatalf("newcomer: alive %v in round %v", c.Alive, c.InRound)
		}
	}
}
