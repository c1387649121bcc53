package server

import (
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/coder/websocket"

	"webtron/proto"
)

// Per-address limits (Config.MaxConnsPerAddr, Config.RoomsPerAddr): without
// them one address could hold every connection the server allows and open
// every room it allows, and a real player got "server full".

// addrKey is what the per-address limits count by: an IPv4 address, or the
// /64 an IPv6 address lies in (one host usually holds a whole /64, and would
// otherwise have 2^64 addresses to spread over).
func addrKey(a netip.Addr) netip.Prefix {
	a = a.Unmap()
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(64)
	return p
}

// clientAddr returns the address a request comes from: the socket's peer,
// or, when that peer is a trusted proxy (Config.TrustedProxies), the
// nearest address in X-Forwarded-For that is not one: each proxy appends
// the address it heard from, so the entries right of the first untrusted one
// were written by proxies we trust, and everything left of it by the client,
// who may write anything.
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	peer := peerAddr(r)
	if !s.trusted(peer) {
		return peer
	}
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		list := strings.Split(hops[i], ",")
		for j := len(list) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(list[j]))
			if err != nil {
				return peer // a hop we cannot read: stop at the proxy that sent it
			}
			if a = a.Unmap(); !s.trusted(a) {
				return a
			}
			peer = a
		}
	}
	return peer
}

// peerAddr returns the address of a request's socket peer, whatever it
// says it forwards: for WebTransport, which no HTTP proxy carries (a
// balancer in front of it forwards UDP, and X-Forwarded-For there is the
// client's own word).
func peerAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.IPv6Unspecified() // not a TCP peer (tests): one shared key
	}
	return ap.Addr().Unmap()
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// The close reasons of the per-address limits.
var (
	reasonAddrConns = reason{label: "addr_conns", code: proto.CloseAddrLimit,
		text: "too many connections from your address", status: websocket.StatusTryAgainLater, tell: true}
	reasonAddrRooms = reason{label: "addr_rooms", code: proto.CloseAddrLimit,
		text: "too many new rooms from your address: join an open one, or wait a minute", status: websocket.StatusTryAgainLater, tell: true}
)

// roomQuota spaces the rooms one address opens: RoomsPerAddr a minute, as a
// burst at most.
type roomQuota struct{ b bucket }

// takeRoom spends one of the address's new rooms; false when it has none
// left. Called with s.mu held.
func (s *Server) takeRoom(key netip.Prefix, now time.Duration) bool {
	if s.cfg.RoomsPerAddr < 0 {
		return true
	}
	q := s.roomQuotas[key]
	if q == nil {
		if len(s.roomQuotas) >= maxQuotas {
			s.pruneQuotas(now)
		}
		n := float64(s.cfg.RoomsPerAddr)
		q = &roomQuota{newBucket(n/60, n, now)}
		s.roomQuotas[key] = q
	}
	return q.b.take(now)
}

// maxQuotas bounds the addresses whose room quotas are remembered; past it
// the ones back to a full quota are forgotten (they lose nothing).
const maxQuotas = 4096

func (s *Server) pruneQuotas(now time.Duration) {
	for k, q := range s.roomQuotas {
		if q.b.tokens+q.b.rate*(now-q.b.last).Seconds() >= q.b.burst {
			delete(s.roomQuotas, k)
		}
	}
}
