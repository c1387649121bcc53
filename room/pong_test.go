package room

import (
	"testing"
	"time"

	"webtron/proto"
)

// TestPongsWaitForHeartbeat: a ping does not get its own write. Its answer
// leaves with the next heartbeat, timed at the ping's arrival and saying how
// long it was held, so the client's clock sees no hold at all.
func TestPongsWaitForHeartbeat(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 2})
	dt := r.TickDuration()
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	now := time.Duration(0)
	step := func() {
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	for range 30 { // past the first heartbeat
		step()
	}
	pongs := func() (ps []*proto.Pong) {
		for _, s := range tr.out {
			if p, ok := s.m.(*proto.Pong); ok && s.c == 1 {
				ps = append(ps, p)
			}
		}
		return ps
	}
	tr.out = tr.out[:0]
	arrived := now + dt/3
	if e := r.ReceiveAt(1, &proto.Ping{ID: 7, Time: 12345}, arrived, arrived+time.Millisecond); e != nil {
		t.Fatal(e.Text)
	}
	if len(pongs()) != 0 {
		t.Fatal("the pong went out before the heartbeat")
	}
	var hbAt time.Duration
	for hbAt == 0 {
		before := len(tr.out)
		step()
		for _, s := range tr.out[before:] {
			if _, ok := s.m.(*proto.Heartbeat); ok {
				hbAt = now
			}
		}
		if now > arrived+time.Second {
			t.Fatal("no heartbeat within a second")
		}
	}
	ps := pongs()
	if len(ps) != 1 {
		t.Fatalf("%d pongs with the heartbeat, want 1", len(ps))
	}
	p := ps[0]
	if p.ID != 7 || p.Echo != 12345 {
		t.Errorf("pong answers ping %d (echo %d), want 7 (12345)", p.ID, p.Echo)
	}
	if want := int64((arrived - r.epoch) / time.Microsecond); p.Time != want {
		t.Errorf("pong time %d µs, want the arrival %d µs", p.Time, want)
	}
	if want := uint32((hbAt - arrived) / time.Microsecond); p.Held != want {
		t.Errorf("pong held %d µs, want %d µs (arrival to heartbeat)", p.Held, want)
	}
	if r.NextTick() != r.epoch+time.Duration(r.Now()+1)*dt {
		t.Errorf("NextTick %v is not the tick after %d", r.NextTick(), r.Now())
	}
}

// TestPongTimesAnRTTAtArrival: a client's pong handled a tick after it
// arrived counts the round trip to its arrival, not to its handling.
func TestPongTimesAnRTTAtArrival(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 2, Ping: 50 * time.Millisecond})
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	var p *proto.Ping
	sent := runUntil(t, r, 0, time.Second, func() bool {
		for _, m := range tr.to(1) {
			if ping, ok := m.(*proto.Ping); ok {
				p = ping
			}
		}
		return p != nil
	})
	const rtt = 40 * time.Millisecond
	if e := r.ReceiveAt(1, &proto.Pong{ID: p.ID, Echo: p.Time}, sent+rtt, sent+rtt+8*time.Millisecond); e != nil {
		t.Fatal(e.Text)
	}
	m := r.members[r.byConn[1]]
	if got := m.rtt.RTT(); got != rtt {
		t.Errorf("RTT %v, want %v (the handling delay must not count)", got, rtt)
	}
}

// TestPongHeldUntilItLeaves: with Config.Clock, a held pong says how long it
// was held until it left, and a ping's send time is when it left, not the
// time Tick was given: a wake-up that first runs the ticks it slept through
// sends later than that, and the difference is not network.
func TestPongHeldUntilItLeaves(t *testing.T) {
	const late = 3 * time.Millisecond // the room's work before the heartbeat leaves
	var now time.Duration
	r, tr := newTestRoom(t, Config{Seats: 2, Clock: func() time.Duration { return now + late }})
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	arrived := time.Second + time.Millisecond
	var sent []sentMsg
	sentAt, pinged := time.Duration(-1), false
	for now = r.NextTick(); sentAt < 0; now = r.NextTick() {
		if now > 3*time.Second {
			t.Fatal("no pong within 2 s")
		}
		if !pinged && now >= arrived {
			if e := r.ReceiveAt(1, &proto.Ping{ID: 7}, arrived, now); e != nil {
				t.Fatal(e.Text)
			}
			pinged = true
		}
		before := len(tr.out)
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		for _, s := range tr.out[before:] {
			if _, ok := s.m.(*proto.Pong); ok {
				sent, sentAt = tr.out[before:], now
			}
		}
	}
	left := sentAt + late
	var ping *proto.Ping
	for _, s := range sent {
		switch m := s.m.(type) {
		case *proto.Pong:
			if want := uint32((left - arrived) / time.Microsecond); m.Held != want {
				t.Errorf("pong held %d µs, want %d µs: until it left", m.Held, want)
			}
		case *proto.Ping:
			ping = m
		}
	}
	if ping == nil {
		t.Fatal("no ping with the heartbeat")
	}
	m := r.members[r.byConn[1]]
	if s := m.pings[ping.ID%uint32(len(m.pings))]; s.id != ping.ID || s.at != left {
		t.Errorf("ping %d recorded as sent at %v, want %v (when it left)", ping.ID, s.at, left)
	}
}
