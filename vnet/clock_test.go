package vnet_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"webtron/vnet"
)

const ms = time.Millisecond

func TestTimersFireInTimeThenInsertionOrder(t *testing.T) {
	type timer struct {
		at   time.Duration
		name string
	}
	tests := []struct {
		name   string
		timers []timer // scheduled in this order
		want   string  // fire order, "name@time"
	}{
		{"sorted", []timer{{1 * ms, "a"}, {2 * ms, "b"}, {3 * ms, "c"}}, "a@1ms b@2ms c@3ms"},
		{"reversed", []timer{{3 * ms, "c"}, {2 * ms, "b"}, {1 * ms, "a"}}, "a@1ms b@2ms c@3ms"},
		{"ties keep insertion order", []timer{{5 * ms, "x"}, {5 * ms, "y"}, {1 * ms, "a"}, {5 * ms, "z"}}, "a@1ms x@5ms y@5ms z@5ms"},
		{"zero time", []timer{{0, "p"}, {0, "q"}}, "p@0s q@0s"},
		{"past means now", []timer{{-time.Second, "late"}, {0, "now"}}, "late@0s now@0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := vnet.New(1)
			var got []string
			for _, tm := range tt.timers {
				n.At(tm.at, func() { got = append(got, fmt.Sprintf("%s@%v", tm.name, n.Now())) })
			}
			for n.Step() {
			}
			if s := fmt.Sprint(got); s != "["+tt.want+"]" {
				t.Errorf("got %s, want [%s]", s, tt.want)
			}
		})
	}
}

func TestTimersScheduledFromCallbacks(t *testing.T) {
	n := vnet.New(1)
	var got []string
	n.After(10*ms, func() {
		got = append(got, "outer")
		n.After(0, func() { got = append(got, "same instant, after queued") })
		n.After(5*ms, func() { got = append(got, fmt.Sprintf("inner@%v", n.Now())) })
	})
	n.At(10*ms, func() { got = append(got, "queued") })
	n.RunFor(time.Second)
	want := []string{"outer", "queued", "same instant, after queued", "inner@15ms"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTimerStop(t *testing.T) {
	tests := []struct {
		name     string
		stopAt   time.Duration // when to call Stop (the timer is due at 10ms); -1: from a callback at 10ms that runs first
		wantStop bool
		wantRan  bool
	}{
		{"before it is due", 5 * ms, true, false},
		{"after it ran", 20 * ms, false, true},
		{"by a callback due at the same instant", -1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := vnet.New(1)
			var tm vnet.Timer
			var gotStop, ran bool
			stop := func() { gotStop = tm.Stop() }
			if tt.stopAt < 0 {
				n.At(10*ms, stop)
			} else {
				n.At(tt.stopAt, stop)
			}
			tm = n.At(10*ms, func() { ran = true })
			n.RunFor(time.Second)
			if gotStop != tt.wantStop || ran != tt.wantRan {
				t.Errorf("got Stop %v ran %v, want Stop %v ran %v", gotStop, ran, tt.wantStop, tt.wantRan)
			}
			if tm.Stop() {
				t.Errorf("got second Stop true, want false")
			}
		})
	}
	if (vnet.Timer{}).Stop() {
		t.Errorf("got zero Timer Stop true, want false")
	}
}

func TestStoppedSlotReuseDoesNotCancelNewTimer(t *testing.T) {
	n := vnet.New(1)
	old := n.At(10*ms, func() {})
	old.Stop()
	ran := false
	n.At(10*ms, func() { ran = true }) // likely reuses old's slot
	if old.Stop() {
		t.Errorf("got stale Stop true, want false")
	}
	n.RunFor(time.Second)
	if !ran {
		t.Errorf("got new timer not run, want run")
	}
}

func TestRunStopsAtUntil(t *testing.T) {
	n := vnet.New(1)
	var fired []time.Duration
	for _, at := range []time.Duration{1 * time.Second, 3 * time.Second, 5 * time.Second} {
		n.At(at, func() { fired = append(fired, n.Now()) })
	}
	steps := []struct {
		until     time.Duration
		wantFired int
		wantNow   time.Duration
	}{
		{2 * time.Second, 1, 2 * time.Second},
		{3 * time.Second, 2, 3 * time.Second}, // due exactly at until: runs
		{1 * time.Second, 2, 3 * time.Second}, // never backwards
		{10 * time.Second, 3, 10 * time.Second},
	}
	for _, s := range steps {
		n.Run(s.until)
		if len(fired) != s.wantFired || n.Now() != s.wantNow {
			t.Errorf("Run(%v): got %d fired, now %v; want %d, %v", s.until, len(fired), n.Now(), s.wantFired, s.wantNow)
		}
	}
	if n.Step() {
		t.Errorf("got Step true on an empty queue, want false")
	}
}

func TestDrivingFromACallbackPanics(t *testing.T) {
	for name, drive := range map[string]func(*vnet.Net){
		"Step":   func(n *vnet.Net) { n.Step() },
		"Run":    func(n *vnet.Net) { n.Run(time.Hour) },
		"RunFor": func(n *vnet.Net) { n.RunFor(time.Hour) },
	} {
		t.Run(name, func(t *testing.T) {
			n := vnet.New(1)
			var got any
			n.After(ms, func() {
				defer func() { got = recover() }()
				drive(n)
			})
			n.RunFor(time.Second)
			if got == nil {
				t.Errorf("got no panic, want one")
			}
		})
	}
}

func TestLocalClock(t *testing.T) {
	tests := []struct {
		c         vnet.LocalClock
		true, loc time.Duration
	}{
		{vnet.LocalClock{}, 7 * time.Second, 7 * time.Second},
		{vnet.LocalClock{Offset: -250 * ms}, time.Second, 750 * ms},
		{vnet.LocalClock{Skew: 100e-6}, 10 * time.Second, 10*time.Second + ms},
		{vnet.LocalClock{Offset: time.Hour, Skew: -50e-6}, 100 * time.Second, time.Hour + 100*time.Second - 5*ms},
	}
	for _, tt := range tests {
		if got := tt.c.Local(tt.true); got != tt.loc {
			t.Errorf("%+v.Local(%v): got %v, want %v", tt.c, tt.true, got, tt.loc)
		}
		if got := tt.c.True(tt.loc); got != tt.true {
			t.Errorf("%+v.True(%v): got %v, want %v", tt.c, tt.loc, got, tt.true)
		}
		prev := tt.c.Local(0)
		for tr := time.Duration(1); tr < 24*time.Hour; tr = tr*3 + 1 {
			l := tt.c.Local(tr)
			if back := tt.c.True(l); back < tr-1 || back > tr+1 || l < prev {
				t.Errorf("%+v: true %v -> local %v -> true %v (prev local %v), want a monotonic round trip within 1ns", tt.c, tr, l, back, prev)
			}
			prev = l
		}
	}
}

func BenchmarkTimer(b *testing.B) {
	n := vnet.New(1)
	fn := func() {}
	for i := range 1024 { // a realistic standing queue
		n.After(time.Duration(i)*ms, fn)
	}
	b.ReportAllocs()
	for b.Loop() {
		n.After(1024*ms, fn)
		n.Step()
	}
}
