package server

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/client"
	"webtron/headless"
	"webtron/internal/leakcheck"
	"webtron/internal/netbatch"
	"webtron/proto"
	"webtron/room"
	"webtron/sim"
)

// TestMain fails the package when a test leaves goroutines behind: every
// connection, room and writer must end with its server.
func TestMain(m *testing.M) { leakcheck.Main(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fastRules makes rounds short: a small arena and brief pauses.
func fastRules() *sim.Config {
	r := sim.DefaultConfig()
	r.ArenaSize = 50 * sim.Meter
	r.SP.SizeFactor = 0 // 50 m with one human too
	r.PrepareMs = 500
	r.RoundOverMs = 300
	return &r
}

// testServer runs a server on a loopback socket and shuts it down (within
// the 5 s budget) when the test ends.
type testServer struct {
	*Server
	ts  *httptest.Server
	url string // ws://127.0.0.1:port
}

func newTestServer(t *testing.T, mutate func(*Config)) *testServer {
	t.Helper()
	cfg := Config{Logger: quiet, Rules: fastRules(), Seed: 42}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener = netbatch.Listener{Listener: ts.Listener} // as Serve does: batched writes
	ts.Config.ConnContext = s.ConnContext
	ts.Config.ConnState = s.ConnState
	ts.Start()
	tsrv := &testServer{Server: s, ts: ts, url: "ws" + strings.TrimPrefix(ts.URL, "http")}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	return tsrv
}

// inspect runs fn on the room's goroutine and waits for it.
func (s *Server) inspect(t *testing.T, name string, fn func(*room.Room)) {
	t.Helper()
	s.mu.Lock()
	h := s.rooms[name]
	s.mu.Unlock()
	if h == nil {
		t.Fatalf("no room %q", name)
	}
	done := make(chan struct{})
	select {
	case h.inbox <- inbound{fn: func(r *room.Room) { fn(r); close(done) }}:
	case <-h.done:
		t.Fatalf("room %q is gone", name)
	}
	<-done
}

// player connects a headless player and waits for its Welcome.
func player(t *testing.T, url string, opt headless.Options) *headless.Player {
	t.Helper()
	opt.URL = url
	if opt.Seed == 0 {
		opt.Seed = uint64(len(opt.Name)*31 + int(opt.Name[len(opt.Name)-1]))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := headless.Dial(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.WaitWelcome(ctx); err != nil {
		t.Fatalf("%s: %v", opt.Name, err)
	}
	return p
}

// drive runs the players' frames until the test ends.
func drive(t *testing.T, players ...*headless.Player) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		headless.Run(ctx, players, 0)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// confirmedHash returns a confirmed tick of the player's session and its hash.
func confirmedHash(p *headless.Player) (tick int64, hash uint64, ok bool) {
	p.Inspect(func(s *client.Session) {
		tl := s.Timeline()
		every := tl.HashEvery()
		for tick = s.Confirmed() / every * every; tick > 0; tick -= every {
			if hash, ok = tl.PredictedHash(tick); ok {
				return
			}
		}
	})
	return tick, hash, ok
}

// sameHashes checks that each player's confirmed hash equals the room's.
func sameHashes(t *testing.T, s *Server, roomName string, players ...*headless.Player) {
	t.Helper()
	for _, p := range players {
		tick, hash, ok := confirmedHash(p)
		for deadline := time.Now().Add(5 * time.Second); !ok && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			tick, hash, ok = confirmedHash(p)
		}
		if !ok {
			t.Fatalf("%s: no confirmed hash yet", p.Name())
		}
		var want uint64
		var have bool
		s.inspect(t, roomName, func(r *room.Room) { want, have = r.Timeline().ConfirmedHash(tick) })
		if !have {
			t.Fatalf("%s: the room no longer holds tick %d", p.Name(), tick)
		}
		if hash != want {
			t.Fatalf("%s: hash %016x at confirmed tick %d, room has %016x", p.Name(), hash, tick, want)
		}
		t.Logf("%s: tick %d hash %016x matches the room", p.Name(), tick, hash)
	}
}

// waitConns waits until the server counts n connections.
func (s *Server) waitConns(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.population().conns != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, want %d", s.population().conns, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// dialRaw opens a WebSocket that speaks whatever the test sends.
func dialRaw(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func send(t *testing.T, ws *websocket.Conn, typ websocket.MessageType, b []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Write(ctx, typ, b); err != nil {
		t.Fatal(err)
	}
}

func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expectClosed reads until the server's Error, checks its code, and then
// checks that the WebSocket closes with status.
func expectClosed(t *testing.T, ws *websocket.Conn, code proto.CloseCode, status websocket.StatusCode) *proto.Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("connection ended without an Error message: %v", err)
		}
		m, err := proto.Decode(b)
		if err != nil {
			t.Fatalf("server sent an undecodable message: %v", err)
		}
		e, ok := m.(*proto.Error)
		if !ok {
			continue
		}
		if e.Code != code {
			t.Fatalf("closed with %v (%q), want %v", e.Code, e.Text, code)
		}
		_, _, err = ws.Read(ctx)
		if got := websocket.CloseStatus(err); got != status {
			t.Fatalf("websocket closed with %v (%v), want %v", got, err, status)
		}
		return e
	}
}
