package server

import (
	"net"
	"sync"
	"time"
)

// Flow control: batched writes out, a token bucket in.

// Every WebSocket message is one write system call, and on a busy server
// those calls, not the game, take most of the time: a room's tick queues a
// heartbeat, a ping and often a roster for each client at once. batchConn
// lets a connection's writer gather what is queued into one system call.
// Latency does not suffer: the writer holds only while it has more queued
// messages in hand, never waiting for new ones.

// batchListener wraps every accepted connection in a batchConn.
type batchListener struct{ net.Listener }

// Accept returns the next connection, wrapped.
func (l batchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &batchConn{Conn: c}, nil
}

// maxBatch bounds what one batch holds before it is written anyway.
const maxBatch = 64 << 10

// batchConn is a net.Conn whose writes can be held and sent together.
type batchConn struct {
	net.Conn
	mu   sync.Mutex
	held bool
	buf  []byte
}

// Write sends p, or keeps it for release while the connection is held.
func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.held {
		return b.Conn.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= maxBatch {
		if err := b.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// hold starts gathering writes.
func (b *batchConn) hold() {
	b.mu.Lock()
	b.held = true
	b.mu.Unlock()
}

// release writes what was gathered in one call, within timeout, and stops
// gathering.
func (b *batchConn) release(timeout time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held = false
	if len(b.buf) == 0 {
		return nil
	}
	b.Conn.SetWriteDeadline(time.Now().Add(timeout))
	err := b.flush()
	b.Conn.SetWriteDeadline(time.Time{})
	return err
}

func (b *batchConn) flush() error {
	_, err := b.Conn.Write(b.buf)
	if cap(b.buf) > maxBatch*2 {
		b.buf = nil // a burst made it large: do not keep that per connection
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

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
