package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"webtron/clock"
	"webtron/server"
)

// TestBrowserNoWebGL: in a Chromium without WebGL (--disable-3d-apis, as a
// blocklisted GPU or headless Firefox leaves it), a newcomer who clicks
// Play is told in the page (#fatal) that WebGL is missing and what to try,
// instead of a black screen; the server hears of it (a client error of
// kind webgl); the message's button leads back to the lobby.
func TestBrowserNoWebGL(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	bctx := launch(t, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-3d-apis", true))
	p := openPage(t, bctx, "http://"+addr+"/")
	if err := chromedp.Do(p.ctx, retype("name", "Glless"), retype("room", "nogl"), chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "#fatal after Play", 20*time.Second, func() bool {
		shown, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(e => e !== null && !e.hidden)(document.getElementById("fatal"))`))
		return err == nil && shown
	})
	shot(t, p, "nowebgl")
	text, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("fatal").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"WebGL", "hardware acceleration", "another browser", "Back to lobby"} {
		if !strings.Contains(text, want) {
			t.Errorf("#fatal does not say %q:\n%s", want, text)
		}
	}
	if showsGame(t, p) || showsLobby(t, p) {
		t.Errorf("the game or the lobby shows under #fatal")
	}
	waitFor(t, "the server to count the report", 5*time.Second, func() bool {
		return metric(t, addr, server.MetricClientErrors+`{kind="webgl"}`) == 1
	})

	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("fatal-back"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the lobby", 5*time.Second, func() bool { return showsLobby(t, p) })
	hidden, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.getElementById("fatal").hidden`))
	if err != nil || !hidden {
		t.Fatalf("#fatal still shown in the lobby (%v)", err)
	}
	if got := pathname(t, p); got != "/" {
		t.Errorf("the lobby at %q, want /", got)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		if strings.HasPrefix(e, "exception:") {
			t.Errorf("uncaught: %s", e)
		}
	}
}

// keepWorker is a page-side stub for tests: the page's Worker, the core's,
// is kept in window.__coreWorker, so that a test can send it what no page
// would.
func keepWorker() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
			Source: `{ const W = window.Worker; window.Worker = class extends W { constructor(...a) { super(...a); window.__coreWorker = this; } }; }`})
		return chromedp.Void{}, err
	}
}

// TestBrowserCorePanic: a panic in the wasm core while a player rides (the
// worker is told to start a session whose options are a string: the Go
// core's start panics reading them) comes back as an error, not a dead
// core: the worker stops the game and tells the page, which shows what
// happened (#fatal) and reports it (a client error of kind panic); back in
// the lobby, Play joins again with the same core.
func TestBrowserCorePanic(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	p := openPage(t, browser(t), "http://"+addr+"/", keepWorker())
	if err := chromedp.Do(p.ctx, retype("name", "Crash"), retype("room", "panic"), chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to join", 20*time.Second, func() bool { return inGame(t, p) })
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`window.__coreWorker.postMessage({t: "start", opts: "not options", url: "ws://" + location.host + "/ws", transport: "websocket", gen: 999}), true`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "#fatal after the panic", 10*time.Second, func() bool {
		shown, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`!document.getElementById("fatal").hidden`))
		return err == nil && shown
	})
	text, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("fatal").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stopped with an error", "webtron core: start:", "Value.Get", "Back to lobby"} {
		if !strings.Contains(text, want) {
			t.Errorf("#fatal does not say %q:\n%s", want, text)
		}
	}
	if showsGame(t, p) {
		t.Errorf("the game still shows under #fatal")
	}
	waitFor(t, "the server to count the report", 5*time.Second, func() bool {
		return metric(t, addr, server.MetricClientErrors+`{kind="panic"}`) == 1
	})
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("fatal-back"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the lobby", 5*time.Second, func() bool { return showsLobby(t, p) })
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to join again", 20*time.Second, func() bool { return inGame(t, p) })
	if got := metric(t, addr, server.MetricClientErrors+`{kind="panic"}`); got != 1 {
		t.Errorf("%v panics reported, want 1", got)
	}
}
