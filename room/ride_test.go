package room

import (
	"testing"
	"time"

	"webtron/proto"
	"webtron/sim"
)

// TestHeartbeatRidesOnEvents: a heartbeat (with its pings and held pongs)
// near its time leaves with an event broadcast that goes anyway rather than
// in a packet of its own: each packet the server sends costs the client an
// acknowledgement upstream (docs/performance.md, issue 25 goal 5). The bots'
// broadcasts in the last quarter of the heartbeat's interval carry it, and
// so does the broadcast of a player's proposal once the faster interval its
// input calls for has passed, with that input's margin.
func TestHeartbeatRidesOnEvents(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 16, Bots: 15, Seed: 5})
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	now := runUntil(t, r, 0, 10*time.Second, func() bool {
		ph, _ := r.Timeline().Confirmed().Phase()
		return ph == sim.PhasePlay && r.Timeline().Confirmed().Cycle(r.byConn[1]).Alive
	})
	kinds := func(from int) (acc, hb, ping bool) {
		for _, s := range tr.out[from:] {
			switch s.m.(type) {
			case *proto.Accepted:
				acc = true
			case *proto.Heartbeat:
				hb = true
			case *proto.Ping:
				ping = true
			}
		}
		return
	}
	// 15 bots steer for 20 s: the quiet interval (no player's input).
	every := r.cfg.QuietHeartbeat
	lastHB, rode, alone := r.lastHB, 0, 0
	for end := now + 20*time.Second; now < end; {
		now = r.NextDue()
		from := len(tr.out)
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		acc, hb, ping := kinds(from)
		if hb != ping {
			t.Fatalf("at %v a heartbeat %v and a ping %v: they go together", now, hb, ping)
		}
		if acc && now-lastHB >= every-every/4 && !hb {
			t.Fatalf("at %v, %v after the last heartbeat, events went without it", now, now-lastHB)
		}
		if hb {
			if now-lastHB > every+r.TickDuration() {
				t.Fatalf("heartbeats %v apart, more than %v", now-lastHB, every)
			}
			if acc {
				rode++
			} else {
				alone++
			}
			lastHB = now
		}
	}
	t.Logf("20 s of 15 bots: %d heartbeats rode on events, %d went alone", rode, alone)
	if rode == 0 {
		t.Errorf("no heartbeat rode on events (%d alone)", alone)
	}

	// A player's turn 300 ms after the last heartbeat: its broadcast carries
	// the heartbeat, and the heartbeat its margin.
	for now-r.lastHB < 300*time.Millisecond || now-r.lastHB >= every-every/4-50*time.Millisecond {
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	from := len(tr.out)
	if e := r.Receive(1, &proto.Propose{Events: []proto.Proposal{{Seq: 1, Tick: uint64(r.Now() + 2), Kind: sim.EvTurnLeft}}}, now); e != nil {
		t.Fatal(e)
	}
	acc, hb, ping := kinds(from)
	if !acc || !hb || !ping {
		t.Fatalf("the proposal's answer: Accepted %v, Heartbeat %v, Ping %v; want all three", acc, hb, ping)
	}
	for _, s := range tr.out[from:] {
		if h, ok := s.m.(*proto.Heartbeat); ok {
			for _, p := range h.Players {
				if int(p.Player) == r.byConn[1] && p.Margin == proto.NoMargin {
					t.Error("the heartbeat that rode with the turn has no margin for it")
				}
			}
		}
	}
}

// withoutHeartbeat drops the heartbeats and the pings, pongs and rosters
// that go with them from ms.
func withoutHeartbeat(ms []proto.Message) []proto.Message {
	var out []proto.Message
	for _, m := range ms {
		switch m.(type) {
		case *proto.Heartbeat, *proto.Ping, *proto.Pong, *proto.Roster:
		default:
			out = append(out, m)
		}
	}
	return out
}
