package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// quicGate bounds the QUIC connections under WebTransport. A connection
// that never opens a session is no conn (server/conn.go): none of the
// per-connection limits sees it, and kept alive by the client's PINGs it
// used to stay for good (issue 21: 3,000 from one address took the server
// from 85 to 351 MB, about 95 KB and 6 goroutines each). The HTTP/3 idle
// timeout now closes one without a request; the gate counts them from the
// first packet to the close (handshakes included) and refuses a new one
// over Config.MaxConnsPerAddr from its address or Config.MaxPlayers in all,
// before any handshake work. A refused browser falls back to the WebSocket.
// An admitted one without a session for sessionless (the hello timeout: a
// client opens its session at once) is closed too, whatever requests it
// keeps open: one whose headers never end stops the idle timer.
type quicGate struct {
	perAddr     int           // at most this many from one address (addrKey); <= 0: no limit
	total       int           // at most this many in all
	sessionless time.Duration // how long a connection may go without a session

	mu       sync.Mutex
	n        int
	byAddr   map[netip.Prefix]int
	sessions map[*quic.Conn]*quicSessions

	refused *prometheus.CounterVec // by reason: addr, total
}

// quicSessions is one connection's sessions in progress, and the timer that
// closes it once it has been without one for sessionless.
type quicSessions struct {
	n     int
	timer *time.Timer
}

var (
	errQUICAddr  = errors.New("server: too many QUIC connections from the address")
	errQUICTotal = errors.New("server: too many QUIC connections")
)

func newQUICGate(cfg *Config, m *metrics) *quicGate {
	return &quicGate{perAddr: cfg.MaxConnsPerAddr, total: cfg.MaxPlayers, sessionless: cfg.HelloTimeout,
		byAddr: map[netip.Prefix]int{}, sessions: map[*quic.Conn]*quicSessions{}, refused: m.quicRefused}
}

// quicKey is the per-address key of a QUIC peer.
func quicKey(a net.Addr) netip.Prefix {
	if u, ok := a.(*net.UDPAddr); ok {
		return addrKey(u.AddrPort().Addr())
	}
	return addrKey(netip.IPv6Unspecified())
}

// connContext is quic.Transport.ConnContext: it admits a connection or
// refuses it (quic-go answers CONNECTION_REFUSED), and gives its place back
// when the connection's context ends (closed, or its handshake failed).
func (g *quicGate) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	key := quicKey(info.RemoteAddr)
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.n >= g.total:
		g.refused.WithLabelValues("total").Inc()
		return nil, errQUICTotal
	case g.perAddr > 0 && g.byAddr[key] >= g.perAddr:
		g.refused.WithLabelValues("addr").Inc()
		return nil, errQUICAddr
	}
	g.n++
	g.byAddr[key]++
	context.AfterFunc(ctx, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.n--
		if g.byAddr[key]--; g.byAddr[key] <= 0 {
			delete(g.byAddr, key)
		}
	})
	return ctx, nil
}

// verifySource is quic.Transport.VerifySourceAddress: once the gate is half
// full, in all or for the address, a new connection must first prove its
// address with a Retry (one round trip more), so that Initial packets with
// forged source addresses, which cost nothing to send, cannot take the
// places of real ones.
func (g *quicGate) verifySource(a net.Addr) bool {
	key := quicKey(a)
	g.mu.Lock()
	defer g.mu.Unlock()
	return 2*g.n >= g.total || g.perAddr > 0 && 2*g.byAddr[key] >= g.perAddr
}

// accepted starts the watch over a connection's sessions; it ends with the
// connection.
func (g *quicGate) accepted(qc *quic.Conn) {
	w := &quicSessions{}
	g.mu.Lock()
	g.sessions[qc] = w
	w.timer = time.AfterFunc(g.sessionless, func() { g.expire(qc, w) })
	g.mu.Unlock()
	context.AfterFunc(qc.Context(), func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		w.timer.Stop()
		delete(g.sessions, qc)
	})
}

// expire closes a connection still without a session.
func (g *quicGate) expire(qc *quic.Conn, w *quicSessions) {
	g.mu.Lock()
	idle := w.n == 0
	g.mu.Unlock()
	if idle {
		qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "no session")
	}
}

// session counts a session (a request for one, from its start) on qc; the
// function it returns ends it, and the connection has sessionless again to
// open another.
func (g *quicGate) session(qc *quic.Conn) (end func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.sessions[qc]
	if w == nil { // not a connection the gate watches (closing already)
		return func() {}
	}
	w.n++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if w.n--; w.n == 0 {
			w.timer.Reset(g.sessionless)
		}
	}
}

// open returns the connections the gate holds (webtron_quic_connections).
func (g *quicGate) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}
