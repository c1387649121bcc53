package e2e

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"webtron/client"
	"webtron/clock"
	"webtron/headless"
	"webtron/internal/stats"
	"webtron/lab"
	"webtron/relay"
)

// play connects a headless player (package headless: the same
// client.Session the browser runs, a bot deciding, key presses at random
// moments inside the tick, brake taps for more samples, the perceived lag of
// every remote key press) through addr and waits for its Welcome.
func play(ctx context.Context, t *testing.T, addr, room, name string, seed uint64) *headless.Player {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := headless.Dial(ctx, headless.Options{URL: "ws://" + addr, Name: name, Room: room, Seed: seed, MindReader: true,
		BrakeEvery: 300 * time.Millisecond, Header: http.Header{"Origin": {"http://" + addr}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.WaitWelcome(ctx); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// realMatrix plays the pings (RTTs) through delay relays against the real
// server for d and returns the measured p50 of U_viewer(peer), by client index.
func realMatrix(t *testing.T, charity clock.Charity, pings []time.Duration, d time.Duration) map[[2]int]float64 {
	t.Helper()
	addr := startServer(t, charity)
	ctx := t.Context() // relays and connections: until the test's cleanups
	room := fmt.Sprintf("real-%d", time.Now().UnixNano()%1e6)
	var ps []*headless.Player
	for i, rtt := range pings {
		dir := relay.Direction{Delay: rtt / 2}
		r, err := relay.Start(ctx, relay.Config{Listen: "127.0.0.1:0", To: addr, Up: dir, Down: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		ps = append(ps, play(ctx, t, r.Addr(), room, fmt.Sprintf("p%d", i+1), uint64(i+1)))
	}
	run, stop := context.WithTimeout(ctx, d)
	defer stop()
	headless.Run(run, ps, 0)
	slot := map[int]int{} // player slot -> client index
	for i, p := range ps {
		p.Inspect(func(s *client.Session) { slot[s.You()] = i })
	}
	out := map[[2]int]float64{}
	for i, p := range ps {
		for s, v := range p.Lags() {
			if j, ok := slot[s]; ok && j != i {
				out[[2]int{i + 1, j + 1}] = stats.Ms(stats.Percentile(v, 0.5))
			}
		}
		if err := p.Err(); err != nil {
			t.Errorf("client %d ended: %v", i+1, err)
		}
		var st client.Stats
		p.Inspect(func(s *client.Session) { st = s.Stats() })
		if st.Resyncs != 0 || st.ProtocolErrors != 0 {
			t.Errorf("client %d: %d resyncs, %d protocol errors", i+1, st.Resyncs, st.ProtocolErrors)
		}
	}
	return out
}

// TestRealNetworkMatchesLab: the real server and headless clients through
// delay relays give the lab's perceived-lag matrix within one tick plus 5 ms,
// and the invariant U_j(i) + U_i(j) = RTT_i + RTT_j holds (issue 7).
func TestRealNetworkMatchesLab(t *testing.T) {
	if testing.Short() {
		t.Skip("real time")
	}
	tick := 1000.0 / 120
	for _, c := range []struct {
		charity string
		pings   []time.Duration
	}{
		{"0", []time.Duration{60 * time.Millisecond, 160 * time.Millisecond}},
		{"50ms", []time.Duration{60 * time.Millisecond, 160 * time.Millisecond}},
		{"auto", []time.Duration{60 * time.Millisecond, 160 * time.Millisecond}},
		{"auto", []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, 180 * time.Millisecond}},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.charity, len(c.pings)), func(t *testing.T) {
			ch, err := clock.ParseCharity(c.charity)
			if err != nil {
				t.Fatal(err)
			}
			real := realMatrix(t, ch, c.pings, 12*time.Second)
			model, err := lab.Run(lab.Options{Pings: c.pings, Charity: ch, MindReader: true, Duration: 60 * time.Second, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range model.Pairs {
				got, ok := real[[2]int{pr.Viewer, pr.Peer}]
				if !ok {
					t.Errorf("U_%d(%d): no samples on the real network", pr.Viewer, pr.Peer)
					continue
				}
				if math.Abs(got-pr.P50) > tick+5 {
					t.Errorf("U_%d(%d): real %.1f ms, lab %.1f ms (predicted %.1f)", pr.Viewer, pr.Peer, got, pr.P50, pr.Predicted)
				}
				back := real[[2]int{pr.Peer, pr.Viewer}]
				sum := float64(c.pings[pr.Viewer-1]+c.pings[pr.Peer-1]) / float64(time.Millisecond)
				if math.Abs(got+back-sum) > tick+5 {
					t.Errorf("U_%d(%d)+U_%d(%d) = %.1f ms, want RTT sum %.1f", pr.Viewer, pr.Peer, pr.Peer, pr.Viewer, got+back, sum)
				}
				t.Logf("U_%d(%d): real %.1f ms, lab %.1f ms, predicted %.1f ms", pr.Viewer, pr.Peer, got, pr.P50, pr.Predicted)
			}
		})
	}
}
