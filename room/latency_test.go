package room

import (
	"testing"
	"time"

	"webtron/clock"
	"webtron/proto"
	"webtron/sim"
)

// TestRubberLatency: the room puts each player's ping-rubber latency in the
// history (sim.EvLatency), so the simulation's Cycle.Latency is the largest
// perceived lag of another player in that player's view. With pings of 60
// and 160 ms and no charity that is each player's own round trip, as
// Armagetron's ping; with charity auto both see each other 110 ms late and
// get the same rubber.
func TestRubberLatency(t *testing.T) {
	for _, tc := range []struct {
		name    string
		charity clock.Charity
		want    [2]time.Duration
	}{
		{"no charity", clock.Charity{}, [2]time.Duration{60 * time.Millisecond, 160 * time.Millisecond}},
		{"charity auto", clock.AutoCharity, [2]time.Duration{110 * time.Millisecond, 110 * time.Millisecond}},
	} {
		r, tr := newTestRoom(t, Config{Seats: 2, Policy: clock.Policy{Charity: tc.charity}})
		hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
		hello(t, r, 2, &proto.Hello{Name: "b"}, 0)
		rtt := map[ConnID]time.Duration{1: 60 * time.Millisecond, 2: 160 * time.Millisecond}
		type pong struct {
			c   ConnID
			p   proto.Pong
			due time.Duration
		}
		var pending []pong
		seen := 0
		now := time.Duration(0)
		for now < 5*time.Second {
			now = r.NextTick()
			if err := r.Tick(now); err != nil {
				t.Fatal(err)
			}
			for ; seen < len(tr.out); seen++ {
				if ping, ok := tr.out[seen].m.(*proto.Ping); ok {
					c := tr.out[seen].c
					pending = append(pending, pong{c, proto.Pong{ID: ping.ID, Echo: ping.Time}, now + rtt[c]})
				}
			}
			for len(pending) > 0 && pending[0].due <= now {
				if e := r.ReceiveAt(pending[0].c, &pending[0].p, pending[0].due, now); e != nil {
					t.Fatal(e.Text)
				}
				pending = pending[1:]
			}
		}
		s := r.Timeline().Confirmed()
		for k, c := range []ConnID{1, 2} {
			got := time.Duration(s.Cycle(r.byConn[c]).Latency) * time.Microsecond
			if d := got - tc.want[k]; d < -latencyStep-r.dt || d > latencyStep+r.dt {
				t.Errorf("%s: player %d's rubber latency %v, want %v", tc.name, k, got, tc.want[k])
			}
		}
		n := 0
		for _, te := range r.Timeline().Log.From(0) {
			if te.Ev.Kind == sim.EvLatency {
				n++
			}
		}
		t.Logf("%s: %d latency events in 5 s", tc.name, n)
		if n > 10 {
			t.Errorf("%s: %d latency events in 5 s: the room should only send changes", tc.name, n)
		}
	}
}
