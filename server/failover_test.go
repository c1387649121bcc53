package server

import (
	"strings"
	"testing"
	"time"

	"webtron/internal/natstest"
	"webtron/proto"
)

// TestProxyTakesItsHoldOutOfTheClock: a proxied join's Welcome is the
// client's first clock sample, and the time the proxying node held the
// Hello (lease reads, a takeover, the dial, retries while the cluster
// settles) is no part of its round trip, as the owner's own hold is not
// (room.TestWelcomeClockExcludesHeldHello). Issue 21's cluster test had a
// join held 3.2 s: the client ran that far ahead of its room, past its
// rollback window, and asked for two resyncs.
func TestProxyTakesItsHoldOutOfTheClock(t *testing.T) {
	const held = 2 * time.Second
	owner := newTestServer(t, nil)
	proxy := clusterServer(t, natstest.Start(t), nil)
	c := newConn(proxy.Server, nil, nil)
	c.lastRecv.Store(int64(proxy.now() - held)) // when the Hello came in
	const sent = 1_000_000                      // µs, the client's clock
	if why := proxy.cl.forward(c, "http"+strings.TrimPrefix(owner.url, "ws"), &proto.Hello{Name: "ann", Room: "r", ClientTime: sent}); why != nil {
		t.Fatalf("forward: %s", why.text)
	}
	defer c.up.close()
	var batch [][]byte
	select {
	case batch = <-c.send:
	case <-time.After(5 * time.Second):
		t.Fatal("no Welcome through the proxy")
	}
	m, err := proto.Decode(batch[0])
	if err != nil {
		t.Fatal(err)
	}
	w, ok := m.(*proto.Welcome)
	if !ok {
		t.Fatalf("first message through the proxy: %v, want a Welcome", m.Type())
	}
	if got := time.Duration(w.ClientTime-sent) * time.Microsecond; got < held || got > held+time.Second {
		t.Fatalf("Welcome.ClientTime is the Hello's advanced by %v, want the proxy's hold of %v (and the owner's, a few ms)", got, held)
	}
}
