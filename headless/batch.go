package headless

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// batchConn lets a player's frame go out in one write: the pong, the ping
// and the hash report that a frame queues would otherwise be three system
// calls and three TCP segments each way through the machine's kernel, which
// is shared with the server under test.
type batchConn struct {
	net.Conn
	mu   sync.Mutex
	held bool
	buf  []byte
}

// Write sends p, or keeps it while the connection is held.
func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.held {
		return b.Conn.Write(p)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *batchConn) hold() {
	b.mu.Lock()
	b.held = true
	b.mu.Unlock()
}

// release writes what was held in one call, within timeout, and stops
// holding.
func (b *batchConn) release(timeout time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held = false
	if len(b.buf) == 0 {
		return nil
	}
	b.Conn.SetWriteDeadline(time.Now().Add(timeout))
	_, err := b.Conn.Write(b.buf)
	b.Conn.SetWriteDeadline(time.Time{})
	b.buf = b.buf[:0]
	return err
}

// batchingClient is an HTTP client for one WebSocket dial whose connection
// is wrapped in a batchConn, reported through got.
func batchingClient(got func(*batchConn)) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			bc := &batchConn{Conn: c}
			got(bc)
			return bc, nil
		},
	}}
}
