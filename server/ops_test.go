package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/headless"
	"webtron/internal/netbatch"
	"webtron/proto"
	"webtron/replay"
)

// metricValue reads one series from /metrics.
func metricValue(t *testing.T, s *Server, series string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0
}

// TestShutdownWritesReplaysInTime: Shutdown tells every client, writes the
// round in progress, and returns well within 5 s even with a client that
// never answers the close handshake.
func TestShutdownWritesReplaysInTime(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, func(c *Config) { c.DataDir = data; c.Bots = 2 })
	a := player(t, s.url, headless.Options{Name: "alice", Room: "end", BrakeEvery: 300 * time.Millisecond})
	drive(t, a)
	stalled := dialRaw(t, s.url)
	send(t, stalled, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "stalled", Room: "end"}))
	time.Sleep(1500 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	err := s.Shutdown(ctx)
	took := time.Since(start)
	t.Logf("shutdown took %v: %v", took, err)
	if took > 4*time.Second {
		t.Fatalf("shutdown took %v", took)
	}
	select {
	case <-a.Done():
	case <-time.After(time.Second):
		t.Fatal("player not disconnected")
	}
	if err := a.Err(); !errors.Is(err, headless.ErrDropped) || !strings.Contains(err.Error(), "shut") {
		t.Fatalf("player ended with %v, want the shutdown reason", err)
	}
	files, _ := filepath.Glob(filepath.Join(data, "replays", "end", "*"+replay.Ext))
	if len(files) == 0 {
		t.Fatal("no replay of the round in progress")
	}
	f, err := replay.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Verify(f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(f.Names, ","), "alice") {
		t.Fatalf("replay names %q", f.Names)
	}
	// New connections are refused once shutting down.
	if _, _, err := websocket.Dial(ctx, s.url+"/ws", nil); err == nil {
		t.Fatal("dialed a server that shut down")
	}
}

// smallBuffers shrinks the kernel's socket buffers so that a client that
// stops reading backs up into the server's send queue within a second.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(2048)
	}
	return c, err
}

// TestSlowReaderOverSockets: a client that stops reading is dropped as a
// slow reader while another in its room keeps playing.
func TestSlowReaderOverSockets(t *testing.T) {
	s, err := New(Config{Logger: quiet, Rules: fastRules(), SendQueue: 8, Heartbeat: time.Millisecond, QuietHeartbeat: time.Millisecond, Ping: time.Millisecond, Bots: 2})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener = netbatch.Listener{Listener: smallBuffers{ts.Listener}}
	ts.Config.ConnContext = s.ConnContext
	ts.Start()
	defer ts.Close()
	defer s.Shutdown(context.Background())
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	healthy := player(t, url, headless.Options{Name: "healthy", Room: "r"})
	drive(t, healthy)
	dialer := &net.Dialer{Control: nil}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(1024)
		}
		return c, err
	}}}
	ws, _, err := websocket.Dial(t.Context(), url+"/ws", &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "slow", Room: "r"}))
	deadline := time.Now().Add(10 * time.Second)
	for metricValue(t, s, `webtron_disconnects_total{reason="slow_reader"}`) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("slow reader not dropped in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := healthy.Err(); err != nil {
		t.Fatalf("healthy player dropped: %v", err)
	}
	sameHashes(t, s, "r", healthy)
}

func TestOperatingEndpoints(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Bots = 3; c.Origins = []string{"*.example.com"} })
	player(t, s.url, headless.Options{Name: "alice", Room: "lobby"})
	// The room publishes its population when it next wakes (within
	// maxQuietSleep).
	httpURL := s.ts.URL
	want := map[string]any{"name": "lobby", "players": 1.0, "bots": 3.0, "spectators": 0.0, "map": "builtin", "map_name": "square (built in)"}
	var rooms []map[string]any
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(httpURL + "/api/rooms")
		if err != nil {
			t.Fatal(err)
		}
		rooms = nil
		json.NewDecoder(resp.Body).Decode(&rooms)
		resp.Body.Close()
		if len(rooms) == 1 && rooms[0]["players"] == 1.0 || time.Now().After(deadline) {
			break
		}
	}
	// ... and the four keys of the room's teams (TestRoomsShowTeams).
	if len(rooms) != 1 || len(rooms[0]) != len(want)+4 {
		t.Fatalf("/api/rooms: %v", rooms)
	}
	for k, v := range want {
		if rooms[0][k] != v {
			t.Fatalf("/api/rooms: %v, want %v", rooms, want)
		}
	}
	for path, text := range map[string]string{"/healthz": "ok", "/": "Webtron server",
		"/metrics": MetricTickLateness} {
		resp, err := http.Get(httpURL + path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(b.String(), text) {
			t.Fatalf("%s: %d %q", path, resp.StatusCode, b.String())
		}
	}
	for _, series := range []string{MetricRooms, MetricConnections + `{transport="websocket"}`, `webtron_players{kind="human"}`} {
		if v := metricValue(t, s.Server, series); v != 1 {
			t.Fatalf("%s = %v, want 1", series, v)
		}
	}
	// Origins: the server's own host and --origin patterns only.
	for origin, ok := range map[string]bool{"": true, httpURL: true, "https://play.example.com": true, "https://evil.test": false} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		ws, _, err := websocket.Dial(t.Context(), s.url+"/ws", &websocket.DialOptions{HTTPHeader: h})
		if (err == nil) != ok {
			t.Fatalf("origin %q: dial error %v, want allowed=%v", origin, err, ok)
		}
		if ws != nil {
			ws.Close(websocket.StatusNormalClosure, "")
		}
	}
}

// TestDesyncDump: a client reporting a wrong confirmed hash gets a resync,
// and the server writes a dump that re-simulates to its own hash there.
func TestDesyncDump(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, func(c *Config) { c.DataDir = data; c.Bots = 2 })
	ws := dialRaw(t, s.url)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "liar", Room: "d"}))
	time.Sleep(1500 * time.Millisecond)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.HashReport{Tick: 120, Hash: 12345}))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for resynced := false; !resynced; {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("no resync: %v", err)
		}
		m, _ := proto.Decode(b)
		_, resynced = m.(*proto.Resync)
	}
	for deadline := time.Now().Add(time.Second); metricValue(t, s.Server, MetricDesyncs) != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want 1", MetricDesyncs, metricValue(t, s.Server, MetricDesyncs))
		}
	}
	var files []string
	for deadline := time.Now().Add(5 * time.Second); len(files) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		files, _ = filepath.Glob(filepath.Join(data, "desyncs", "d", "*"+replay.Ext))
	}
	if len(files) != 1 {
		t.Fatalf("desync dumps: %v", files)
	}
	f, err := replay.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sum, err := replay.Verify(f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Desync == nil || f.Desync.Client != 12345 || !sum.DesyncChecked || sum.DesyncHash != f.Desync.Want {
		t.Fatalf("dump does not reproduce the server's side: %+v, %+v", f.Desync, sum)
	}
}
