package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quic-go/quic-go"
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
type quicGate struct {
	perAddr int // at most this many from one address (addrKey); <= 0: no limit
	total   int // at most this many in all

	mu     sync.Mutex
	n      int
	byAddr map[netip.Prefix]int

	refused *prometheus.CounterVec // by reason: addr, total
}

var (
	errQUICAddr  = errors.New("server: too many QUIC connections from the address")
	errQUICTotal = errors.New("server: too many QUIC connections")
)

func newQUICGate(cfg *Config, m *metrics) *quicGate {
	return &quicGate{perAddr: cfg.MaxConnsPerAddr, total: cfg.MaxPlayers, byAddr: map[netip.Prefix]int{}, refused: m.quicRefused}
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

// open returns the connections the gate holds (webtron_quic_connections).
func (g *quicGate) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}
