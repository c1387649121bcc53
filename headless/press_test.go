package headless

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"webtron/client"
	"webtron/server"
	"webtron/sim"
)

// TestTurnArrivesWherePressed: a headless player (as `webtron bots` runs
// them) presses a turn between two ticks over a real WebSocket; the turn
// reaches the server, and a spectator's copy of its history, with the
// instant within the tick it was pressed at (with the mind reader the
// moment of the press, without it exactly a tick later), and the corner is
// where the cycle was at that instant, within 1 cm.
func TestTurnArrivesWherePressed(t *testing.T) {
	srv, err := server.New(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config.ConnContext = srv.ConnContext
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		ts.Close()
	})
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	for _, mind := range []bool{true, false} {
		room := "press-off"
		if mind {
			room = "press-on"
		}
		t.Run(room, func(t *testing.T) {
			t.Parallel() // each room counts down on its own
			pressTurn(t, url, room, mind)
		})
	}
}

func pressTurn(t *testing.T, url, room string, mind bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a, err := Dial(ctx, Options{URL: url, Name: "a", Room: room, Seed: 1, Idle: true, MindReader: mind})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	w, err := Dial(ctx, Options{URL: url, Name: "w", Room: room, Spectate: true, Idle: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	frames, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); Run(frames, []*Player{a, w}, 0) }()
	defer wg.Wait()
	defer stop()

	dt := time.Second / 120
	var (
		me      = -1
		play    = int64(-1)   // the first tick seen in play
		instant time.Duration // when the turn should happen, on a's clock
		want    [2]int64      // where a's cycle was then
		dir     uint8
	)
	// Press two seconds into play, once the cycle has reached its speed,
	// between two ticks (not within 1/10 of a tick of one, so that the
	// instant's Arg is not 0 by rounding).
	for me < 0 {
		if ctx.Err() != nil {
			t.Fatalf("mind reader %v: no moment to press in 30 s", mind)
		}
		time.Sleep(2 * time.Millisecond)
		a.mu.Lock()
		s := a.sess
		st := s.State()
		now := a.now()
		if st != nil && s.You() >= 0 {
			c := st.Cycle(s.You())
			ph, _ := st.Phase()
			clk := s.Clock(now)
			in := clk - time.Duration(st.Tick())*dt
			if ph == sim.PhasePlay && play < 0 {
				play = st.Tick()
			}
			if ph == sim.PhasePlay && c.Alive && st.Tick()-play >= 240 && in > dt/10 && in < dt*9/10 {
				me, instant, dir = s.You(), clk, c.Dir
				if !mind {
					instant += dt
				}
				ride := c.Speed * int64(instant-time.Duration(st.Tick())*dt) / int64(time.Second)
				ahead := [4][2]int64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}[c.Dir&3] // east, north, west, south
				want = [2]int64{c.X + ahead[0]*ride, c.Y + ahead[1]*ride}
				a.drv.Press(now, sim.EvTurnLeft)
			}
		}
		a.mu.Unlock()
	}
	a.flush()

	// The spectator's history: the turn, and the corner once it is made.
	var tick int64
	var arg int32
	var corner [2]int64
	for seen := false; !seen; {
		if ctx.Err() != nil {
			t.Fatalf("mind reader %v: the spectator never saw the turn", mind)
		}
		time.Sleep(5 * time.Millisecond)
		w.Inspect(func(s *client.Session) {
			st := s.State()
			if st == nil {
				return
			}
			for _, te := range s.Timeline().Log.From(0) {
				if int(te.Ev.Player) == me && te.Ev.Kind == sim.EvTurnLeft && te.Tick < st.Tick() {
					c := st.Cycle(me)
					tick, arg, corner, seen = te.Tick, te.Ev.Arg, [2]int64{c.TurnX, c.TurnY}, true
					if max(c.LastLeft, c.LastRight) != te.Tick*sim.SubTicks+int64(te.Ev.At()) || c.Dir != (dir+1)&3 {
						t.Errorf("mind reader %v: the turn at %d + %d/256 was not made then (last turns %d, %d; dir %d)", mind, te.Tick, te.Ev.Arg, c.LastLeft, c.LastRight, c.Dir)
					}
				}
			}
		})
	}
	at := time.Duration(tick)*dt + dt*time.Duration(arg)/sim.SubTicks
	if arg == 0 || (at-instant).Abs() > dt/sim.SubTicks/2+time.Microsecond {
		t.Errorf("mind reader %v: the turn arrived at %d + %d/256 (%v), want %v", mind, tick, arg, at, instant)
	}
	d := max(corner[0]-want[0], want[0]-corner[0], corner[1]-want[1], want[1]-corner[1])
	t.Logf("mind reader %v: turn for %v arrived at tick %d + %d/256; corner (%d, %d) um, %d um from where the cycle was then", mind, instant, tick, arg, corner[0], corner[1], d)
	if d > 10_000 {
		t.Errorf("mind reader %v: corner (%d, %d), want (%d, %d) within 1 cm", mind, corner[0], corner[1], want[0], want[1])
	}
}
