package headless_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"webtron/headless"
	"webtron/internal/aamaptest"
	"webtron/internal/leakcheck"
	"webtron/server"
)

// TestMain fails the package when a swarm leaves goroutines behind.
func TestMain(m *testing.M) { leakcheck.Main(m) }

func startServer(t *testing.T) string {
	s, err := server.New(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ConnContext = s.ConnContext
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

// TestSwarmReport: a small swarm over two rooms reports every ordered pair
// of players sharing a room, with measured and predicted lags, and no errors.
func TestSwarmReport(t *testing.T) {
	url := startServer(t)
	r, err := headless.Swarm(t.Context(), headless.SwarmOptions{URL: url, Count: 6, Rooms: 2,
		Duration: 3 * time.Second, BrakeEvery: 200 * time.Millisecond, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if r.Connected != 6 || r.EventsSent == 0 || r.EventsReceived == 0 || r.WelcomeBytes.Max == 0 {
		t.Fatalf("report %+v", r)
	}
	// Three players per room: each sees two peers.
	if len(r.Pairs) != 6*2 {
		t.Fatalf("%d pairs, want 12: %+v", len(r.Pairs), r.Pairs)
	}
	for _, p := range r.Pairs {
		if r.Names[p.Viewer-1].Room != r.Names[p.Peer-1].Room || p.Samples == 0 {
			t.Fatalf("pair %+v across rooms or without samples", p)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"pairs"`, `"predicted_ms"`, `"measured_p50_ms"`, `"desyncs"`, `"protocol_errors"`} {
		if !strings.Contains(string(b), key) {
			t.Fatalf("JSON lacks %s", key)
		}
	}
	var out strings.Builder
	r.Print(&out)
	t.Log("\n" + out.String())
}

// TestSwarmCountsFailures: players that cannot connect are counted and fail
// the check, rather than aborting the run.
func TestSwarmCountsFailures(t *testing.T) {
	r, err := headless.Swarm(t.Context(), headless.SwarmOptions{URL: "ws://127.0.0.1:1", Count: 2,
		Duration: 10 * time.Millisecond, Welcome: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 2 || r.Check() == nil {
		t.Fatalf("report %+v", r)
	}
}

// TestSwarmMap: the swarm's players open their rooms on the map asked for
// (webtron bots --map).
func TestSwarmMap(t *testing.T) {
	aamaptest.Paths(t)
	const fortyGon = "Anonymous/polygon/regular/40-gon-0.2.aamap.xml"
	s, err := server.New(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Seed: 3, Maps: []string{fortyGon}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ConnContext = s.ConnContext
	ts.Start()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	}()
	r, err := headless.Swarm(t.Context(), headless.SwarmOptions{URL: "ws" + strings.TrimPrefix(ts.URL, "http"), Count: 2, Room: "poly",
		Map: fortyGon, Duration: time.Second, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if r.Connected != 2 {
		t.Fatalf("report %+v", r)
	}
	rooms := s.Rooms()
	if len(rooms) != 1 || rooms[0].Map != fortyGon {
		t.Fatalf("rooms %+v, want poly on the 40-gon", rooms)
	}
}
