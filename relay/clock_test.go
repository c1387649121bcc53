package relay

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// Deadlines crowd together and fall due while they are being set, which is
// where an alarm can be disarmed or lost; every waiter must still wake, and
// none early.
func TestClockWakesEveryWaiterNeverEarly(t *testing.T) {
	tests := []struct {
		name    string
		precise bool
	}{
		{"timerfd where available", true},
		{"time.Timer", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			preciseSleep = tt.precise
			c := newClock()
			preciseSleep = true
			var wg sync.WaitGroup
			wg.Go(c.run)
			var waiters sync.WaitGroup
			for i := range 200 {
				waiters.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(i), 0))
					w := newWaiter()
					for range 20 {
						at := time.Now().Add(time.Duration(rng.IntN(2000)) * time.Microsecond)
						c.schedule(w, at)
						<-w.wake
						if now := time.Now(); now.Before(at) {
							t.Errorf("woke %v early", at.Sub(now))
						}
					}
				})
			}
			finished := make(chan struct{})
			go func() { waiters.Wait(); close(finished) }()
			select {
			case <-finished:
			case <-time.After(20 * time.Second):
				t.Fatal("waiters still asleep after 20s: a wake-up was lost")
			}

			// A writer that stops waiting takes its waiter out.
			w := newWaiter()
			c.schedule(w, time.Now().Add(time.Hour))
			c.cancel(w)
			c.mu.Lock()
			n := len(c.waiters)
			c.mu.Unlock()
			if n != 0 {
				t.Errorf("got %d waiters left in the heap, want 0", n)
			}
			c.close()
			wg.Wait()
		})
	}
}
