package relay

import (
	"container/heap"
	"sync"
	"time"
)

// clock wakes the writers of a relay at their chunks' release times, from one
// alarm for all of them. The relay's accuracy is mostly the accuracy of this
// wake-up, and its CPU use mostly the number of wake-ups: one alarm serves
// every chunk due at the same moment, where a timer per writer would wake the
// process once for each.
type clock struct {
	alarm   alarm
	mu      sync.Mutex
	waiters waitHeap
	armed   time.Time // when the alarm rings next; zero if it is not set
}

// alarm rings once after the duration last set. It is set by writers and
// waited on by the clock's goroutine, concurrently.
type alarm interface {
	set(d time.Duration) error // d > 0; replaces the previous setting
	wait() error               // returns when it rings, or an error once closed
	close()
}

// preciseSleep selects the timerfd alarm where there is one. The accuracy
// measurement turns it off to compare with time.Timer.
var preciseSleep = true

// newClock returns a clock with the most accurate alarm the system allows.
// The Go runtime sleeps in whole milliseconds on Linux (its poller waits with
// a millisecond timeout), so a time.Timer fires about 0.5 ms late on average;
// a timerfd wakes the poller at the exact time instead.
func newClock() *clock {
	if preciseSleep {
		if a, err := newTimerfdAlarm(); err == nil {
			return &clock{alarm: a}
		}
	}
	return &clock{alarm: newTimerAlarm()}
}

// waiter is one writer's place in the clock; each writer has one, as it waits
// for one chunk at a time.
type waiter struct {
	at    time.Time
	wake  chan struct{} // capacity 1
	index int           // in the heap, or -1
}

func newWaiter() *waiter { return &waiter{wake: make(chan struct{}, 1), index: -1} }

// schedule sends on w.wake at t, or now if t has passed. A waiter is
// scheduled once per wake-up. Whoever queues a chunk for an idle writer
// schedules it, so the writer sleeps only on its wake channel: one hand-off
// per chunk instead of two.
func (c *clock) schedule(w *waiter, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !time.Now().Before(t) {
		wake(w.wake)
		return
	}
	w.at = t
	heap.Push(&c.waiters, w)
	if c.armed.IsZero() || t.Before(c.armed) {
		// Only a closed alarm fails, when the relay is closing; its
		// connections' done channels wake the writers then.
		c.arm(t)
	}
}

// cancel takes w out of the clock, for a writer that stops waiting.
func (c *clock) cancel(w *waiter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.index >= 0 {
		heap.Remove(&c.waiters, w.index)
	}
}

// run wakes every waiter that is due each time the alarm rings, until the
// alarm is closed. A waiter is never woken before its time: the alarm rings
// no earlier than it was set for, and the time is checked again here.
func (c *clock) run() {
	for c.alarm.wait() == nil {
		c.mu.Lock()
		now := time.Now()
		for len(c.waiters) > 0 && !c.waiters[0].at.After(now) {
			wake(heap.Pop(&c.waiters).(*waiter).wake)
		}
		c.armed = time.Time{}
		if len(c.waiters) > 0 {
			c.arm(c.waiters[0].at)
		}
		c.mu.Unlock()
	}
}

// arm sets the alarm for t, with c.mu held. Time has passed since t was
// checked, but the alarm must still ring: a duration of 0 would disarm it and
// a negative one is an error.
func (c *clock) arm(t time.Time) error {
	c.armed = t
	return c.alarm.set(max(time.Until(t), time.Nanosecond))
}

func (c *clock) close() { c.alarm.close() }

// waitHeap orders waiters by wake-up time, for container/heap.
type waitHeap []*waiter

func (h waitHeap) Len() int           { return len(h) }
func (h waitHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}

// timerAlarm is the portable alarm, used where there is no timerfd.
type timerAlarm struct {
	timer *time.Timer
	done  chan struct{}
	once  sync.Once
}

func newTimerAlarm() *timerAlarm {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timerAlarm{timer: t, done: make(chan struct{})}
}

// set relies on the timer semantics of Go 1.23 and later: Reset discards a
// value not yet received, so wait never sees a stale ring.
func (a *timerAlarm) set(d time.Duration) error {
	a.timer.Reset(d)
	return nil
}

func (a *timerAlarm) wait() error {
	select {
	case <-a.timer.C:
		return nil
	case <-a.done:
		return errAborted
	}
}

func (a *timerAlarm) close() { a.once.Do(func() { close(a.done) }) }
