package room

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"webtron/proto"
	"webtron/sim"
)

// TestSeatSquatting: hellos followed at once by hang-ups used to keep every
// seat of a room for the whole reconnect grace (30 s) with no connection
// open. A player who leaves before ever riding has its seat held only as
// long as it was connected: a hello and a hang-up give it back at once.
func TestSeatSquatting(t *testing.T) {
	r, _ := newTestRoom(t, Config{Seats: 4})
	now := time.Duration(0)
	for c := ConnID(1); c <= 4; c++ {
		hello(t, r, c, &proto.Hello{Name: fmt.Sprintf("squatter%d", c)}, now)
		r.Leave(c, now)
	}
	now = runUntil(t, r, now, time.Second, func() bool { return r.NextTick() > 100*time.Millisecond })
	for c := ConnID(5); c <= 8; c++ {
		if e := r.Receive(c, &proto.Hello{Name: fmt.Sprintf("player%d", c)}, now); e != nil {
			t.Fatalf("player %d, after the squatters left: %v", c, e)
		}
	}
	if players, _ := r.Humans(); players != 4 {
		t.Fatalf("%d players seated, want the 4 real ones", players)
	}
}

// TestRiderKeepsSeat: a player who has ridden in a round keeps its seat
// through a dropped connection, and its token brings it back.
func TestRiderKeepsSeat(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 2})
	hello(t, r, 1, &proto.Hello{Name: "rider"}, 0)
	hello(t, r, 2, &proto.Hello{Name: "other"}, 0)
	var token []byte
	for _, m := range tr.to(1) {
		if w, ok := m.(*proto.Welcome); ok {
			token = w.Token
		}
	}
	p := r.byConn[1]
	now := runUntil(t, r, 0, 10*time.Second, func() bool {
		ph, _ := r.Timeline().Confirmed().Phase()
		return ph == sim.PhasePlay && r.members[p].rode
	})
	r.Leave(1, now)
	if e := r.Receive(3, &proto.Hello{Name: "newcomer"}, now); e == nil || e.Code != proto.CloseRoomFull {
		t.Fatalf("a newcomer took the seat of a rider who may come back: %v", e)
	}
	hello(t, r, 4, &proto.Hello{Name: "rider", Token: token}, now+time.Second)
	if r.byConn[4] != p {
		t.Fatalf("the rider came back in slot %d, want %d", r.byConn[4], p)
	}
}

// TestChatLimits: every sender is limited, spectators too (a spectator's
// 300 lines at 94/s were all broadcast), and lines lose control and
// direction-changing characters, as names do.
func TestChatLimits(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 2, ChatEvery: 500 * time.Millisecond})
	hello(t, r, 1, &proto.Hello{Name: "player"}, 0)
	hello(t, r, 2, &proto.Hello{Name: "watcher", Spectate: true}, 0)
	lines := func() (n map[uint8]int, texts []string) {
		n = map[uint8]int{}
		for _, m := range tr.to(1) {
			if c, ok := m.(*proto.Chat); ok {
				n[c.From]++
				texts = append(texts, c.Text)
			}
		}
		return n, texts
	}
	// 300 lines each at 94 a second: 3.2 s, so 7 lines each at one per 500 ms.
	for k := range 300 {
		now := time.Duration(k) * time.Second / 94
		for c := ConnID(1); c <= 2; c++ {
			if e := r.Receive(c, &proto.Chat{Text: "spam"}, now); e != nil {
				t.Fatal(e)
			}
		}
	}
	n, _ := lines()
	if n[255] > 7 || n[uint8(r.byConn[1])] > 7 || n[255] == 0 {
		t.Fatalf("lines broadcast by sender: %v, want at most 7 each (one per 500 ms over 3.2 s)", n)
	}
	tr.out = tr.out[:0]
	if e := r.Receive(1, &proto.Chat{Text: "hi\u202eevil\x1b[31m\x00 there\u2066!"}, 10*time.Second); e != nil {
		t.Fatal(e)
	}
	if e := r.Receive(2, &proto.Chat{Text: "\u202e\u200f\x07"}, 10*time.Second); e != nil {
		t.Fatal(e)
	}
	_, texts := lines()
	if len(texts) != 1 || texts[0] != "hievil[31m there!" {
		t.Fatalf("chat broadcast %q, want one line \"hievil[31m there!\" (nothing left of the second)", texts)
	}
}

func TestSanitizeChat(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  hello   world  ", "hello world"},
		{"<3 >:(", "<3 >:("},
		{"a\u202eb\u2067c\u200dd", "abcd"},
		{"line\nbreak\ttab", "line break tab"},
		{strings.Repeat("x", 300), strings.Repeat("x", proto.MaxChatLen)},
		{"\x00\x1b", ""},
	} {
		if got := SanitizeChat(c.in); got != c.want {
			t.Errorf("SanitizeChat(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestUniqueNames: names are unique within a room, compared without regard
// to case after sanitizing; CloseNameTaken says so. No human takes a bot's
// name or its "(bot)" mark. A player who gives no name gets a free default.
func TestUniqueNames(t *testing.T) {
	r, _ := newTestRoom(t, Config{Seats: 6, Bots: 1})
	hello(t, r, 1, &proto.Hello{Name: "Alice"}, 0)
	hello(t, r, 2, &proto.Hello{Name: "Watcher", Spectate: true}, 0)
	var botName string
	for _, m := range r.members {
		if m != nil && m.bot != nil {
			botName = m.name
		}
	}
	for _, c := range []struct {
		name string
		spec bool
		code proto.CloseCode
	}{
		{"alice", false, proto.CloseNameTaken},
		{" ALICE\u202e ", false, proto.CloseNameTaken},
		{"al\x00ice", true, proto.CloseNameTaken},
		{"watcher", false, proto.CloseNameTaken},
		{botName, false, proto.CloseBadName},
		{"Flynn (BOT)", false, proto.CloseBadName},
		{"Sark(bot)", true, proto.CloseBadName},
	} {
		e := r.Receive(9, &proto.Hello{Name: c.name, Spectate: c.spec}, 0)
		if e == nil || e.Code != c.code {
			t.Errorf("hello as %q: %v, want %v", c.name, e, c.code)
		}
	}
	hello(t, r, 3, &proto.Hello{Name: "Bob"}, 0)
	hello(t, r, 4, &proto.Hello{}, 0)
	hello(t, r, 5, &proto.Hello{Name: " \x00 "}, 0)
	var names []string
	for _, p := range r.RosterNow().Players {
		names = append(names, p.Name)
	}
	got := strings.Join(names, ",")
	for _, want := range []string{"Alice", "Bob", "Player", "Player 2", "Watcher", botName} {
		if !strings.Contains(","+got+",", ","+want+",") {
			t.Errorf("roster %s lacks %q", got, want)
		}
	}
}

// TestReconnectBeforeRiding: a player whose connection drops before it ever
// rode (a page that reloads during its first countdown, or whose worker
// reconnects after the page's thread stalled) comes back to its own seat
// with its token: the seat is held for as long as the connection had lasted.
// Before, the seat was given up at the drop and the token came back
// unknown (CloseBadToken), so the page joined again as a newcomer. A
// connection that lasted a second holds nothing past a second.
func TestReconnectBeforeRiding(t *testing.T) {
	r, tr := newTestRoom(t, Config{Bots: 1, Seats: 4})
	token := func(c ConnID) []byte {
		for _, m := range tr.to(c) {
			if w, ok := m.(*proto.Welcome); ok {
				return w.Token
			}
		}
		t.Fatalf("connection %d was not welcomed", c)
		return nil
	}
	hello(t, r, 1, &proto.Hello{Name: "reloader"}, 0)
	hello(t, r, 2, &proto.Hello{Name: "brief"}, 0)
	p, brief := r.byConn[1], r.byConn[2]
	now := runUntil(t, r, 0, 2*time.Second, func() bool { return r.NextTick() > time.Second })
	r.Leave(2, now) // connected a second
	now = runUntil(t, r, now, 4*time.Second, func() bool { return r.NextTick() > 2500*time.Millisecond })
	if r.members[p].rode {
		t.Fatal("the player rode already: the test is about one who never did")
	}
	r.Leave(1, now) // connected 2.5 s
	now = runUntil(t, r, now, 6*time.Second, func() bool { return r.NextTick() > 3500*time.Millisecond })
	if e := r.Receive(3, &proto.Hello{Name: "reloader", Token: token(1)}, now); e != nil {
		t.Fatalf("back 1 s after a drop before riding: %v", e)
	}
	if r.byConn[3] != p {
		t.Fatalf("back in seat %d, want %d", r.byConn[3], p)
	}
	if e := r.Receive(4, &proto.Hello{Name: "brief", Token: token(2)}, now); e == nil || e.Code != proto.CloseBadToken {
		t.Fatalf("a connection of 1 s held its seat (%d) 2.5 s: %v", brief, e)
	}
}
