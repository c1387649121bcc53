package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"webtron/clock"
)

// hudIDs are the HUD's elements; no two visible ones may overlap, the F3
// netcode overlay (#debug) included.
var hudIDs = []string{"status", "hud-settings", "fullscreen", "mute", "leave", "scores", "killfeed", "banner", "center", "subcenter",
	"death-msg", "fs-offer", "back-cue", "controls-hint", "summary", "match-summary", "chatlog", "chatform", "gauges", "brakepad", "minimap", "debug"}

// layoutJS returns, as JSON, the visible HUD elements' boxes and every pair
// that overlaps.
const layoutJS = `JSON.stringify((() => {
  const ids = %s;
  const boxes = [];
  for (const id of ids) {
    const el = document.getElementById(id);
    if (!el || el.getClientRects().length === 0 || getComputedStyle(el).visibility === "hidden") continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    boxes.push({id, x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height), r});
  }
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 0.5 && h > 0.5) overlaps.push(boxes[i].id + " and " + boxes[j].id);
  }
  const offscreen = boxes.filter((b) => b.r.left < -0.5 || b.r.top < -0.5 || b.r.right > innerWidth + 0.5 || b.r.bottom > innerHeight + 0.5).map((b) => b.id);
  return {boxes: boxes.map(({id, x, y, w, h}) => ({id, x, y, w, h})), overlaps, offscreen};
})())`

type hudLayout struct {
	Boxes []struct {
		ID         string
		X, Y, W, H int
	} `json:"boxes"`
	Overlaps  []string `json:"overlaps"`
	Offscreen []string `json:"offscreen"`
}

func (l hudLayout) visible() string {
	var ids []string
	for _, b := range l.Boxes {
		ids = append(ids, fmt.Sprintf("%s %dx%d@%d,%d", b.ID, b.W, b.H, b.X, b.Y))
	}
	return strings.Join(ids, ", ")
}

// readLayout reads the layout of the elements named by ids (hudIDs, replayIDs).
func readLayout(t *testing.T, p *page, ids []string) hudLayout {
	t.Helper()
	js, _ := json.Marshal(ids)
	out, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf(layoutJS, js)))
	if err != nil {
		t.Fatal(err)
	}
	var l hudLayout
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// screen emulates a viewport of w x h CSS pixels: a phone's (touch, mobile) or a laptop's.
func screen(w, h int64, phone bool) chromedp.Action[chromedp.Void] {
	if phone {
		return chromedp.EmulateViewport(w, h, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	return chromedp.EmulateViewport(w, h)
}

// scoresCutJS names the scoreboard's figures (a score, a lag) that reach
// past its box, which cuts them off; "" when all show.
const scoresCutJS = `(() => {
  const box = document.getElementById("scores");
  if (box.getClientRects().length === 0) return "";
  const b = box.getBoundingClientRect(), right = b.left + box.clientLeft + box.clientWidth;
  return Array.from(box.querySelectorAll("td.score, td.lag")).filter((td) => td.getClientRects().length > 0 && td.textContent !== "")
    .map((td) => [td, td.getBoundingClientRect()]).filter(([, r]) => r.right > right + 0.5)
    .map(([td, r]) => td.textContent + " (" + Math.round(r.left) + ".." + Math.round(r.right) + " in a box to " + Math.round(right) + ")").join(", ");
})()`

// TestBrowserHUDLayout: at phone sizes upright and on its side, and on a
// laptop screen, no visible HUD element overlaps another or leaves the
// screen, and the scoreboard cuts off no score of a player whose name is as
// long as names go, while riding, while watching after a crash, and in the
// round's summary; a chat line is on screen throughout.
func TestBrowserHUDLayout(t *testing.T) {
	browserTests(t)
	// One bot: the round is over at the first crash (the page rides straight
	// into the rim), so the summary comes soon.
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	for _, vp := range []struct {
		w, h  int64
		touch bool
	}{{390, 844, true}, {844, 390, true}, {1280, 720, false}} {
		t.Run(fmt.Sprintf("%dx%d", vp.w, vp.h), func(t *testing.T) {
			room := fmt.Sprintf("hud%d", vp.w)
			// A name as long as the server takes (proto.MaxNameLen).
			p := playIn(t, browser(t), "http://"+addr, room, "Layout-with-a-long-name", screen(vp.w, vp.h, vp.touch))
			seen := map[string]bool{}
			check := func(when string) {
				l := readLayout(t, p, hudIDs)
				for _, b := range l.Boxes {
					seen[b.ID] = true
				}
				if len(l.Overlaps) > 0 || len(l.Offscreen) > 0 {
					shot(t, p, fmt.Sprintf("hud-%dx%d-fail", vp.w, vp.h))
					t.Fatalf("%s: overlapping %v, off screen %v; visible: %s", when, l.Overlaps, l.Offscreen, l.visible())
				}
				if cut := text(t, p, scoresCutJS); cut != "" {
					shot(t, p, fmt.Sprintf("hud-%dx%d-scores", vp.w, vp.h))
					t.Fatalf("%s: the scoreboard cuts off %s", when, cut)
				}
			}
			// A chat line, typed as a person does.
			if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.Enter), chromedp.SendKeys(chromedp.ID("chatinput"), "hello from a small screen"+kb.Enter)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the page to ride", 30*time.Second, func() bool { return riding(t, p) })
			// The netcode overlay (F3) open: it must find a place of its own.
			if err := chromedp.Do(p.ctx, key(true, "F3", 114), key(false, "F3", 114)); err != nil {
				t.Fatal(err)
			}
			shot(t, p, fmt.Sprintf("hud-%dx%d-riding", vp.w, vp.h))
			for riding(t, p) {
				check("riding")
				time.Sleep(300 * time.Millisecond)
			}
			waitFor(t, "the round to end", 90*time.Second, func() bool {
				check("after the crash")
				return p.state(t).Phase == phaseOver
			})
			time.Sleep(300 * time.Millisecond)
			check("round summary")
			shot(t, p, fmt.Sprintf("hud-%dx%d-summary", vp.w, vp.h))
			for _, id := range []string{"status", "mute", "leave", "chatlog", "minimap", "summary", "debug", "death-msg"} {
				if !seen[id] {
					t.Errorf("#%s was never on screen", id)
				}
			}
			if vp.touch && !seen["brakepad"] {
				t.Error("the brake pad is not on a touch screen")
			}
			if !seen["gauges"] || !seen["scores"] {
				t.Error("the gauges or the scores were not shown while riding")
			}
			noErrors(t, p)
		})
	}
}

// phaseOver is sim.PhaseOver in window.webtron.state().phase.
const phaseOver = 3

// riding reports whether the page's own cycle is alive.
func riding(t *testing.T, p *page) bool {
	t.Helper()
	s := p.state(t)
	for _, pl := range s.Players {
		if pl.ID == s.You {
			return pl.Alive
		}
	}
	return false
}

// shot saves a screenshot in the artifacts directory.
func shot(t *testing.T, p *page, name string) {
	t.Helper()
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	os.WriteFile(filepath.Join(artifacts(t), name+".png"), b, 0o644)
}

// touch puts a finger down at (x, y) (down) or lifts it (!down).
func touch(down bool, x, y float64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		p := input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}}
		if down {
			p = input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}}
		}
		_, err := cdp.Call(ctx, t, input.DispatchTouchEvent, p)
		return chromedp.Void{}, err
	}
}

// soundReport is window.webtron.sound().
type soundReport struct {
	Muted   bool   `json:"muted"`
	Context string `json:"context"`
	HumHz   int    `json:"hum_hz"`
	Clicks  int    `json:"clicks"`
	Crashes int    `json:"crashes"`
}

func (p *page) sound(t *testing.T) soundReport {
	t.Helper()
	js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron.sound())`))
	if err != nil {
		t.Fatal(err)
	}
	var r soundReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (p *page) text(t *testing.T, css string) string {
	t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, css)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// key holds a key down (down) or lets it go, as chromedp's KeyEvent (a whole
// press) cannot.
func key(down bool, code string, vk int64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		typ := input.DispatchKeyEventTypeKeyUp
		if down {
			typ = input.DispatchKeyEventTypeRawKeyDown
		}
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Code: code, Key: code, WindowsVirtualKeyCode: vk})
		return chromedp.Void{}, err
	}
}

// TestBrowserHUD: what an Armagetron player looks for on screen. Riding,
// the gauges show speed and a full brake reservoir that drains while the
// brake is held, each saying what it counts; the engine hums and a turn
// clicks. The crash ends the round (one bot): the kill feed names it, the
// summary has the winner, the round's points, the standings, the time to
// the next round and the lags both ways, each column's heading aligned as
// its figures. M mutes, and a reload remembers it.
func TestBrowserHUD(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	p := playIn(t, browser(t), "http://"+addr, "hud", "Hudson")
	waitFor(t, "the round to start", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })

	if got := p.text(t, "#gauge-speed .value"); !strings.HasSuffix(got, " m/s") || got == "0 m/s" {
		t.Errorf("speed gauge shows %q while riding", got)
	}
	if got := p.text(t, "#gauge-brake .value"); got != "100 %" {
		t.Errorf("brake gauge shows %q before any braking, want 100 %%", got)
	}
	if got := p.text(t, "#gauge-rubber .value"); !strings.HasSuffix(got, " %") {
		t.Errorf("rubber gauge shows %q", got)
	}
	// Rubber counts what is used (0 % is untouched), the brake what is left
	// (100 % is full): each gauge says what it counts.
	for _, g := range []struct{ id, says string }{{"gauge-speed", "speed"}, {"gauge-rubber", "Rubber used"}, {"gauge-brake", "Brake left"}} {
		if title := text(t, p, fmt.Sprintf(`document.getElementById(%q).title`, g.id)); !strings.Contains(title, g.says) {
			t.Errorf("#%s explains itself as %q, want it to say %q", g.id, title, g.says)
		}
	}
	if s := p.sound(t); s.Context != "running" || s.HumHz <= 0 {
		t.Errorf("sound while riding: %+v, want a running context and a hum", s)
	}
	if err := chromedp.Do(p.ctx, key(true, "ArrowDown", 40)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	braking := p.text(t, "#gauge-brake .value")
	if err := chromedp.Do(p.ctx, key(false, "ArrowDown", 40)); err != nil {
		t.Fatal(err)
	}
	if braking == "100 %" || braking == "" {
		t.Errorf("brake gauge shows %q after 0.4 s of braking", braking)
	}
	clicks := p.sound(t).Clicks
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the turn's click", 2*time.Second, func() bool { return p.sound(t).Clicks > clicks || !riding(t, p) })

	waitFor(t, "the round to end", 60*time.Second, func() bool { return p.state(t).Phase == phaseOver })
	time.Sleep(200 * time.Millisecond)
	feed := p.text(t, "#killfeed")
	if !strings.Contains(feed, "cut off") && !strings.Contains(feed, "hit the rim") && !strings.Contains(feed, "wall") && !strings.Contains(feed, "crashed") || !strings.Contains(feed, "Hudson") && !strings.Contains(feed, "Flynn") {
		t.Errorf("kill feed after the round: %q", feed)
	}
	title, next, table := p.text(t, "#summary-title"), p.text(t, "#summary-next"), p.text(t, "#summary-table")
	t.Logf("kill feed %q; summary %q / %q / %q", feed, title, table, next)
	if !strings.HasPrefix(title, "Round 1 — ") || !strings.Contains(title, "win") && !strings.Contains(title, "nobody won") {
		t.Errorf("summary title %q", title)
	}
	if !strings.HasPrefix(next, "Next round in ") {
		t.Errorf("summary says %q about the next round", next)
	}
	if !strings.Contains(table, "Hudson") || !strings.Contains(table, "Flynn") || !strings.Contains(table, " ms") {
		t.Errorf("summary table %q lacks the players or the lags", table)
	}
	// Each heading sits over its column's figures: left-aligned headings
	// over right-aligned numbers left "lag: you saw / they saw" far from
	// the lags it names.
	if odd := text(t, p, `(() => { const rows = document.querySelectorAll("#summary-table tr"), out = [];
	  const head = rows[0].children, al = (e) => ({start: "left", end: "right"})[getComputedStyle(e).textAlign] || getComputedStyle(e).textAlign;
	  for (const tr of Array.from(rows).slice(1)) Array.from(tr.children).forEach((td, i) => {
	    if (i < head.length && td.textContent !== "" && al(td) !== al(head[i])) out.push(head[i].textContent + " " + al(head[i]) + " over " + td.textContent + " " + al(td));
	  });
	  return [...new Set(out)].join("; "); })()`); odd != "" {
		t.Errorf("the summary's headings are not aligned as their columns: %s", odd)
	}
	if s := p.sound(t); s.Crashes == 0 {
		t.Errorf("no crash sound for the round's crash: %+v", s)
	}

	if p.sound(t).Muted {
		t.Fatal("muted before M was pressed")
	}
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent("m")); err != nil {
		t.Fatal(err)
	}
	if s := p.sound(t); !s.Muted || p.text(t, "#mute") != "Muted (M)" {
		t.Errorf("after M: %+v, button %q", s, p.text(t, "#mute"))
	}
	if err := chromedp.Do(p.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to come back", 20*time.Second, func() bool { return inGame(t, p) })
	if s := p.sound(t); !s.Muted || p.text(t, "#mute") != "Muted (M)" {
		t.Errorf("after a reload: %+v, button %q: the mute was forgotten", s, p.text(t, "#mute"))
	}
	noErrors(t, p)
}

// player returns the page's own cycle in s.
func (s pageState) own() (dir int, alive, braking bool) {
	for _, pl := range s.Players {
		if pl.ID == s.You {
			return pl.Dir, pl.Alive, pl.Braking
		}
	}
	return -1, false, false
}

// TestBrowserTouch: on an emulated phone, a newcomer opens the settings
// (the camera's and the sound's on screen), taps the name field, types,
// taps Play; in the game a tap on the right half turns right, one on
// the left half turns left, holding the brake pad brakes until the finger
// lifts, and a tap on the Sound button mutes without steering (the button
// names no key: there is none to press).
func TestBrowserTouch(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	p := openPage(t, browser(t), "http://"+addr+"/", screen(390, 844, true))
	// The settings a phone can use (camera, sound) come first, on screen
	// when the panel opens; the keys, for a keyboard, after them.
	if err := chromedp.Do(p.ctx, chromedp.WaitVisible(chromedp.ID("open-settings")), chromedp.Tap(chromedp.ID("open-settings")),
		chromedp.WaitVisible(chromedp.ID("settings"))); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"set-camera", "set-volume", "set-tags"} {
		if !aboveFold(t, p, id) {
			shot(t, p, "touch-settings")
			t.Errorf("#%s is not on screen when the settings open on a phone", id)
		}
	}
	// A phone has no Esc to press: Close names none.
	if got := text(t, p, `document.getElementById("settings-close").innerText`); got != "Close" {
		t.Errorf("the settings' close button says %q on a touch screen, want \"Close\"", got)
	}
	if err := chromedp.Do(p.ctx,
		chromedp.Tap(chromedp.ID("settings-close")),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.Tap(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "Thumbs"),
		chromedp.Tap(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	stayInGame(t, p, addr, "arena", time.Second)
	waitFor(t, "the round to start", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })

	turn := func(x float64, want func(dir0 int) int, what string) {
		dir0, alive, _ := p.state(t).own()
		if !alive {
			t.Fatalf("the cycle crashed before %s", what)
		}
		if err := chromedp.Do(p.ctx, chromedp.TapXY(x, 420)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, what, 2*time.Second, func() bool {
			dir, alive, _ := p.state(t).own()
			return dir == want(dir0) || !alive
		})
	}
	turn(350, func(d int) int { return (d + 3) % 4 }, "a tap on the right half to turn right")
	time.Sleep(300 * time.Millisecond) // the turn delay
	turn(40, func(d int) int { return (d + 1) % 4 }, "a tap on the left half to turn left")

	x, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.getElementById("brakepad").getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(p.ctx, touch(true, x[0], x[1])); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the brake pad to brake", 2*time.Second, func() bool {
		_, alive, braking := p.state(t).own()
		return braking || !alive
	})
	if err := chromedp.Do(p.ctx, touch(false, 0, 0)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the brake to let go", 2*time.Second, func() bool {
		_, _, braking := p.state(t).own()
		return !braking
	})

	time.Sleep(400 * time.Millisecond) // the counts come 4 times a second
	dir0, _, _ := p.state(t).own()
	sent := p.state(t).EventsSent
	if err := chromedp.Do(p.ctx, chromedp.Tap(chromedp.ID("mute"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Sound button to mute", 2*time.Second, func() bool { return p.sound(t).Muted })
	// A phone has no M key to press: the button does not name one.
	if got := p.text(t, "#mute"); got != "Muted" {
		t.Errorf("the Sound button says %q on a touch screen, want \"Muted\"", got)
	}
	time.Sleep(400 * time.Millisecond)
	if s := p.state(t); s.EventsSent != sent {
		dir, _, _ := s.own()
		t.Errorf("a tap on Sound sent %d events (direction %d -> %d): it steered", s.EventsSent-sent, dir0, dir)
	}
	noErrors(t, p)
}
