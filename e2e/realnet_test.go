package e2e

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/bot"
	"webtron/client"
	"webtron/clock"
	"webtron/history"
	"webtron/lab"
	"webtron/relay"
	"webtron/sim"
)

// player is a headless client playing over a real WebSocket: the same
// client.Session the browser runs, a bot deciding, key presses at random
// moments inside the tick, and the perceived lag of every remote event.
type player struct {
	mu      sync.Mutex
	sess    *client.Session
	bot     *bot.Bot
	start   time.Time
	conn    *websocket.Conn
	lags    map[int][]time.Duration // peer slot -> measured U
	rng     *rand.Rand
	lastTap time.Time
}

func play(ctx context.Context, t *testing.T, addr, room, name string, seed uint64) *player {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + addr}}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(4 << 20)
	p := &player{sess: client.New(client.Options{Name: name, Room: room, MindReader: true}), start: time.Now(), conn: c,
		lags: map[int][]time.Duration{}, rng: rand.New(rand.NewPCG(seed, 7))}
	p.sess.OnEvent = func(ev history.TickEvent, lag time.Duration) {
		p.lags[int(ev.Ev.Player)] = append(p.lags[int(ev.Ev.Player)], lag)
	}
	p.write(ctx, [][]byte{p.sess.Hello(0)})
	go func() {
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			p.mu.Lock()
			p.sess.Receive(time.Since(p.start), b)
			out := p.sess.Outgoing(nil)
			p.mu.Unlock()
			p.write(ctx, out)
		}
	}()
	go p.loop(ctx, seed)
	return p
}

func (p *player) write(ctx context.Context, msgs [][]byte) {
	for _, m := range msgs {
		p.conn.Write(ctx, websocket.MessageBinary, m)
	}
}

// loop updates the session every 4 ms and lets the bot press keys, each at a
// random moment within the next tick (plus a brake tap every ~300 ms, for
// more samples).
func (p *player) loop(ctx context.Context, seed uint64) {
	tk := time.NewTicker(4 * time.Millisecond)
	defer tk.Stop()
	var evs []sim.Event
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		p.mu.Lock()
		p.sess.Update(time.Since(p.start))
		evs = evs[:0]
		if s := p.sess.State(); s != nil && p.sess.You() >= 0 {
			if p.bot == nil {
				p.bot = bot.New(p.sess.You(), seed)
			}
			evs = p.bot.Decide(s, evs)
			if c := s.Cycle(p.sess.You()); c.Alive && time.Since(p.lastTap) > time.Duration(200+p.rng.IntN(200))*time.Millisecond {
				p.lastTap = time.Now()
				k := sim.EvBrakeOn
				if c.Braking {
					k = sim.EvBrakeOff
				}
				evs = append(evs, sim.Event{Kind: k})
			}
		}
		out := p.sess.Outgoing(nil)
		p.mu.Unlock()
		p.write(ctx, out)
		for _, ev := range evs {
			kind := ev.Kind
			time.AfterFunc(time.Duration(p.rng.IntN(8333))*time.Microsecond, func() {
				p.mu.Lock()
				p.sess.Press(time.Since(p.start), kind, 0)
				out := p.sess.Outgoing(nil)
				p.mu.Unlock()
				p.write(ctx, out)
			})
		}
	}
}

// realMatrix plays the pings (RTTs) through delay relays against the real
// server for d and returns the measured p50 of U_viewer(peer), by client index.
func realMatrix(t *testing.T, charity clock.Charity, pings []time.Duration, d time.Duration) map[[2]int]float64 {
	t.Helper()
	addr := startServer(t, charity)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	room := fmt.Sprintf("real-%d", time.Now().UnixNano()%1e6)
	var ps []*player
	for i, rtt := range pings {
		dir := relay.Direction{Delay: rtt / 2}
		r, err := relay.Start(ctx, relay.Config{Listen: "127.0.0.1:0", To: addr, Up: dir, Down: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ps = append(ps, play(ctx, t, r.Addr(), room, fmt.Sprintf("p%d", i+1), uint64(i+1)))
	}
	time.Sleep(d)
	slot := map[int]int{} // player slot -> client index
	for i, p := range ps {
		p.mu.Lock()
		slot[p.sess.You()] = i
		p.mu.Unlock()
	}
	out := map[[2]int]float64{}
	for i, p := range ps {
		p.mu.Lock()
		for s, v := range p.lags {
			if j, ok := slot[s]; ok && j != i {
				out[[2]int{i + 1, j + 1}] = lab.Ms(lab.Percentile(v, 0.5))
			}
		}
		if st := p.sess.Stats(); st.Resyncs != 0 || st.ProtocolErrors != 0 {
			t.Errorf("client %d: %d resyncs, %d protocol errors", i+1, st.Resyncs, st.ProtocolErrors)
		}
		p.mu.Unlock()
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
			ch, _ := clock.ParseCharity(c.charity)
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
