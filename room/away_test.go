package room

import (
	"strings"
	"testing"
	"time"

	"webtron/proto"
	"webtron/sim"
)

// welcomeOf returns the Welcome the room sent connection c.
func welcomeOf(t *testing.T, tr *testTransport, c ConnID) *proto.Welcome {
	t.Helper()
	for _, m := range tr.to(c) {
		if w, ok := m.(*proto.Welcome); ok {
			return w
		}
	}
	t.Fatalf("no welcome for connection %d", c)
	return nil
}

// pilotInputs counts the inputs the server logged for player p at ticks in
// [from, to), and how many of them wear the pilot's mark.
func pilotInputs(r *Room, p int, from, to int64) (inputs, piloted int) {
	for _, te := range r.tl.Log.From(from) {
		if te.Tick >= to {
			break
		}
		if int(te.Ev.Player) == p && te.Ev.Kind.PlayerInput() {
			inputs++
			if te.Ev.Seq&pilotSeq != 0 {
				piloted++
			}
		}
	}
	return inputs, piloted
}

// rideThenLeave joins "alice" on connection 1, runs until she rides in a
// round in play, and drops her connection. It returns her seat, her token
// and the time.
func rideThenLeave(t *testing.T, r *Room, tr *testTransport) (int, []byte, time.Duration) {
	t.Helper()
	hello(t, r, 1, &proto.Hello{Name: "alice"}, 0)
	w := welcomeOf(t, tr, 1)
	p := int(w.Player)
	now := runUntil(t, r, 0, time.Minute, func() bool {
		s := r.tl.Confirmed()
		ph, _ := s.Phase()
		return ph == sim.PhasePlay && r.members[p].rode && s.Cycle(p).Alive
	})
	r.Leave(1, now)
	return p, w.Token, now
}

// TestAwaySeatDrivenByBot: a player whose connection drops keeps a cycle
// that the bot drives (its turns are logged, wearing the pilot's mark), not
// one that rides on unattended into the rim; the roster shows the player as
// away. Back with the token, the pilot drives for handBack more, then the
// player has the seat: no pilot input is logged after it. The bots' timeline
// stays the log's through every switch (checkAhead).
func TestAwaySeatDrivenByBot(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seed: 3, Bots: 1, Seats: 4})
	p, token, left := rideThenLeave(t, r, tr)
	from := r.Now()
	now := left
	for end := left + 10*time.Second; now < end; {
		now = r.NextDue()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		checkAhead(t, r)
	}
	inputs, piloted := pilotInputs(r, p, from, r.Now())
	t.Logf("away for 10 s: %d inputs logged for the seat, %d by its pilot", inputs, piloted)
	if piloted == 0 || piloted != inputs {
		t.Fatalf("away for 10 s: %d inputs logged for the seat, %d by its pilot; want the pilot's only, some", inputs, piloted)
	}
	for _, rp := range r.RosterNow().Players {
		if int(rp.ID) == p && (rp.Name != "alice" || rp.Bot || rp.Connected) {
			t.Fatalf("roster entry of the away seat: %+v, want alice, a human, not connected", rp)
		}
	}

	// Back: the pilot drives on for handBack, then the seat is alice's.
	hello(t, r, 2, &proto.Hello{Name: "alice", Token: token}, now)
	if got := int(welcomeOf(t, tr, 2).Player); got != p {
		t.Fatalf("alice came back in seat %d, want %d", got, p)
	}
	back := now
	now = runUntil(t, r, now, now+2*handBack, func() bool {
		checkAhead(t, r)
		return r.members[p].pilot == nil
	})
	if now < back+handBack || now > back+handBack+r.dt {
		t.Fatalf("the pilot gave the seat back %v after alice came back, want %v", now-back, handBack)
	}
	given := r.Now()
	runUntil(t, r, now, now+10*time.Second, func() bool { checkAhead(t, r); return r.NextTick() >= now+10*time.Second })
	if _, piloted := pilotInputs(r, p, given, r.Now()+1); piloted != 0 {
		t.Fatalf("%d pilot inputs logged after the seat went back to alice", piloted)
	}

	// Away again and back, and a key takes the seat before handBack is over.
	r.Leave(2, now)
	now = runUntil(t, r, now, now+5*time.Second, func() bool { return r.NextTick() >= now+2*time.Second })
	hello(t, r, 3, &proto.Hello{Name: "alice", Token: token}, now)
	now = runUntil(t, r, now, now+time.Second, func() bool { return r.NextTick() >= now+handBack/4 })
	if r.members[p].pilot == nil {
		t.Fatal("the pilot gave the seat back before handBack was over, with no key pressed")
	}
	key := r.Now()
	if e := r.Receive(3, &proto.Propose{Events: []proto.Proposal{{Seq: 1, Tick: uint64(key + 2), Kind: sim.EvBrakeOn}}}, now); e != nil {
		t.Fatal(e)
	}
	if r.members[p].pilot != nil {
		t.Fatal("a key pressed after coming back left the pilot in the seat")
	}
	checkAhead(t, r)
	runUntil(t, r, now, now+3*time.Second, func() bool { checkAhead(t, r); return r.NextTick() >= now+2*time.Second })
	if _, piloted := pilotInputs(r, p, key+1, r.Now()+1); piloted != 0 {
		t.Fatalf("%d pilot inputs logged after alice's key took the seat back at tick %d", piloted, key)
	}
}

// TestAwayPointsGoToTheSeat: what the pilot earns while the player is away
// is the player's: the seat's score, under the player's name in the roster
// (docs/netcode.md, section 7). Here the pilot outlives the room's bot or
// cuts it off, which an unattended cycle riding straight does not.
func TestAwayPointsGoToTheSeat(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seed: 3, Bots: 1, Seats: 2, Reconnect: 10 * time.Minute})
	p, _, now := rideThenLeave(t, r, tr)
	before := r.tl.Confirmed().Cycle(p).Score
	now = runUntil(t, r, now, now+5*time.Minute, func() bool {
		return r.tl.Confirmed().Cycle(p).Score > before
	})
	score := r.tl.Confirmed().Cycle(p).Score
	t.Logf("alice's seat scored %d -> %d while she was away (%v)", before, score, now)
	runUntil(t, r, now, now+time.Second, func() bool { return r.NextTick() >= now+500*time.Millisecond })
	found := false
	for _, rp := range r.RosterNow().Players {
		if int(rp.ID) == p {
			found = true
			if rp.Name != "alice" || rp.Bot || int64(rp.Score) != r.tl.Confirmed().Cycle(p).Score {
				t.Fatalf("roster entry of the away seat: %+v, want alice's with the seat's score %d", rp, r.tl.Confirmed().Cycle(p).Score)
			}
		}
	}
	if !found {
		t.Fatal("the away seat is not in the roster")
	}
}

// TestNameTakenSaysWho: a refused name says who holds it and when it frees
// up: when the player leaves, in so many seconds for one who is away (the
// reconnect grace), when the watcher leaves.
func TestNameTakenSaysWho(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seed: 3, Bots: 1, Seats: 4, Reconnect: 30 * time.Second})
	_, _, left := rideThenLeave(t, r, tr)
	hello(t, r, 2, &proto.Hello{Name: "Bob"}, left)
	hello(t, r, 3, &proto.Hello{Name: "Carol", Spectate: true}, left)
	now := left + 10*time.Second
	runUntil(t, r, left, now, func() bool { return r.NextTick() >= now })
	for _, c := range []struct{ name, want string }{
		{"ALICE", "the name ALICE is taken: alice is away from this room, and the name frees up in 20 s unless they come back"},
		{"bob", "the name bob is taken: Bob is playing in this room; the name frees up when they leave"},
		{"carol", "the name carol is taken: Carol is watching this room; the name frees up when they leave"},
	} {
		e := r.Receive(9, &proto.Hello{Name: c.name}, now)
		if e == nil || e.Code != proto.CloseNameTaken || e.Text != c.want {
			t.Errorf("hello as %q: %v, want %q", c.name, e, c.want)
		}
		if e != nil && len(e.Text) > proto.MaxTextLen {
			t.Errorf("hello as %q: the refusal is %d bytes, over proto.MaxTextLen", c.name, len(e.Text))
		}
	}
	long := strings.Repeat("w", proto.MaxNameLen)
	hello(t, r, 4, &proto.Hello{Name: long}, now)
	if e := r.Receive(9, &proto.Hello{Name: long}, now); e == nil || len(e.Text) > proto.MaxTextLen {
		t.Errorf("hello as a taken name of %d bytes: %v", len(long), e)
	}
}
