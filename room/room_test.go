package room

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// TestMemoryFlat plays a 30-minute match of 8 bots and checks that the room's
// memory does not grow with the match: the log keeps one round's events, the
// walls two rounds' (issue 3 asks for the figure; docs/performance.md has it).
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("30 minutes of game time")
	}
	rounds := 0
	r, _ := newTestRoom(t, Config{Bots: 8, Seats: 8, OnRound: func(history.RoundRecord, []string) { rounds++ }})
	dt := r.TickDuration()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var at5, at30 uint64
	ticks := int64(30 * time.Minute / dt)
	for k := int64(0); k <= ticks; k++ {
		now := time.Duration(k) * dt
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		r.Stats.RollbackTicks = r.Stats.RollbackTicks[:0]
		if k == ticks/6 {
			at5 = heap()
		}
	}
	at30 = heap()
	t.Logf("8 bots, 30 min: %d rounds, heap %.2f MB at 5 min, %.2f MB at 30 min, log %d events",
		rounds, float64(at5)/1e6, float64(at30)/1e6, r.Timeline().Log.Len())
	if rounds < 3 {
		t.Errorf("only %d rounds in 30 minutes", rounds)
	}
	if at30 > at5+2<<20 {
		t.Errorf("heap grew from %d to %d bytes between 5 and 30 minutes", at5, at30)
	}
}

func TestSanitizeName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  Flynn  ", "Flynn"},
		{"a\x00b\nc", "ab c"},
		{"<script>", "script"},
		{"", "Player"},
		{"\t\n", "Player"},
		{"abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwx"},
		{"éééééééééééééééééé", "éééééééééééé"},
	} {
		if got := SanitizeName(c.in); got != c.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBotsGiveSeatsToHumans(t *testing.T) {
	r, _ := newTestRoom(t, Config{Bots: 4, Seats: 4})
	now := runUntil(t, r, 0, 3*time.Second, func() bool { return r.NextTick() >= 2*time.Second })
	if got := r.Bots(); got != 4 {
		t.Fatalf("bots before a human joins: %d, want 4", got)
	}
	hello(t, r, 1, &proto.Hello{Name: "human"}, now)
	// The leaving bot waits for the round to end; bots that never die make
	// that slow, so just check the count converges within a few rounds.
	runUntil(t, r, now, 10*time.Minute, func() bool { return r.Bots() <= 3 })
	if got := r.Bots(); got != 3 {
		t.Fatalf("bots after a human joined: %d, want 3", got)
	}
	if e := r.Receive(2, &proto.Hello{Token: []byte("nope")}, now); e == nil || e.Code != proto.CloseBadToken {
		t.Fatalf("bad token: got %v, want CloseBadToken", e)
	}
}

// TestReconnectClosesTheOldConnection: a token used on a new connection
// takes the player over, and the room asks its transport to close the old
// one (CloseReplaced) as a result of its own, not as a message to sniff.
func TestReconnectClosesTheOldConnection(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 2})
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	var token []byte
	for _, m := range tr.to(1) {
		if w, ok := m.(*proto.Welcome); ok {
			token = w.Token
		}
	}
	if len(token) == 0 {
		t.Fatal("no welcome with a token")
	}
	hello(t, r, 2, &proto.Hello{Name: "a", Token: token}, time.Millisecond)
	if e := tr.closed[1]; e == nil || e.Code != proto.CloseReplaced {
		t.Fatalf("old connection closed with %v, want CloseReplaced", e)
	}
	for _, m := range tr.to(1) {
		if _, ok := m.(*proto.Error); ok {
			t.Fatal("the room sent the old connection an Error message instead of closing it")
		}
	}
	if e := r.Receive(1, &proto.Ping{ID: 1}, 2*time.Millisecond); e == nil || e.Code != proto.CloseProtocol {
		t.Fatalf("the old connection is still in the room: %v", e)
	}
	if p, ok := r.byConn[2]; !ok || r.members[p].conn != 2 {
		t.Fatal("the new connection does not hold the player")
	}
}

// TestNewcomerRidesSoon: a human who joins a room where bots are mid-round
// rides a cycle of their own within FINISH_TYPE's 2 s plus the 4 s countdown
// (issue 11: at most 10 s from clicking Play, network included).
func TestNewcomerRidesSoon(t *testing.T) {
	r, _ := newTestRoom(t, Config{Bots: 7, Seats: 8})
	dt := r.TickDuration()
	now := time.Duration(0)
	for ; now < 8*time.Second; now += dt { // into the first round's play
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	if ph, _ := r.State().Phase(); ph != sim.PhasePlay {
		t.Fatalf("phase %d at 8 s, want the bots' round in play", ph)
	}
	joined := now
	hello(t, r, 1, &proto.Hello{Name: "newcomer"}, now)
	p := r.byConn[1]
	for ; now < joined+20*time.Second; now += dt {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		if c := r.State().Cycle(p); c.Alive {
			if ph, _ := r.State().Phase(); ph == sim.PhasePlay {
				break
			}
		}
	}
	waited := now - joined
	t.Logf("newcomer rides %v after joining", waited)
	if waited > 6*time.Second+2*dt {
		t.Fatalf("newcomer rode %v after joining, want at most 6 s (2 s to the round's end, 4 s countdown)", waited)
	}
}

// TestBotNamesUnique: a room of more bots than the list has names still
// tells every bot apart (the kill feed and scoreboard go by name).
func TestBotNamesUnique(t *testing.T) {
	seen := map[string]int{}
	for p := range sim.MaxPlayers {
		n := botName(p)
		if q, dup := seen[strings.ToLower(n)]; dup {
			t.Fatalf("seats %d and %d are both %q", q, p, n)
		}
		seen[strings.ToLower(n)] = p
	}
}

// TestNextDue: a room without bots ticked only at NextDue (and before each
// message) sends exactly what a room ticked at every tick sends, at the same
// times; with bots NextDue is the next tick.
func TestNextDue(t *testing.T) {
	type sent struct {
		at time.Duration
		b  string
	}
	record := func(out *[]sent, now *time.Duration) Transport {
		return sendFunc(func(_ ConnID, b []byte) { *out = append(*out, sent{*now, string(b)}) })
	}
	var every, due []sent
	var nowA, nowB time.Duration
	a, err := New("a", Config{Seed: 3}, 0, record(&every, &nowA))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New("b", Config{Seed: 3}, 0, record(&due, &nowB))
	if err != nil {
		t.Fatal(err)
	}
	hello(t, a, 1, &proto.Hello{Name: "p"}, 0)
	hello(t, b, 1, &proto.Hello{Name: "p"}, 0)
	wakes := 0
	for nowA = a.NextTick(); nowA < 10*time.Second; nowA = a.NextTick() {
		// A message now and then (a ping), which wakes b whatever it is due.
		msg := a.Now()%97 == 0
		if err := a.Tick(nowA); err != nil {
			t.Fatal(err)
		}
		if msg {
			if e := a.Receive(1, &proto.Ping{ID: uint32(a.Now())}, nowA); e != nil {
				t.Fatal(e)
			}
		}
		if nowA >= b.NextDue() || msg {
			nowB = nowA
			wakes++
			if err := b.Tick(nowB); err != nil {
				t.Fatal(err)
			}
			if msg {
				if e := b.Receive(1, &proto.Ping{ID: uint32(b.Now())}, nowB); e != nil {
					t.Fatal(e)
				}
			}
		}
	}
	// The welcome carries a random reconnect token: compare what follows.
	if len(every) == 0 || len(every) != len(due) || !slices.Equal(every[1:], due[1:]) {
		for i := range min(len(every), len(due)) {
			if every[i] != due[i] {
				ma, _ := proto.Decode([]byte(every[i].b))
				mb, _ := proto.Decode([]byte(due[i].b))
				t.Logf("message %d: at %v %+v, at NextDue: at %v %+v", i, every[i].at, ma, due[i].at, mb)
			}
		}
		t.Fatalf("ticked at every tick the room sent %d messages, at NextDue %d; they differ", len(every), len(due))
	}
	if wakes > 10*20 {
		t.Fatalf("%d wake-ups in 10 s without bots, want at most 200", wakes)
	}
	t.Logf("%d messages, %d wake-ups in 10 s", len(every), wakes)
}

// sendFunc is a Transport that hands each message to a function.
type sendFunc func(ConnID, []byte)

func (f sendFunc) Send(c ConnID, b []byte)  { f(c, b) }
func (sendFunc) Close(ConnID, *proto.Error) {}

// TestBotsAhead: bots decide ahead of their ticks (botAhead) so that a room
// with bots sleeps until one of them acts, and their inputs still go out at
// their ticks, decided on what the room knows at that tick.
//
// With bots alone, a room ticked at NextDue logs exactly the events, at
// exactly the ticks, of a room ticked at every tick (where the bots decide
// tick by tick), waking a fraction as often. With a human whose inputs land
// in the past, the present and the future, the bots' state always equals the
// room's present stepped with the log and the bots' pending decisions: a
// decision is never released that was made on a state the log has since
// changed.
func TestBotsAhead(t *testing.T) {
	cfg := Config{Seed: 5, Bots: 7, Seats: 8}
	every, _ := newTestRoom(t, cfg)
	due, _ := newTestRoom(t, cfg)
	wakes := 0
	for now := every.NextTick(); now < 30*time.Second; now = every.NextTick() {
		if err := every.Tick(now); err != nil {
			t.Fatal(err)
		}
		if now >= due.NextDue() {
			wakes++
			if err := due.Tick(now); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := due.Tick(every.NextTick() - every.TickDuration()); err != nil {
		t.Fatal(err)
	}
	a, b := every.tl.Log.From(0), due.tl.Log.From(0)
	if len(a) < 50 || !slices.Equal(a, b) {
		t.Fatalf("ticked at every tick the room logged %d events, at NextDue %d; they differ", len(a), len(b))
	}
	ticks := every.Now()
	t.Logf("%d events in %d ticks, %d wake-ups", len(a), ticks, wakes)
	if wakes > int(ticks)/8 {
		t.Fatalf("%d wake-ups for %d ticks with bots alone, want at most an eighth", wakes, ticks)
	}

	r, _ := newTestRoom(t, cfg)
	hello(t, r, 1, &proto.Hello{Name: "p"}, 0)
	rng := uint64(9)
	seq := uint32(0)
	rewound := 0
	for now := r.NextTick(); now < 30*time.Second; {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		checkAhead(t, r)
		rng = rng*6364136223846793005 + 1442695040888963407
		if rng>>60 < 3 { // a turn every 5 ticks or so, at -3..+4 ticks from the present
			seq++
			before := r.ahead.tl.Rollbacks
			tick := r.Now() + int64(rng>>40%8) - 3
			if e := r.Receive(1, &proto.Propose{Events: []proto.Proposal{{Seq: seq, Tick: uint64(tick), Kind: sim.EvTurnLeft + sim.EventKind(rng>>50%2)}}}, now); e != nil {
				t.Fatal(e)
			}
			checkAhead(t, r)
			if r.ahead.tl.Rollbacks > before {
				rewound++
			}
		}
		now = min(r.NextDue(), now+time.Duration(rng>>32%7+1)*r.dt)
	}
	if rewound < 100 {
		t.Fatalf("the human's inputs made the bots decide again %d times, want the test to exercise it more", rewound)
	}

	// A bot that leaves with a decision pending: the decision goes with it.
	now := r.NextTick()
	for ; len(r.ahead.pending) == 0; now = r.NextTick() {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		r.NextDue()
	}
	gone := int(r.ahead.pending[0].Ev.Player)
	left := r.Now()
	r.serverEvent(sim.Event{Kind: sim.EvLeave, Player: uint8(gone)}) // as seatBots does between rounds
	r.members[gone] = nil
	for end := now + time.Second; now < end; now = r.NextTick() {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		checkAhead(t, r)
	}
	// (fillBots seats a new bot in the seat soon after: its inputs may follow.)
	for _, te := range r.tl.Log.From(left) {
		if int(te.Ev.Player) != gone {
			continue
		}
		if te.Ev.Kind == sim.EvJoin {
			break
		}
		if te.Ev.Kind.PlayerInput() {
			t.Fatalf("bot %d left at tick %d, and its %v at tick %d was logged", gone, left, te.Ev.Kind, te.Tick)
		}
	}
}

// checkAhead fails unless the bots' state equals the room's present stepped
// with the log and the bots' pending decisions up to the bots' tick.
func checkAhead(t *testing.T, r *Room) {
	t.Helper()
	a := &r.ahead
	if a.tl == nil {
		return // nothing decided ahead (no bots, or they plan again: replan)
	}
	if err := r.planBots(a.tl.State().Tick()); err != nil { // goes back if the log changed under it
		t.Fatal(err)
	}
	s, err := sim.UnmarshalState(r.tl.State().AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	bots := a.tl.State()
	var evs []sim.Event
	for s.Tick() < bots.Tick() {
		evs = r.tl.Log.AppendAt(evs[:0], s.Tick())
		for _, te := range a.pending {
			if te.Tick == s.Tick() {
				evs = append(evs, te.Ev)
			}
		}
		s.Step(evs)
	}
	if s.Tick() != bots.Tick() || s.Hash() != bots.Hash() {
		t.Fatalf("present %d: the bots' state at tick %d differs from the log's", r.Now(), bots.Tick())
	}
}

// TestJoinAfterTheSetChanged is issue 21's crash: two humans ride a
// multiplayer round (500 m arena), one leaves for good, the next round is
// single-player (177 m) and a third human joins. The departed player's
// empty slot once kept its 500 m coordinates, the room's state failed its
// own check when the join read it, and the panic took the server down.
func TestJoinAfterTheSetChanged(t *testing.T) {
	r, tr := newTestRoom(t, Config{Bots: 3, Seats: 8})
	hello(t, r, 1, &proto.Hello{Name: "alice"}, 0)
	hello(t, r, 2, &proto.Hello{Name: "bob"}, 0)
	welcome := func(c ConnID) *proto.Welcome {
		for _, m := range tr.to(c) {
			if w, ok := m.(*proto.Welcome); ok {
				return w
			}
		}
		t.Fatalf("no welcome for connection %d", c)
		return nil
	}
	bob := int(welcome(2).Player)
	spArena := sim.DefaultConfig().ArenaSize * 354 / 1000 // SIZE_FACTOR -3: 500 m x 2^-1.5
	now := runUntil(t, r, 0, time.Minute, func() bool {
		s := r.Timeline().Confirmed()
		_, set := s.Rules()
		ph, _ := s.Phase()
		c := s.Cycle(bob)
		return ph == sim.PhasePlay && set == sim.SetMP && c.InRound && max(c.X, c.Y) > spArena
	})
	r.Leave(2, now)
	round, _ := r.Timeline().Confirmed().Round()
	now = runUntil(t, r, now, 5*time.Minute, func() bool {
		s := r.Timeline().Confirmed()
		_, set := s.Rules()
		n, _ := s.Round()
		return n > round && set == sim.SetSP && !s.Cycle(bob).Present
	})
	t.Logf("carol joins at %v", now)
	hello(t, r, 3, &proto.Hello{Name: "carol"}, now)
	if _, err := sim.UnmarshalState(welcome(3).History.Snapshot); err != nil {
		t.Fatalf("the welcome's snapshot does not decode: %v", err)
	}
	runUntil(t, r, now, now+2*time.Second, func() bool { return r.NextTick() > now+time.Second })
}

// TestMachines: players who join from one origin (an address) are one
// machine to the simulation, not enemies (ALLOW_ENEMIES_SAME_IP); another
// origin is another machine; bots and players of no known origin are none.
func TestMachines(t *testing.T) {
	r, tr := newTestRoom(t, Config{Bots: 2, Seats: 8})
	r.Origin(1, "192.0.2.1/32")
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	r.Origin(2, "192.0.2.1/32")
	hello(t, r, 2, &proto.Hello{Name: "b"}, 0)
	r.Origin(3, "198.51.100.7/32")
	hello(t, r, 3, &proto.Hello{Name: "c"}, 0)
	hello(t, r, 4, &proto.Hello{Name: "d"}, 0)
	player := func(c ConnID) int {
		for _, m := range tr.to(c) {
			if w, ok := m.(*proto.Welcome); ok {
				return int(w.Player)
			}
		}
		t.Fatalf("no welcome for %d", c)
		return -1
	}
	runUntil(t, r, 0, 10*time.Second, func() bool { return r.Bots() == 2 && r.NextTick() > time.Second })
	s := r.Timeline().State()
	a, b, c, d := s.Cycle(player(1)).Machine, s.Cycle(player(2)).Machine, s.Cycle(player(3)).Machine, s.Cycle(player(4)).Machine
	if a == 0 || a != b || c == 0 || c == a || d != 0 {
		t.Fatalf("machines a %d b %d (one origin), c %d (another), d %d (none): want a = b, c another, d 0", a, b, c, d)
	}
	for p := range sim.MaxPlayers {
		if cy := s.Cycle(p); cy.Present && !cy.Human && cy.Machine != 0 {
			t.Fatalf("bot %d has machine %d, want 0", p, cy.Machine)
		}
	}
}
