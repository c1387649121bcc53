// Package e2e holds end-to-end tests: the real server, real sockets, real
// browsers (headless Chromium driven by chromedp). They run when
// WEBTRON_BROWSER_TESTS=1 (the Makefile's test-browser target, which installs
// Chromium when it is missing) and skip otherwise.
package e2e

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/client"
	"webtron/clock"
	"webtron/server"
	"webtron/web"
)

// startServer runs the real server, with the embedded web client, on a
// loopback port for the test's lifetime.
func startServer(t *testing.T, charity clock.Charity) string {
	t.Helper()
	return startServerWith(t, charity, 0, 8)
}

// startServerWith is startServer with bots per room and seats.
func startServerWith(t *testing.T, charity clock.Charity, bots, seats int) string {
	t.Helper()
	s, err := server.New(server.Config{Web: web.Handler(), Bots: bots, Seats: seats, Policy: clock.Policy{Charity: charity}, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// watcher is a headless spectator: a client.Session over a real WebSocket that
// sees the server's history as it is broadcast.
type watcher struct {
	mu    sync.Mutex
	sess  *client.Session
	start time.Time
	conn  *websocket.Conn
}

func watch(t *testing.T, addr, room string) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + addr}}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(4 << 20)
	w := &watcher{sess: client.New(client.Options{Name: "watcher", Room: room, Spectate: true}), start: time.Now(), conn: c}
	w.send(ctx, w.sess.Hello(0))
	go func() {
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			w.mu.Lock()
			w.sess.Receive(time.Since(w.start), b)
			out := w.sess.Outgoing(nil)
			w.mu.Unlock()
			for _, m := range out {
				w.send(ctx, m)
			}
		}
	}()
	go func() {
		tk := time.NewTicker(4 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
			}
			w.mu.Lock()
			w.sess.Update(time.Since(w.start))
			out := w.sess.Outgoing(nil)
			w.mu.Unlock()
			for _, m := range out {
				w.send(ctx, m)
			}
		}
	}()
	return w
}

func (w *watcher) send(ctx context.Context, b []byte) {
	w.conn.Write(ctx, websocket.MessageBinary, b)
}

// with runs f on the session under its lock.
func (w *watcher) with(f func(s *client.Session)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(w.sess)
}

// artifacts is where screenshots go: $WEBTRON_ARTIFACTS, or e2e/artifacts.
func artifacts(t *testing.T) string {
	dir := os.Getenv("WEBTRON_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}
