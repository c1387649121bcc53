package relay

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"
)

// UDP relaying (Config.UDP): the relay also listens for datagrams on the
// port number of its TCP listener and forwards them to the same address as
// the TCP connections, so that a page loaded through the relay reaches
// WebTransport (QUIC, on UDP) at its own host and port through it too.
//
// Each client address is a flow with its own socket towards the server, so
// the server sees one peer per client, as through a NAT. A datagram is
// released at arrival + delay ± jitter, never before the one the same flow
// sent before it in the same direction (a path whose jitter comes from its
// queues keeps datagrams in order), and loss drops it: nothing retransmits
// a datagram but its sender.

// udpIdle is how long a flow lives without a datagram either way.
const udpIdle = 2 * time.Minute

// maxDatagram is the largest datagram relayed (UDP's own limit).
const maxDatagram = 64 << 10

// udpRelay is the UDP side of a Relay.
type udpRelay struct {
	r  *Relay
	pc *net.UDPConn
	to *net.UDPAddr
	w  *waiter // the writer's place in the relay's clock

	mu        sync.Mutex
	flows     map[netip.AddrPort]*flow
	q         dgramHeap
	scheduled time.Time // when the writer is scheduled to wake; zero if not
	closed    bool
	lastSweep time.Time
	order     uint64 // numbers the datagrams queued, so equal release times keep order
}

// flow is one client address and its socket towards the server.
type flow struct {
	id     uint64
	client netip.AddrPort
	server *net.UDPConn
	rng    [2]*rand.Rand // per direction, owned by that direction's reader
	prev   [2]time.Time  // release time of the last datagram queued each way (under udpRelay.mu)
	last   time.Time     // last datagram either way (under udpRelay.mu)
}

// dgram is a datagram waiting for its release time.
type dgram struct {
	release time.Time
	order   uint64
	data    []byte
	f       *flow
	dir     int
}

func startUDP(r *Relay, addr string) (*udpRelay, error) {
	la, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("relay: udp listen: %w", err)
	}
	to, err := net.ResolveUDPAddr("udp", r.cfg.To)
	if err != nil {
		return nil, fmt.Errorf("relay: udp to: %w", err)
	}
	pc, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, fmt.Errorf("relay: udp: %w", err)
	}
	u := &udpRelay{r: r, pc: pc, to: to, w: newWaiter(), flows: map[netip.AddrPort]*flow{}}
	r.wg.Add(2)
	go u.readClients()
	go u.write()
	return u, nil
}

// readClients reads what clients send and queues it towards the server.
func (u *udpRelay) readClients() {
	defer u.r.wg.Done()
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := u.pc.ReadFromUDPAddrPort(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				u.r.logError("relay: udp read", "err", err)
			}
			return
		}
		f := u.flow(from)
		if f == nil {
			continue
		}
		u.push(f, up, buf[:n])
	}
}

// flow returns the flow of a client address, opening it on its first datagram.
func (u *udpRelay) flow(client netip.AddrPort) *flow {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil
	}
	now := time.Now()
	if now.Sub(u.lastSweep) > udpIdle/4 {
		u.lastSweep = now
		for k, f := range u.flows {
			if now.Sub(f.last) > udpIdle {
				delete(u.flows, k)
				f.server.Close()
			}
		}
	}
	if f := u.flows[client]; f != nil {
		return f
	}
	sc, err := net.DialUDP("udp", nil, u.to)
	if err != nil {
		u.r.logError("relay: udp dial", "to", u.to.String(), "err", err)
		return nil
	}
	id := u.r.accepted.Add(1)
	f := &flow{id: id, client: client, server: sc, last: now}
	for dir := range f.rng {
		f.rng[dir] = newPipeRand(u.r.cfg.Seed, id, dir)
	}
	u.flows[client] = f
	u.r.forwarded.Add(1)
	u.r.active.Add(1)
	u.r.wg.Add(1)
	go u.readServer(f)
	if u.r.cfg.Logger != nil {
		u.r.cfg.Logger.Info("relay: udp flow opened", "flow", id, "client", client.String(), "server", u.to.String())
	}
	return f
}

// readServer reads what the server sends a flow and queues it towards its client.
func (u *udpRelay) readServer(f *flow) {
	defer u.r.wg.Done()
	defer u.r.active.Add(-1)
	buf := make([]byte, maxDatagram)
	for {
		n, err := f.server.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // an ICMP error (the server not there yet): keep the flow
		}
		u.push(f, down, buf[:n])
	}
}

// push queues a copy of data one way, or drops it (emulated loss). The two
// random draws happen for every datagram, so the stream of draws depends on
// the datagrams alone.
func (u *udpRelay) push(f *flow, dir int, data []byte) {
	arrival := time.Now()
	d := u.r.dirs.Load()[dir]
	jitter, loss := f.rng[dir].Float64(), f.rng[dir].Float64()
	stats := &u.r.stats[dir]
	stats.chunks.Add(1)
	u.mu.Lock()
	defer u.mu.Unlock()
	f.last = arrival
	if loss < d.Loss {
		stats.held.Add(1)
		return
	}
	release := arrival.Add(max(0, d.Delay+time.Duration((2*jitter-1)*float64(d.Jitter))))
	if release.Before(f.prev[dir]) {
		release = f.prev[dir]
	}
	f.prev[dir] = release
	u.order++
	heap.Push(&u.q, dgram{release: release, order: u.order, data: append([]byte(nil), data...), f: f, dir: dir})
	if u.scheduled.IsZero() || release.Before(u.scheduled) {
		u.schedule(release)
	}
}

// schedule (re)sets the writer's wake-up, with u.mu held.
func (u *udpRelay) schedule(t time.Time) {
	u.r.clock.cancel(u.w)
	u.scheduled = t
	u.r.clock.schedule(u.w, t)
}

// write delivers datagrams at their release times until the relay closes.
func (u *udpRelay) write() {
	defer u.r.wg.Done()
	var due []dgram
	for {
		select {
		case <-u.w.wake:
		case <-u.r.ctx.Done():
			return
		}
		now := time.Now()
		u.mu.Lock()
		due = due[:0]
		for len(u.q) > 0 && !u.q[0].release.After(now) {
			due = append(due, heap.Pop(&u.q).(dgram))
		}
		u.scheduled = time.Time{}
		if len(u.q) > 0 {
			u.schedule(u.q[0].release)
		}
		u.mu.Unlock()
		for i, d := range due {
			var err error
			if d.dir == up {
				_, err = d.f.server.Write(d.data)
			} else {
				_, err = u.pc.WriteToUDPAddrPort(d.data, d.f.client)
			}
			if err == nil {
				u.r.stats[d.dir].bytes.Add(int64(len(d.data)))
			}
			due[i] = dgram{}
		}
	}
}

// close stops the UDP side; the Relay waits for its goroutines.
func (u *udpRelay) close() {
	u.mu.Lock()
	u.closed = true
	flows := u.flows
	u.flows = nil
	u.q = nil
	u.r.clock.cancel(u.w)
	u.mu.Unlock()
	u.pc.Close()
	for _, f := range flows {
		f.server.Close()
	}
}

// addr is the UDP address the relay listens on.
func (u *udpRelay) addr() string { return u.pc.LocalAddr().String() }

// dgramHeap orders queued datagrams by release time, then by arrival.
type dgramHeap []dgram

func (h dgramHeap) Len() int { return len(h) }
func (h dgramHeap) Less(i, j int) bool {
	if h[i].release.Equal(h[j].release) {
		return h[i].order < h[j].order
	}
	return h[i].release.Before(h[j].release)
}
func (h dgramHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dgramHeap) Push(x any)   { *h = append(*h, x.(dgram)) }
func (h *dgramHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	old[len(old)-1] = dgram{}
	*h = old[:len(old)-1]
	return d
}
