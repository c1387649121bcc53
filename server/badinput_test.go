package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/client"
	"webtron/headless"
	"webtron/proto"
)

// TestBadInputClosesOnlyThatConnection sends each kind of bad input on its
// own connection into a room where a healthy player keeps playing: the bad
// connection is closed with a clear reason (an Error, then a close status),
// and the room and the healthy player carry on.
func TestBadInputClosesOnlyThatConnection(t *testing.T) {
	s := newTestServer(t, func(c *Config) {
		c.Bots = 2
		c.HelloTimeout = 300 * time.Millisecond
	})
	healthy := player(t, s.url, headless.Options{Name: "healthy", Room: "arena", BrakeEvery: 300 * time.Millisecond})
	drive(t, healthy)
	// A name each: a seat cut off keeps its name while it may come back
	// (for as long as it was connected, here milliseconds).
	n := 0
	hello := func(t *testing.T) []byte {
		n++
		return marshal(t, &proto.Hello{Name: fmt.Sprintf("bad%d", n), Room: "arena"})
	}
	badVersion := func(t *testing.T) []byte {
		b := hello(t)
		b[1] = proto.Version + 1 // the version varint right after the type byte
		return b
	}
	cases := []struct {
		name   string
		hello  bool // send a valid Hello first
		typ    websocket.MessageType
		msg    func(t *testing.T) []byte
		code   proto.CloseCode
		status websocket.StatusCode
		text   string
	}{
		{"malformed", true, websocket.MessageBinary, func(*testing.T) []byte { return []byte{byte(proto.TypePropose), 0xff, 0xff} },
			proto.CloseProtocol, websocket.StatusPolicyViolation, "truncated"},
		{"oversized", true, websocket.MessageBinary, func(*testing.T) []byte { return bytes.Repeat([]byte{5}, 64<<10) },
			proto.CloseProtocol, websocket.StatusMessageTooBig, "larger than"},
		{"just over the limit", true, websocket.MessageBinary, func(*testing.T) []byte { return bytes.Repeat([]byte{5}, maxClientMessage+1) },
			proto.CloseProtocol, websocket.StatusMessageTooBig, "larger than"},
		{"unknown type", true, websocket.MessageBinary, func(*testing.T) []byte { return []byte{200, 1, 2} },
			proto.CloseProtocol, websocket.StatusUnsupportedData, "unknown"},
		{"text message", true, websocket.MessageText, func(*testing.T) []byte { return []byte("hello?") },
			proto.CloseProtocol, websocket.StatusUnsupportedData, "text"},
		{"before hello", false, websocket.MessageBinary, func(t *testing.T) []byte { return marshal(t, &proto.Ping{ID: 1}) },
			proto.CloseProtocol, websocket.StatusPolicyViolation, "before hello"},
		{"server-only type", true, websocket.MessageBinary, func(t *testing.T) []byte { return marshal(t, &proto.Accepted{Seq: 1}) },
			proto.CloseProtocol, websocket.StatusPolicyViolation, "not a client message"},
		{"version", false, websocket.MessageBinary, badVersion,
			proto.CloseVersion, websocket.StatusPolicyViolation, "version"},
		{"bad room name", false, websocket.MessageBinary, func(t *testing.T) []byte { return marshal(t, &proto.Hello{Name: "x", Room: "a\x01b"}) },
			proto.CloseBadName, websocket.StatusPolicyViolation, "room name"},
		{"hello timeout", false, websocket.MessageBinary, nil,
			proto.CloseTimeout, websocket.StatusPolicyViolation, "no hello"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := dialRaw(t, s.url)
			if tc.hello {
				send(t, ws, websocket.MessageBinary, hello(t))
			}
			if tc.msg != nil {
				send(t, ws, tc.typ, tc.msg(t))
			}
			e := expectClosed(t, ws, tc.code, tc.status)
			if !strings.Contains(e.Text, tc.text) {
				t.Fatalf("reason %q does not mention %q", e.Text, tc.text)
			}
		})
	}
	t.Run("rate limit", func(t *testing.T) {
		ws := dialRaw(t, s.url)
		send(t, ws, websocket.MessageBinary, hello(t))
		ping := marshal(t, &proto.Ping{ID: 1})
		for range 2 * int(s.cfg.MsgBurst) {
			if err := ws.Write(t.Context(), websocket.MessageBinary, ping); err != nil {
				break // closed under us: what we want
			}
		}
		expectClosed(t, ws, proto.CloseKicked, websocket.StatusPolicyViolation)
	})
	// The room and the healthy player carried on through all of it.
	var before int64
	healthy.Inspect(func(cs *client.Session) { before = cs.Confirmed() })
	var after int64
	var errs int64
	// Finality moves with the heartbeats, a second apart in a quiet room.
	for deadline := time.Now().Add(3 * time.Second); after <= before && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		healthy.Inspect(func(cs *client.Session) { after, errs = cs.Confirmed(), cs.Stats().ProtocolErrors+cs.Stats().Resyncs })
	}
	if err := healthy.Err(); err != nil || after <= before || errs != 0 {
		t.Fatalf("healthy player: err %v, confirmed %d -> %d, %d errors", err, before, after, errs)
	}
	sameHashes(t, s.Server, "arena", healthy)
}

// TestLimits: --max-players and --max-rooms refuse with a reason.
func TestLimits(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.MaxPlayers = 2; c.MaxRooms = 1 })
	player(t, s.url, headless.Options{Name: "one", Room: "only"})
	ws := dialRaw(t, s.url)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "two", Room: "another"}))
	expectClosed(t, ws, proto.CloseRoomFull, websocket.StatusTryAgainLater)
	s.waitConns(t, 1)
	player(t, s.url, headless.Options{Name: "two", Room: "only"})
	ws = dialRaw(t, s.url)
	expectClosed(t, ws, proto.CloseRoomFull, websocket.StatusTryAgainLater)
}
