package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/headless"
	"webtron/proto"
)

// dialFrom opens a WebSocket whose handshake says it was forwarded for
// client (empty: no X-Forwarded-For).
func dialFrom(t *testing.T, url, client string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := http.Header{}
	if client != "" {
		h.Set("X-Forwarded-For", client)
	}
	ws, _, err := websocket.Dial(ctx, url+"/ws", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// welcomed sends a Hello and reads until the Welcome, failing on an Error.
func welcomed(t *testing.T, ws *websocket.Conn, h *proto.Hello) {
	t.Helper()
	send(t, ws, websocket.MessageBinary, marshal(t, h))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("%s: no welcome: %v", h.Name, err)
		}
		switch m, _ := proto.Decode(b); m := m.(type) {
		case *proto.Welcome:
			return
		case *proto.Error:
			t.Fatalf("%s: closed: %v", h.Name, m)
		}
	}
}

// TestConnectionsPerAddress: one address (one attacker) holds at most
// MaxConnsPerAddr connections, and the next gets a clear reason, while a
// player from another address still gets in. X-Forwarded-For counts only
// from a trusted proxy.
func TestConnectionsPerAddress(t *testing.T) {
	t.Run("behind a trusted proxy", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) {
			c.MaxConnsPerAddr = 3
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		})
		for i := range 3 {
			welcomed(t, dialFrom(t, s.url, "203.0.113.7"), &proto.Hello{Name: fmt.Sprint("spec", i), Room: "r", Spectate: true})
		}
		// The client's own entries (left) are not believed; the proxy's are.
		over := dialFrom(t, s.url, "198.51.100.9, 203.0.113.7")
		e := expectClosed(t, over, proto.CloseAddrLimit, websocket.StatusTryAgainLater)
		t.Logf("over the cap: %q", e.Text)
		welcomed(t, dialFrom(t, s.url, "203.0.113.7, 198.51.100.2"), &proto.Hello{Name: "real", Room: "r"})
		if v := metricValue(t, s.Server, `webtron_disconnects_total{reason="addr_conns"}`); v != 1 {
			t.Errorf("addr_conns disconnects %v, want 1", v)
		}
	})
	t.Run("no proxy trusted", func(t *testing.T) {
		s := newTestServer(t, func(c *Config) { c.MaxConnsPerAddr = 3 })
		for i := range 3 {
			welcomed(t, dialFrom(t, s.url, fmt.Sprintf("192.0.2.%d", i)), &proto.Hello{Name: fmt.Sprint("p", i), Room: "r"})
		}
		expectClosed(t, dialFrom(t, s.url, "192.0.2.99"), proto.CloseAddrLimit, websocket.StatusTryAgainLater)
	})
}

// TestRoomsPerAddress: one address opens at most RoomsPerAddr rooms a
// minute (one address opened all 100); joining rooms that exist is free.
func TestRoomsPerAddress(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.RoomsPerAddr = 2 })
	welcomed(t, dialRaw(t, s.url), &proto.Hello{Name: "a", Room: "one"})
	welcomed(t, dialRaw(t, s.url), &proto.Hello{Name: "b", Room: "two"})
	ws := dialRaw(t, s.url)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "c", Room: "three"}))
	expectClosed(t, ws, proto.CloseAddrLimit, websocket.StatusTryAgainLater)
	welcomed(t, dialRaw(t, s.url), &proto.Hello{Name: "c", Room: "one"})
	if n := len(s.Rooms()); n != 2 {
		t.Fatalf("%d rooms open, want 2", n)
	}
}

func TestClientAddr(t *testing.T) {
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}
	for _, c := range []struct {
		remote string
		xff    []string
		want   string
	}{
		{"192.0.2.1:5000", nil, "192.0.2.1"},
		{"192.0.2.1:5000", []string{"203.0.113.5"}, "192.0.2.1"}, // not a trusted peer: ignored
		{"10.1.2.3:5000", nil, "10.1.2.3"},
		{"10.1.2.3:5000", []string{"203.0.113.5"}, "203.0.113.5"},
		{"10.1.2.3:5000", []string{"1.1.1.1, 203.0.113.5, 10.9.9.9"}, "203.0.113.5"}, // two proxies of ours
		{"10.1.2.3:5000", []string{"1.1.1.1", "203.0.113.5"}, "203.0.113.5"},         // one header each
		{"10.1.2.3:5000", []string{"junk, 203.0.113.5"}, "203.0.113.5"},
		{"10.1.2.3:5000", []string{"203.0.113.5, junk"}, "10.1.2.3"}, // a proxy of ours wrote junk: stop there
		{"[::1]:5000", []string{"2001:db8::1"}, "2001:db8::1"},
		{"[::ffff:192.0.2.1]:5000", nil, "192.0.2.1"},
	} {
		r := httptest.NewRequest("GET", "/ws", nil)
		r.RemoteAddr = c.remote
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := s.clientAddr(r); got.String() != c.want {
			t.Errorf("%s with %q: %v, want %s", c.remote, c.xff, got, c.want)
		}
	}
	a := addrKey(netip.MustParseAddr("2001:db8:1:2:3:4:5:6"))
	b := addrKey(netip.MustParseAddr("2001:db8:1:2:ffff::1"))
	if a != b || a.Bits() != 64 {
		t.Errorf("one IPv6 /64 counts as one address: %v, %v", a, b)
	}
}

// serveReal runs the server through Serve (the real http.Server, with its
// timeouts and connection counting) on a loopback port.
func serveReal(t *testing.T, mutate func(*Config)) (*Server, string) {
	t.Helper()
	cfg := Config{Logger: quiet, Rules: fastRules(), Seed: 42}
	mutate(&cfg)
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s, ln.Addr().String()
}

// TestIdleHTTPConnectionsClosed: kept-alive HTTP connections that go quiet
// are closed after HTTPIdleTimeout (a thousand of them used to stay open
// for good, until accept failed at the file limit), and the open ones are
// counted in webtron_http_connections. A WebSocket is not an HTTP
// connection any more once upgraded: the HTTP timeouts do not touch it.
func TestIdleHTTPConnectionsClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	s, addr := serveReal(t, func(c *Config) { c.HTTPIdleTimeout = idle; c.HTTPReadTimeout = idle })
	p := player(t, "ws://"+addr, headless.Options{Name: "ws", Room: "r"})
	drive(t, p)
	var conns []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		conns = append(conns, c)
	}
	if v := metricValue(t, s, MetricHTTPConns); v != 20 {
		t.Errorf("%s = %v with 20 kept-alive connections, want 20", MetricHTTPConns, v)
	}
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(idle + 2*time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("idle connection %d: %v, want closed by the server", i, err)
		}
	}
	deadline := time.Now().Add(time.Second)
	for metricValue(t, s, MetricHTTPConns) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if v := metricValue(t, s, MetricHTTPConns); v != 0 {
		t.Errorf("%s = %v after the idle ones closed, want 0", MetricHTTPConns, v)
	}
	time.Sleep(idle)
	if err := p.Err(); err != nil {
		t.Fatalf("the WebSocket was cut by the HTTP timeouts: %v", err)
	}
	select {
	case <-p.Done():
		t.Fatal("the WebSocket was cut by the HTTP timeouts")
	default:
	}
}
