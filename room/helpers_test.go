package room

import (
	"testing"
	"time"

	"webtron/proto"
)

// sentMsg is one message the room sent, decoded.
type sentMsg struct {
	c ConnID
	m proto.Message
}

// testTransport records what a room sends and closes (room.Transport).
type testTransport struct {
	t      testing.TB
	out    []sentMsg
	closed map[ConnID]*proto.Error
}

func (tr *testTransport) Send(c ConnID, b []byte) {
	m, err := proto.Decode(b)
	if err != nil {
		tr.t.Fatalf("the room sent an undecodable message: %v", err)
	}
	tr.out = append(tr.out, sentMsg{c, m})
}

func (tr *testTransport) Close(c ConnID, why *proto.Error) {
	if tr.closed == nil {
		tr.closed = map[ConnID]*proto.Error{}
	}
	tr.closed[c] = why
}

// to returns the messages sent to c so far.
func (tr *testTransport) to(c ConnID) []proto.Message {
	var ms []proto.Message
	for _, s := range tr.out {
		if s.c == c {
			ms = append(ms, s.m)
		}
	}
	return ms
}

// newTestRoom makes a room whose tick 0 is at time 0, with its transport.
func newTestRoom(t testing.TB, cfg Config) (*Room, *testTransport) {
	t.Helper()
	tr := &testTransport{t: t}
	r, err := New("test", cfg, 0, tr)
	if err != nil {
		t.Fatal(err)
	}
	return r, tr
}

// hello joins connection c, failing the test if the room refuses it.
func hello(t testing.TB, r *Room, c ConnID, h *proto.Hello, now time.Duration) {
	t.Helper()
	if e := r.Receive(c, h, now); e != nil {
		t.Fatalf("hello of connection %d: %v", c, e)
	}
}

// runUntil ticks r at its tick times from now until stop reports true or
// the limit passes, and returns the time reached.
func runUntil(t testing.TB, r *Room, now, limit time.Duration, stop func() bool) time.Duration {
	t.Helper()
	for !stop() {
		if now >= limit {
			t.Fatalf("not done by %v", limit)
		}
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	return now
}
