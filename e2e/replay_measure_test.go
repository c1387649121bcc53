package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"webtron/history"
	"webtron/replay"
	"webtron/room"
	"webtron/sim"
)

// TestBrowserReplayLoadMeasure measures what a person waits for when they
// open a long replay by its link: a round of eight bots of at least five
// minutes (the first such round a room of eight bots plays, seed 1, as
// replay/playback's benchmarks use), opened in a fresh page three times.
// It prints when (since the navigation began) the core was ready, the first
// frame was drawn and the whole round was loaded and checked, the core's WebAssembly memory before and
// after, and the page's JavaScript heap (docs/performance.md, "Replays").
// A measurement, not a test of speed: run it with
//
//	WEBTRON_BROWSER_TESTS=1 WEBTRON_MEASURE=1 go test -count=1 -run BrowserReplayLoadMeasure -v ./e2e/
func TestBrowserReplayLoadMeasure(t *testing.T) {
	browserTests(t)
	if os.Getenv("WEBTRON_MEASURE") == "" {
		t.Skip("a measurement: set WEBTRON_MEASURE=1")
	}
	cfg := sim.DefaultConfig()
	// Bots alone play on (FINISH_TYPE 3), no win zone opens, and in a
	// 1000 m arena eight bots ride for minutes (seed 2: 316 s):
	// the defaults end a round without humans within seconds, and in
	// the 500 m arena no round of eight bots lasts three minutes.
	for _, set := range []*sim.Set{&cfg.SP, &cfg.MP} {
		set.FinishType, set.WinZoneMinRoundTimeMs = sim.FinishNormal, 1_000_000_000
	}
	cfg.ArenaSize = 1000 * sim.Meter
	var found *replay.File
	r, err := room.New("long", room.Config{Sim: cfg, Seed: 2, Bots: 8, Seats: 8, OnRound: func(rec history.RoundRecord, names []string) {
		if found == nil && rec.EndTick-rec.StartTick >= 5*60*cfg.TickRate {
			found = &replay.File{Kind: replay.KindRound, Room: "long", Round: 1, Created: time.Now(), Names: names, Record: rec}
		}
	}}, 0, room.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); found == nil && now < time.Hour; now += r.TickDuration() {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	if found == nil {
		t.Fatal("no five-minute round in an hour of eight bots")
	}
	data := t.TempDir()
	id := fmt.Sprintf("%d-1-long", found.Created.UnixMilli())
	path := filepath.Join(data, "replays", "long", fmt.Sprintf("%d-1%s", found.Created.UnixMilli(), replay.Ext))
	if err := replay.WriteFile(path, found); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	rec := found.Record
	t.Logf("round: %d ticks (%.0f s), %d events, %d bytes", rec.EndTick-rec.StartTick, float64(rec.EndTick-rec.StartTick)/float64(cfg.TickRate), len(rec.Events), fi.Size())
	addr := startReplayServer(t, data)
	bctx := browser(t)
	for run := range 3 {
		p := openPage(t, bctx, fmt.Sprintf("http://%s/replay/%s", addr, id))
		rp := replayPlaying(t, p, id)
		t.Logf("run %d, ms since navigation: core ready %.0f, first frame %.0f, whole round loaded and checked %.0f; wasm memory %.1f MiB before the file, %.1f MiB loaded; JS heap %.1f MiB",
			run+1, rp.StartMs, rp.FirstFrame, rp.LoadedMs, rp.WasmBeforeBytes/(1<<20), rp.WasmBytes/(1<<20), rp.JSHeapBytes/(1<<20))
		// Seeks while paused, the far ones: End (forward from the start:
		// a keyframe and up to five seconds of steps) and Home (backward:
		// a snapshot), ten each, from the key to the frame drawn.
		pause(t, p)
		var seeks []float64
		for i := range 20 {
			key, want := kb.End, rp.End
			if i%2 == 1 {
				key, want = kb.Home, rp.Start
			}
			before := replayState(t, p).Seeks
			if err := keys(p, key); err != nil {
				t.Fatal(err)
			}
			var r *replayReport
			end := time.Now().Add(30 * time.Second)
			for r = replayState(t, p); r.Seeks == before; r = replayState(t, p) {
				if time.Now().After(end) {
					t.Fatalf("seek %d to %d: no frame of it in 30 s: %+v", i, want, r)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if r.DrawnTick != want {
				t.Fatalf("seek %d: drew tick %d, want %d", i, r.DrawnTick, want)
			}
			seeks = append(seeks, r.SeekMs)
		}
		slices.Sort(seeks)
		t.Logf("run %d: 20 seeks between the ends, key to frame drawn: median %.0f ms, slowest %.0f ms", run+1, seeks[10], seeks[19])
		noErrors(t, p)
		// Away from the page: a replay left playing in another tab would load the next run.
		if err := chromedp.Do(p.ctx, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
	}
}
