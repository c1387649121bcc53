package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"webtron/client"
	"webtron/clock"
	"webtron/history"
)

// windowState minimizes the page's window (hiding the page: its document
// fires visibilitychange, as when another tab covers it) or restores it.
// Each page of these tests has a window of its own.
func windowState(ws cdpbrowser.WindowState) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		c := chromedp.FromContext(ctx)
		w, err := cdp.Call(ctx, c.Browser, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: c.Target.TargetID})
		if err != nil {
			return chromedp.Void{}, err
		}
		_, err = cdp.Call(ctx, c.Browser, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: w.WindowID, Bounds: &cdpbrowser.Bounds{WindowState: ws}})
		return chromedp.Void{}, err
	}
}

// hide hides page p (minimizes its window) and waits until its document says so.
func hide(t *testing.T, p *page, hidden bool) {
	t.Helper()
	ws := cdpbrowser.WindowStateNormal
	if hidden {
		ws = cdpbrowser.WindowStateMinimized
	}
	if err := chromedp.Do(p.ctx, windowState(ws)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fmt.Sprintf("document.hidden to be %v", hidden), 5*time.Second, func() bool {
		h, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.hidden`))
		return err == nil && h == hidden
	})
}

// cueShown reports whether the page shows #back-cue.
func cueShown(t *testing.T, p *page) bool {
	t.Helper()
	shown, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(() => { const e = document.getElementById("back-cue"); return !!e && !e.hidden && e.getClientRects().length > 0; })()`))
	if err != nil {
		t.Fatal(err)
	}
	return shown
}

// rideABit waits until the page's cycle rides in a round in play, and a
// little longer, so that the server has seen it ride (its seat is then held
// through a dropped connection).
func rideABit(t *testing.T, p *page) int {
	t.Helper()
	waitFor(t, "the page to ride", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })
	time.Sleep(600 * time.Millisecond)
	return p.state(t).You
}

// TestBrowserAway: a player whose tab is hidden for 20 s leaves no cycle
// riding unattended: the server's bot drives it (a spectator's history has
// the seat's inputs with the pilot's mark), and a watching page's scoreboard
// marks the player "(away)". Shown again, the page comes back to its own
// seat and living cycle with #back-cue saying that control returns, for
// about a second, and nobody is marked away any more.
func TestBrowserAway(t *testing.T) {
	browserTests(t)
	addr := startServer(t, clock.AutoCharity) // no bots: the player's cycle rides alone
	const room = "away"
	w := watch(t, addr, room)
	bctx := browser(t)
	p := playIn(t, bctx, "http://"+addr, room, "Roamer")
	s := openPage(t, bctx, "http://"+addr+"/")
	if err := chromedp.Do(s.ctx, retype("name", "Onlooker"), retype("room", room), chromedp.Click(chromedp.ID("spectate"))); err != nil {
		t.Fatal(err)
	}
	you := rideABit(t, p)

	hide(t, p, true)
	hidden := time.Now()
	var hiddenTick int64
	w.with(func(cs *client.Session) { hiddenTick = cs.Timeline().Present() })
	waitFor(t, "the onlooker's scoreboard to mark Roamer away", 5*time.Second, func() bool {
		return strings.Contains(s.text(t, "#scores"), "Roamer (away)")
	})
	if n := roomPlayers(t, addr, room); n != 1 {
		t.Fatalf("%d players in the room while Roamer is away, want Roamer's seat kept", n)
	}
	// The spectator's log forgets what is long confirmed: look as it goes.
	piloted := map[history.TickEvent]bool{}
	for time.Since(hidden) < 20*time.Second {
		w.with(func(cs *client.Session) {
			for _, te := range cs.Timeline().Log.From(hiddenTick) {
				if int(te.Ev.Player) == you && te.Ev.Kind.PlayerInput() && te.Ev.Seq&(1<<31) != 0 {
					piloted[te] = true
				}
			}
		})
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("hidden 20 s: the bot made %d inputs for Roamer's seat", len(piloted))
	if len(piloted) == 0 {
		t.Fatal("hidden 20 s and the bot made no input for Roamer's seat: the cycle rode unattended")
	}

	hide(t, p, false)
	back := time.Now()
	waitFor(t, "#back-cue", 10*time.Second, func() bool { return cueShown(t, p) })
	cueAt := time.Now()
	if txt := p.text(t, "#back-cue"); !strings.Contains(txt, "control returns") {
		t.Errorf("#back-cue says %q, want that control returns", txt)
	}
	t.Logf("the cue showed %v after the tab was shown", cueAt.Sub(back).Round(time.Millisecond))
	if l := readLayout(t, p, hudIDs); len(l.Overlaps) > 0 || len(l.Offscreen) > 0 {
		t.Errorf("with the cue: overlapping %v, off screen %v; visible: %s", l.Overlaps, l.Offscreen, l.visible())
	}
	shot(t, p, "away-back-cue")
	waitFor(t, "the cue to go", 3*time.Second, func() bool { return !cueShown(t, p) })
	// On the page's own clock: the test's polling sees the cue late under load.
	shownMs, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`(() => { const d = document.getElementById("back-cue").dataset; return Number(d.hiddenAt) - Number(d.shownAt); })()`))
	if err != nil {
		t.Fatal(err)
	}
	if shownMs < 900 || shownMs > 1500 {
		t.Errorf("the cue showed for %.0f ms, want about a second", shownMs)
	}
	waitFor(t, "Roamer's own cycle, alive", 10*time.Second, func() bool {
		st := p.state(t)
		if st.You != you && st.You >= 0 {
			t.Fatalf("back as player %d, was %d", st.You, you)
		}
		return st.You == you && riding(t, p)
	})
	if !inGame(t, p) || roomPlayers(t, addr, room) != 1 {
		t.Fatalf("after coming back: in the game %v, %d players in the room", inGame(t, p), roomPlayers(t, addr, room))
	}
	waitFor(t, "the onlooker's scoreboard to drop the away mark", 5*time.Second, func() bool {
		sc := s.text(t, "#scores")
		return strings.Contains(sc, "Roamer") && !strings.Contains(sc, "(away)")
	})
	noErrors(t, p)
	noErrors(t, s)
}

// TestBrowserSecondTab: the same browser opening the game in a second tab
// with the same name takes its own seat back (the token is the browser's)
// instead of being refused the name; the first tab says "continued in
// another tab" and stays in the lobby, even when shown again, rather than
// taking the seat back. Then the first tab's Play takes it back the same
// way (the second tab, open and shown, is closed by the server: the same
// message). Someone else asking for the name is told who holds it.
func TestBrowserSecondTab(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	const room, name = "tabs", "FoxFan"
	bctx := browser(t)
	first := playIn(t, bctx, "http://"+addr, room, name)
	you := rideABit(t, first)

	hide(t, first, true) // as when the new tab opens over it
	second := playIn(t, bctx, "http://"+addr, room, name)
	if got := second.state(t).You; got != you {
		t.Fatalf("the second tab is player %d, the first was %d", got, you)
	}
	waitFor(t, "the first tab to say the game continued", 10*time.Second, func() bool {
		return showsLobby(t, first) && strings.Contains(lobbyMessage(first), "continued in another tab")
	})
	hide(t, first, false)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if !showsLobby(t, first) {
			t.Fatal("the first tab, shown again, left the lobby")
		}
		if got := second.state(t).You; got != you || !inGame(t, second) || roomPlayers(t, addr, room) != 1 {
			t.Fatalf("the second tab: player %d in the game %v, %d players in the room; the first took the seat back", got, inGame(t, second), roomPlayers(t, addr, room))
		}
	}

	// The first tab's Play takes the seat back; the second, shown, is told.
	if err := chromedp.Do(first.ctx, retype("name", name), retype("room", room), chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	if again := stayInGame(t, first, addr, room, 3*time.Second); again != you {
		t.Fatalf("the first tab came back as player %d, was %d", again, you)
	}
	if !showsLobby(t, second) || !strings.Contains(lobbyMessage(second), "continued in another tab") {
		t.Fatalf("the second tab shows the lobby %v, saying %q", showsLobby(t, second), lobbyMessage(second))
	}

	other := newcomer(t, addr, strings.ToLower(name))
	if err := chromedp.Do(other.ctx, retype("room", room), chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	const want = "FoxFan is playing in this room; the name frees up when they leave"
	waitFor(t, "another browser to be told who has the name", 20*time.Second, func() bool {
		return showsLobby(t, other) && strings.Contains(lobbyMessage(other), want)
	})
	noErrors(t, first)
	noErrors(t, second)
}
