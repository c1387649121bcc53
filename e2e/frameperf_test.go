package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"webtron/clock"
	"webtron/server"
	"webtron/sim"
)

// TestBrowserFramePerf measures the client's work per frame in headless
// Chromium at the page's full frame rate (issue 25 goal 2): a page comes in
// through the lobby, as a person does, and plays in a room of 8 seats and in
// one of 32, every other seat a server bot; from the moment the round is in
// play it measures for WEBTRON_PERF_SECONDS (15 by default; docs/performance.md
// records 60) and prints, from window.webtron.perf(), p50/p95/p99 of the
// worker's time per frame (the update, i.e. simulation and rollback, plus
// the view's encoding and the copy out of the core), of the worker's time on
// the server's messages between frames, and of the main thread's script time
// per frame (applying the frame, the scene and its WebGL calls, the HUD, and
// since the previous frame the frame's request and the HUD's refresh from
// Info; not the GPU's work), with the load average before and after. A
// trace of the same window gives the main thread's script per frame again,
// its wall clock and the thread's CPU time (traceFrames): on two cores
// that SwiftShader's rendering shares, a WebGL call that waits on the GPU
// process, or script waiting for a core, counts in the wall clock and not in
// the CPU time. The
// goals (worker p95 at most 2 ms with 8 cycles and 4 ms with 32, main thread
// p95 at most 4 ms with 32) live in the figures, not in assertions: two
// shared cores make timings noisy. The test asserts only that frames were measured with every
// seat taken and a loose sanity bound.
//
// With WEBTRON_CPUPROFILE=dir it also records Chrome DevTools Protocol CPU
// profiles of the page and of the worker over the window
// (frameperf-<seats>-page.cpuprofile, frameperf-<seats>-worker.cpuprofile;
// scripts/cpuprofile-top summarizes them).
func TestBrowserFramePerf(t *testing.T) {
	browserTests(t)
	window := 15 * time.Second
	if v := os.Getenv("WEBTRON_PERF_SECONDS"); v != "" {
		s, err := strconv.Atoi(v)
		if err != nil || s <= 0 {
			t.Fatalf("WEBTRON_PERF_SECONDS=%q: want a whole number of seconds", v)
		}
		window = time.Duration(s) * time.Second
	}
	for _, seats := range []int{8, 32} {
		t.Run(strconv.Itoa(seats), func(t *testing.T) { framePerf(t, seats, window) })
	}
}

func framePerf(t *testing.T, seats int, window time.Duration) {
	// Armagetron's rules, but the round goes on to its end once the page's
	// rider is dead (FINISH_TYPE 3, as a server may be set): the window
	// measures a round in play, not countdowns. One human plays: the
	// single-player set rules.
	rules := sim.DefaultConfig()
	rules.SP.FinishType = sim.FinishNormal
	addr := startConfig(t, server.Config{Bots: seats - 1, Seats: seats, Rules: &rules, Policy: clock.Policy{Charity: clock.AutoCharity}})
	p := playIn(t, browser(t), "http://"+addr, "perf", "Perf")
	waitFor(t, "the round to be in play", 30*time.Second, func() bool { return p.state(t).Phase == int(sim.PhasePlay) })
	stopProfiles := startProfiles(t, p, seats)
	stopTrace := traceFrames(t, p)
	load0 := loadAverage()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](`window.webtron.resetPerf()`)); err != nil {
		t.Fatal(err)
	}
	// A reading every second: how many cycles ride, and which rounds.
	var alive, samples int
	rounds := map[int]bool{}
	for end := time.Now().Add(window); time.Now().Before(end); time.Sleep(time.Second) {
		st := p.state(t)
		for _, pl := range st.Players {
			if pl.Alive {
				alive++
			}
		}
		samples++
		rounds[st.Round] = true
		if len(st.Players) != seats {
			t.Fatalf("%d cycles present, want %d", len(st.Players), seats)
		}
	}
	perf := p.perf(t)
	trace := stopTrace()
	stopProfiles()
	t.Logf("%d seats, %d s from the start of play: %d frames (%.1f fps); %.1f cycles alive on average, %d round(s); load average %s -> %s",
		seats, int(window.Seconds()), perf.Frames, perf.FPS, float64(alive)/float64(max(samples, 1)), len(rounds), load0, loadAverage())
	t.Logf("worker per frame: %v (update alone %v); worker on messages between frames: %v", perf.Worker, perf.Update, perf.Recv)
	t.Logf("main thread script per frame: %v (drawing alone %v); frame interval %v", perf.Main, perf.Render, perf.Frame)
	t.Logf("main thread script per frame, traced: %v", trace)
	// The trace and the page's own count see the same frames (the trace
	// starts a moment before the reset and ends a moment after perf()).
	if trace.Frames < perf.Frames*9/10 {
		t.Errorf("the trace found %d frames of the %d the page drew", trace.Frames, perf.Frames)
	}
	if perf.Frames < int(window.Seconds()) {
		t.Errorf("%d frames in %v: the page hardly drew", perf.Frames, window)
	}
	// A sanity bound far above the goals: a worker this slow per frame is broken, not loaded.
	if perf.Worker.P50 > 50 {
		t.Errorf("the worker's median time per frame is %.1f ms", perf.Worker.P50)
	}
	noErrors(t, p)
}

// loadAverage is the machine's 1, 5 and 15 minute load averages, as uptime shows them.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// startProfiles starts CPU profiles of page p and of its core's worker when
// WEBTRON_CPUPROFILE names a directory; the returned func stops them and
// writes them there.
func startProfiles(t *testing.T, p *page, seats int) (stop func()) {
	t.Helper()
	dir := os.Getenv("WEBTRON_CPUPROFILE")
	if dir == "" {
		return func() {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	targets, err := chromedp.Targets(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctxs := map[string]context.Context{"page": p.ctx}
	for _, ti := range targets {
		if ti.Type == "worker" && strings.HasSuffix(strings.SplitN(ti.URL, "?", 2)[0], "/worker.js") {
			wctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(target.ID(ti.TargetID)))
			t.Cleanup(cancel)
			ctxs["worker"] = wctx
		}
	}
	if ctxs["worker"] == nil {
		t.Fatalf("no worker among the targets: %d targets", len(targets))
	}
	for name, ctx := range ctxs {
		if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, profiler.Enable, struct{}{}); err != nil {
				return err
			}
			if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
				return err
			}
			_, err := chromedp.Call(ctx, profiler.Start, struct{}{})
			return err
		})); err != nil {
			t.Fatalf("profiling the %s: %v", name, err)
		}
	}
	return func() {
		for name, ctx := range ctxs {
			res, err := chromedp.Call(ctx, profiler.Stop, struct{}{})
			if err != nil {
				t.Fatalf("stopping the %s's profile: %v", name, err)
			}
			b, err := json.Marshal(res.Profile)
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(dir, fmt.Sprintf("frameperf-%d-%s.cpuprofile", seats, name))
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", f)
		}
	}
}

// TestBrowserDrawCalls: in a room of 32 seats whose bots die at the round's
// opening, a frame that shows several blasts at once makes no more draw calls
// than one that shows one: the floor, the rim, the trails and their glow, the
// cycles' three instanced meshes, the lag-o-meters' outline and fill, and the
// blasts' three instanced meshes, 12 in all whatever the number of cycles and
// blasts (issue 25 goal 2: draw calls were the main thread's largest cost).
// Before, each blast drew three meshes, each in two passes (a transparent
// double-sided material), as did the lag-o-meters' fill.
func TestBrowserDrawCalls(t *testing.T) {
	browserTests(t)
	rules := sim.DefaultConfig()
	rules.SP.FinishType = sim.FinishNormal
	addr := startConfig(t, server.Config{Bots: 31, Seats: 32, Rules: &rules, Policy: clock.Policy{Charity: clock.AutoCharity}})
	p := playIn(t, browser(t), "http://"+addr, "calls", "Caller")
	var sc sceneReport
	waitFor(t, "a frame with three blasts or more", 60*time.Second, func() bool {
		sc = p.scene(t)
		return sc.ExplosionsDrawn >= 3
	})
	t.Logf("%d blasts and %d lag-o-meters drawn in %d draw calls", sc.ExplosionsDrawn, sc.LagMeters, sc.DrawCalls)
	if sc.DrawCalls > 12 {
		t.Errorf("%d draw calls with %d blasts shown: want at most 12", sc.DrawCalls, sc.ExplosionsDrawn)
	}
	noErrors(t, p)
}
