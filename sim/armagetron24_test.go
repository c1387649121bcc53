package sim

import "testing"

// Armagetron 0.2.9's rules checked a second time (issue 24, section 2);
// each test cites the source (tag v0.2.9.2.3) its expected values come from.

// TestPrematureInput: gCycle::Act drops every input while the round's clock
// is below -1 s (gCycle.cpp line 3646, "don't accept premature input"): a
// turn or brake pressed in the countdown more than a second before the start
// is lost, one in the last second runs at the start.
func TestPrematureInput(t *testing.T) {
	for _, tc := range []struct {
		before int64 // ticks before the start the press is made
		turns  bool  // whether it takes effect
	}{{2 * 120, false}, {121, false}, {120, true}, {60, true}} {
		s := prepared(t, testConfig(), true, false)
		for s.c.Tick < s.c.PlayStart-tc.before {
			s.Step(nil)
		}
		dir := s.Cycle(0).Dir
		s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1}, {Kind: EvBrakeOn, Player: 0, Seq: 2}})
		braking := s.Cycle(0).Braking
		for s.c.Phase != PhasePlay {
			s.Step(nil)
		}
		steps(s, 2)
		turned := s.Cycle(0).Dir != dir
		if turned != tc.turns || braking != tc.turns {
			t.Errorf("pressed %d ticks before the start: turned %v, braking %v; want %v", tc.before, turned, braking, tc.turns)
		}
	}
}

// TestWinNeedsAnEnemy: SCORE_WIN is given only for a legitimate win
// (gGame::Analysis, gGame.cpp line 3904): not in freestyle, where the win
// zone ends the round without it, and not without an enemy team online
// (sg_EnemyExists, line 3595).
func TestWinNeedsAnEnemy(t *testing.T) {
	// A duel won by the last one riding: SCORE_WIN.
	s := playing(t, testConfig(), 2)
	place(s, 0, 499, 250, 0, 30*Meter)
	untilOver(s, 400)
	if s.Winner() != 1 || s.TeamScore(1) != 10 {
		t.Fatalf("duel: winner %d with %d points, want 1 with SCORE_WIN 10", s.Winner(), s.TeamScore(1))
	}
	// The winner's enemy left the room: no enemy online, no SCORE_WIN.
	s = playing(t, testConfig(), 2)
	s.Step([]Event{{Kind: EvLeave, Player: 0}})
	untilOver(s, 400)
	if s.Winner() != 1 || s.TeamScore(1) != 0 {
		t.Fatalf("won with no enemy left: winner %d with %d points, want 1 with none", s.Winner(), s.TeamScore(1))
	}
	// Freestyle: the win zone ends the round, naming its team, with no SCORE_WIN.
	cfg := testConfig()
	cfg.SP.GameType, cfg.MP.GameType = GameFreestyle, GameFreestyle
	s = playing(t, cfg, 2)
	s.c.Wish = 1
	untilOver(s, 400)
	if s.Winner() != 1 || s.TeamScore(1) != 0 {
		t.Fatalf("freestyle win zone: winner %d with %d points, want 1 with none", s.Winner(), s.TeamScore(1))
	}
}

// TestTiedMatchPlaysOn: a match has a champion only when the best team is
// ahead of the next (gGame.cpp lines 3984-4000: teams(0)->Score() >
// teams(1)->Score()); at LIMIT_ROUNDS with the top two tied it plays on,
// and ends at the first round that breaks the tie.
func TestTiedMatchPlaysOn(t *testing.T) {
	cfg := testConfig()
	cfg.SP.LimitRounds, cfg.MP.LimitRounds = 1, 1
	s := playing(t, cfg, 2)
	// Both crash at once: a draw, the scores tied at the suicide's -4.
	place(s, 0, 499, 250, 0, 30*Meter)
	place(s, 1, 499, 150, 0, 30*Meter)
	untilOver(s, 400)
	if s.TeamScore(0) != s.TeamScore(1) || s.MatchOver() {
		t.Fatalf("tied %d : %d at LIMIT_ROUNDS 1: match over %v, want it to play on", s.TeamScore(0), s.TeamScore(1), s.MatchOver())
	}
	for s.c.Phase != PhasePrepare {
		s.Step(nil)
	}
	if r, m := s.Round(); m != 0 || r != 2 {
		t.Fatalf("after the tied round: round %d of match %d, want round 2 of match 0", r, m)
	}
	for s.c.Phase != PhasePlay {
		s.Step(nil)
	}
	place(s, 0, 499, 250, 0, 30*Meter) // player 1 wins this one
	untilOver(s, 400)
	if !s.MatchOver() {
		t.Fatalf("%d : %d after the tie was broken: want the match over", s.TeamScore(0), s.TeamScore(1))
	}
}

// TestAITeamSpawnsApart: a team of AIs alone takes a spawn point for each
// AI (init_game_objects, gGame.cpp line 1524: LeastDangerousSpawnPoint for
// every player of a team that is not human) instead of riding in a V; a
// team with a human rides in a V from one point.
func TestAITeamSpawnsApart(t *testing.T) {
	cfg := DefaultConfig()
	// Two humans and four bots in teams of three: each team has a human,
	// and rides in a V from one point (two headings for the two points).
	s := prepared(t, cfg, true, true, false, false, false, false)
	dirs := map[uint8]int{}
	for i := 0; i < 6; i++ {
		dirs[s.Cycle(i).Dir]++
	}
	if len(dirs) != 2 {
		t.Fatalf("teams with a human face %d ways, want 2 (a V each): %v", len(dirs), dirs)
	}
	// Six bots in teams of three: no human, each on a spawn point of its own.
	cfg.SP.TeamMaxPlayers, cfg.MP.TeamMaxPlayers = 3, 3
	s = prepared(t, cfg, false, false, false, false, false, false)
	for i := 0; i < 6; i++ {
		c := s.Cycle(i)
		px, py, dir := spawnPoint(i)
		a := s.Arena()
		if c.X != px*a/500 || c.Y != py*a/500 || c.Dir != dir {
			t.Errorf("bot %d (team %d) at (%d, %d) heading %d, want spawn point %d", i, c.Team, c.X, c.Y, c.Dir, i)
		}
	}
}

// TestNoRubber: with CYCLE_RUBBER 0 Armagetron skips its rubber code
// (gCycleMovement.cpp line 3738: only while rubber_granted > rubber) and the
// cycle dies on arriving at the wall, at its speed, not in the zone where
// rubber would have slowed it (it died two ticks early there, jumping up to
// 0.9 m). With rubber, once it runs out within a step the cycle rides on at
// its speed into the wall (line 3928), as it does here.
func TestNoRubber(t *testing.T) {
	cfg := testConfig()
	cfg.Rubber = 0
	s := playing(t, cfg, 2)
	place(s, 0, 498, 100, 0, 30*Meter) // 2 m from the east rim, 0.25 m a tick
	place(s, 1, 100, 400, 0, 30*Meter)
	start := s.Tick()
	last := s.Cycle(0).X
	for s.Cycle(0).Alive {
		s.Step(nil)
		c := s.Cycle(0)
		if step := c.X - last; step > 250_000 {
			t.Fatalf("tick %d: the cycle moved %d um in a tick, more than its speed allows (250000)", s.Tick()-start, step)
		}
		last = c.X
	}
	c := s.Cycle(0)
	if c.X != s.Arena() || c.Cause != CauseRim {
		t.Fatalf("died at x %d of %v, want at the rim (%d)", c.X, c.Cause, s.Arena())
	}
	if died := c.DeathTick - start; died != 8-1 {
		t.Fatalf("died %d ticks after starting 2 m from the rim at 0.25 m a tick, want on arrival, in the 8th step (tick 7)", died)
	}
}

// TestSameMachineNotEnemies: a wall of a player from the same machine takes
// no kill credit (gCycleMovement.cpp line 645, "don't accept milkers": no
// enemy influence from a player who is not an enemy; ePlayer.cpp line 8965:
// players of one IP are not enemies unless ALLOW_ENEMIES_SAME_IP), so the
// rim death beside it is a suicide; with ALLOW_ENEMIES_SAME_IP 1, or from
// another machine, it is a kill. Bots (machine 0) are always enemies.
func TestSameMachineNotEnemies(t *testing.T) {
	for _, tc := range []struct {
		name       string
		m0, m1     uint8
		allow      int64
		killer     int8
		score, got int64
	}{
		{"same machine", 1, 1, 0, -1, -4, 0},
		{"same machine, ALLOW_ENEMIES_SAME_IP 1", 1, 1, 1, 1, -2, 3},
		{"other machines", 1, 2, 0, 1, -2, 3},
		{"bots", 0, 0, 0, 1, -2, 3},
	} {
		cfg := testConfig()
		cfg.AllowEnemiesSameIP = tc.allow
		s, err := NewState(cfg, 7)
		if err != nil {
			t.Fatal(err)
		}
		s.Step([]Event{{Kind: EvJoin, Player: 0, Arg: JoinArg(tc.m0 != 0, tc.m0)}, {Kind: EvJoin, Player: 1, Arg: JoinArg(tc.m1 != 0, tc.m1)},
			{Kind: EvJoin, Player: 2}})
		for s.c.Phase != PhasePlay {
			s.Step(nil)
		}
		if c := s.Cycle(0); c.Machine != tc.m0 {
			t.Fatalf("%s: machine %d after the join, want %d", tc.name, c.Machine, tc.m0)
		}
		steps(s, 360)
		place(s, 0, 480, 250, 0, 30*Meter)
		place(s, 1, 400, 50, 0, 30*Meter)
		place(s, 2, 50, 450, 0, 30*Meter)
		s.addWall(Wall{X1: 430 * Meter, Y1: 253 * Meter, X2: 499 * Meter, Y2: 253 * Meter, Owner: 1})
		for s.Cycle(0).Alive {
			s.Step(nil)
		}
		c := s.Cycle(0)
		if c.Killer != tc.killer || c.Score != tc.score || s.Cycle(1).Score != tc.got {
			t.Errorf("%s: killer %d, scores %d / %d; want %d, %d / %d", tc.name, c.Killer, c.Score, s.Cycle(1).Score, tc.killer, tc.score, tc.got)
		}
	}
}
