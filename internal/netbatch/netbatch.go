// Package netbatch gathers a connection's writes into one system call.
//
// Every WebSocket message is one write, and on a busy machine those calls
// take more time than the game: a room's tick queues a heartbeat, a ping and
// often a roster for each client at once, and a client's frame a pong, a ping
// and a hash report. A Conn lets its writer gather what it has in hand and
// send it together. Latency does not suffer: a writer holds only while it
// has more messages in hand, never waiting for new ones.
package netbatch

import (
	"net"
	"sync"
	"time"
)

// maxBatch bounds what one batch holds before it is written anyway.
const maxBatch = 64 << 10

// Conn is a net.Conn whose writes can be held and sent together. It is safe
// for concurrent use: writes from others while it is held join the batch.
type Conn struct {
	net.Conn
	mu   sync.Mutex
	held bool
	buf  []byte
}

// Write sends p, or keeps it for Release while the connection is held.
func (b *Conn) Write(p []byte) (int, error) {
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

// Hold starts gathering writes.
func (b *Conn) Hold() {
	b.mu.Lock()
	b.held = true
	b.mu.Unlock()
}

// Release writes what was gathered in one call, within timeout, and stops
// gathering.
func (b *Conn) Release(timeout time.Duration) error {
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

func (b *Conn) flush() error {
	_, err := b.Conn.Write(b.buf)
	if cap(b.buf) > maxBatch*2 {
		b.buf = nil // a burst made it large: do not keep that per connection
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Listener wraps every accepted connection in a Conn.
type Listener struct{ net.Listener }

// Accept returns the next connection, wrapped.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c}, nil
}
