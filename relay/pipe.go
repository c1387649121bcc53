package relay

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// readSize is the largest chunk. A chunk is what one read returns, so
	// small game messages stay small chunks and keep their own timing.
	readSize = 32 << 10
	// maxQueued caps the bytes in flight one way, as a TCP window does: the
	// reader stops reading until the writer catches up, so a fast sender
	// cannot make the relay buffer without bound. At 80 ms this still
	// allows about 50 MB/s.
	maxQueued = 4 << 20
)

var errAborted = errors.New("relay: connection closed")

// chunk is one read from the sending side, waiting for its release time.
type chunk struct {
	data    []byte
	release time.Time
	end     bool  // the sending side closed or failed; nothing follows
	err     error // why it ended: io.EOF for an orderly close
}

// pipe carries one direction of a connection. Its reader stamps and queues
// chunks; its writer delivers them at their release time.
type pipe struct {
	c        *conn
	dir      int
	src, dst net.Conn
	rng      *rand.Rand // reader-owned
	prev     time.Time  // reader-owned: release time of the last chunk queued
	q        *queue
	waiter   *waiter // the writer sleeps on it; the reader schedules it when the writer is idle

	bytes, held atomic.Int64 // this connection's share, for its log line
}

func (p *pipe) read() {
	defer p.c.r.wg.Done()
	buf := make([]byte, readSize)
	for {
		n, err := p.src.Read(buf)
		now := time.Now()
		if n > 0 {
			if !p.push(chunk{data: bytes.Clone(buf[:n]), release: p.releaseTime(now)}) {
				return
			}
		}
		if err != nil {
			// The close travels like data: the other side sees it after
			// the bytes before it and one delay later than it happened.
			d := p.c.r.dirs.Load()[p.dir]
			p.push(chunk{end: true, err: err, release: p.later(now.Add(d.Delay))})
			return
		}
	}
}

// push queues c for the writer, waking it at c's release time if it was
// idle. It reports false if the connection was closed.
func (p *pipe) push(c chunk) bool {
	schedule, ok := p.q.push(c, p.c.done)
	if schedule {
		p.c.r.clock.schedule(p.waiter, c.release)
	}
	return ok
}

// releaseTime returns the release time of a chunk that arrived at arrival. It
// draws the same two numbers for every chunk whatever the settings, so the
// random stream depends on the chunk sequence only.
func (p *pipe) releaseTime(arrival time.Time) time.Time {
	d := p.c.r.dirs.Load()[p.dir]
	jitter, loss := p.rng.Float64(), p.rng.Float64()
	delay := max(0, d.Delay+time.Duration((2*jitter-1)*float64(d.Jitter)))
	stats := &p.c.r.stats[p.dir]
	stats.chunks.Add(1)
	if loss < d.Loss {
		delay += d.rto()
		stats.held.Add(1)
		p.held.Add(1)
	}
	return p.later(arrival.Add(delay))
}

// later keeps release times from going backwards, which is what keeps bytes
// in order and makes a held chunk hold up everything behind it.
func (p *pipe) later(t time.Time) time.Time {
	if t.Before(p.prev) {
		t = p.prev
	}
	p.prev = t
	return t
}

func (p *pipe) write() {
	defer p.c.r.wg.Done()
	end, err := p.forward()
	switch {
	case err != nil:
		// dst has gone (or the relay closed the connection). Its peer's
		// other direction will end soon, after delivering what is queued
		// that way, and that closes the connection, as in TCP: a server
		// that writes a last message and closes must not lose it because
		// the client was still sending.
		p.c.writerDone()
	case errors.Is(end.err, io.EOF):
		closeWrite(p.dst)
		p.c.writerDone()
	default:
		reset(p.dst)
		p.c.shutdown()
	}
}

// forward delivers chunks until the end marker, which it returns. Chunks due
// together go out in one write.
func (p *pipe) forward() (chunk, error) {
	clock := p.c.r.clock
	defer func() {
		p.q.stop()
		clock.cancel(p.waiter)
	}()
	var bufs [][]byte
	for {
		select {
		case <-p.waiter.wake:
		case <-p.c.done:
			return chunk{}, errAborted
		}
		var end chunk
		var next time.Time
		bufs, end, next = p.q.popDue(time.Now(), bufs[:0])
		if len(bufs) > 0 {
			nb := net.Buffers(bufs)
			n, err := nb.WriteTo(p.dst)
			clear(bufs) // let the written chunks be collected
			p.bytes.Add(n)
			p.c.r.stats[p.dir].bytes.Add(n)
			if err != nil {
				return chunk{}, err
			}
		}
		if end.end {
			return end, nil
		}
		if !next.IsZero() {
			clock.schedule(p.waiter, next)
		}
	}
}

// queue is a FIFO of chunks between a pipe's reader and writer, bounded by
// bytes rather than chunks so that a burst of tiny messages never blocks the
// reader (which would delay their arrival stamps).
//
// The writer sleeps until the clock wakes it for the oldest chunk. When the
// queue runs empty the writer goes idle, and the reader's next push reports
// that the clock must be told; so exactly one of them schedules each wake-up.
type queue struct {
	mu      sync.Mutex
	items   []chunk
	bytes   int
	idle    bool          // the writer waits for a chunk nobody has scheduled yet
	stopped bool          // the writer has gone: schedule nothing more
	space   chan struct{} // wakes the reader after a pop
}

func newQueue() *queue {
	return &queue{idle: true, space: make(chan struct{}, 1)}
}

// push appends c, waiting while the queue is full. It reports whether the
// caller must schedule the writer for c, and false for ok if the connection
// was closed first.
func (q *queue) push(c chunk, done <-chan struct{}) (schedule, ok bool) {
	for {
		q.mu.Lock()
		if q.bytes < maxQueued {
			q.items = append(q.items, c)
			q.bytes += len(c.data)
			schedule = q.idle && !q.stopped
			q.idle = false
			q.mu.Unlock()
			return schedule, true
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-done:
			return false, false
		}
	}
}

// popDue removes the oldest chunk, which is due when the clock wakes the
// writer, and every following one due by now, appending their data to bufs.
// It stops after an end marker and returns it. next is when the oldest chunk
// left is due, or zero if none is left and the writer is idle.
func (q *queue) popDue(now time.Time, bufs [][]byte) (_ [][]byte, end chunk, next time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := 0
	for i < len(q.items) && (i == 0 || !q.items[i].release.After(now)) {
		c := q.items[i]
		i++
		if c.end {
			end = c
			break
		}
		bufs = append(bufs, c.data)
		q.bytes -= len(c.data)
	}
	clear(q.items[:i])
	q.items = q.items[i:]
	wake(q.space)
	if len(q.items) > 0 {
		next = q.items[0].release
	} else {
		q.idle = true
	}
	return bufs, end, next
}

// stop tells the reader that the writer has gone.
func (q *queue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
}

// wake signals ch without blocking; a signal already pending is enough.
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
