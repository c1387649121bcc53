package sim

import "testing"

// testConfig is Armagetron's multiplayer rules for both sets, every player on
// a team of their own and no win zone: the physics tests place cycles in the
// 500 m arena and count on FFA scoring.
func testConfig() Config {
	cfg := DefaultConfig()
	set := cfg.MP
	set.TeamMaxPlayers = 1
	set.WinZoneMinRoundTimeMs, set.WinZoneMinLastDeathMs = never, never
	cfg.Both(set)
	return cfg
}

// playing returns a state with n players in PhasePlay, their cycles parked far
// apart so a test can place them where it wants.
func playing(t testing.TB, cfg Config, n int) *State {
	t.Helper()
	s, err := NewState(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for i := 0; i < n; i++ {
		evs = append(evs, Event{Kind: EvJoin, Player: uint8(i)})
	}
	s.Step(evs)
	for s.c.Phase != PhasePlay {
		s.Step(nil)
	}
	return s
}

// place puts cycle id at (x,y) metres heading dir with a fresh open segment.
func place(s *State, id int, x, y int64, dir uint8, speed int64) {
	c := &s.c.Cycles[id]
	c.X, c.Y, c.TurnX, c.TurnY = x*Meter, y*Meter, x*Meter, y*Meter
	c.Dir, c.Speed, c.Sub = dir, speed, 0
	c.SegOdo, c.SegTick = c.Odo, s.c.Tick
}

func steps(s *State, n int) {
	for i := 0; i < n; i++ {
		s.Step(nil)
	}
}

func TestSpeedRelaxesToBase(t *testing.T) {
	s := playing(t, testConfig(), 1)
	place(s, 0, 100, 250, 0, 20*Meter)
	steps(s, 120) // 1 s: 30 - 10 e^-5 = 29.93 m/s
	if v := s.Cycle(0).Speed; v < 29_800_000 || v > 30*Meter {
		t.Fatalf("after 1 s from 20 m/s: got %d um/s, want about 29.93 m/s", v)
	}
	steps(s, 240)
	if v := s.Cycle(0).Speed; v < 29_990_000 || v > 30*Meter {
		t.Fatalf("after 3 s: got %d um/s, want 30 m/s", v)
	}
	place(s, 0, 100, 250, 0, 40*Meter) // above base it relaxes slowly: 0.1/s
	steps(s, 120)
	want := int64(30*Meter + 10*Meter*905/1000) // 10 m/s * e^-0.1 = 9.05
	if v := s.Cycle(0).Speed; v < want-100_000 || v > want+100_000 {
		t.Fatalf("after 1 s from 40 m/s: got %d, want about %d", v, want)
	}
}

func TestTurnDelayQueuesSecondTurn(t *testing.T) {
	s := playing(t, testConfig(), 1)
	place(s, 0, 100, 250, 0, 30*Meter)
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
	if got := s.Cycle(0).Dir; got != 1 {
		t.Fatalf("first turn: dir %d, want 1", got)
	}
	if v := s.Cycle(0).Speed; v > 30*Meter*95/100+100_000 {
		t.Fatalf("turn should cost 5 %% speed: got %d", v)
	}
	steps(s, 4)
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 2}}) // 5 ticks = 42 ms after the first
	delay := int(s.dv().turnDelay)
	if delay != 12*SubTicks {
		t.Fatalf("turn delay at 120 Hz: got %d/%d ticks, want 12", delay, SubTicks)
	}
	delay /= SubTicks
	for i := 6; i <= delay; i++ {
		if got := s.Cycle(0).Dir; got != 1 {
			t.Fatalf("tick %d after first turn: dir %d, want 1 (second turn must wait)", i, got)
		}
		s.Step(nil)
	}
	if got := s.Cycle(0).Dir; got != 2 {
		t.Fatalf("after the turn delay: dir %d, want 2", got)
	}
}

func TestWallAcceleration(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dist   int64 // lateral distance to the wall, micrometres
		faster bool
	}{
		{"1m", 1 * Meter, true},
		{"5m", 5 * Meter, true},
		{"7m", 7 * Meter, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := playing(t, testConfig(), 2)
			place(s, 0, 100, 250, 0, 30*Meter)
			// Cycle 1's wall runs east along y = 250 m + dist, to the left of cycle 0.
			s.addWall(Wall{X1: 50 * Meter, Y1: 250*Meter + tc.dist, X2: 400 * Meter, Y2: 250*Meter + tc.dist, Owner: 1})
			place(s, 1, 450, 50, 0, 30*Meter)
			steps(s, 12)
			v := s.Cycle(0).Speed
			if tc.faster && v <= 30*Meter+5_000 {
				t.Fatalf("cycle %d um from a parallel wall: speed %d, want above 30 m/s", tc.dist, v)
			}
			if !tc.faster && v > 30*Meter {
				t.Fatalf("cycle %d um from a parallel wall: speed %d, want no gain", tc.dist, v)
			}
		})
	}
	// The formula at 1 m: 10 * (1/3 - 1/8) = 2.083 m/s^2.
	s := playing(t, testConfig(), 1)
	if got := s.wallAccel(Meter); got < 2_083_000 || got > 2_084_000 {
		t.Fatalf("wallAccel(1 m) = %d, want 2083333", got)
	}
	if got := s.wallAccel(0); got != 3_750_000 {
		t.Fatalf("wallAccel(0) = %d, want 3750000", got)
	}
}

func TestRimGivesNoAcceleration(t *testing.T) {
	s := playing(t, testConfig(), 1)
	place(s, 0, 100, 1, 0, 30*Meter) // 1 m from the south rim, driving east
	steps(s, 60)
	if v := s.Cycle(0).Speed; v > 30*Meter {
		t.Fatalf("speed beside the rim: %d, want no gain", v)
	}
}

func TestBrakeReservoir(t *testing.T) {
	s := playing(t, testConfig(), 1)
	place(s, 0, 50, 250, 0, 30*Meter)
	s.Step([]Event{{Kind: EvBrakeOn, Player: 0, Seq: 1}})
	steps(s, 59) // 0.5 s of braking
	c := s.Cycle(0)
	if c.Brake < Unit/2-20_000 || c.Brake > Unit/2+20_000 {
		t.Fatalf("reservoir after 0.5 s braking: %d, want about %d (drains 1.0/s)", c.Brake, Unit/2)
	}
	if c.Speed > 25*Meter {
		t.Fatalf("speed after 0.5 s braking at 30 m/s^2 against 5/s relaxation: %d, want well below 25 m/s", c.Speed)
	}
	steps(s, 120) // brake still held: the reservoir empties and braking stops
	if c := s.Cycle(0); c.Brake != 0 {
		t.Fatalf("reservoir after 1.5 s braking: %d, want 0", c.Brake)
	}
	s.Step([]Event{{Kind: EvBrakeOff, Player: 0, Seq: 2}})
	steps(s, 119) // 1 s of refilling at 0.1/s
	if c := s.Cycle(0); c.Brake < Unit/10-20_000 || c.Brake > Unit/10+20_000 {
		t.Fatalf("reservoir after 1 s released: %d, want about %d (refills 0.1/s)", c.Brake, Unit/10)
	}
}

func TestRubberThenDeath(t *testing.T) {
	for _, rubber := range []int64{1 * Meter, 5 * Meter} {
		cfg := testConfig()
		cfg.Rubber = rubber
		s := playing(t, cfg, 2)
		place(s, 0, 100, 250, 0, 30*Meter)
		place(s, 1, 400, 50, 0, 30*Meter)
		s.addWall(Wall{X1: 103 * Meter, Y1: 240 * Meter, X2: 103 * Meter, Y2: 260 * Meter, Owner: 1})
		// Without rubber the cycle would reach the wall after 3 m, 12 ticks.
		ticks := 0
		for s.Cycle(0).Alive && ticks < 600 {
			s.Step(nil)
			ticks++
			if c := s.Cycle(0); c.X >= 103*Meter && c.Alive {
				t.Fatalf("rubber %d: alive cycle at x=%d, through the wall", rubber, c.X)
			}
		}
		c := s.Cycle(0)
		if c.Alive {
			t.Fatalf("rubber %d: still alive after %d ticks against a wall", rubber, ticks)
		}
		// Denied travel accumulates at about speed/tick rate per tick once the
		// cycle is in the wall's rubber zone, so the extra life is about
		// rubber / 0.25 m ticks (minus decay, plus the approach).
		extra := ticks - 12
		want := int(rubber / (Meter / 4))
		if extra < want-1 || extra > want+8 {
			t.Fatalf("rubber %d m: died %d ticks after reaching the wall, want about %d", rubber/Meter, extra, want)
		}
		steps(s, 120) // the winner is named once the last death is a second old
		if c.Killer != 1 || s.Cycle(1).Kills != 1 || c.Score != -2 || s.Cycle(1).Score != 3+10 {
			t.Fatalf("rubber %d: killer %d kills %d score %d/%d, want killer 1, kill +3, death -2, win +10",
				rubber, c.Killer, s.Cycle(1).Kills, c.Score, s.Cycle(1).Score)
		}
	}
}

func TestRimAndSelfAreSuicides(t *testing.T) {
	s := playing(t, testConfig(), 2)
	place(s, 0, 499, 250, 0, 30*Meter) // 1 m from the east rim
	place(s, 1, 100, 100, 1, 30*Meter)
	steps(s, 30+120) // the death, then a second without one
	if c := s.Cycle(0); c.Alive || c.Score != -4 || c.Killer != -1 {
		t.Fatalf("into the rim: alive %v score %d killer %d, want dead, -4, -1", c.Alive, c.Score, c.Killer)
	}
	if ph, _ := s.Phase(); ph != PhaseOver || s.Winner() != 1 || s.Cycle(1).Score != 10 {
		t.Fatalf("phase %d winner %d score %d, want over, 1, +10", ph, s.Winner(), s.Cycle(1).Score)
	}
}

// TestHeadOnBothDie: two cycles meeting head-on both die, each on the
// other's newest wall, so each is credited with the other's death
// (gCycle::KillAt through gEnemyInfluence): -2 + 3 apiece.
func TestHeadOnBothDie(t *testing.T) {
	s := playing(t, testConfig(), 3)
	place(s, 0, 200, 250, 0, 30*Meter)
	place(s, 1, 210, 250, 2, 30*Meter)
	place(s, 2, 100, 100, 1, 30*Meter)
	steps(s, 40+120)
	c0, c1 := s.Cycle(0), s.Cycle(1)
	if c0.Alive || c1.Alive {
		t.Fatalf("head-on: alive %v %v, want both dead", c0.Alive, c1.Alive)
	}
	if c0.Cause != CauseCollision || c1.Cause != CauseCollision || c0.Killer != 1 || c1.Killer != 0 || c0.Score != 1 || c1.Score != 1 {
		t.Fatalf("head-on: causes %v %v killers %d %d scores %d %d, want collision, killers 1 0, scores 1 1",
			c0.Cause, c1.Cause, c0.Killer, c1.Killer, c0.Score, c1.Score)
	}
	if c0.X > c1.X {
		t.Fatalf("head-on: they passed through each other (%d > %d)", c0.X, c1.X)
	}
	if s.Winner() != 2 || s.Cycle(2).Score != 10 {
		t.Fatalf("last one alive: winner %d score %d, want 2 and +10", s.Winner(), s.Cycle(2).Score)
	}
}

func TestCrossingLaterOneDies(t *testing.T) {
	s := playing(t, testConfig(), 3)
	// 0 drives east through (205, 250) and gets there first; 1 drives north through it later.
	place(s, 0, 200, 250, 0, 30*Meter)
	place(s, 1, 205, 243, 1, 30*Meter)
	place(s, 2, 50, 50, 1, 30*Meter)
	steps(s, 60)
	if !s.Cycle(0).Alive || s.Cycle(1).Alive {
		t.Fatalf("crossing: alive %v %v, want 0 alive and 1 dead", s.Cycle(0).Alive, s.Cycle(1).Alive)
	}
	if c := s.Cycle(1); c.Killer != 0 || c.Y > 250*Meter {
		t.Fatalf("crossing: killer %d y %d, want killer 0 and stopped at the wall", c.Killer, c.Y)
	}
}

func TestDeadWallsVanish(t *testing.T) {
	s := playing(t, testConfig(), 3)
	place(s, 0, 100, 250, 0, 30*Meter)
	place(s, 1, 400, 100, 1, 30*Meter)
	place(s, 2, 50, 50, 1, 30*Meter)
	steps(s, 60)
	s.Step([]Event{{Kind: EvLeave, Player: 0}})
	w := s.RoundWalls()[len(s.RoundWalls())-1]
	if _, ok := s.WallVisible(w); !ok {
		t.Fatal("a dead cycle's wall vanished at once")
	}
	steps(s, int(s.dv().deadWall))
	if _, ok := s.WallVisible(w); ok {
		t.Fatal("a dead cycle's wall still stands after the delay")
	}
}

func TestFiniteTrail(t *testing.T) {
	cfg := testConfig()
	cfg.SP.WallsLength, cfg.MP.WallsLength = 20*Meter, 20*Meter
	s := playing(t, cfg, 1)
	place(s, 0, 100, 250, 0, 30*Meter)
	steps(s, 120) // ~30 m
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}})
	steps(s, 12) // 3 m more
	w := s.RoundWalls()[len(s.RoundWalls())-1]
	vis, ok := s.WallVisible(w)
	if !ok {
		t.Fatal("first segment vanished entirely")
	}
	if l := vis.X2 - vis.X1; l < 16*Meter || l > 18*Meter {
		t.Fatalf("visible length of the first segment: %d, want about 17 m (20 m trail, 3 m since the turn)", l)
	}
}

func TestRoundsAndMatch(t *testing.T) {
	cfg := testConfig()
	cfg.SP.LimitRounds, cfg.MP.LimitRounds = 2, 2
	s := playing(t, cfg, 2)
	for r := 0; r < 3; r++ {
		place(s, 0, 499, 250, 0, 30*Meter) // 0 drives into the rim every round
		for ph, _ := s.Phase(); ph == PhasePlay; ph, _ = s.Phase() {
			s.Step(nil)
		}
		for ph, _ := s.Phase(); ph != PhasePlay; ph, _ = s.Phase() {
			s.Step(nil)
		}
	}
	round, match := s.Round()
	if round != 2 || match != 1 {
		t.Fatalf("after 3 rounds with a 2-round match: round %d match %d, want 2 1", round, match)
	}
	if got := s.Cycle(1).Score; got != 10 {
		t.Fatalf("score in the new match after one win: %d, want 10", got)
	}
}
