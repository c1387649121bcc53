package sim

import "testing"

// humanGame returns a state in play with player 0 a human and players
// 1..bots bots, all parked far apart heading north with room to drive.
func humanGame(t *testing.T, cfg Config, bots int) *State {
	t.Helper()
	s, err := NewState(cfg, 11)
	if err != nil {
		t.Fatal(err)
	}
	evs := []Event{{Kind: EvJoin, Player: 0, Arg: JoinHuman}}
	for i := 1; i <= bots; i++ {
		evs = append(evs, Event{Kind: EvJoin, Player: uint8(i)})
	}
	s.Step(evs)
	for s.c.Phase != PhasePlay {
		s.Step(nil)
	}
	for i := 0; i <= bots; i++ {
		place(s, i, int64(50+40*i), 20, 1, 30*Meter)
	}
	return s
}

// untilOver steps until the round is over and returns the tick that ended
// it (the state's tick while it was stepped), or -1 after limit ticks.
func untilOver(s *State, limit int) int64 {
	for k := 0; k < limit; k++ {
		tick := s.Tick()
		s.Step(nil)
		if ph, _ := s.Phase(); ph == PhaseOver {
			return tick
		}
	}
	return -1
}

// TestFinishType checks FINISH_TYPE against gGame::Analysis (Armagetron
// 0.2.9): once no human cycle is alive, the round restarts when the last
// death is 2 s old with FINISH_TYPE 0 (the analysis holds the next round back
// while time - lastdeath < 2) and 4 s old with 1 (fintime 6 minus 2); with 3
// it goes on until decided. Bots alone are never cut short.
func TestFinishType(t *testing.T) {
	for _, tc := range []struct {
		finish int64
		wait   int64 // ticks at 120 Hz from the human's death, -1 for no early end
	}{{FinishExpress, 240}, {FinishReset, 480}, {FinishFastForward, -1}, {FinishNormal, -1}} {
		cfg := testConfig()
		cfg.SP.FinishType = tc.finish
		s := humanGame(t, cfg, 2)
		place(s, 0, 250, 499, 1, 30*Meter) // the human, 1 m from the north rim
		for s.Cycle(0).Alive {
			s.Step(nil)
		}
		died := s.Cycle(0).DeathTick
		if c := s.Cycle(0); c.Cause != CauseRim || c.Killer != -1 {
			t.Fatalf("finish %d: human died of %v killed by %d, want rim, -1", tc.finish, c.Cause, c.Killer)
		}
		end := untilOver(s, 2000)
		if tc.wait < 0 {
			if end >= 0 && end < died+1500 {
				t.Errorf("finish %d: round ended at tick %d, %d ticks after the human died; want it to go on", tc.finish, end, end-died)
			}
			continue
		}
		if end != died+tc.wait {
			t.Errorf("finish %d: round ended %d ticks after the human died, want %d", tc.finish, end-died, tc.wait)
		}
		if s.Winner() != -1 {
			t.Errorf("finish %d: winner %d, want none", tc.finish, s.Winner())
		}
		// The human rode this round: the usual pause to read its summary.
		if ph, endsAt := s.Phase(); ph != PhaseOver || endsAt != end+s.d.roundOver {
			t.Errorf("finish %d: phase %d ending at %d, want the round over until %d", tc.finish, ph, endsAt, end+s.d.roundOver)
		}
		for s.Tick() <= end+s.d.roundOver {
			s.Step(nil)
		}
		if ph, _ := s.Phase(); ph != PhasePrepare {
			t.Errorf("finish %d: phase %d after the pause, want the next round's countdown", tc.finish, ph)
		}
	}
}

// TestFinishCountsLastDeath: a bot dying after the human postpones the end,
// as Armagetron's lastdeath moves with every death.
func TestFinishCountsLastDeath(t *testing.T) {
	s := humanGame(t, testConfig(), 3)
	place(s, 0, 250, 499, 1, 30*Meter)
	for s.Cycle(0).Alive {
		s.Step(nil)
	}
	steps(s, 100)
	place(s, 1, 100, 499, 1, 30*Meter)
	for s.Cycle(1).Alive {
		s.Step(nil)
	}
	if end := untilOver(s, 2000); end != s.Cycle(1).DeathTick+240 {
		t.Fatalf("round ended at %d, want 240 ticks after the bot's death at %d", end, s.Cycle(1).DeathTick)
	}
}

// TestFinishNewcomer: a human who joins a round of bots in play waits 2 s
// from joining for the round to end (then the 4 s countdown), however long
// ago the last bot died.
func TestFinishNewcomer(t *testing.T) {
	s, err := NewState(testConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	s.Step([]Event{{Kind: EvJoin, Player: 0}, {Kind: EvJoin, Player: 1}, {Kind: EvJoin, Player: 2}})
	for s.c.Phase != PhasePlay {
		s.Step(nil)
	}
	for i := 0; i < 3; i++ {
		place(s, i, int64(50+40*i), 20, 1, 30*Meter)
	}
	steps(s, 300)
	if end := untilOver(s, 600); end >= 0 {
		t.Fatalf("bots alone: round ended at %d", end)
	}
	joined := s.Tick()
	s.Step([]Event{{Kind: EvJoin, Player: 5, Arg: JoinHuman}})
	if c := s.Cycle(5); !c.Human || c.InRound {
		t.Fatalf("newcomer: human %v in round %v, want a human waiting", c.Human, c.InRound)
	}
	if end := untilOver(s, 2000); end != joined+240 {
		t.Fatalf("round ended %d ticks after the newcomer joined, want 240", end-joined)
	}
	s.Step(nil)
	if c := s.Cycle(5); !c.InRound || !c.Alive {
		t.Fatalf("next round: newcomer in round %v alive %v", c.InRound, c.Alive)
	}
}
