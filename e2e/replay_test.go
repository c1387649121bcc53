package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"webtron/clock"
	"webtron/replay"
	"webtron/server"
	"webtron/sim"
	"webtron/web"
)

// startReplayServer is startServerWith(2 bots, 8 seats) writing its replays
// under data, in a 100 m arena: two bots settle a round in tens of seconds.
func startReplayServer(t *testing.T, data string) string {
	t.Helper()
	rules := sim.DefaultConfig()
	rules.ArenaSize = 100 * sim.Meter
	rules.RoundOverMs = 15000 // the summary stays long enough for a loaded machine's clicks
	// Once the page's cycle is dead the bots play the round out (FINISH_TYPE
	// 3): the express finish would end it undecided, with no summary.
	for _, set := range []*sim.Set{&rules.SP, &rules.MP} {
		set.FinishType = sim.FinishNormal
	}
	s, err := server.New(server.Config{Web: web.Handler(), Bots: 2, Seats: 8, Rules: &rules,
		Policy: clock.Policy{Charity: clock.AutoCharity}, DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// replayReport is window.webtron.replay() (web/src/replay/page.ts).
type replayReport struct {
	ID         string  `json:"id"`
	DrawnTick  int64   `json:"drawnTick"`
	Tick       int64   `json:"tick"`
	Hash       string  `json:"hash"`
	View       int     `json:"view"`
	Follow     int     `json:"follow"`
	Playing    bool    `json:"playing"`
	Speed      float64 `json:"speed"`
	Loaded     bool    `json:"loaded"`
	Start      int64   `json:"start"`
	End        int64   `json:"end"`
	TickRate   int64   `json:"tickRate"`
	Frames     int     `json:"frames"`
	Error      string  `json:"error"`
	StartMs    float64 `json:"startMs"`
	SeekMs     float64 `json:"seekMs"`
	Seeks      int     `json:"seeks"`
	FirstFrame float64 `json:"firstFrameMs"`
	LoadedMs   float64 `json:"loadedMs"`
	// The core's memory before the file was opened and now, the page's heap.
	WasmBeforeBytes float64 `json:"wasmBeforeBytes"`
	WasmBytes       float64 `json:"wasmBytes"`
	JSHeapBytes     float64 `json:"jsHeapBytes"`
}

func replayState(t *testing.T, p *page) *replayReport {
	t.Helper()
	js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron && window.webtron.replay ? window.webtron.replay() : null)`))
	if err != nil {
		t.Fatalf("reading window.webtron.replay(): %v", err)
	}
	var r *replayReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("replay %q: %v", js, err)
	}
	return r
}

// replayPlaying waits for the page to play replay id (any id when ""): frames drawn, the file loaded and checked.
func replayPlaying(t *testing.T, p *page, id string) *replayReport {
	t.Helper()
	var r *replayReport
	waitFor(t, "the replay to play", 60*time.Second, func() bool {
		r = replayState(t, p)
		if r != nil && r.Error != "" {
			t.Fatalf("the replay failed: %s", r.Error)
		}
		return r != nil && r.ID != "" && (id == "" || r.ID == id) && r.Frames > 0 && r.Loaded && r.Hash != ""
	})
	return r
}

// replayFile reads the file of replay id from the server's data directory.
func replayFile(t *testing.T, data, id string) (*replay.File, string) {
	t.Helper()
	ms, rest, _ := strings.Cut(id, "-")
	n, dir, _ := strings.Cut(rest, "-")
	path := filepath.Join(data, "replays", dir, ms+"-"+n+replay.Ext)
	f, err := replay.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

func keys(p *page, k string) error {
	return chromedp.Do(p.ctx, chromedp.KeyEvent(k))
}

// checkHash steps the paused page tick by tick (the . and , keys) to the
// next tick the file holds a hash of, and compares the page's state there
// with it.
func checkHash(t *testing.T, p *page, f *replay.File, what string) {
	t.Helper()
	r := replayState(t, p)
	if r.Playing {
		t.Fatalf("%s: still playing", what)
	}
	hashes := map[int64]uint64{}
	for _, h := range f.Record.Hashes {
		hashes[h.Tick] = h.Hash
	}
	target, key := r.Tick, "."
	for target < r.End {
		if _, ok := hashes[target]; ok {
			break
		}
		target++
	}
	if _, ok := hashes[target]; !ok {
		for target = r.Tick; target > r.Start; target-- {
			if _, ok := hashes[target]; ok {
				break
			}
		}
		key = ","
	}
	want, ok := hashes[target]
	if !ok {
		t.Fatalf("%s: no hash recorded near tick %d", what, r.Tick)
	}
	for i := r.Tick; i != target; {
		if err := keys(p, key); err != nil {
			t.Fatal(err)
		}
		if key == "." {
			i++
		} else {
			i--
		}
	}
	waitFor(t, fmt.Sprintf("%s: tick %d", what, target), 20*time.Second, func() bool {
		r = replayState(t, p)
		return r.Tick == target && r.DrawnTick == target
	})
	if got := fmt.Sprintf("%016x", want); r.Hash != got {
		t.Errorf("%s: state at tick %d has hash %s, the file %s", what, target, r.Hash, got)
	} else {
		t.Logf("%s: tick %d hash %s as recorded", what, target, r.Hash)
	}
}

// pause stops the clock with the Space key.
func pause(t *testing.T, p *page) {
	t.Helper()
	if !replayState(t, p).Playing {
		return
	}
	if err := keys(p, " "); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the replay to pause", 10*time.Second, func() bool { return !replayState(t, p).Playing })
}

// ticksPerSecond plays for a while and returns how fast round time ran, ticks per second of the page's time.
func ticksPerSecond(t *testing.T, p *page) float64 {
	t.Helper()
	js := `(() => { const r = window.webtron.replay(); return JSON.stringify({tick: r.tick, at: performance.now()}); })()`
	read := func() (int64, float64) {
		s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Tick int64
			At   float64
		}
		json.Unmarshal([]byte(s), &v)
		return v.Tick, v.At
	}
	t0, a0 := read()
	time.Sleep(1200 * time.Millisecond)
	t1, a1 := read()
	return float64(t1-t0) / (a1 - a0) * 1000
}

// clickOn clicks the middle of element id with the mouse, as a person
// does, if it is on screen; false when it is not.
func clickOn(t *testing.T, p *page, id string) bool {
	t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.getElementById(%q); if (!e || e.getClientRects().length === 0) return [-1, -1];
  const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = document.elementFromPoint(x, y);
  return top && (top === e || e.contains(top)) ? [x, y] : [-2, -2]; })()`, id)
	xy, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](js))
	if err != nil {
		t.Fatal(err)
	}
	if len(xy) != 2 || xy[0] < 0 {
		t.Logf("#%s is not on screen (%v)", id, xy)
		return false
	}
	if err := chromedp.Do(p.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		t.Fatal(err)
	}
	return true
}

// visible reports whether an element matching the CSS selector is on screen.
func visible(t *testing.T, p *page, sel string) bool {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.getClientRects().length > 0; })()`, sel)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func shown(t *testing.T, p *page, id string) bool {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.getElementById(%q); return !!e && e.getClientRects().length > 0 && !e.hidden; })()`, id)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func text(t *testing.T, p *page, js string) string {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBrowserReplay: a person plays a round; in its summary they click
// "copy link" and "watch again"; the round plays in the page, at the
// recorded hashes wherever they pause (after seeking with the keys and the
// seek bar, stepping, at 4x, in their own view as they saw it); back in the
// lobby the round is listed and plays from there by a click; its link plays
// from the time and player it names; a damaged file is listed as damaged
// and its page says so instead of playing.
func TestBrowserReplay(t *testing.T) {
	browserTests(t)
	data := t.TempDir()
	addr := startReplayServer(t, data)
	base := "http://" + addr
	p := playIn(t, browser(t), base, "rerun", "Rider")
	you := -1
	for clicked := false; !clicked; {
		t.Log("waiting for a round's summary")
		// For a second on end: a predicted end (a bot that seemed to crash)
		// is taken back when the bot's turn arrives.
		var since time.Time
		logAt := time.Now()
		waitFor(t, "a round's summary", 240*time.Second, func() bool {
			s := p.state(t)
			you = s.You
			if time.Since(logAt) > 15*time.Second {
				logAt = time.Now()
				t.Logf("tick %d phase %d round %d, %d players", s.Tick, s.Phase, s.Round, len(s.Players))
			}
			if s.Phase != phaseOver || !shown(t, p, "summary") {
				since = time.Time{}
				return false
			}
			if since.IsZero() {
				since = time.Now()
			}
			return time.Since(since) > time.Second
		})
		// The summary may close before a starved page's clicks: then the next one's.
		clicked = clickOn(t, p, "copylink") && clickOn(t, p, "watchagain")
	}
	t.Log("clicked copy link and watch again")
	r := replayPlaying(t, p, "")
	id := r.ID
	t.Logf("playing %s, ticks %d to %d", id, r.Start, r.End)
	f, path := replayFile(t, data, id)
	if got := text(t, p, `location.pathname`); got != "/replay/"+id {
		t.Errorf("watch again: the page is at %s, want /replay/%s", got, id)
	}
	if r.Follow != you {
		t.Errorf("watch again follows slot %d, want the page's own %d", r.Follow, you)
	}
	waitFor(t, "the summary's copy link", 60*time.Second, func() bool {
		return text(t, p, `document.getElementById("copylink").dataset.url || ""`) != ""
	})
	if got, want := text(t, p, `document.getElementById("copylink").dataset.url`), base+"/replay/"+id+"?follow=Rider"; got != want {
		t.Errorf("copy link gave %s, want %s", got, want)
	}

	// Speed: 4x runs round time about four times as fast as 1x.
	if err := keys(p, kb.Home); err != nil {
		t.Fatal(err)
	}
	if !replayState(t, p).Playing {
		keys(p, " ")
	}
	one := ticksPerSecond(t, p)
	for range 2 {
		keys(p, kb.ArrowUp)
	}
	waitFor(t, "speed 4x", 10*time.Second, func() bool { return replayState(t, p).Speed == 4 })
	four := ticksPerSecond(t, p)
	t.Logf("1x: %.0f ticks/s, 4x: %.0f ticks/s", one, four)
	if one < 60 || one > 180 || four < 2.5*one {
		t.Errorf("1x ran %.0f ticks/s, 4x %.0f: want about %d and four times that", one, four, r.TickRate)
	}
	pause(t, p)
	checkHash(t, p, f, "after 4x")

	// Seek: the arrow keys (5 s), the seek bar (a click in its middle).
	before := replayState(t, p).Tick
	keys(p, kb.ArrowLeft)
	waitFor(t, "5 s back", 10*time.Second, func() bool { return replayState(t, p).Tick == max(before-5*r.TickRate, r.Start) })
	checkHash(t, p, f, "after ←")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("replay-seek"))); err != nil {
		t.Fatal(err)
	}
	mid := (r.Start + r.End) / 2
	waitFor(t, "the seek bar's middle", 10*time.Second, func() bool {
		tk := replayState(t, p).Tick
		return tk > mid-(r.End-r.Start)/20 && tk < mid+(r.End-r.Start)/20
	})
	pause(t, p)
	checkHash(t, p, f, "after the seek bar")
	replayMinimap(t, p)

	// The end: the round's final state and its result, not the next round.
	keys(p, kb.End)
	waitFor(t, "the last tick", 10*time.Second, func() bool { return replayState(t, p).DrawnTick == r.End })
	if r.End != f.Record.EndTick-1 {
		t.Errorf("the replay ends at tick %d, want %d (the round's last, before the next began)", r.End, f.Record.EndTick-1)
	}
	waitFor(t, "the round's result at the end", 5*time.Second, func() bool { return shown(t, p, "replay-summary") })
	if got := text(t, p, `document.getElementById("replay-summary").textContent`); !strings.HasPrefix(got, "Round ") ||
		!strings.Contains(got, "win") && !strings.Contains(got, "nobody won") {
		t.Errorf("the replay's end says %q", got)
	}
	checkHash(t, p, f, "at the end")

	// The round as Rider saw it (V), then the overhead view's camera (Q, E).
	keys(p, "v")
	waitFor(t, "Rider's view", 10*time.Second, func() bool { return replayState(t, p).View == you })
	if v := text(t, p, `document.getElementById("replay-view").value`); v != fmt.Sprint(you) {
		t.Errorf("the view menu says %s, want %d", v, you)
	}
	keys(p, " ")
	time.Sleep(time.Second)
	pause(t, p)
	checkHash(t, p, f, "in Rider's view")
	keys(p, "v")
	waitFor(t, "the overhead view", 10*time.Second, func() bool { return replayState(t, p).View == -1 })
	keys(p, "e")
	waitFor(t, "the next cycle", 10*time.Second, func() bool { return replayState(t, p).Follow != you })
	noErrors(t, p)

	// The lobby lists the round; its Watch button plays it.
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("replay-back"))); err != nil {
		t.Fatal(err)
	}
	watchBtn := fmt.Sprintf(`#replays tr[data-id=%q] button.watch`, id)
	waitFor(t, "the round in the lobby's list", 30*time.Second, func() bool { return visible(t, p, watchBtn) })
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(watchBtn))); err != nil {
		t.Fatal(err)
	}
	replayPlaying(t, p, id)
	if replayState(t, p).Follow != -1 {
		t.Error("a replay opened from the list follows a player")
	}
	noErrors(t, p)

	// By link: a time and a player.
	q := openPage(t, browser(t), fmt.Sprintf("%s/replay/%s?t=2.5&follow=Rider", base, id))
	r2 := replayPlaying(t, q, id)
	if r2.Follow != you || r2.DrawnTick < r.Start+int64(2.5*float64(r.TickRate)) {
		t.Errorf("link: follows %d at tick %d, want %d from tick %d", r2.Follow, r2.DrawnTick, you, r.Start+300)
	}
	pause(t, q)
	checkHash(t, q, f, "by link")
	noErrors(t, q)

	// A link that follows someone who was not in the round: a brief line,
	// gone at a click.
	ghost := openPage(t, browser(t), fmt.Sprintf("%s/replay/%s?follow=Ghost", base, id))
	waitFor(t, "the note on Ghost", 30*time.Second, func() bool {
		return shown(t, ghost, "replay-note") && strings.Contains(text(t, ghost, `document.getElementById("replay-note").textContent`), "Ghost")
	})
	if !clickOn(t, ghost, "replay-note") {
		t.Fatal("the note cannot be clicked")
	}
	waitFor(t, "the note to go", 2*time.Second, func() bool { return !shown(t, ghost, "replay-note") })
	replayPlaying(t, ghost, id)
	noErrors(t, ghost)

	// Damaged: a changed byte (the checksum), and changed turns (the hashes).
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	bad := append([]byte(nil), raw...)
	bad[len(bad)/2] ^= 0x10
	os.WriteFile(filepath.Join(dir, "1900000000000-1"+replay.Ext), bad, 0o644)
	g, _ := replay.Unmarshal(raw)
	for i := range g.Record.Events {
		switch e := &g.Record.Events[i].Ev; e.Kind {
		case sim.EvTurnLeft:
			e.Kind = sim.EvTurnRight
		case sim.EvTurnRight:
			e.Kind = sim.EvTurnLeft
		}
	}
	turned, err := replay.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "1900000000001-1"+replay.Ext), turned, 0o644)
	for _, c := range []struct{ id, want string }{{"1900000000000-1-rerun", "checksum"}, {"1900000000001-1-rerun", "damaged"}} {
		d := openPage(t, browser(t), base+"/replay/"+c.id)
		waitFor(t, "the damaged file's error", 60*time.Second, func() bool { return shown(t, d, "replay-error") })
		msg := text(t, d, `document.getElementById("replay-error").textContent`)
		rd := replayState(t, d)
		if !strings.Contains(msg, c.want) || rd.Playing || rd.Error == "" {
			t.Errorf("%s: error %q (want %q), playing %v", c.id, msg, c.want, rd.Playing)
		}
		t.Logf("%s: %s", c.id, msg)
	}
	// In the lobby: the checksum's failure is listed as damaged, with nothing to play.
	l := openPage(t, browser(t), base+"/")
	row := `#replays tr[data-id="1900000000000-1-rerun"]`
	waitFor(t, "the damaged round in the lobby's list", 30*time.Second, func() bool { return visible(t, l, row+" .bad") })
	if n := text(t, l, fmt.Sprintf(`String(document.querySelectorAll(%q).length)`, row+" button")); n != "0" {
		t.Errorf("a damaged round offers %s buttons", n)
	}
	noErrors(t, l)
}

// replayIDs are the replay page's elements; no two visible ones may overlap.
var replayIDs = []string{"replay-top", "replay-scores", "replay-feed", "replay-minimap", "replay-middle", "replay-bar"}

// replayMinimapJS counts the replay minimap's bright pixels inside its
// border: the walls drawn on it.
const replayMinimapJS = `(() => {
  const c = document.getElementById("replay-minimap");
  const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let y = 3; y < c.height - 3; y++) for (let x = 3; x < c.width - 3; x++) {
    const i = (y * c.width + x) * 4;
    if (d[i] + d[i + 1] + d[i + 2] > 200) n++;
  }
  return n;
})()`

// replayMinimap: mid-round, the replay shows the arena from above with the
// walls laid so far, as live play does, and at a phone's size upright and on
// its side and at a laptop's, the page's elements neither overlap nor leave
// the screen.
func replayMinimap(t *testing.T, p *page) {
	t.Helper()
	waitFor(t, "walls on the replay's minimap", 10*time.Second, func() bool {
		n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](replayMinimapJS))
		if err != nil {
			t.Fatal(err)
		}
		return n > 50
	})
	for _, vp := range []struct {
		w, h  int64
		phone bool
	}{{390, 844, true}, {844, 390, true}, {1280, 720, false}} {
		if err := chromedp.Do(p.ctx, screen(vp.w, vp.h, vp.phone)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		l := readLayout(t, p, replayIDs)
		shot(t, p, fmt.Sprintf("replay-%dx%d", vp.w, vp.h))
		seen := false
		for _, b := range l.Boxes {
			seen = seen || b.ID == "replay-minimap"
		}
		if !seen || len(l.Overlaps) > 0 || len(l.Offscreen) > 0 {
			t.Errorf("replay page at %dx%d: minimap shown %v, overlapping %v, off screen %v; visible: %s", vp.w, vp.h, seen, l.Overlaps, l.Offscreen, l.visible())
		}
	}
}
