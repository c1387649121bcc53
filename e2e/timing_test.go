package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/client"
	"webtron/clock"
	"webtron/headless"
)

// perfReport is window.webtron.perf() (web/src/perf.ts).
type perfReport struct {
	Frames int     `json:"frames"`
	Update pct     `json:"update_ms"`
	Worker pct     `json:"worker_ms"`
	Recv   pct     `json:"recv_ms"`
	Render pct     `json:"render_ms"`
	Main   pct     `json:"main_ms"`
	Frame  pct     `json:"frame_ms"`
	Input  pct     `json:"input_ms"`
	FPS    float64 `json:"fps"`
}

type pct struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

func (p pct) String() string {
	return fmt.Sprintf("p50 %.2f p95 %.2f p99 %.2f ms", p.P50, p.P95, p.P99)
}

func (p *page) perf(t *testing.T) perfReport {
	t.Helper()
	js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron.perf())`))
	if err != nil {
		t.Fatal(err)
	}
	var r perfReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBrowserTiming: a page that draws 16 cycles in software at its full
// frame rate (no cap) shows the ping a client with nothing else to do
// measures on the same loopback, within 2 ms (on a loaded machine, the
// round trip the server measures to the page), and perceived lags within a
// tick + 2 ms of their predicted values. A busy page used to count the time
// its main thread was busy as network time (issue 11): the socket and the
// clock now live in a worker.
//
// "busy" adds what made the problem plain in the first place: the page's
// main thread spends 15 ms of every animation frame on other work (a slow
// machine's drawing), so the page runs at about 30 fps.
func TestBrowserTiming(t *testing.T) {
	browserTests(t)
	for _, busy := range []bool{false, true} {
		name := "drawing"
		if busy {
			name = "busy"
		}
		t.Run(name, func(t *testing.T) { timing(t, busy) })
	}
}

// burn makes every animation frame of the page's main thread last 15 ms longer.
const burn = `(() => { const f = () => { const t = performance.now(); while (performance.now() - t < 15) {} requestAnimationFrame(f); }; requestAnimationFrame(f); return true; })()`

func timing(t *testing.T, busy bool) {
	addr := startServerWith(t, clock.AutoCharity, 15, 16)
	p := newcomer(t, addr, "Timer")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to join", 20*time.Second, func() bool { return inGame(t, p) })
	// A headless client with nothing else to do, from the same moment, over
	// the page's transport (the server's path for WebTransport is not the
	// WebSocket's): the true round trip, and the same bots' events, as late
	// as the server made them.
	transport := headless.WebSocket
	if p.state(t).Transport == "webtransport" {
		transport = headless.WebTransport
	}
	w := watchOver(t, addr, "arena", transport)
	if busy {
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](burn)); err != nil {
			t.Fatal(err)
		}
	}
	// Measured lags need the bots' events (a bot turns every few seconds):
	// ride (or watch) until most bots have a median of several.
	waitFor(t, "lags measured against most bots", 90*time.Second, func() bool {
		n := 0
		for _, l := range p.state(t).Lags {
			if l.Samples >= minSamples {
				n++
			}
		}
		return n >= 8
	})
	// The ping shown against the true round trip, in windows of 5 s: the goal
	// must hold in one of them. A machine busy with other work (CI's other
	// jobs) can stall the worker's thread for a whole window now and then; a
	// page that counts its frame time as network time misses in every window,
	// by about a frame (20-70 ms here), so three tries keep the test able to fail.
	var ping, rtt, ref float64
	var st pageState
	var perf perfReport
	var what string
	for try := 1; ; try++ {
		var pings, truth []float64
		for range 20 {
			pings = append(pings, p.state(t).PingMs)
			w.with(func(s *client.Session) { truth = append(truth, s.Info().PingMs) })
			time.Sleep(250 * time.Millisecond)
		}
		st = p.state(t)
		perf = p.perf(t)
		ping, rtt = median(pings), median(truth)
		t.Logf("window %d: page: %.1f fps (frame p50 %.1f ms, p99 %.1f ms; render p50 %.1f ms); ping shown %.2f ms, a headless client's over %s %.2f ms, the server's to the page %.2f ms",
			try, perf.FPS, perf.Frame.P50, perf.Frame.P99, perf.Render.P50, ping, transport, rtt, st.ServerRTTMs)
		// The goal (issue 11) is set for a page drawing at about 30 fps: its
		// ping within 2 ms of the true round trip. A page slowed further by a
		// busy main thread (14-20 fps on this machine) is held to the round
		// trip the server measures to the same page, which pays Chromium's own
		// socket path too (about 1 ms here): the page's frame time must not
		// show in it. A machine loaded by other work (make test's other packages, load
		// 5 and up) slows Chromium's socket path as much: the server then
		// measures 2 ms to a drawing page whose headless neighbour answers
		// in 0.3 ms, and the page is held to the server's figure too.
		ref, what = rtt, "the true round trip (a headless client's)"
		if busy || math.Abs(ping-rtt) > 2 && math.Abs(ping-st.ServerRTTMs) <= 2 {
			ref = st.ServerRTTMs
			what = "the server's round trip to the page"
		}
		if math.Abs(ping-ref) <= 2 || try == 3 {
			break
		}
	}
	var skews []float64
	for range 20 {
		d, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`window.webtron.clock()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		skews = append(skews, d)
	}
	t.Logf("a message from the page to the worker arrives %.2f ms later on the worker's clock (median of 20; min %.2f)", median(skews), slices.Min(skews))
	// Each clock reads in steps of 0.1 ms (Chromium coarsens them), the origins too.
	if slices.Min(skews) < -0.5 {
		t.Errorf("the worker received a message %.2f ms before the page sent it: the clocks' timeOrigins do not line up", -slices.Min(skews))
	}
	if math.Abs(ping-ref) > 2 {
		t.Errorf("the page shows a ping of %.2f ms, %s is %.2f ms: off by more than 2 ms", ping, what, ref)
	}
	// The headless client's lag to each bot, less its median over the bots:
	// how much later than the others the server itself sent that bot's events
	// (a room running late on a loaded machine sends them late to everyone).
	late := map[int]float64{}
	w.with(func(s *client.Session) {
		var all []float64
		for _, pl := range s.Info().Players {
			if pl.Bot && pl.MeasuredLagN >= minSamples {
				all = append(all, pl.MeasuredLagMs)
			}
		}
		for _, pl := range s.Info().Players {
			if pl.Bot && pl.MeasuredLagN >= minSamples {
				late[pl.ID] = pl.MeasuredLagMs - median(all)
			}
		}
	})
	tick := 1000.0 / 120
	worst := 0.0
	for _, l := range st.Lags {
		if l.Samples < minSamples {
			continue // one late event would be the median
		}
		d := l.MeasuredMs - l.PredictedMs
		worst = max(worst, math.Abs(d))
		srv, seen := late[l.ID]
		t.Logf("player %2d: U predicted %5.1f ms, measured %5.1f ms (%+.1f, median of %d); the server sent it %+.1f ms late", l.ID, l.PredictedMs, l.MeasuredMs, d, l.Samples, srv)
		switch {
		case math.Abs(d) <= tick+2:
		case seen && srv > 2 && math.Abs(d-srv) <= tick+2:
			t.Logf("player %d: the headless client saw its events as late: the server's lateness, not the page's", l.ID)
		default:
			t.Errorf("player %d: measured lag %.1f ms, predicted %.1f ms: off by more than a tick + 2 ms", l.ID, l.MeasuredMs, l.PredictedMs)
		}
	}
	t.Logf("worst |measured - predicted| %.1f ms", worst)
	noErrors(t, p)
}

// minSamples is how many events a measured lag must be the median of to be judged.
const minSamples = 5

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s { // insertion sort: a handful of values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
