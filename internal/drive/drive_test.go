package drive

import (
	"testing"
	"time"

	"webtron/client"
	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// playing returns a session welcomed as player 0 into a two-player round
// already in play, its clock in step with the snapshot's tick at time 0.
func playing(t *testing.T) *client.Session {
	t.Helper()
	st, err := sim.NewState(sim.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	st.Step([]sim.Event{{Kind: sim.EvJoin, Player: 0}, {Kind: sim.EvJoin, Player: 1}})
	for ph, _ := st.Phase(); ph != sim.PhasePlay; ph, _ = st.Phase() {
		st.Step(nil)
	}
	s := client.New(client.Options{Name: "d"})
	s.Hello(0)
	b, err := proto.Marshal(&proto.Welcome{Player: 0, TickRate: uint32(st.Config().TickRate), Tick: uint64(st.Tick()),
		ServerTime: st.Tick() * 1e6 / st.Config().TickRate, History: proto.History{Tick: uint64(st.Tick()), Snapshot: st.AppendBinary(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Receive(0, b); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOneDecisionPerTick: the bot decides once per tick, however many frames
// the tick spans (bot.Decide's contract), and each press falls within the
// next tick.
func TestOneDecisionPerTick(t *testing.T) {
	s := playing(t)
	// A brake tap on every tick: one press per decision.
	p := New(s, Options{Seed: 1, BrakeEvery: time.Nanosecond})
	dt := time.Second / 120
	var presses []Press
	ticks := map[int64]bool{}
	brakes := 0
	for now := time.Duration(0); now < 100*dt; now += dt / 4 { // four frames a tick
		ticks[s.State().Tick()] = true
		before := len(presses)
		presses = p.Frame(now, presses)
		for _, pr := range presses[before:] {
			if pr.Kind == sim.EvBrakeOn || pr.Kind == sim.EvBrakeOff {
				brakes++
			}
		}
		ticks[s.State().Tick()] = true
	}
	if brakes < 90 || brakes > len(ticks) {
		t.Fatalf("%d brake taps over %d ticks, one asked for every tick: want one per tick", brakes, len(ticks))
	}
	for _, pr := range presses {
		if pr.After < 0 || pr.After >= dt {
			t.Fatalf("press %v after the frame, want within one tick (%v)", pr.After, dt)
		}
	}
	p.Idle = true
	if got := p.Frame(101*dt, nil); len(got) != 0 {
		t.Fatalf("an idle player pressed %v", got)
	}
}

// TestLagsCountKeyPresses: only other players' key presses are measured;
// server-made events sit at the server's present and would skew the lag.
func TestLagsCountKeyPresses(t *testing.T) {
	s := playing(t)
	p := New(s, Options{})
	s.OnEvent(history.TickEvent{Tick: 5, Ev: sim.Event{Kind: sim.EvSpawn, Player: 1}}, 30*time.Millisecond)
	s.OnEvent(history.TickEvent{Tick: 5, Ev: sim.Event{Kind: sim.EvTurnLeft, Player: 1}}, 60*time.Millisecond)
	if got := p.Lags(); len(got) != 1 || len(got[1]) != 1 || got[1][0] != 60*time.Millisecond {
		t.Fatalf("lags %v, want one sample of 60ms for player 1", got)
	}
}

// TestScriptedTurns: with TurnEvery the player turns left and right
// alternately, each interval within the asked bounds, and never brakes or
// asks the bot.
func TestScriptedTurns(t *testing.T) {
	s := playing(t)
	p := New(s, Options{Seed: 3, TurnEvery: [2]time.Duration{400 * time.Millisecond, 1200 * time.Millisecond}})
	dt := time.Second / 120
	var turns []int64
	var kinds []sim.EventKind
	for now := time.Duration(0); now < 5*time.Second && s.State().Cycle(0).Alive; now += dt {
		for _, pr := range p.Frame(now, nil) {
			turns = append(turns, s.State().Tick())
			kinds = append(kinds, pr.Kind)
		}
	}
	if len(turns) < 3 {
		t.Fatalf("%d scripted turns in 5 s at one every 0.4-1.2 s", len(turns))
	}
	for i, k := range kinds {
		want := sim.EvTurnRight
		if i%2 == 1 {
			want = sim.EvTurnLeft
		}
		if k != want {
			t.Fatalf("press %d is %v, want %v (alternating, right first)", i, k, want)
		}
		if i > 0 {
			if gap := turns[i] - turns[i-1]; gap < 48 || gap > 144 {
				t.Fatalf("turns %d ticks apart, want 48..144 (0.4-1.2 s at 120 Hz)", gap)
			}
		}
	}
	if p.bot != nil {
		t.Fatal("a scripted player consulted the bot")
	}
}
