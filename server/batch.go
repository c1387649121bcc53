package server

import "time"

// Flow control in: a token bucket. (Batched writes out: internal/netbatch.)

// bucket is a token bucket: rate tokens per second, at most burst saved up.
// The reader goroutine owns it, so it needs no lock.
type bucket struct {
	rate, burst, tokens float64
	last                time.Duration
}

func newBucket(rate, burst float64, now time.Duration) bucket {
	return bucket{rate: rate, burst: burst, tokens: burst, last: now}
}

// take spends one token, reporting false when none is left.
func (b *bucket) take(now time.Duration) bool {
	b.tokens = min(b.burst, b.tokens+b.rate*(now-b.last).Seconds())
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
