package relay

import (
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Directions index Relay.stats, conn.pipes and the per-connection random
// streams.
const (
	up   = 0 // client->server
	down = 1 // server->client
)

// dialTimeout bounds connecting to the forwarding address, so a dead server
// does not pile up half-open client connections in the relay.
const dialTimeout = 10 * time.Second

// conn is one forwarded connection: a pipe each way, each pipe a reader and a
// writer goroutine.
type conn struct {
	r              *Relay
	id             uint64
	client, server net.Conn
	opened         time.Time
	pipes          [2]*pipe
	writers        atomic.Int32 // writers not yet done; the last one closes the connection
	done           chan struct{}
	once           sync.Once
}

// handle dials the forwarding address for one accepted client and starts its
// pipes.
func (r *Relay) handle(client net.Conn, id uint64) {
	defer r.wg.Done()
	d := net.Dialer{Timeout: dialTimeout}
	server, err := d.DialContext(r.ctx, "tcp", r.cfg.To)
	if err != nil {
		client.Close()
		if r.ctx.Err() == nil {
			r.logError("relay: dial", "conn", id, "client", client.RemoteAddr().String(), "to", r.cfg.To, "err", err)
		}
		return
	}
	c := &conn{r: r, id: id, client: client, server: server, opened: time.Now(), done: make(chan struct{})}
	c.pipes[up] = newPipe(c, up, client, server)
	c.pipes[down] = newPipe(c, down, server, client)
	c.writers.Store(2)

	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		c.release()
		return
	}
	r.conns[c] = struct{}{}
	r.forwarded.Add(1)
	r.active.Add(1)
	r.wg.Add(4)
	r.mu.Unlock()

	if r.cfg.Logger != nil {
		r.cfg.Logger.Info("relay: connection opened", "conn", id,
			"client", client.RemoteAddr().String(), "server", server.RemoteAddr().String())
	}
	for _, p := range c.pipes {
		go p.read()
		go p.write()
	}
}

// newPipe derives the pipe's random stream from the seed, the connection's
// accept order and the direction alone, so a run repeats given the same seed
// and the same chunks.
func newPipe(c *conn, dir int, src, dst net.Conn) *pipe {
	return &pipe{
		c: c, dir: dir, src: src, dst: dst,
		rng:    newPipeRand(c.r.cfg.Seed, c.id, dir),
		q:      newQueue(),
		waiter: newWaiter(),
	}
}

func newPipeRand(seed, connID uint64, dir int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, connID<<1|uint64(dir)))
}

// writerDone is called when a writer has delivered its side's orderly close.
// The connection lives on until both sides have closed, as a half-closed TCP
// connection does.
func (c *conn) writerDone() {
	if c.writers.Add(-1) == 0 {
		c.shutdown()
	}
}

// shutdown ends the connection at once, dropping queued bytes: used when both
// sides are done, when one fails, and by Relay.Close.
func (c *conn) shutdown() {
	c.once.Do(func() {
		c.release()
		r := c.r
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
		r.active.Add(-1)
		if r.cfg.Logger != nil {
			up, down := c.pipes[up], c.pipes[down]
			r.cfg.Logger.Info("relay: connection closed", "conn", c.id,
				"duration", time.Since(c.opened).Round(time.Millisecond),
				"bytes_up", up.bytes.Load(), "bytes_down", down.bytes.Load(),
				"held_up", up.held.Load(), "held_down", down.held.Load())
		}
	})
}

// release closes everything the connection holds, which unblocks each of its
// goroutines wherever it waits.
func (c *conn) release() {
	close(c.done)
	c.client.Close()
	c.server.Close()
}

// closeWrite passes an orderly close on: the receiver reads EOF but can still
// send.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// reset makes the coming Close send a RST, so a side that saw its peer fail
// sees the failure too instead of a clean EOF.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
}
