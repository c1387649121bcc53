package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"webtron/clock"
)

// cameraState is window.webtron.state().camera.
type cameraState struct {
	Mode    string    `json:"mode"`
	HFov    float64   `json:"hfov_deg"`
	VFov    float64   `json:"vfov_deg"`
	Glance  string    `json:"glance"`
	Horizon float64   `json:"horizon"`
	Pos     []float64 `json:"pos"`
}

func (p *page) camera(t *testing.T) cameraState {
	t.Helper()
	js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron.state().camera)`))
	if err != nil {
		t.Fatal(err)
	}
	var c cameraState
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// press is one whole key press with its code (and the virtual key code the
// browser needs for the ones that type nothing).
func press(code string, vk int64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		return chromedp.Void{}, chromedp.Do(ctx, key(true, code, vk), key(false, code, vk))
	}
}

// TestBrowserCameras: C goes through the chase, top-down, smart and first
// person cameras and is remembered after a reload; a glance key turns the
// view while held; the field of view set in the settings (Esc) is the one
// drawn; names float over the rivals and their lag-o-meters are drawn.
func TestBrowserCameras(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	p := playIn(t, browser(t), "http://"+addr, "cams", "Viewer", screen(1280, 720, false))
	waitFor(t, "the page to ride", 30*time.Second, func() bool { return riding(t, p) })
	if c := p.camera(t); c.Mode != "chase" || c.VFov < 69 || c.VFov > 71 {
		t.Fatalf("camera at first: %+v, want chase at 70 degrees", c)
	}
	for _, want := range []string{"top", "smart", "first", "chase"} {
		if err := chromedp.Do(p.ctx, press("KeyC", 67)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "camera "+want, 2*time.Second, func() bool { return p.camera(t).Mode == want })
	}
	// A glance while held.
	if err := chromedp.Do(p.ctx, key(true, "KeyZ", 90)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the glance left", 2*time.Second, func() bool { return p.camera(t).Glance == "left" })
	if err := chromedp.Do(p.ctx, key(false, "KeyZ", 90)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the glance to end", 2*time.Second, func() bool { return p.camera(t).Glance == "none" })
	// The field of view: Esc opens the settings (no summary shows while
	// riding), the slider takes ten steps up with the keyboard.
	waitFor(t, "the summary to be gone", 30*time.Second, func() bool { return !shown(t, p, "summary") })
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the settings", 2*time.Second, func() bool { return shown(t, p, "settings") })
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("set-fov"))); err != nil {
		t.Fatal(err)
	}
	before := p.camera(t).VFov
	for range 10 {
		if err := chromedp.Do(p.ctx, press("ArrowRight", 39)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a wider field of view", 2*time.Second, func() bool { return p.camera(t).VFov >= before+9 })
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("settings-close"))); err != nil {
		t.Fatal(err)
	}
	// The top-down camera, kept over a reload with the field of view.
	if err := chromedp.Do(p.ctx, press("KeyC", 67)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the top-down camera", 2*time.Second, func() bool { return p.camera(t).Mode == "top" })
	want := p.camera(t)
	if err := chromedp.Do(p.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to come back", 20*time.Second, func() bool { return inGame(t, p) })
	if c := p.camera(t); c.Mode != "top" || c.VFov != want.VFov {
		t.Errorf("after a reload the camera is %+v, want %+v", c, want)
	}
	if err := chromedp.Do(p.ctx, press("KeyC", 67), press("KeyC", 67), press("KeyC", 67)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chase camera", 2*time.Second, func() bool { return p.camera(t).Mode == "chase" })
	waitFor(t, "names over the rivals and their lag-o-meters", 40*time.Second, func() bool {
		s := p.scene(t)
		return s.NameTags > 0 && s.LagMeters > 0
	})
	l := readLayout(t, p, hudIDs)
	if len(l.Overlaps) > 0 || len(l.Offscreen) > 0 {
		t.Errorf("overlapping %v, off screen %v", l.Overlaps, l.Offscreen)
	}
	shot(t, p, "cameras-chase")
	noErrors(t, p)
}

// TestBrowserRebind: a key bound in the settings from the lobby turns the
// cycle, and its button keeps the focus; Armagetron's layout is a click
// away. The panel is opaque; Esc closes it and gives the focus back to the
// Settings button, and in the lobby opens it too; settings opened in a room
// close when the player leaves for the lobby.
func TestBrowserRebind(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	p := openPage(t, browser(t), "http://"+addr+"/")
	if err := chromedp.Do(p.ctx, chromedp.WaitVisible(chromedp.ID("open-settings")), chromedp.Click(chromedp.ID("open-settings")),
		chromedp.WaitVisible(chromedp.ID("key-left-1")), chromedp.Click(chromedp.ID("key-left-1")), press("KeyJ", 74)); err != nil {
		t.Fatal(err)
	}
	if got := p.text(t, "#key-left-1"); got != "J" {
		t.Fatalf("the second key for turning left shows %q, want J", got)
	}
	if got := text(t, p, `document.activeElement ? document.activeElement.id : ""`); got != "key-left-1" {
		t.Errorf("after binding J the focus is on %q, want the key's button, key-left-1", got)
	}
	// The panel hides what is under it: the lobby's text showed through and
	// mixed with the panel's.
	alpha, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`(() => { const m = getComputedStyle(document.getElementById("settings")).backgroundColor.match(/[\d.]+/g); return m.length > 3 ? Number(m[3]) : 1; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if alpha < 0.95 {
		t.Errorf("the settings panel's background is %.2f opaque, want at least 0.95", alpha)
	}
	// Esc closes it, and the keyboard carries on from the Settings button.
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	if shown(t, p, "settings") {
		t.Fatal("Esc did not close the settings")
	}
	if got := text(t, p, `document.activeElement ? document.activeElement.id : ""`); got != "open-settings" {
		t.Errorf("after the settings closed the focus is on %q, want the Settings button that opened them", got)
	}
	// How to play says Esc opens the settings: in the lobby too.
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	if !shown(t, p, "settings") {
		t.Error("Esc in the lobby did not open the settings")
	}
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	if shown(t, p, "settings") {
		t.Fatal("a second Esc did not close the settings")
	}
	if err := chromedp.Do(p.ctx, retype("name", "Binder"), retype("room", "rebind"), chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	// In play: a turn pressed earlier in the countdown is dropped (premature input).
	waitFor(t, "the page to ride", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })
	you := p.state(t).You
	_, _, dir, _ := p.state(t).player(you)
	if err := chromedp.Do(p.ctx, press("KeyJ", 74)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "J to turn the cycle left", 3*time.Second, func() bool {
		_, _, d, ok := p.state(t).player(you)
		return ok && d == (dir+1)%4
	})
	// Armagetron's layout: O turns right.
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the settings", 2*time.Second, func() bool { return shown(t, p, "settings") })
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("set-keys-armagetron")), chromedp.Click(chromedp.ID("settings-close"))); err != nil {
		t.Fatal(err)
	}
	if got := p.text(t, "#key-right-1"); got != "O" {
		t.Fatalf("Armagetron's second key for turning right shows %q, want O", got)
	}
	// Opened in the game with ⚙ and closed, the settings leave no HUD
	// button with the focus: a Space would press it.
	if !clickOn(t, p, "hud-settings") {
		t.Fatal("the ⚙ button is not on screen")
	}
	waitFor(t, "the settings", 2*time.Second, func() bool { return shown(t, p, "settings") })
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, `document.activeElement && document.activeElement.closest("#game") ? document.activeElement.id : ""`); got != "" {
		t.Errorf("after the settings closed in the game the focus is on #%s", got)
	}
	// The settings open when the player leaves for the lobby close with the
	// room: left open they covered the lobby and took its clicks.
	if err := chromedp.Do(p.ctx, press("Escape", 27)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the settings", 2*time.Second, func() bool { return shown(t, p, "settings") })
	if !clickOn(t, p, "leave") {
		t.Fatal("the Lobby button is not on screen with the settings open")
	}
	waitFor(t, "the lobby", 5*time.Second, func() bool { return showsLobby(t, p) })
	if shown(t, p, "settings") {
		t.Error("the settings stayed open over the lobby")
	}
	if top := text(t, p, `(() => { const r = document.getElementById("play").getBoundingClientRect(); const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return e ? e.id || e.tagName : ""; })()`); top != "play" {
		t.Errorf("a click on Play lands on %q", top)
	}
	noErrors(t, p)
}

// gamepadStub stands in for navigator.getGamepads before the page's scripts
// run: a pad with the standard mapping whose buttons the test presses.
const gamepadStub = `(() => {
  const buttons = Array.from({length: 17}, () => ({pressed: false, touched: false, value: 0}));
  const pad = {id: "Test pad (STANDARD GAMEPAD)", index: 0, connected: true, mapping: "standard", axes: [0, 0, 0, 0], buttons, timestamp: 0};
  window.__pad = pad;
  navigator.getGamepads = () => [pad];
})()`

// TestBrowserGamepad: the d-pad's left turns left, a trigger held brakes.
func TestBrowserGamepad(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	stub := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: gamepadStub})
		return chromedp.Void{}, err
	}
	p := playIn(t, browser(t), "http://"+addr, "pad", "Padder", stub)
	waitFor(t, "the page to ride", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })
	you := p.state(t).You
	_, _, dir, _ := p.state(t).player(you)
	set := func(button int, on bool) {
		t.Helper()
		v := 0
		if on {
			v = 1
		}
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](fmt.Sprintf(`(window.__pad.buttons[%d] = {pressed: %v, touched: %v, value: %d}, 0)`, button, on, on, v))); err != nil {
			t.Fatal(err)
		}
	}
	set(14, true) // d-pad left
	waitFor(t, "the d-pad to turn the cycle left", 3*time.Second, func() bool {
		_, _, d, ok := p.state(t).player(you)
		return ok && d == (dir+1)%4
	})
	set(14, false)
	set(7, true) // right trigger
	waitFor(t, "the trigger to brake", 3*time.Second, func() bool {
		for _, pl := range p.state(t).Players {
			if pl.ID == you {
				return pl.Braking || !pl.Alive
			}
		}
		return false
	})
	set(7, false)
	noErrors(t, p)
}

// TestBrowserPhoneView: a phone held upright sees the walls beside it
// (78 degrees across) with the horizon in the upper quarter, and is offered
// fullscreen sideways before the ride (not while riding: the offer covered
// the cycle); on its side the view is as wide as on a laptop; the
// fullscreen button works; nothing overlaps.
func TestBrowserPhoneView(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	for _, vp := range []struct{ w, h int64 }{{390, 844}, {844, 390}} {
		t.Run(fmt.Sprintf("%dx%d", vp.w, vp.h), func(t *testing.T) {
			p := playIn(t, browser(t), "http://"+addr, fmt.Sprintf("phone%d", vp.w), "Pocket", screen(vp.w, vp.h, true))
			if vp.h > vp.w {
				waitFor(t, "the offer to go fullscreen sideways, before the ride", 10*time.Second, func() bool { return shown(t, p, "fs-offer") })
			}
			waitFor(t, "the page to ride", 30*time.Second, func() bool { return riding(t, p) })
			c := p.camera(t)
			t.Logf("%dx%d: %+v", vp.w, vp.h, c)
			if c.HFov < 75 {
				t.Errorf("%.0f degrees across, want at least 75", c.HFov)
			}
			if vp.h > vp.w {
				if c.Horizon < 0 || c.Horizon > 0.25 {
					t.Errorf("the horizon at %.2f of the height from the top, want in the upper quarter", c.Horizon)
				}
				// In the middle of the screen the offer covered the rider's
				// own cycle and the way ahead: it waits for the ride's end.
				waitFor(t, "the countdown's end", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })
				// (The page's state says it rides a frame before the HUD draws it.)
				for end := time.Now().Add(time.Second); shown(t, p, "fs-offer") && time.Now().Before(end); {
					time.Sleep(50 * time.Millisecond)
				}
				if shown(t, p, "fs-offer") {
					shot(t, p, "phone-offer-riding")
					t.Error("the offer to go fullscreen sideways shows over the middle of the screen while the page rides")
				}
			}
			l := readLayout(t, p, hudIDs)
			if len(l.Overlaps) > 0 || len(l.Offscreen) > 0 {
				shot(t, p, fmt.Sprintf("phone-%dx%d-fail", vp.w, vp.h))
				t.Errorf("overlapping %v, off screen %v; visible: %s", l.Overlaps, l.Offscreen, l.visible())
			}
			shot(t, p, fmt.Sprintf("phone-%dx%d", vp.w, vp.h))
			if !clickOn(t, p, "fullscreen") {
				t.Fatal("the fullscreen button is not on screen")
			}
			waitFor(t, "fullscreen", 3*time.Second, func() bool { return text(t, p, `String(!!document.fullscreenElement)`) == "true" })
			noErrors(t, p)
		})
	}
}

// TestBrowserFreeCamera: a spectator's C reaches the free camera, which the
// arrow keys turn around the arena.
func TestBrowserFreeCamera(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	p := openPage(t, browser(t), "http://"+addr+"/")
	if err := chromedp.Do(p.ctx, retype("name", "Watcher"), retype("room", "freecam"), chromedp.Click(chromedp.ID("spectate"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the room", 20*time.Second, func() bool { return showsGame(t, p) && p.state(t).Tick > 0 })
	for p.camera(t).Mode != "free" {
		if err := chromedp.Do(p.ctx, press("KeyC", 67)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	before := p.camera(t).Pos
	for range 3 {
		if err := chromedp.Do(p.ctx, press("ArrowLeft", 37)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the free camera to turn", 3*time.Second, func() bool {
		after := p.camera(t).Pos
		return len(after) == 3 && len(before) == 3 && (after[0]-before[0])*(after[0]-before[0])+(after[2]-before[2])*(after[2]-before[2]) > 25
	})
	noErrors(t, p)
}
