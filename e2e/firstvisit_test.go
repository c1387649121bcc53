package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"webtron/clock"
	"webtron/server"
	"webtron/web"
)

// Issue 25's first visit, under Chromium's network emulation.
const (
	// The link: 1.6 Mbps down, 750 kbps up, 150 ms from a request to its
	// response's headers.
	linkDown    = 1_600_000 / 8 // bytes a second
	linkUp      = 750_000 / 8
	linkLatency = 150 // ms

	// The goals.
	lobbyGoalMs     = 1500    // navigation to the lobby usable
	firstVisitGoal  = 700_000 // bytes both ways, navigation to the first frame
	playGoalMs      = 2000    // Play to the first frame, after lobbyStayMs in the lobby
	repeatVisitGoal = 20_000  // bytes both ways, a repeat visit to the core ready
	lobbyStayMs     = 3000

	// firstVisitCeiling is what the test lets through for the first visit's
	// transfer while the goal above is out of reach (docs/performance.md,
	// "First visit, issue 25": the Go runtime and three.js alone, compressed,
	// are 590 KB; the first visit moved 819 KB when the test was written):
	// the test fails past it, and logs how far over the goal it is. It was
	// 850,000 until the maps of other Axes (issue 24: the slanted geometry,
	// 11.6 KB of brotli in the core) took the first visit to 859 KB; growth
	// past this wants its reason found (go run ./web/build -sizes -sizes-of
	// PKG lists a package's functions).
	firstVisitCeiling = 880_000

	// The times are goals a run is measured against (WEBTRON_MEASURE=1);
	// in `make test` the machine's load decides them as much as the page
	// does (CI at load 7 took 2.4 s from Play to the first frame in four
	// runs of four), so there the test holds them to ceilings that only a
	// broken design misses: a lobby that waits for the core (ready 5.4 s
	// after the navigation on this link) or a core fetched only at Play
	// (its bytes alone take 3.3 s of the link).
	lobbyCeilingMs = 4000
	playCeilingMs  = 4000
)

// visitProbe is run in every document before the page's scripts: it notes,
// in the page's clock (ms since the navigation began), when the lobby is
// shown (painted, the name or the room field focused) and its room list filled,
// when the core's worker says ready, when Play is clicked, and when the
// first frame of the game is drawn.
const visitProbe = `(() => {
  const v = window.__visit = {};
  const now = () => performance.now();
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      v.workerStart = now();
      this.addEventListener("message", (e) => {
        const t = e.data && e.data.t;
        if (t === "ready" && !v.coreReady) v.coreReady = now();
        if (t === "open" && !v.open) v.open = now();
        if (t === "welcome" && !v.welcome) v.welcome = now();
      });
    }
    postMessage(m, ...rest) {
      if (m && m.t === "start" && !v.start) v.start = now();
      return super.postMessage(m, ...rest);
    }
  };
  document.addEventListener("click", (e) => { if (!v.play && e.target instanceof Element && e.target.closest("#play")) v.play = now(); }, true);
  document.addEventListener("DOMContentLoaded", () => {
    v.dcl = now();
    const app = performance.getEntriesByType("resource").find((r) => /\/app\.js/.test(r.name));
    if (app) { v.appStart = app.requestStart; v.appEnd = app.responseEnd; }
    const nav = performance.getEntriesByType("navigation")[0];
    if (nav) v.indexEnd = nav.responseEnd;
    const lobby = document.getElementById("lobby"), rooms = document.getElementById("rooms");
    const shown = () => !lobby.hidden && document.activeElement && ["name", "room"].includes(document.activeElement.id);
    const listed = () => !/Loading/.test(rooms.textContent);
    const tick = () => {
      if (!v.lobbyShown && shown()) v.lobbyShown = now();
      if (!v.roomsListed && listed()) v.roomsListed = now();
      if (v.play && !v.frame && window.webtron && window.webtron.state().tick > 0) v.frame = now();
      if (!v.frame) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
})()`

// visit is what visitProbe noted; 0 for what has not happened.
type visit struct {
	WorkerStart float64 `json:"workerStart"`
	CoreReady   float64 `json:"coreReady"`
	LobbyShown  float64 `json:"lobbyShown"`
	RoomsListed float64 `json:"roomsListed"`
	Play        float64 `json:"play"`
	Frame       float64 `json:"frame"`
	Start       float64 `json:"start"`   // the page asked the worker to join
	Open        float64 `json:"open"`    // the connection opened
	Welcome     float64 `json:"welcome"` // the server's Welcome arrived
	IndexEnd    float64 `json:"indexEnd"`
	AppStart    float64 `json:"appStart"`
	AppEnd      float64 `json:"appEnd"`
	DCL         float64 `json:"dcl"`
}

// usable is when the lobby could be used: shown with its room list.
func (v visit) usable() float64 {
	if v.LobbyShown == 0 || v.RoomsListed == 0 {
		return 0
	}
	return max(v.LobbyShown, v.RoomsListed)
}

func readVisit(t *testing.T, p *page) visit {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[visit](`window.__visit || {}`))
	if err != nil {
		t.Fatalf("reading the probe: %v", err)
	}
	return v
}

func pageNow(t *testing.T, p *page) float64 {
	t.Helper()
	ms, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`performance.now()`))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// emulation emulates the link for a tab and for the workers it starts,
// and installs visitProbe. The core's dedicated worker is a target of its
// own, which the tab's Network.emulateNetworkConditions does not cover
// (its fetches went at full speed, and workers answer that command "Not
// supported"): the tab's auto-attach holds each worker at its start until
// Network.emulateNetworkConditionsByRule has given it the same link.
type emulation struct {
	mu      sync.Mutex
	workers int
	errs    []error
}

// conditions is the link as Network.emulateNetworkConditions takes it.
func conditions() map[string]any {
	return map[string]any{"offline": false, "latency": linkLatency, "downloadThroughput": linkDown, "uploadThroughput": linkUp}
}

func (em *emulation) failed(err error) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.errs = append(em.errs, err)
}

// action is the tab's setup, before it navigates.
func (em *emulation) action(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
	err := chromedp.Listen(ctx, func(ev any) {
		a, ok := ev.(*cdptarget.EventAttachedToTarget)
		if !ok || a.TargetInfo.Type != "worker" {
			return
		}
		go em.worker(ctx, a.TargetInfo.TargetID)
	})
	if err != nil {
		return chromedp.Void{}, err
	}
	// With the Network domain on, Chromium gives each request its
	// initiator's stack, and for the first one V8 reparses every function on
	// the stack for its source positions: app.js's whole top level, 640 KB,
	// 200-300 ms of the lobby's main thread that no browser without DevTools
	// spends. No stacks are asked for here.
	if err := tg.Call(ctx, "Runtime.setMaxCallStackSizeToCapture", map[string]any{"size": 0}, nil); err != nil {
		return chromedp.Void{}, err
	}
	if err := tg.Call(ctx, "Network.emulateNetworkConditions", conditions(), nil); err != nil {
		return chromedp.Void{}, fmt.Errorf("Network.emulateNetworkConditions: %w", err)
	}
	if err := tg.Call(ctx, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}, nil); err != nil {
		return chromedp.Void{}, err
	}
	_, err = cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: visitProbe})
	return chromedp.Void{}, err
}

// worker gives a worker held at its start the link, then lets it run.
func (em *emulation) worker(ctx context.Context, id cdptarget.ID) {
	wctx, _ := chromedp.NewContext(ctx, chromedp.WithTargetID(id)) // ends with the tab's
	err := chromedp.Do(wctx, func(ctx context.Context, wt *chromedp.Target) (chromedp.Void, error) {
		rule := conditions()
		rule["urlPattern"] = "" // every request
		if err := wt.Call(ctx, "Network.emulateNetworkConditionsByRule", map[string]any{"matchedNetworkConditions": []any{rule}}, nil); err != nil {
			return chromedp.Void{}, fmt.Errorf("Network.emulateNetworkConditionsByRule in the worker: %w", err)
		}
		return chromedp.Void{}, wt.Call(ctx, "Runtime.runIfWaitingForDebugger", struct{}{}, nil)
	})
	if err != nil {
		em.failed(err)
		return
	}
	em.mu.Lock()
	em.workers++
	em.mu.Unlock()
}

// check fails the test unless every worker got the link, and one did.
func (em *emulation) check(t *testing.T) {
	t.Helper()
	em.mu.Lock()
	defer em.mu.Unlock()
	for _, err := range em.errs {
		t.Errorf("emulating the link: %v", err)
	}
	if em.workers == 0 {
		t.Error("no worker was given the emulated link")
	}
}

// tally counts the bytes a listener's connections move each way, by the
// kind of their first request: "ws" (the game's WebSocket) or "http" (the
// page, its assets, the lobby's API). These are the bytes on the wire less
// TCP's and IP's headers.
type tally struct {
	net.Listener
	mu     sync.Mutex
	bytes  map[string]int64 // kind -> bytes, both ways
	openWS int
}

func newTally(ln net.Listener) *tally { return &tally{Listener: ln, bytes: map[string]int64{}} }

func (l *tally) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tallied{Conn: c, l: l}, nil
}

// total returns the bytes moved so far: all, and over the game's WebSocket.
func (l *tally) total() (all, ws int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes["ws"] + l.bytes["http"] + l.bytes[""], l.bytes["ws"]
}

func (l *tally) wsOpen() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.openWS
}

type tallied struct {
	net.Conn
	l      *tally
	kind   string
	closed sync.Once
}

func (c *tallied) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.l.mu.Lock()
	if c.kind == "" && n > 0 {
		c.kind = "http"
		if line, _, _ := bytes.Cut(b[:n], []byte("\r\n")); bytes.HasPrefix(line, []byte("GET /ws ")) || bytes.HasPrefix(line, []byte("GET /ws?")) {
			c.kind = "ws"
			c.l.openWS++
		}
	}
	c.l.bytes[c.kind] += int64(n)
	c.l.mu.Unlock()
	return n, err
}

func (c *tallied) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.l.mu.Lock()
	c.l.bytes[c.kind] += int64(n)
	c.l.mu.Unlock()
	return n, err
}

func (c *tallied) Close() error {
	c.closed.Do(func() {
		c.l.mu.Lock()
		if c.kind == "ws" {
			c.l.openWS--
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// assets counts the response bytes of each file the web handler serves
// (compressed as sent), by path.
type assets struct {
	h     http.Handler
	mu    sync.Mutex
	sent  map[string]int64
	codes map[string]string
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cw := &countingWriter{ResponseWriter: w}
	a.h.ServeHTTP(cw, r)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sent[r.URL.Path] += cw.n
	a.codes[r.URL.Path] = fmt.Sprintf("%d %s", cw.code, w.Header().Get("Content-Encoding"))
}

func (a *assets) bytes(path string) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sent[path]
}

func (a *assets) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sent, a.codes = map[string]int64{}, map[string]string{}
}

// report lists what was served since the last reset, largest first.
func (a *assets) report() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	paths := make([]string, 0, len(a.sent))
	for p := range a.sent {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(x, y string) int { return int(a.sent[y] - a.sent[x]) })
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, " %s %d B (%s);", p, a.sent[p], strings.TrimSpace(a.codes[p]))
	}
	return b.String()
}

type countingWriter struct {
	http.ResponseWriter
	n    int64
	code int
}

func (w *countingWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// TestBrowserFirstVisitBudget is issue 25's first visit: a newcomer on a
// 1.6 Mbps / 750 kbps link with 150 ms of latency (Chromium's network
// emulation, the core's worker included) opens the site in a fresh
// profile, types a name while the lobby is up for 3 s, clicks Play, and
// rides; then the same browser opens the site again in a new tab. It fails
// when the lobby is usable too late after the navigation, when Play takes
// too long to the first frame (the goals are 1.5 s and 2 s), when the
// repeat visit moves more
// than 20 KB, and when the first visit moves more than firstVisitCeiling (it
// logs the 700 KB goal's shortfall). The link is emulated, the machine's
// load is not: a run that misses a time is tried again in a fresh profile,
// visitTries runs at most, and the test passes when one meets every budget.
// WEBTRON_MEASURE=1 runs them all, logs each, and holds the times to the
// goals; without it they are held to lobbyCeilingMs and playCeilingMs.
func TestBrowserFirstVisitBudget(t *testing.T) {
	browserTests(t)
	measure := os.Getenv("WEBTRON_MEASURE") != ""
	met := false
	var misses []string
	for run := 1; run <= visitTries && (measure || !met); run++ {
		t.Run(fmt.Sprint("run", run), func(t *testing.T) {
			misses = firstVisit(t)
			for _, m := range misses {
				t.Log("missed: " + m)
			}
		})
		met = met || len(misses) == 0
	}
	if !met {
		for _, m := range misses {
			t.Errorf("in each of %d runs; in the last: %s", visitTries, m)
		}
	}
}

// visitTries is how many runs TestBrowserFirstVisitBudget has to meet every budget.
const visitTries = 4

// firstVisit runs one first visit and one repeat visit, logs the figures,
// and returns the budgets missed. A failure that no load explains (the
// worker not throttled, console errors) fails the test at once.
func firstVisit(t *testing.T) (missed []string) {
	served := &assets{h: web.Handler()}
	served.reset()
	s, err := server.New(server.Config{Bots: 3, Seats: 8, Policy: clock.Policy{Charity: clock.AutoCharity}, Web: served, DataDir: dataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wire := newTally(ln)
	serve(t, s, wire)
	base := "http://" + ln.Addr().String()
	bctx := browser(t) // a fresh profile: nothing cached; QUIC off, so the game rides the (throttled) WebSocket

	// The first visit.
	var em emulation
	p := openPage(t, bctx, base+"/", em.action)
	var v visit
	waitFor(t, "the lobby", 20*time.Second, func() bool { v = readVisit(t, p); return v.usable() > 0 })
	// A person types a name and a room with real keys while the core loads.
	if err := chromedp.Do(p.ctx, retype("name", "Newcomer"), retype("room", "firstvisit")); err != nil {
		t.Fatal(err)
	}
	if got, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("name").value`)); got != "Newcomer" {
		t.Fatalf("the name field holds %q after typing Newcomer", got)
	}
	if wait := v.usable() + lobbyStayMs - pageNow(t, p); wait > 0 {
		time.Sleep(time.Duration(wait * float64(time.Millisecond)))
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first frame", 30*time.Second, func() bool { v = readVisit(t, p); return v.Frame > 0 })
	firstAll, firstWS := wire.total()
	firstAssets := served.report()
	noErrors(t, p)

	// The repeat visit: the tab closed, the site opened again in a new one.
	p.close()
	waitFor(t, "the game's connection to close", 10*time.Second, func() bool { return wire.wsOpen() == 0 })
	served.reset()
	before, _ := wire.total()
	var emAgain emulation
	q := openPage(t, bctx, base+"/", emAgain.action)
	var rv visit
	waitFor(t, "the lobby and the core, again", 20*time.Second, func() bool { rv = readVisit(t, q); return rv.usable() > 0 && rv.CoreReady > 0 })
	time.Sleep(time.Second) // anything late
	after, _ := wire.total()
	repeat := after - before
	noErrors(t, q)
	em.check(t)
	emAgain.check(t)

	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load average %s", strings.Join(strings.Fields(string(load))[:3], " "))
	t.Logf("first visit: index.html fetched at %.0f ms, app.js asked for at %.0f ms and fetched at %.0f ms, DOMContentLoaded at %.0f ms", v.IndexEnd, v.AppStart, v.AppEnd, v.DCL)
	t.Logf("first visit: lobby shown %.0f ms, rooms listed %.0f ms (usable %.0f ms; goal %d); the core's worker started at %.0f ms, the core ready at %.0f ms; Play clicked at %.0f ms, first frame at %.0f ms: %.0f ms (goal %d)",
		v.LobbyShown, v.RoomsListed, v.usable(), lobbyGoalMs, v.WorkerStart, v.CoreReady, v.Play, v.Frame, v.Frame-v.Play, playGoalMs)
	t.Logf("first visit: after Play: the join asked of the worker at +%.0f ms, the connection open at +%.0f ms, the Welcome at +%.0f ms, the first frame at +%.0f ms",
		v.Start-v.Play, v.Open-v.Play, v.Welcome-v.Play, v.Frame-v.Play)
	t.Logf("first visit: %d bytes both ways to the first frame, %d of them on the game's WebSocket (goal %d); assets:%s", firstAll, firstWS, firstVisitGoal, firstAssets)
	t.Logf("repeat visit: %d bytes both ways to the core ready (goal %d); lobby usable %.0f ms, core ready %.0f ms; assets:%s", repeat, repeatVisitGoal, rv.usable(), rv.CoreReady, served.report())

	// The core came over the emulated link: it cannot have been quicker
	// than its bytes at the link's rate.
	coreBytes := served.bytes("/webtron.wasm")
	if minMs := float64(coreBytes) * 1000 / linkDown; v.CoreReady-v.WorkerStart < minMs {
		t.Errorf("the core was ready %.0f ms after the worker started, under the %.0f ms its %d bytes take at %d B/s: the worker's fetch was not throttled",
			v.CoreReady-v.WorkerStart, minMs, coreBytes, linkDown)
	}

	lobbyMs, playMs := lobbyGoalMs, playGoalMs
	if os.Getenv("WEBTRON_MEASURE") == "" {
		lobbyMs, playMs = lobbyCeilingMs, playCeilingMs
		if v.usable() > lobbyGoalMs || v.Frame-v.Play > playGoalMs {
			t.Logf("a time over its goal (lobby %d ms, Play to the first frame %d ms): measured against the goals only with WEBTRON_MEASURE=1 on a quiet machine", lobbyGoalMs, playGoalMs)
		}
	}
	if v.usable() > float64(lobbyMs) {
		missed = append(missed, fmt.Sprintf("the lobby was usable %.0f ms after the navigation, over %d ms", v.usable(), lobbyMs))
	}
	if d := v.Frame - v.Play; d > float64(playMs) {
		missed = append(missed, fmt.Sprintf("Play to the first frame took %.0f ms, over %d ms", d, playMs))
	}
	if repeat > repeatVisitGoal {
		missed = append(missed, fmt.Sprintf("the repeat visit moved %d bytes, over the %d-byte goal", repeat, repeatVisitGoal))
	}
	if firstAll > firstVisitGoal {
		t.Logf("the first visit moved %d bytes: %d over the %d-byte goal (docs/performance.md, \"First visit, issue 25\", says why)", firstAll, firstAll-firstVisitGoal, firstVisitGoal)
	}
	if firstAll > firstVisitCeiling {
		missed = append(missed, fmt.Sprintf("the first visit moved %d bytes, over the %d it may while the goal is out of reach: find what grew (go run ./web/build -sizes)", firstAll, firstVisitCeiling))
	}
	return missed
}
