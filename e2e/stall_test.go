package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/clock"
	"webtron/server"
)

// TestBrowserBusyPageKeepsItsConnection: a page whose main thread is busy
// for 3 s (a slow machine compiling the first frame's shaders, a long
// script) asks its worker for no frame meanwhile; the worker keeps the
// core's time itself, so the page keeps its connection and its seat. It
// used to take the gap for a frozen tab and reconnect for a snapshot (the
// browser tests' stray bad_token, under load), handing the cycle to the
// server's bot for a second.
func TestBrowserBusyPageKeepsItsConnection(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	p := newcomer(t, addr, "Busy")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to join", 20*time.Second, func() bool { return inGame(t, p) })
	time.Sleep(time.Second)
	seat, opened := p.state(t).You, connectionsOpened(t, addr)
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(() => { const t = performance.now(); while (performance.now() - t < 3000) {} return true; })()`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := connectionsOpened(t, addr); n != opened {
		t.Fatalf("the page opened %v connections after its main thread was busy for 3 s, want none", n-opened)
	}
	if you := p.state(t).You; you != seat {
		t.Fatalf("the page is in seat %d after the busy spell, was in %d", you, seat)
	}
	noErrors(t, p)
}

// connectionsOpened sums the server's game connections opened so far, over
// its transports.
func connectionsOpened(t *testing.T, addr string) float64 {
	t.Helper()
	sum := 0.0
	for _, l := range scrape(t, addr) {
		rest, ok := strings.CutPrefix(l, server.MetricConnsOpened+"{")
		if !ok {
			continue
		}
		_, v, _ := strings.Cut(rest, "} ")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		sum += f
	}
	return sum
}
