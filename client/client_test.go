package client

import (
	"testing"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// started returns a session welcomed into a two-player game at server tick 0,
// its clock at time zero, playing as player 0.
func started(t *testing.T, mind bool) *Session {
	t.Helper()
	st, err := sim.NewState(sim.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Name: "t", MindReader: mind})
	s.Hello(0)
	w := &proto.Welcome{Player: 0, TickRate: 120, ServerTime: 0, ClientTime: 0,
		History: proto.History{Tick: 0, Snapshot: st.AppendBinary(nil), Events: []proto.TickEvent{
			{Tick: 0, Event: sim.Event{Kind: sim.EvJoin, Player: 0}},
			{Tick: 0, Event: sim.Event{Kind: sim.EvJoin, Player: 1}},
		}}}
	b, _ := proto.Marshal(w)
	if err := s.Receive(0, b); err != nil {
		t.Fatal(err)
	}
	return s
}

func recv(t *testing.T, s *Session, now time.Duration, m proto.Message) {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Receive(now, b); err != nil {
		t.Fatal(err)
	}
}

func TestPredictionAndAcks(t *testing.T) {
	s := started(t, false)
	now := 600 * time.Millisecond // into the countdown: ticks 0..71
	s.Update(now)
	if got := s.Timeline().Present(); got != 72 {
		t.Fatalf("present at 600 ms: %d, want 72", got)
	}
	s.Press(now, sim.EvBrakeOn, 0)
	// Without the mind reader the press lands on the next tick.
	if got := pendingTick(s, 1); got != 73 {
		t.Fatalf("own event tick %d, want 73", got)
	}
	if out := s.Outgoing(nil); len(out) == 0 {
		t.Fatal("no proposal queued")
	}
	// The server postpones it to 80: the client moves it and rolls back.
	recv(t, s, now, &proto.Postponed{Seq: 1, Asked: 73, Tick: 80})
	if evs := s.Timeline().Log.AppendAt(nil, 80); len(evs) != 1 || evs[0].Kind != sim.EvBrakeOn {
		t.Fatalf("events at 80 after postponing: %v", evs)
	}
	if evs := s.Timeline().Log.AppendAt(nil, 73); len(evs) != 0 {
		t.Fatalf("event still at 73: %v", evs)
	}
	// The broadcast acknowledges it; a remote event 20 ticks in the past is
	// applied by rollback.
	recv(t, s, now, &proto.Accepted{Seq: 0, Events: []proto.TickEvent{
		{Tick: 80, Event: sim.Event{Kind: sim.EvBrakeOn, Player: 0, Seq: 1}},
		{Tick: 52, Event: sim.Event{Kind: sim.EvTurnLeft, Player: 1, Seq: 1}},
	}})
	if len(s.pending) != 0 {
		t.Fatalf("pending after the ack: %v", s.pending)
	}
	s.Update(now + 10*time.Millisecond)
	if st := s.Stats(); st.Rollbacks != 1 || st.EventsReceived != 1 {
		t.Fatalf("rollbacks %d, events received %d: want 1 and 1", st.Rollbacks, st.EventsReceived)
	}
	// A refused proposal is taken back.
	s.Press(now+20*time.Millisecond, sim.EvTurnRight, 0)
	tick := pendingTick(s, 2)
	recv(t, s, now, &proto.Refused{Seq: 2, Reason: proto.RefuseNotAlive})
	if evs := s.Timeline().Log.AppendAt(nil, tick); len(evs) != 0 {
		t.Fatalf("refused event still logged: %v", evs)
	}
}

func TestFinalityWaitsForOwnProposals(t *testing.T) {
	s := started(t, false)
	s.Update(500 * time.Millisecond)
	s.Press(500*time.Millisecond, sim.EvBrakeOn, 0)
	own := pendingTick(s, 1)
	recv(t, s, 600*time.Millisecond, &proto.Heartbeat{Tick: 72, Seq: 0, Players: []proto.HeartbeatPlayer{
		{Player: 0, Final: 70, Margin: proto.NoMargin}, {Player: 1, Final: 65, Margin: proto.NoMargin}}})
	if got := s.Confirmed(); got != min(66, own) {
		t.Fatalf("confirmed %d, want %d (player 1's final + 1, or our unanswered event)", got, min(66, own))
	}
	if s.Final(1) != 65 {
		t.Fatalf("final of player 1: %d, want 65", s.Final(1))
	}
}

func TestMindReaderBackdates(t *testing.T) {
	s := started(t, true)
	now := 600*time.Millisecond + 2*time.Millisecond // 0.24 tick into tick 72
	s.Update(now)
	s.Press(now, sim.EvBrakeOn, 0)
	// 602 ms - 4.17 ms = 597.8 ms, in tick 71: the input lands on tick 72.
	if got := pendingTick(s, 1); got != 72 {
		t.Fatalf("backdated tick %d, want 72", got)
	}
	s.Press(now, sim.EvBrakeOff, 20*time.Millisecond) // a slow browser queue: at most 2 ticks back
	if got := pendingTick(s, 2); got != 71 {
		t.Fatalf("with 20 ms of queue latency: tick %d, want 71 (two ticks back at most)", got)
	}
}

func TestConfirmedState(t *testing.T) {
	st, _ := sim.NewState(sim.DefaultConfig(), 1)
	s := New(Options{Name: "t", Confirmed: true})
	s.Hello(0)
	b, _ := proto.Marshal(&proto.Welcome{Player: 0, TickRate: 120, History: proto.History{Snapshot: st.AppendBinary(nil),
		Events: []proto.TickEvent{{Tick: 0, Event: sim.Event{Kind: sim.EvJoin, Player: 0}}}}})
	if err := s.Receive(0, b); err != nil {
		t.Fatal(err)
	}
	s.Update(time.Second)
	recv(t, s, time.Second, &proto.Heartbeat{Tick: 120, Players: []proto.HeartbeatPlayer{{Player: 0, Final: 89, Margin: proto.NoMargin}}})
	s.Update(time.Second + time.Millisecond)
	c := s.ConfirmedState()
	if c == nil || c.Tick() != 90 || s.Confirmed() != 90 {
		t.Fatalf("confirmed state at %v, Confirmed() %d: want both at 90", c.Tick(), s.Confirmed())
	}
	pred, ok1 := s.Timeline().PredictedHash(60)
	conf, ok2 := s.Timeline().ConfirmedHash(60)
	if !ok1 || !ok2 || pred != conf {
		t.Fatalf("hash at tick 60: predicted %x (%v), confirmed %x (%v): want equal", pred, ok1, conf, ok2)
	}
	if s.Timeline().State().Tick() <= c.Tick() {
		t.Fatalf("predicted present %d is not ahead of the confirmed %d", s.Timeline().State().Tick(), c.Tick())
	}
}

// pendingTick is the tick of our unanswered proposal seq, or -1.
func pendingTick(s *Session, seq uint32) int64 {
	if p, ok := s.pending[seq]; ok {
		return p.tick
	}
	return -1
}

// outgoing decodes what the session queued.
func outgoing(t *testing.T, s *Session) []proto.Message {
	t.Helper()
	var ms []proto.Message
	for _, b := range s.Outgoing(nil) {
		m, err := proto.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestPingsAnsweredInFrames: while the host runs frames, the answer to a
// server ping waits for the next Update, says exactly how long it waited,
// and takes the client's own ping along in the same batch; a host that has
// stopped running frames gets its answer queued at once.
func TestPingsAnsweredInFrames(t *testing.T) {
	s := started(t, false)
	frame := 4 * time.Millisecond
	now := time.Duration(0)
	for range 40 { // 160 ms of frames: past the first own ping
		now += frame
		s.Update(now)
	}
	outgoing(t, s)
	arrival := now + time.Millisecond
	recv(t, s, arrival, &proto.Ping{ID: 3, Time: 777})
	if ms := outgoing(t, s); len(ms) != 0 {
		t.Fatalf("answered between frames: %v", ms)
	}
	now += frame
	s.Update(now)
	var pong *proto.Pong
	var ping *proto.Ping
	for _, m := range outgoing(t, s) {
		switch m := m.(type) {
		case *proto.Pong:
			pong = m
		case *proto.Ping:
			ping = m
		}
	}
	if pong == nil || pong.ID != 3 || pong.Echo != 777 {
		t.Fatalf("no answer to ping 3 in the frame: %+v", pong)
	}
	if want := uint32((now - arrival) / time.Microsecond); pong.Held != want {
		t.Errorf("held %d µs, want %d µs", pong.Held, want)
	}
	if pong.Time != int64(arrival/time.Microsecond) {
		t.Errorf("pong time %d, want the arrival %d", pong.Time, arrival/time.Microsecond)
	}
	if ping == nil {
		t.Error("the client's own ping did not ride with the answer")
	}
	// No frames for a second: the answer cannot wait for one.
	now += time.Second
	recv(t, s, now, &proto.Ping{ID: 4, Time: 888})
	ms := outgoing(t, s)
	if len(ms) != 1 {
		t.Fatalf("queued %d messages without frames, want the answer", len(ms))
	}
	if p, ok := ms[0].(*proto.Pong); !ok || p.ID != 4 || p.Held != 0 {
		t.Errorf("answer %+v, want pong 4 held 0", ms[0])
	}
}

// TestExchangeAfterAdvance: a host that advances, then exchanges at a later
// reading, reports the whole hold of the server's ping, and stamps its own
// ping with the later reading: the simulation's time between is not network.
func TestExchangeAfterAdvance(t *testing.T) {
	s := started(t, false)
	now := time.Duration(0)
	for range 40 {
		now += 4 * time.Millisecond
		s.Update(now)
	}
	outgoing(t, s)
	arrival := now + time.Millisecond
	recv(t, s, arrival, &proto.Ping{ID: 9, Time: 1})
	now += 4 * time.Millisecond
	s.Advance(now)
	if ms := outgoing(t, s); len(ms) != 0 {
		t.Fatalf("Advance alone queued %v", ms)
	}
	later := now + 3*time.Millisecond // a rollback took 3 ms
	s.Exchange(later)
	var pong *proto.Pong
	var ping *proto.Ping
	for _, m := range outgoing(t, s) {
		switch m := m.(type) {
		case *proto.Pong:
			pong = m
		case *proto.Ping:
			ping = m
		}
	}
	if pong == nil || pong.Held != uint32((later-arrival)/time.Microsecond) {
		t.Fatalf("pong %+v, want held %v", pong, later-arrival)
	}
	if ping == nil || ping.Time != int64(later/time.Microsecond) {
		t.Fatalf("own ping %+v, want it stamped %v", ping, later)
	}
}

// TestOlderHeartbeatDropped: datagrams reorder; a heartbeat older than the
// newest one says nothing new and must not bring back the lead the server
// has since changed (docs/protocol.md section 6).
func TestOlderHeartbeatDropped(t *testing.T) {
	s := started(t, false)
	s.Update(time.Second)
	hb := func(tick uint64, lead time.Duration) *proto.Heartbeat {
		return &proto.Heartbeat{Tick: tick, Players: []proto.HeartbeatPlayer{
			{Player: 0, Final: tick - 10, Lead: uint32(lead / time.Microsecond), Margin: proto.NoMargin},
			{Player: 1, Final: tick - 10, Margin: proto.NoMargin}}}
	}
	recv(t, s, time.Second, hb(120, 70*time.Millisecond))
	recv(t, s, time.Second, hb(96, 30*time.Millisecond)) // sent before, arrived after
	if s.lead != 70*time.Millisecond {
		t.Fatalf("lead %v after an older heartbeat, want the newer one's 70ms", s.lead)
	}
	recv(t, s, time.Second, hb(120, 30*time.Millisecond)) // the same tick again: a copy
	if s.lead != 70*time.Millisecond {
		t.Fatalf("lead %v after a copy of the heartbeat, want 70ms", s.lead)
	}
	recv(t, s, time.Second, hb(144, 40*time.Millisecond))
	if s.lead != 40*time.Millisecond {
		t.Fatalf("lead %v after a newer heartbeat, want 40ms", s.lead)
	}
}

// TestResentProposals: an unanswered proposal is proposed again with its
// sequence number; every Propose carries events (there is no empty one);
// an answer that comes twice counts once; a duplicate refusal (the server
// can no longer tell the fate) drops the prediction, and the broadcast
// brings the event back if it was in fact accepted.
func TestResentProposals(t *testing.T) {
	s := started(t, false)
	now := 600 * time.Millisecond
	s.Update(now)
	s.Press(now, sim.EvBrakeOn, 0)
	tick := pendingTick(s, 1)
	outgoing(t, s)
	var resent []proto.Proposal
	for range 200 { // 800 ms of frames without an answer
		now += 4 * time.Millisecond
		s.Update(now)
		for _, m := range outgoing(t, s) {
			if p, ok := m.(*proto.Propose); ok {
				if len(p.Events) == 0 {
					t.Fatal("an empty Propose")
				}
				resent = append(resent, p.Events...)
			}
		}
	}
	if len(resent) == 0 || resent[0].Seq != 1 || resent[0].Tick != uint64(tick) || resent[0].Kind != sim.EvBrakeOn {
		t.Fatalf("resent %+v, want proposal 1 again", resent)
	}
	recv(t, s, now, &proto.Refused{Seq: 1, Reason: proto.RefuseDuplicate})
	if pendingTick(s, 1) >= 0 || len(s.Timeline().Log.AppendAt(nil, tick)) != 0 {
		t.Fatal("a duplicate refusal left the prediction in place")
	}
	recv(t, s, now, &proto.Refused{Seq: 1, Reason: proto.RefuseDuplicate})
	if got := s.Stats().Refused; got != 1 {
		t.Fatalf("%d refusals counted, want 1", got)
	}
	recv(t, s, now, &proto.Accepted{Seq: 0, Events: []proto.TickEvent{{Tick: uint64(tick), Event: sim.Event{Kind: sim.EvBrakeOn, Player: 0, Seq: 1}}}})
	if evs := s.Timeline().Log.AppendAt(nil, tick); len(evs) != 1 {
		t.Fatalf("the accepted event is not back in the history: %v", evs)
	}
}

// TestServerEventsMeasureNoLag: a remote player's measured lag comes from
// its own inputs only; the server's events for it (a ping-rubber latency
// laid at the server's present) say nothing about its route.
func TestServerEventsMeasureNoLag(t *testing.T) {
	s := started(t, false)
	now := 600 * time.Millisecond // the client's clock is at tick 72
	s.Update(now)
	recv(t, s, now, &proto.Accepted{Seq: 0, Events: []proto.TickEvent{
		{Tick: 70, Event: sim.Event{Kind: sim.EvTurnLeft, Player: 1, Seq: 1}},
		{Tick: 12, Event: sim.Event{Kind: sim.EvLatency, Player: 1, Arg: 50_000}},
		{Tick: 12, Event: sim.Event{Kind: sim.EvLatency, Player: 1, Arg: 60_000}},
	}})
	if n := s.lagRing[1].n; n != 1 {
		t.Fatalf("%d lags measured for player 1, want 1 (its turn only)", n)
	}
}

// TestResentMarginIgnored: the margin the server reports for a proposal
// that was lost and proposed again measures the resend's wait, not the
// clock: it leaves the lead alone. A late margin with no resend about
// raises it (issue 14).
func TestResentMarginIgnored(t *testing.T) {
	s := started(t, false)
	now := 600 * time.Millisecond
	s.Update(now)
	s.Press(now, sim.EvBrakeOn, 0)
	tick := pendingTick(s, 1)
	for range 100 { // 400 ms of frames without an answer: proposed again
		now += 4 * time.Millisecond
		s.Update(now)
	}
	hbTick := uint64(200)
	late := func() {
		hbTick += 24
		recv(t, s, now, &proto.Heartbeat{Tick: hbTick, Players: []proto.HeartbeatPlayer{
			{Player: 0, Final: hbTick - 10, Lead: uint32(s.lead / time.Microsecond), Margin: -200_000},
			{Player: 1, Final: hbTick - 10, Margin: proto.NoMargin}}})
	}
	late() // the resent proposal's decision may be in it: not answered yet
	recv(t, s, now, &proto.Postponed{Seq: 1, Asked: uint64(tick), Tick: uint64(tick + 40)})
	recv(t, s, now, &proto.Accepted{Seq: 0, Events: []proto.TickEvent{{Tick: uint64(tick + 40), Event: sim.Event{Kind: sim.EvBrakeOn, Player: 0, Seq: 1}}}})
	now += 100 * time.Millisecond
	s.Update(now)
	late() // the heartbeat after the decision
	if adj := s.feedback.Adjustment(); adj != 0 {
		t.Fatalf("lead adjusted by %v for a resent proposal's lateness, want 0", adj)
	}
	now += lossShadow
	s.Update(now)
	late()
	if adj := s.feedback.Adjustment(); adj <= 0 {
		t.Fatalf("lead adjusted by %v for a late event with no resend about, want a raise", adj)
	}
}

// TestProposalTwiceOnLossyLink: a proposal goes once on a link that has
// lost nothing, twice (the same message, back to back) after the client
// saw a loss: here a missing server ping (issue 14).
func TestProposalTwiceOnLossyLink(t *testing.T) {
	proposes := func(s *Session, now time.Duration) int {
		s.Press(now, sim.EvBrakeOn, 0)
		n := 0
		for _, m := range outgoing(t, s) {
			if p, ok := m.(*proto.Propose); ok && p.Events[0].Seq == s.seq {
				n++
			}
		}
		return n
	}
	s := started(t, false)
	now := 600 * time.Millisecond
	s.Update(now)
	recv(t, s, now, &proto.Ping{ID: 1, Time: 1})
	recv(t, s, now, &proto.Ping{ID: 2, Time: 2})
	if n := proposes(s, now); n != 1 {
		t.Fatalf("%d Proposes on a link that lost nothing, want 1", n)
	}
	recv(t, s, now, &proto.Ping{ID: 4, Time: 4}) // 3 was lost
	now += 10 * time.Millisecond
	s.Update(now)
	if n := proposes(s, now); n != 2 {
		t.Fatalf("%d Proposes after a lost ping, want 2", n)
	}
	clear(s.pending) // answered: not proposed again, which would be a loss too
	now += lossyFor
	s.Update(now)
	if n := proposes(s, now); n != 1 {
		t.Fatalf("%d Proposes %v after the loss, want 1", n, lossyFor)
	}
}

// TestFinalityBroken: news of an event at a tick the session already holds
// as final (a History's event before its snapshot; a broadcast's event
// before the confirmed tick) is an error from Receive, not dropped in
// silence: the server broke its word, and the confirmed state no longer
// matches its own.
func TestFinalityBroken(t *testing.T) {
	st, _ := sim.NewState(sim.DefaultConfig(), 1)
	for range 10 {
		st.Step(nil)
	}
	s := New(Options{Name: "t", Confirmed: true})
	s.Hello(0)
	b, _ := proto.Marshal(&proto.Welcome{Player: 0, TickRate: 120, History: proto.History{Tick: 10, Snapshot: st.AppendBinary(nil),
		Events: []proto.TickEvent{{Tick: 5, Event: sim.Event{Kind: sim.EvJoin, Player: 0}}}}})
	if err := s.Receive(0, b); err == nil {
		t.Error("a History with an event before its snapshot was taken")
	}

	st, _ = sim.NewState(sim.DefaultConfig(), 1)
	s = New(Options{Name: "t", Confirmed: true})
	s.Hello(0)
	b, _ = proto.Marshal(&proto.Welcome{Player: 0, TickRate: 120, History: proto.History{Snapshot: st.AppendBinary(nil),
		Events: []proto.TickEvent{{Tick: 0, Event: sim.Event{Kind: sim.EvJoin, Player: 0}}}}})
	if err := s.Receive(0, b); err != nil {
		t.Fatal(err)
	}
	s.Update(time.Second)
	recv(t, s, time.Second, &proto.Heartbeat{Tick: 120, Players: []proto.HeartbeatPlayer{{Player: 0, Final: 89, Margin: proto.NoMargin}}})
	s.Update(time.Second + time.Millisecond)
	if c := s.ConfirmedState(); c == nil || c.Tick() != 90 {
		t.Fatalf("confirmed state %v, want at tick 90", c)
	}
	b, _ = proto.Marshal(&proto.Accepted{Seq: 0, Events: []proto.TickEvent{{Tick: 50, Event: sim.Event{Kind: sim.EvJoin, Player: 1}}}})
	if err := s.Receive(time.Second+2*time.Millisecond, b); err == nil {
		t.Error("a broadcast with an event before the confirmed tick was taken")
	}
	if got := s.Stats().ProtocolErrors; got != 1 {
		t.Errorf("%d protocol errors counted, want 1", got)
	}
}

// TestTurnCarriesItsInstant: a turn is proposed with the instant it was
// pressed within its tick (sim.TurnArg), at the moment the key went down
// with the mind reader and exactly a tick later without; the proposal, a
// resend and a postponement keep it; a remote turn's lag counts from its
// instant.
func TestTurnCarriesItsInstant(t *testing.T) {
	dt := time.Second / 120
	press := func(mind bool, queue time.Duration) (int64, int32) {
		t.Helper()
		s := started(t, mind)
		now := 602 * time.Millisecond // 0.24 tick into tick 72
		s.Update(now)
		s.Press(now, sim.EvTurnLeft, queue)
		tick := pendingTick(s, 1)
		evs := s.Timeline().Log.AppendAt(nil, tick)
		var prop *proto.Propose
		for _, m := range outgoing(t, s) {
			if p, ok := m.(*proto.Propose); ok {
				prop = p
			}
		}
		if len(evs) != 1 || prop == nil || prop.Events[0].Arg != evs[0].Arg || prop.Events[0].Tick != uint64(tick) {
			t.Fatalf("mind reader %v: logged %v at %d, proposed %+v: want the same turn", mind, evs, tick, prop)
		}
		return tick, evs[0].Arg
	}
	for _, c := range []struct {
		mind  bool
		queue time.Duration
		tick  int64
		arg   int32
	}{
		{true, 0, 72, 61},                     // 602 ms: 72 + 0.24 tick (61.4/256)
		{true, time.Millisecond, 72, 31},      // the key went down at 601 ms
		{true, 20 * time.Millisecond, 70, 61}, // at 582 ms, in tick 69: two ticks back at most, 585.3 ms
		{false, 0, 73, 61},                    // a tick after the press
		{false, 20 * time.Millisecond, 73, 61},
	} {
		tick, arg := press(c.mind, c.queue)
		if tick != c.tick || arg != c.arg {
			t.Errorf("mind reader %v, queue %v: turn at %d + %d/256, want %d + %d/256", c.mind, c.queue, tick, arg, c.tick, c.arg)
		}
	}

	// The server postpones it: it moves whole ticks, its instant in the
	// tick is kept (the server's log keeps the event as proposed).
	s := started(t, true)
	now := 602 * time.Millisecond
	s.Update(now)
	s.Press(now, sim.EvTurnLeft, 0)
	outgoing(t, s)
	recv(t, s, now, &proto.Postponed{Seq: 1, Asked: 72, Tick: 75})
	if evs := s.Timeline().Log.AppendAt(nil, 75); len(evs) != 1 || evs[0].Arg != 61 {
		t.Fatalf("postponed to 75: %v, want the turn with Arg 61", evs)
	}
	var resent []proto.Proposal
	for range 200 {
		now += 4 * time.Millisecond
		s.Update(now)
		for _, m := range outgoing(t, s) {
			if p, ok := m.(*proto.Propose); ok {
				resent = append(resent, p.Events...)
			}
		}
	}
	if len(resent) == 0 || resent[0].Arg != 61 {
		t.Fatalf("resent %+v, want the turn with its Arg", resent)
	}

	// A remote turn at tick 70 + 128/256 seen at 600 ms: 2.5 ticks ago.
	s = started(t, false)
	var lag time.Duration
	s.OnEvent = func(_ history.TickEvent, l time.Duration) { lag = l }
	s.Update(600 * time.Millisecond)
	recv(t, s, 600*time.Millisecond, &proto.Accepted{Seq: 0, Events: []proto.TickEvent{
		{Tick: 70, Event: sim.Event{Kind: sim.EvTurnLeft, Player: 1, Seq: 1, Arg: 128}}}})
	if want := 600*time.Millisecond - 70*dt - dt/2; lag != want {
		t.Fatalf("remote turn's lag %v, want %v (from its instant)", lag, want)
	}
}

// TestSpectatorPredictedLag: a spectator's view of a player lags by the
// same formula as a player's, U = o_i + o_you + L_you - L_i, with the
// spectator's own one-way latency and lead: the server publishes neither
// for a spectator (netcode.md section 3). Counted as 0 they showed a
// spectator 80 ms away a lag of about minus the player's margin. And an
// event that arrives before its time is drawn on time: no lag below 0.
func TestSpectatorPredictedLag(t *testing.T) {
	st, err := sim.NewState(sim.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Name: "watcher"})
	s.Hello(0)
	roster := proto.Roster{Rev: 1, Players: []proto.RosterPlayer{
		{ID: 0, Name: "near", Latency: 1_000, Lead: 3_000},  // o 1 ms, L 3 ms
		{ID: 1, Name: "far", Latency: 40_000, Lead: 45_000}, // o 40 ms, L 45 ms
		{ID: 255, Name: "watcher", Spectator: true, Connected: true},
	}}
	// The Welcome comes 80 ms after the Hello: a round trip of 80 ms.
	recv(t, s, 80*time.Millisecond, &proto.Welcome{Spectator: true, TickRate: 120, ServerTime: 40_000, ClientTime: 0, Roster: roster,
		History: proto.History{Tick: 0, Snapshot: st.AppendBinary(nil), Events: []proto.TickEvent{
			{Tick: 0, Event: sim.Event{Kind: sim.EvJoin, Player: 0}},
			{Tick: 0, Event: sim.Event{Kind: sim.EvJoin, Player: 1}},
		}}})
	lags := map[int]float64{}
	for _, p := range s.Info().Players {
		lags[p.ID] = p.PredictedLagMs
	}
	// o_you = 40 ms, L_you = 40 ms (its first guess, half the round trip).
	if got, want := lags[1], 40.0+40+40-45; got != want {
		t.Errorf("far: predicted lag %.2f ms, want %.2f", got, want)
	}
	if got, want := lags[0], 1.0+40+40-3; got != want {
		t.Errorf("near: predicted lag %.2f ms, want %.2f", got, want)
	}

	// A player whose rival's lead outruns both latencies and its own lead
	// sees the rival's events before their time: 1 + 1 + 2 - 10 < 0.
	p := started(t, false)
	recv(t, p, 0, &proto.Roster{Rev: 2, Players: []proto.RosterPlayer{
		{ID: 0, Name: "t", Latency: 1_000, Lead: 2_000},
		{ID: 1, Name: "early", Latency: 1_000, Lead: 10_000},
	}})
	for _, pl := range p.Info().Players {
		if pl.ID == 1 && pl.PredictedLagMs != 0 {
			t.Errorf("early: predicted lag %.2f ms, want 0 (drawn on time)", pl.PredictedLagMs)
		}
	}
}
