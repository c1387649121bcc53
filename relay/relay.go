// Package relay forwards TCP connections with added one-way delay, jitter and
// loss in each direction. The kernel of the machines we test on has no netem,
// so the relay emulates a slow link in user space: the game server and its
// clients talk through it as they would over a real network.
//
// A TCP stream never loses or reorders bytes, so the relay never does either.
// Every chunk read from one side gets a release time and the other side sees
// it no earlier: release = max(previous release, arrival + delay + jitter),
// plus a retransmission timeout when the chunk is "lost". The max is what keeps
// bytes in order and makes a lost chunk block everything behind it, as a lost
// segment does in TCP (head-of-line blocking).
//
// Connection setup is not delayed; only the bytes and the closing of each
// direction are.
//
// On Linux the relay wakes for each release time with a timerfd, because the
// Go runtime's own timers fire in whole milliseconds there; it then adds
// about 0.1 ms to the configured delay at the median (0.5 ms with 100 busy
// connections), where time.Timer would add 0.6 ms (1.2 ms). See
// TestMeasureAccuracy.
package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Linux never retransmits sooner than TCP_RTO_MIN, so a smaller timeout would
// make emulated loss cheaper than the real thing.
const (
	// MinRTO is the smallest retransmission timeout accepted.
	MinRTO = 200 * time.Millisecond
	// DefaultRTO is used when Direction.RTO is zero.
	DefaultRTO = MinRTO
)

// Direction describes one way of the emulated link.
type Direction struct {
	Delay  time.Duration // one-way delay added to every chunk
	Jitter time.Duration // each chunk's delay varies uniformly within ±Jitter, never below 0
	Loss   float64       // probability 0..1 that a chunk is held back by RTO
	RTO    time.Duration // retransmission timeout; 0 means DefaultRTO, else at least MinRTO
}

// Config describes a relay. Up is client->server (the side that connects to
// Listen towards To), Down is server->client.
type Config struct {
	Listen string    // address to listen on; empty means "127.0.0.1:0"
	To     string    // address every accepted connection is forwarded to
	Up     Direction // client->server
	Down   Direction // server->client
	Seed   uint64    // seeds jitter and loss, so a run can be repeated
	// UDP also relays datagrams on the UDP port of the same number as the
	// TCP listener (QUIC, WebTransport): loss drops a datagram, delay and
	// jitter are as for TCP (see udp.go).
	UDP    bool
	Logger *slog.Logger // one line per connection opened and closed; nil logs nothing
}

// Validate reports the first invalid setting, so a typo fails at start rather
// than turning into a link that silently behaves differently.
func (c Config) Validate() error {
	if c.To == "" {
		return errors.New("relay: no forwarding address (To)")
	}
	if err := c.Up.validate("up"); err != nil {
		return err
	}
	return c.Down.validate("down")
}

func (d Direction) validate(name string) error {
	switch {
	case d.Delay < 0:
		return fmt.Errorf("relay: %s delay %v is negative", name, d.Delay)
	case d.Jitter < 0:
		return fmt.Errorf("relay: %s jitter %v is negative", name, d.Jitter)
	case math.IsNaN(d.Loss) || d.Loss < 0 || d.Loss > 1:
		return fmt.Errorf("relay: %s loss %v is outside 0..1 (0..100%%)", name, d.Loss)
	case d.RTO != 0 && d.RTO < MinRTO:
		return fmt.Errorf("relay: %s rto %v is below the minimum %v", name, d.RTO, MinRTO)
	}
	return nil
}

func (d Direction) rto() time.Duration {
	if d.RTO == 0 {
		return DefaultRTO
	}
	return d.RTO
}

// DirectionStats counts what went one way, over all connections.
type DirectionStats struct {
	Bytes  int64 // bytes delivered
	Chunks int64 // chunks read (one read from the sending side is one chunk), and datagrams
	Held   int64 // chunks held back by emulated loss (TCP), datagrams dropped (UDP)
}

// Stats is a snapshot of a relay's counters.
type Stats struct {
	Connections int64 // connections (and UDP flows) forwarded since Start
	Active      int64 // connections (and UDP flows) open now
	Up, Down    DirectionStats
}

// Relay is a running relay. Its methods are safe for concurrent use.
type Relay struct {
	cfg     Config
	ln      net.Listener
	ctx     context.Context // canceled by Close: aborts dials in progress
	cancel  context.CancelFunc
	stopCtx func() bool // detaches Close from the caller's context
	dirs    atomic.Pointer[[2]Direction]
	clock   *clock
	udp     *udpRelay // nil unless Config.UDP
	wg      sync.WaitGroup

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool

	accepted  atomic.Uint64 // numbers connections in accept order, which seeds their randomness
	forwarded atomic.Int64
	active    atomic.Int64
	stats     [2]dirCounters
}

// dirCounters is DirectionStats kept with atomics, so readers and writers of
// many connections can count without a lock.
type dirCounters struct{ bytes, chunks, held atomic.Int64 }

func (c *dirCounters) snapshot() DirectionStats {
	return DirectionStats{Bytes: c.bytes.Load(), Chunks: c.chunks.Load(), Held: c.held.Load()}
}

// Start validates cfg, listens and forwards connections in the background
// until Close is called or ctx is done. It returns once the listener is up, so
// Addr can be dialed right away.
func Start(ctx context.Context, cfg Config) (*Relay, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	r := &Relay{cfg: cfg, ln: ln, conns: map[*conn]struct{}{}, clock: newClock()}
	r.dirs.Store(&[2]Direction{cfg.Up, cfg.Down})
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if cfg.UDP {
		if r.udp, err = startUDP(r, ln.Addr().String()); err != nil {
			ln.Close()
			r.cancel()
			r.clock.close()
			return nil, err
		}
	}
	r.stopCtx = context.AfterFunc(ctx, func() { r.Close() })
	r.wg.Add(2)
	go r.accept()
	go func() { defer r.wg.Done(); r.clock.run() }()
	return r, nil
}

// Addr returns the address the relay listens on, with the actual port when
// Config.Listen asked for port 0; with Config.UDP, on UDP too.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// SetDirections changes both directions of the link for every chunk read from
// now on, in open connections too, so a test can step the latency of a live
// game. Chunks already queued keep their release time, and bytes stay in
// order: after a cut in delay the new chunks wait behind the old ones.
func (r *Relay) SetDirections(up, down Direction) error {
	if err := up.validate("up"); err != nil {
		return err
	}
	if err := down.validate("down"); err != nil {
		return err
	}
	r.dirs.Store(&[2]Direction{up, down})
	return nil
}

// Stats returns the counters so far.
func (r *Relay) Stats() Stats {
	return Stats{
		Connections: r.forwarded.Load(),
		Active:      r.active.Load(),
		Up:          r.stats[up].snapshot(),
		Down:        r.stats[down].snapshot(),
	}
}

// Close stops listening, closes every forwarded connection without waiting for
// queued bytes, and returns once all of the relay's goroutines have ended.
// Calling it again is harmless.
func (r *Relay) Close() error {
	r.mu.Lock()
	first := !r.closed
	r.closed = true
	conns := make([]*conn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	var err error
	if first {
		r.stopCtx()
		r.cancel()
		if e := r.ln.Close(); e != nil {
			err = fmt.Errorf("relay: %w", e)
		}
	}
	for _, c := range conns {
		c.shutdown()
	}
	if r.udp != nil && first {
		r.udp.close()
	}
	r.clock.close()
	r.wg.Wait()
	return err
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		client, err := r.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || r.ctx.Err() != nil {
				return
			}
			// Out of file descriptors and the like: back off instead of
			// spinning, and keep serving once it passes.
			r.logError("relay: accept", "err", err)
			select {
			case <-time.After(50 * time.Millisecond):
			case <-r.ctx.Done():
				return
			}
			continue
		}
		r.wg.Add(1)
		go r.handle(client, r.accepted.Add(1))
	}
}

func (r *Relay) logError(msg string, args ...any) {
	if r.cfg.Logger != nil {
		r.cfg.Logger.Error(msg, args...)
	}
}
