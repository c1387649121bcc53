package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/clock"
)

// deathProbe is the page's own cycle and the death message, read at once.
type deathProbe struct {
	Alive, InRound bool
	Msg            bool
	At             float64
}

const deathProbeJS = `JSON.stringify((() => {
  const s = window.webtron.state();
  const me = s.players.find((p) => p.id === s.you);
  const e = document.getElementById("death-msg");
  return {Alive: !!me && me.alive, InRound: !!me, Msg: !!e && e.getClientRects().length > 0, At: performance.now()};
})())`

func (p *page) deathProbe(t *testing.T) deathProbe {
	t.Helper()
	js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](deathProbeJS))
	if err != nil {
		t.Fatal(err)
	}
	var d deathProbe
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

var (
	placeRE = regexp.MustCompile(`^You placed (\d+)(st|nd|rd|th) of (\d+) · (.+) · ([+-]?\d+) points? this round$`)
	causeRE = regexp.MustCompile(`^(cut off by .+|hit a wall|hit the rim.*|your own wall.*|crashed head-on.*)$`)
)

// TestBrowserSoloSummary: a player alone with bots rides until they crash,
// as a newcomer would. Within half a second a message names what killed
// them; the round's summary says who won or why nobody did, where they
// placed among the round's riders and what ended their ride, and stays at
// least 5 s; nothing overlaps; Escape closes it. At a laptop's size and a
// phone's, upright and on its side.
func TestBrowserSoloSummary(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	for _, vp := range []struct {
		w, h  int64
		touch bool
	}{{1280, 720, false}, {844, 390, true}, {390, 844, true}} {
		t.Run(fmt.Sprintf("%dx%d", vp.w, vp.h), func(t *testing.T) {
			room := fmt.Sprintf("solo%d", vp.w)
			p := playIn(t, browser(t), "http://"+addr, room, "Solo", screen(vp.w, vp.h, vp.touch))
			waitFor(t, "the page to ride", 30*time.Second, func() bool { return riding(t, p) })
			watchSummary(t, p)
			// It rides straight on: into the rim or a bot's wall.
			var died float64
			waitFor(t, "the crash", 90*time.Second, func() bool {
				d := p.deathProbe(t)
				if !d.Alive && d.InRound {
					died = d.At
					return true
				}
				return false
			})
			var seen float64
			waitFor(t, "the death message", 2*time.Second, func() bool {
				d := p.deathProbe(t)
				seen = d.At
				return d.Msg
			})
			msg := p.text(t, "#death-msg")
			t.Logf("death message %q %.0f ms after the frame that showed the crash was read", msg, seen-died)
			if seen-died > 500 {
				t.Errorf("the death message came %.0f ms after the crash, want within 500 ms", seen-died)
			}
			if !strings.HasPrefix(msg, "Derezzed — ") || !causeRE.MatchString(strings.TrimPrefix(msg, "Derezzed — ")) {
				t.Errorf("death message %q does not say what killed the player", msg)
			}
			waitFor(t, "the summary", 15*time.Second, func() bool { return shown(t, p, "summary") })
			start := time.Now()
			title, you := p.text(t, "#summary-title"), p.text(t, "#summary-you")
			t.Logf("summary %q / %q", title, you)
			m := placeRE.FindStringSubmatch(you)
			if m == nil || !causeRE.MatchString(m[4]) {
				t.Errorf("#summary-you %q does not give the place and the cause", you)
			} else if m[1] > m[3] || m[3] == "1" {
				t.Errorf("#summary-you %q: a place among fewer riders than the bots and the player", you)
			}
			if !strings.HasPrefix(title, "Round ") {
				t.Errorf("#summary-title %q", title)
			}
			// How long it stays is read in the page's clock (watchSummary):
			// the test's own polling, on a loaded machine, sees it come late.
			shotTaken := false
			for {
				up, gone := summaryUp(t, p)
				if gone {
					if up < 5000 {
						t.Fatalf("the summary went after %.0f ms, want at least 5 s", up)
					}
					break
				}
				if up >= 5000 {
					break
				}
				if !shotTaken && time.Since(start) > 2*time.Second {
					shot(t, p, fmt.Sprintf("solo-%dx%d-summary", vp.w, vp.h))
					shotTaken = true
				}
				l := readLayout(t, p, hudIDs)
				if len(l.Overlaps) > 0 || len(l.Offscreen) > 0 {
					shot(t, p, fmt.Sprintf("solo-%dx%d-fail", vp.w, vp.h))
					t.Fatalf("overlapping %v, off screen %v; visible: %s", l.Overlaps, l.Offscreen, l.visible())
				}
				time.Sleep(250 * time.Millisecond)
			}
			final := p.text(t, "#summary-title")
			if !strings.Contains(final, "win") && !strings.Contains(final, "nobody won") {
				t.Errorf("#summary-title %q after the round names no winner and says not why", final)
			}
			// The summary stays 6 s (MIN_SHOW_MS): a test slowed past that
			// by a loaded machine finds it gone by design, and has nothing
			// left to click.
			if up, gone := summaryUp(t, p); gone {
				if up < 5000 {
					t.Fatalf("the summary went after %.0f ms, want at least 5 s", up)
				}
				t.Logf("the test came back after the summary's %.0f ms were up: its buttons not tried this run", up)
				noErrors(t, p)
				return
			}
			switch {
			case vp.w == 390:
				// Watch again, then back to the lobby: the round is in
				// Recent rounds, and the list fits the phone's width.
				if !clickOn(t, p, "watchagain") {
					t.Fatal("Watch again is not on screen 5 s after the summary came")
				}
				replayPlaying(t, p, "")
				if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("replay-back"))); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the round in Recent rounds", 30*time.Second, func() bool { return visible(t, p, "#replays button.watch") })
				labels := text(t, p, `Array.from(document.querySelectorAll("#replays button.watch"), (b) => b.getAttribute("aria-label") || "").join("|")`)
				for _, l := range strings.Split(labels, "|") {
					if !strings.HasPrefix(l, "Watch the round in solo") || !strings.HasSuffix(l, " ago") {
						t.Errorf("a round's Watch button is labelled %q, want it to name its room and when", l)
					}
				}
				fit, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](`(() => {
				  const t = document.querySelector("#replays table"), box = document.getElementById("replays");
				  const b = document.querySelector("#replays button.watch").getBoundingClientRect();
				  return [t.getBoundingClientRect().width, box.clientWidth, b.left, b.right, innerWidth];
				})()`))
				if err != nil {
					t.Fatal(err)
				}
				// Nor is what a row says cut to nothing: "2 m…" for "2 min ago".
				if cut := text(t, p, `Array.from(document.querySelectorAll("#replays td.when, #replays td.rname, #replays td.winner"), (td) => td.scrollWidth > td.clientWidth + 1 ? td.textContent : "").filter((s) => s).join(", ")`); cut != "" {
					shot(t, p, "recent-rounds-390-cut")
					t.Errorf("Recent rounds cut off %s at 390 px", cut)
				}
				if len(fit) != 5 || fit[0] > fit[1]+1 || fit[2] < 0 || fit[3] > fit[4] {
					shot(t, p, "recent-rounds-390")
					t.Errorf("Recent rounds overflow the phone's width: table %.0f px in %.0f, Watch from %.0f to %.0f of %.0f", fit[0], fit[1], fit[2], fit[3], fit[4])
				}
			case vp.touch:
				if !clickOn(t, p, "summary-close") {
					t.Fatal("Close is not on screen 5 s after the summary came")
				}
				waitFor(t, "the summary to close", 2*time.Second, func() bool { return !shown(t, p, "summary") })
			default:
				if err := chromedp.Do(p.ctx, key(true, "Escape", 27), key(false, "Escape", 27)); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the summary to close", 2*time.Second, func() bool { return !shown(t, p, "summary") })
			}
			noErrors(t, p)
		})
	}
}

// watchSummary notes, in the page's clock, when #summary first shows and
// when it first hides after that, for summaryUp.
func watchSummary(t *testing.T, p *page) {
	t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](`(() => {
	  const e = document.getElementById("summary"), w = window.__summaryWatch = { shown: -1, hidden: -1 };
	  const note = () => {
	    if (!e.hidden && w.shown < 0) w.shown = performance.now();
	    if (e.hidden && w.shown >= 0 && w.hidden < 0) w.hidden = performance.now();
	  };
	  note();
	  new MutationObserver(note).observe(e, { attributes: true, attributeFilter: ["hidden"] });
	  return 0;
	})()`)); err != nil {
		t.Fatal(err)
	}
}

// summaryUp returns how long, in ms of the page's clock, #summary has been
// up (or was, when gone) since watchSummary saw it show.
func summaryUp(t *testing.T, p *page) (up float64, gone bool) {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](`(() => { const w = window.__summaryWatch;
	  return [w.shown, w.hidden, performance.now()]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 3 || v[0] < 0 {
		t.Fatalf("the summary's watch saw it never show: %v", v)
	}
	if v[1] >= 0 {
		return v[1] - v[0], true
	}
	return v[2] - v[0], false
}

// TestBrowserMatchSummary: a match of two rounds (LIMIT_ROUNDS 2) ends with
// the match summary: the final standings and the match's winner.
func TestBrowserMatchSummary(t *testing.T) {
	browserTests(t)
	addr := startServerSettings(t, "SP_LIMIT_ROUNDS 2\nLIMIT_ROUNDS 2\nBOTS 1\n")
	p := playIn(t, browser(t), "http://"+addr, "match", "Matcher")
	waitFor(t, "the match summary", 150*time.Second, func() bool { return shown(t, p, "match-summary") })
	title, table := p.text(t, "#match-summary-title"), p.text(t, "#match-summary-table")
	t.Logf("match summary %q / %q", title, table)
	if !strings.HasPrefix(title, "Match over — ") || !strings.Contains(title, "win") && !strings.Contains(title, "tie") {
		t.Errorf("#match-summary-title %q names no winner", title)
	}
	if !strings.Contains(table, "Matcher") || !strings.Contains(table, "1. ") {
		t.Errorf("#match-summary-table %q lacks the standings", table)
	}
	start := time.Now()
	for time.Since(start) < 5*time.Second {
		if !shown(t, p, "match-summary") {
			t.Fatalf("the match summary went after %v, want at least 5 s", time.Since(start).Round(time.Millisecond))
		}
		time.Sleep(250 * time.Millisecond)
	}
	if s := p.state(t); s.Round != 1 {
		t.Errorf("after the match summary the page is in round %d, want the next match's first", s.Round)
	}
	noErrors(t, p)
}

// TestBrowserFirstVisit: How to play is on screen in the lobby without
// scrolling, its arrow keys drawn as large as its letter keys, and the controls for the device are on screen during the first
// visits' countdowns, not on the third.
func TestBrowserFirstVisit(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	for _, vp := range []struct {
		w, h  int64
		touch bool
	}{{1280, 720, false}, {390, 844, true}} {
		t.Run(fmt.Sprintf("%dx%d", vp.w, vp.h), func(t *testing.T) {
			b := browser(t)
			lobby := openPage(t, b, "http://"+addr+"/", screen(vp.w, vp.h, vp.touch))
			waitFor(t, "the lobby", 10*time.Second, func() bool { return shown(t, lobby, "howto") })
			bottom, err := chromedp.Run(lobby.ctx, chromedp.Evaluate[bool](`document.getElementById("howto").getBoundingClientRect().bottom <= innerHeight`))
			if err != nil {
				t.Fatal(err)
			}
			if !bottom {
				shot(t, lobby, fmt.Sprintf("howto-%dx%d", vp.w, vp.h))
				t.Errorf("How to play is below the fold at %dx%d", vp.w, vp.h)
			}
			if !vp.touch {
				// The arrow keys, the game's first controls, read as large as
				// the letter keys beside them: in the monospace font they
				// were a short dash (← 6 px of ink across, A 7 px).
				ink, err := chromedp.Run(lobby.ctx, chromedp.Evaluate[[]float64](`(() => {
				  const kbd = Array.from(document.querySelectorAll("#howto .keys kbd")), cs = getComputedStyle(kbd[0]), c = document.createElement("canvas").getContext("2d");
				  c.font = cs.fontSize + " " + cs.fontFamily;
				  const w = (s) => { const m = c.measureText(s); return m.actualBoundingBoxLeft + m.actualBoundingBoxRight; };
				  return [w(kbd.find((k) => k.textContent === "←").textContent), w(kbd.find((k) => k.textContent === "A").textContent)];
				})()`))
				if err != nil {
					t.Fatal(err)
				}
				if len(ink) != 2 || ink[0] < ink[1] {
					t.Errorf("in How to play the ← key is %v px of ink across, narrower than the A key's: the arrows read as dashes", ink)
				}
			}
			for visit := 1; visit <= 3; visit++ {
				p := playIn(t, b, "http://"+addr, fmt.Sprintf("first%d-%d", vp.w, visit), "Newbie", screen(vp.w, vp.h, vp.touch))
				seen := false
				waitFor(t, "a countdown and the ride after it", 60*time.Second, func() bool {
					seen = seen || shown(t, p, "controls-hint")
					return riding(t, p)
				})
				hint := p.text(t, "#controls-hint")
				t.Logf("visit %d: hint shown %v: %q", visit, seen, hint)
				if want := visit < 3; seen != want {
					t.Errorf("visit %d: controls hint shown %v, want %v", visit, seen, want)
				}
				if vp.touch != strings.Contains(hint, "Tap") {
					t.Errorf("visit %d: the hint %q does not speak of the device's controls", visit, hint)
				}
				noErrors(t, p)
				p.close()
			}
		})
	}
}
