package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"webtron/client"
	"webtron/headless"
	"webtron/proto"
)

// newWTTestServer is newTestServer also serving WebTransport on the UDP
// port of the same number, as webtron serve does.
func newWTTestServer(t *testing.T, mutate func(*Config)) *testServer {
	t.Helper()
	s := newTestServer(t, mutate)
	_, port, _ := net.SplitHostPort(s.ts.Listener.Addr().String())
	pc, err := net.ListenPacket("udp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeWebTransport(pc) }()
	for s.Transport().WebTransport == nil { // until pages are told about it
		time.Sleep(time.Millisecond)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("ServeWebTransport: %v", err)
		}
		pc.Close()
	})
	return s
}

// TestWebTransportPlays: headless players over WebTransport join a room with
// bots, play, and agree with the room's confirmed hash; their messages went
// as datagrams, and the metrics count the connections by transport.
func TestWebTransportPlays(t *testing.T) {
	s := newWTTestServer(t, func(c *Config) { c.Bots = 2 })
	a := player(t, s.url, headless.Options{Name: "anna", Room: "wt", Transport: headless.WebTransport, BrakeEvery: 200 * time.Millisecond})
	b := player(t, s.url, headless.Options{Name: "bert", Room: "wt", Transport: headless.WebTransport, BrakeEvery: 200 * time.Millisecond})
	for _, p := range []*headless.Player{a, b} {
		if got := p.Transport(); got != headless.WebTransport {
			t.Fatalf("%s connected over %s, want webtransport", p.Name(), got)
		}
	}
	drive(t, a, b)
	time.Sleep(3 * time.Second)
	sameHashes(t, s.Server, "wt", a, b)
	a.Inspect(func(cs *client.Session) {
		st := cs.Stats()
		if st.EventsSent == 0 || st.EventsReceived == 0 || st.Resyncs != 0 || st.ProtocolErrors != 0 {
			t.Errorf("anna's stats %+v", st)
		}
	})
	if err := errors.Join(a.Err(), b.Err()); err != nil {
		t.Fatal(err)
	}
	m := s.metrics
	if got := testutil.ToFloat64(m.conns.WithLabelValues("webtransport")); got != 2 {
		t.Errorf("webtransport connections opened %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.conns.WithLabelValues("websocket")); got != 0 {
		t.Errorf("websocket connections opened %v, want 0", got)
	}
	sent, recv := testutil.ToFloat64(m.datagrams.WithLabelValues("sent")), testutil.ToFloat64(m.datagrams.WithLabelValues("received"))
	// Heartbeats alone are 5 a second to each of two players.
	if sent < 20 || recv < 10 {
		t.Errorf("datagrams sent %v, received %v: the messages did not go as datagrams", sent, recv)
	}
	if p := s.population(); p.wtConns != 2 || p.conns != 2 {
		t.Errorf("population %+v, want 2 connections over webtransport", p)
	}
}

// TestWebTransportFallsBack: a server without WebTransport still gets the
// player, over the WebSocket, within the fallback time.
func TestWebTransportFallsBack(t *testing.T) {
	s := newTestServer(t, nil)
	start := time.Now()
	p := player(t, s.url, headless.Options{Name: "carl", Transport: headless.WebTransport})
	if got := p.Transport(); got != headless.WebSocket {
		t.Fatalf("connected over %s, want the websocket", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("fallback took %v", d)
	}
	if s.Transport().WebTransport != nil {
		t.Fatal("/api/transport offers WebTransport on a server that serves none")
	}
}

// dialWTRaw opens a WebTransport session and its stream, trusting the
// server's advertised certificate hash, for tests that send anything.
func dialWTRaw(t *testing.T, s *testServer) (*webtransport.Session, *webtransport.Stream) {
	t.Helper()
	sess, err := dialWTHeader(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	str, err := sess.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return sess, str
}

// dialWTHeader opens a WebTransport session with extra request headers.
func dialWTHeader(t *testing.T, s *testServer, h http.Header) (*webtransport.Session, error) {
	t.Helper()
	return dialWTConfig(t, s, h, nil)
}

// dialWTConfig is dialWTHeader with the client's session limits (nil: none
// sent, and no session flow control).
func dialWTConfig(t *testing.T, s *testServer, h http.Header, cfg *webtransport.Config) (*webtransport.Session, error) {
	t.Helper()
	info := s.Transport().WebTransport
	if info == nil || len(info.CertHashes) != 1 {
		t.Fatalf("transport info %+v", info)
	}
	tr := &webtransport.Transport{
		Config: cfg,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(st tls.ConnectionState) error {
			h := sha256.Sum256(st.PeerCertificates[0].Raw)
			if base64.StdEncoding.EncodeToString(h[:]) != info.CertHashes[0].Value {
				return errors.New("hash mismatch")
			}
			return nil
		}},
		QUICConfig: &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, sess, err := tr.Dial(ctx, "https://"+s.ts.Listener.Addr().String()+info.Path, h)
	if err != nil {
		tr.Close()
		return nil, err
	}
	t.Cleanup(func() { sess.CloseWithError(0, ""); tr.Close() })
	return sess, nil
}

// TestWebTransportOrigin: the WebSocket's origin rule holds for WebTransport.
func TestWebTransportOrigin(t *testing.T) {
	s := newWTTestServer(t, func(c *Config) { c.Origins = []string{"*.example.com"} })
	host := s.ts.Listener.Addr().String()
	for origin, ok := range map[string]bool{"": true, "https://" + host: true, "https://play.example.com": true, "https://evil.test": false} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		_, err := dialWTHeader(t, s, h)
		if (err == nil) != ok {
			t.Errorf("origin %q: dial error %v, want allowed=%v", origin, err, ok)
		}
	}
}

// TestWebTransportBadInput: bad framing or a bad message, on a datagram or
// on the stream, closes that session with a reason (an Error on the stream,
// the code in the session's close) while a player over WebTransport in the
// same room carries on.
func TestWebTransportBadInput(t *testing.T) {
	s := newWTTestServer(t, func(c *Config) { c.Bots = 1 })
	healthy := player(t, s.url, headless.Options{Name: "healthy", Room: "arena", Transport: headless.WebTransport, BrakeEvery: 300 * time.Millisecond})
	if healthy.Transport() != headless.WebTransport {
		t.Fatalf("healthy player on %s", healthy.Transport())
	}
	drive(t, healthy)
	cases := []struct {
		name     string
		stream   []byte // written on the stream after the hello
		datagram []byte
		text     string
	}{
		{"datagram framing past its end", nil, []byte{0x09, byte(proto.TypePing), 1}, "framing"},
		{"malformed datagram message", nil, proto.AppendFrame(nil, []byte{byte(proto.TypePropose), 0xff, 0xff}), "truncated"},
		{"server-only type on a datagram", nil, proto.AppendFrame(nil, marshal(t, &proto.Accepted{Seq: 1})), "not a client message"},
		{"stream frame over the limit", []byte{0xff, 0xff, 0x03}, nil, "larger than"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A name of its own: the room may not have seen the last
			// case's player leave yet, and names are unique in a room.
			hello := proto.AppendFrame(nil, marshal(t, &proto.Hello{Name: fmt.Sprintf("bad%d", i), Room: "arena"}))
			sess, str := dialWTRaw(t, s)
			if _, err := str.Write(hello); err != nil {
				t.Fatal(err)
			}
			e := readWTError(t, str, func() {
				if tc.stream != nil {
					str.Write(tc.stream)
				}
				if tc.datagram != nil {
					sess.SendDatagram(tc.datagram)
				}
			})
			if e.Code != proto.CloseProtocol || !strings.Contains(e.Text, tc.text) {
				t.Fatalf("closed with %v %q, want protocol error mentioning %q", e.Code, e.Text, tc.text)
			}
			select {
			case <-sess.Context().Done():
			case <-time.After(3 * time.Second):
				t.Fatal("session still open after the Error")
			}
			var se *webtransport.SessionError
			if _, err := sess.AcceptStream(context.Background()); !errors.As(err, &se) || se.ErrorCode != webtransport.SessionErrorCode(proto.CloseProtocol) {
				t.Fatalf("session closed with %v, want code %d", err, proto.CloseProtocol)
			}
		})
	}
	if err := healthy.Err(); err != nil {
		t.Fatalf("healthy player: %v", err)
	}
	sameHashes(t, s.Server, "arena", healthy)
}

// readWTError reads the stream's frames (after running act once the
// Welcome is in) until the server's Error.
func readWTError(t *testing.T, str *webtransport.Stream, act func()) *proto.Error {
	t.Helper()
	str.SetReadDeadline(time.Now().Add(5 * time.Second))
	var got *proto.Error
	proto.ReadFrames(str, proto.MaxSize(proto.TypeWelcome), func(msg []byte, err error) bool {
		if err != nil {
			t.Fatalf("stream ended without an Error: %v", err)
		}
		m, err := proto.Decode(msg)
		if err != nil {
			t.Fatalf("server sent an undecodable message: %v", err)
		}
		switch m := m.(type) {
		case *proto.Welcome:
			act()
		case *proto.Error:
			got = m
		}
		return got == nil
	})
	return got
}

// TestTransportInfo: /api/transport names the path and the hash of the
// certificate the server presents, in the keys the browser reads.
func TestTransportInfo(t *testing.T) {
	s := newWTTestServer(t, nil)
	resp, err := http.Get(s.ts.URL + "/api/transport")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw map[string]map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q: a cached hash outlives its certificate", resp.Header.Get("Cache-Control"))
	}
	wt := raw["webtransport"]
	if wt["path"] != WebTransportPath {
		t.Fatalf("path %v", wt["path"])
	}
	hashes, _ := wt["certHashes"].([]any)
	if len(hashes) != 1 {
		t.Fatalf("certHashes %v", wt["certHashes"])
	}
	h := hashes[0].(map[string]any)
	cert, _, _ := s.wt.Load().certs.current()
	sum := sha256.Sum256(cert.Certificate[0])
	if h["algorithm"] != "sha-256" || h["value"] != base64.StdEncoding.EncodeToString(sum[:]) {
		t.Fatalf("hash entry %v, want sha-256 of the served certificate", h)
	}
}

// TestGeneratedCertificate: what browsers require of a certificate named
// by its hash (ECDSA P-256, at most 14 days, valid now even on a clock a
// little behind), and a new one before the old expires.
func TestGeneratedCertificate(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cs, err := newCertSource("", "", func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	check := func() [sha256.Size]byte {
		t.Helper()
		c, h, err := cs.current()
		if err != nil {
			t.Fatal(err)
		}
		x, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := x.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
			t.Fatalf("key %T, want ECDSA P-256", x.PublicKey)
		}
		if life := x.NotAfter.Sub(x.NotBefore); life > 13*24*time.Hour {
			t.Fatalf("valid for %v, more than 13 days", life)
		}
		if !x.NotBefore.Before(now.Add(-time.Minute)) || !x.NotAfter.After(now.Add(24*time.Hour)) {
			t.Fatalf("valid %v..%v at %v: want notBefore a little in the past and a day left at least", x.NotBefore, x.NotAfter, now)
		}
		if h != sha256.Sum256(c.Certificate[0]) || string(cs.hashes()[0]) != string(h[:]) {
			t.Fatal("hash is not the certificate's")
		}
		return h
	}
	first := check()
	now = now.Add(5 * 24 * time.Hour)
	if check() != first {
		t.Fatal("renewed a certificate with a week left")
	}
	// Step through a month: every certificate handed out is valid then.
	for range 30 {
		now = now.Add(24 * time.Hour)
		check()
	}
	if check() == first {
		t.Fatal("the certificate was never renewed")
	}
	if _, err := newCertSource("cert.pem", "", time.Now); !errors.Is(err, ErrConfig) {
		t.Fatalf("a certificate without its key: %v", err)
	}
}

// TestWebTransportClientCloses: a player that leaves is gone from the
// server at once, not when its silence times out.
func TestWebTransportClientCloses(t *testing.T) {
	s := newWTTestServer(t, nil)
	p := player(t, s.url, headless.Options{Name: "dora", Transport: headless.WebTransport})
	s.waitConns(t, 1)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s.waitConns(t, 0)
}

// TestWebTransportEmptyDatagrams: an empty datagram is an empty message,
// counted like any other (it held no message, so it used to cost nothing:
// 470,000 of them in 15.6 s took 6.7 CPU-seconds and only the idle
// timeout ended them) and malformed: the session closes with a reason.
func TestWebTransportEmptyDatagrams(t *testing.T) {
	s := newWTTestServer(t, nil)
	sess, str := dialWTRaw(t, s)
	if _, err := str.Write(proto.AppendFrame(nil, marshal(t, &proto.Hello{Name: "empty", Room: "r"}))); err != nil {
		t.Fatal(err)
	}
	e := readWTError(t, str, func() {
		for range 1000 {
			sess.SendDatagram(nil)
		}
	})
	if e.Code != proto.CloseProtocol || !strings.Contains(e.Text, "truncated") {
		t.Fatalf("closed with %v %q, want a protocol error (an empty message is truncated)", e.Code, e.Text)
	}
	if v := metricValue(t, s.Server, `webtron_disconnects_total{reason="malformed"}`); v != 1 {
		t.Errorf("malformed disconnects %v, want 1", v)
	}
}

// TestWebTransportIgnoresForwardedFor: no HTTP proxy carries WebTransport
// (UDP), so its X-Forwarded-For is the client's own word even from a
// trusted proxy's address: behind a layer-4 balancer every client would
// otherwise name its own address and escape the per-address limits.
func TestWebTransportIgnoresForwardedFor(t *testing.T) {
	s := newWTTestServer(t, func(c *Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	sess, err := dialWTHeader(t, s, http.Header{"X-Forwarded-For": {"203.0.113.7"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	str, err := sess.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := str.Write(proto.AppendFrame(nil, marshal(t, &proto.Hello{Name: "far", Room: "r"}))); err != nil {
		t.Fatal(err)
	}
	s.waitConns(t, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if want := netip.MustParsePrefix("127.0.0.1/32"); c.addr != want || c.remote != "127.0.0.1" {
			t.Errorf("the session counts as %v (%s), want its UDP peer %v", c.addr, c.remote, want)
		}
	}
}

// dialQUIC opens a bare QUIC connection to the WebTransport port, as a
// browser's first step, kept alive by PINGs: it never opens a session.
func dialQUIC(t *testing.T, s *testServer) (*quic.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := quic.DialAddr(ctx, s.ts.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h3"}},
		&quic.Config{KeepAlivePeriod: 50 * time.Millisecond, EnableDatagrams: true, EnableStreamResetPartialDelivery: true})
	if err == nil {
		t.Cleanup(func() { c.CloseWithError(0, "") })
	}
	return c, err
}

// TestQUICConnectionsCapped: QUIC connections that never open a session
// are closed once idle at the HTTP/3 layer (the client's keep-alive PINGs
// do not count), counted in webtron_quic_connections, and capped per
// address and in all (3,000 from one address stayed open for good and took
// the server from 85 to 351 MB); the place a closed one frees is a
// player's again.
func TestQUICConnectionsCapped(t *testing.T) {
	t.Run("per address", func(t *testing.T) {
		s := newWTTestServer(t, func(c *Config) { c.MaxConnsPerAddr = 3; c.HelloTimeout = 300 * time.Millisecond })
		var conns []*quic.Conn
		for i := range 3 {
			c, err := dialQUIC(t, s)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			conns = append(conns, c)
		}
		if _, err := dialQUIC(t, s); err == nil {
			t.Fatal("a fourth QUIC connection from the address got in")
		}
		if v := metricValue(t, s.Server, MetricQUICConns); v != 3 {
			t.Errorf("%s = %v, want 3", MetricQUICConns, v)
		}
		if v := metricValue(t, s.Server, MetricQUICRefused+`{reason="addr"}`); v < 1 {
			t.Errorf("refused for the address: %v, want 1 or more", v)
		}
		for i, c := range conns {
			select {
			case <-c.Context().Done():
			case <-time.After(3 * time.Second):
				t.Fatalf("connection %d without a session still open 3 s on", i)
			}
		}
		deadline := time.Now().Add(time.Second)
		for metricValue(t, s.Server, MetricQUICConns) != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if v := metricValue(t, s.Server, MetricQUICConns); v != 0 {
			t.Errorf("%s = %v once they closed, want 0", MetricQUICConns, v)
		}
		// One that keeps a request open (its headers cut short) without a
		// session, which stops the HTTP/3 idle timer, is closed as well.
		c, err := dialQUIC(t, s)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		str, err := c.OpenStreamSync(ctx)
		if err != nil {
			t.Fatal(err)
		}
		str.Write([]byte{0x01, 0x40}) // a HEADERS frame, its length cut short
		select {
		case <-c.Context().Done():
		case <-time.After(3 * time.Second):
			t.Fatal("a connection with a request stalled in its headers still open 3 s on")
		}
		p := player(t, s.url, headless.Options{Name: "after", Transport: headless.WebTransport})
		if p.Transport() != headless.WebTransport {
			t.Fatalf("a player after the idle ones connected over %s", p.Transport())
		}
		// A session is a request open: the idle timeout leaves it alone.
		drive(t, p)
		time.Sleep(time.Second)
		select {
		case <-p.Done():
			t.Fatalf("the player's session ended after %v: %v", time.Second, p.Err())
		default:
		}
	})
	t.Run("in all", func(t *testing.T) {
		s := newWTTestServer(t, func(c *Config) { c.MaxConnsPerAddr = -1; c.MaxPlayers = 2 })
		for i := range 2 {
			if _, err := dialQUIC(t, s); err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
		}
		if _, err := dialQUIC(t, s); err == nil {
			t.Fatal("a third QUIC connection got in past the total")
		}
		if v := metricValue(t, s.Server, MetricQUICRefused+`{reason="total"}`); v < 1 {
			t.Errorf("refused for the total: %v, want 1 or more", v)
		}
	})
}
