package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// frameMark is the user-timing mark the page leaves at each frame it draws
// while window.webtron.markFrames is on (web/src/perf.ts FRAME_MARK).
const frameMark = "webtron-frame"

// traceEvent is one event of a Chromium trace (the Trace Event Format), as
// far as the frame measure reads it; times are microseconds.
type traceEvent struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Pid  int64           `json:"pid"`
	Tid  int64           `json:"tid"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Tdur float64         `json:"tdur"` // the thread's CPU time in the event
	Args json.RawMessage `json:"args"`
}

// frameTrace is the main thread's script per frame, from a trace: wall
// clock (what window.webtron.perf() measures with performance.now) and the
// thread's CPU time. The difference is time the thread was off a core in
// script: waiting on the GPU process inside a WebGL call, or for a core the
// GPU process's software rendering and the worker hold.
type frameTrace struct {
	Frames    int
	Wall, CPU pct
}

func (f frameTrace) String() string {
	return fmt.Sprintf("%d frames: wall clock %v; the thread's CPU time %v", f.Frames, f.Wall, f.CPU)
}

// traceFrames traces page p until the returned func is called, with the
// page marking its frames, and returns the main thread's script per frame.
func traceFrames(t *testing.T, p *page) (stop func() frameTrace) {
	t.Helper()
	var mu sync.Mutex
	var evs []traceEvent
	done := make(chan struct{})
	// Listen's func must not block: events are only decoded and kept here.
	if err := chromedp.Listen(p.ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			for _, v := range e.Value {
				var te traceEvent
				if json.Unmarshal(v, &te) == nil {
					evs = append(evs, te)
				}
			}
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	}); err != nil {
		t.Fatal(err)
	}
	call := func(f func(ctx context.Context) error) {
		t.Helper()
		if err := chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error { return f(ctx) })); err != nil {
			t.Fatal(err)
		}
	}
	cats := []string{"devtools.timeline", "blink.user_timing", "__metadata"}
	call(func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{IncludedCategories: cats}})
		return err
	})
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](`window.webtron.markFrames(true)`)); err != nil {
		t.Fatal(err)
	}
	return func() frameTrace {
		t.Helper()
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](`window.webtron.markFrames(false)`)); err != nil {
			t.Fatal(err)
		}
		call(func(ctx context.Context) error {
			_, err := chromedp.Call(ctx, tracing.End, cdp.Empty{})
			return err
		})
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("the trace did not complete within a minute")
		}
		mu.Lock()
		defer mu.Unlock()
		return scriptPerFrame(evs)
	}
}

// scriptPerFrame sums the main thread's outermost script events (calls of
// the page's functions, animation frames, events, timers, microtasks)
// between one frame mark and the next: frame k is what ran from the start
// of the call that drew frame k-1 to the start of the one that drew k (the
// animation frame's request, the HUD's refresh, then the drawing), as
// perf()'s main_ms counts it.
func scriptPerFrame(evs []traceEvent) frameTrace {
	// The main thread is the renderer's main thread that left the marks.
	type thread struct{ pid, tid int64 }
	var main *thread
	for _, e := range evs {
		if e.Name == frameMark {
			main = &thread{e.Pid, e.Tid}
			break
		}
	}
	if main == nil {
		return frameTrace{}
	}
	script := map[string]bool{"FunctionCall": true, "FireAnimationFrame": true, "EventDispatch": true, "TimerFire": true, "RunMicrotasks": true}
	var marks []float64
	var calls []traceEvent
	for _, e := range evs {
		if e.Pid != main.pid || e.Tid != main.tid {
			continue
		}
		if e.Name == frameMark {
			marks = append(marks, e.Ts)
		} else if e.Ph == "X" && script[e.Name] {
			calls = append(calls, e)
		}
	}
	sort.Float64s(marks)
	// Outermost only: an animation frame's event holds its function's call.
	sort.Slice(calls, func(i, j int) bool {
		return calls[i].Ts < calls[j].Ts || calls[i].Ts == calls[j].Ts && calls[i].Dur > calls[j].Dur
	})
	wall := make([]float64, len(marks))
	cpu := make([]float64, len(marks))
	end := -1.0
	for _, e := range calls {
		if e.Ts < end {
			continue
		}
		end = e.Ts + e.Dur
		// The call that left mark k started before it: it belongs to frame k.
		k := sort.SearchFloat64s(marks, e.Ts)
		if k == 0 || k >= len(marks) {
			continue // before the first frame's call, or after the last frame
		}
		wall[k] += e.Dur / 1000
		cpu[k] += e.Tdur / 1000
	}
	if len(marks) < 2 {
		return frameTrace{}
	}
	return frameTrace{Frames: len(marks) - 1, Wall: pctOf(wall[1:]), CPU: pctOf(cpu[1:])}
}

// pctOf is the p50, p95 and p99 of v (ms), as the page's Ring takes them.
func pctOf(v []float64) pct {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return pct{P50: at(0.50), P95: at(0.95), P99: at(0.99)}
}
