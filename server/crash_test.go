package server

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"webtron/client"
	"webtron/headless"
	"webtron/replay"
	"webtron/room"
)

// TestRoomPanicClosesOnlyThatRoom injects a panic into one room's goroutine:
// that room closes with a reason its player is told, the panic is counted
// and dumped, the other room plays on, and the name opens afresh.
func TestRoomPanicClosesOnlyThatRoom(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, func(c *Config) { c.DataDir = data; c.Bots = 2 })
	a := player(t, s.url, headless.Options{Name: "alice", Room: "doomed"})
	b := player(t, s.url, headless.Options{Name: "bob", Room: "lives"})
	drive(t, a, b)
	time.Sleep(500 * time.Millisecond)

	s.mu.Lock()
	h := s.rooms["doomed"]
	s.mu.Unlock()
	h.inbox <- inbound{fn: func(*room.Room) { panic("injected by the test") }}
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the room's goroutine did not end")
	}
	select {
	case <-a.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the crashed room's player was not disconnected")
	}
	if err := a.Err(); !errors.Is(err, headless.ErrDropped) || !strings.Contains(err.Error(), "room failed") {
		t.Fatalf("player of the crashed room ended with %v, want the crash's reason", err)
	}
	if got := metricValue(t, s.Server, MetricRoomPanics); got != 1 {
		t.Fatalf("%s = %v, want 1", MetricRoomPanics, got)
	}

	// The other room plays on.
	before := presentOf(b)
	time.Sleep(500 * time.Millisecond)
	if after := presentOf(b); after <= before || b.Err() != nil {
		t.Fatalf("the other room stopped: present %d then %d, err %v", before, after, b.Err())
	}
	sameHashes(t, s.Server, "lives", b)

	// The dump replays.
	var files []string
	for deadline := time.Now().Add(5 * time.Second); len(files) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		files, _ = filepath.Glob(filepath.Join(data, crashesDir, "doomed", "*"+replay.Ext))
	}
	if len(files) != 1 {
		t.Fatalf("%d crash dumps, want 1", len(files))
	}
	f, err := replay.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Verify(f); err != nil {
		t.Fatalf("the crash dump does not replay: %v", err)
	}

	// The name opens afresh.
	c := player(t, s.url, headless.Options{Name: "carol", Room: "doomed"})
	drive(t, c)
	time.Sleep(300 * time.Millisecond)
	sameHashes(t, s.Server, "doomed", c)
}

func presentOf(p *headless.Player) (tick int64) {
	p.Inspect(func(s *client.Session) { tick = s.Timeline().Present() })
	return tick
}

// TestChurn: people come and go at random in two rooms with bots, over both
// transports' fallback path (WebSocket here), for a few seconds of many
// short visits: every session ends as its player chose, with no desync and
// no room crashed (scripts/soak-churn.sh runs the same for 30 minutes).
func TestChurn(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Bots = 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := headless.Churn(ctx, headless.ChurnOptions{Session: 1500 * time.Millisecond, SwarmOptions: headless.SwarmOptions{
		URL: s.url, Count: 6, Rooms: 2, Duration: 10 * time.Second, Seed: 3, Transport: headless.WebSocket}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	r.Print(&b)
	t.Log(b.String())
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if r.Sessions < 20 || r.Reconnects < 3 {
		t.Fatalf("%d sessions, %d with a token: the test should see more coming and going", r.Sessions, r.Reconnects)
	}
	if got := metricValue(t, s.Server, MetricRoomPanics); got != 0 {
		t.Fatalf("%v rooms crashed", got)
	}
}
