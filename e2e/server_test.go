// Package e2e holds end-to-end tests: the real server, real sockets, real
// browsers (headless Chromium driven by chromedp; Firefox ESR under Xvfb
// driven over WebDriver BiDi, firefox_test.go). They run when
// WEBTRON_BROWSER_TESTS=1 (the Makefile's test-browser target, which installs
// the browsers when they are missing: README.md here) and skip otherwise.
package e2e

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"webtron/client"
	"webtron/clock"
	"webtron/headless"
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
	return startConfig(t, server.Config{Bots: bots, Seats: seats, Policy: clock.Policy{Charity: charity}})
}

// startConfig runs the real server under cfg, with the web client and a
// data directory of the test's own (dataDir), on a loopback port, and
// returns its address.
func startConfig(t *testing.T, cfg server.Config) string {
	t.Helper()
	cfg.Web, cfg.DataDir = web.Handler(), dataDir(t)
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, ln)
	return ln.Addr().String()
}

// serve runs s on ln until the test ends, then shuts it down.
func serve(t *testing.T, s *server.Server, ln net.Listener) {
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
}

// watcher is a headless spectator (package headless): a client.Session over
// a real WebSocket (or WebTransport: watchOver) that sees the server's
// history as it is broadcast.
type watcher struct{ p *headless.Player }

func watch(t *testing.T, addr, room string) *watcher {
	t.Helper()
	return watchOver(t, addr, room, headless.WebSocket)
}

// watchOver is watch over the given transport (headless.WebSocket or
// headless.WebTransport).
func watchOver(t *testing.T, addr, room, transport string) *watcher {
	t.Helper()
	return &watcher{runHeadless(t, addr, headless.Options{Name: "watcher", Room: room, Spectate: true, Idle: true, Transport: transport})}
}

// runHeadless dials a headless client into the server at addr (from the
// page's origin, as a browser would), waits for its welcome and runs it
// until the test ends.
func runHeadless(t *testing.T, addr string, opt headless.Options) *headless.Player {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	opt.URL = "ws://" + addr
	opt.Header = http.Header{"Origin": {"http://" + addr}}
	p, err := headless.Dial(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitWelcome(ctx); err != nil {
		t.Fatalf("%s: %v", opt.Name, err)
	}
	run, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		headless.Run(run, []*headless.Player{p}, 0)
		close(done)
	}()
	t.Cleanup(func() {
		stop()
		<-done
		p.Close()
	})
	return p
}

// with runs f on the session under its lock.
func (w *watcher) with(f func(s *client.Session)) { w.p.Inspect(f) }

// dataDir is a server's data directory for one test. When the test ends, any
// desync dump under it fails the test (every netcode test runs with 0
// desyncs), and the dump is kept among the artifacts for `webtron replay`.
// Register it before the server's shutdown so that it runs after it.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		dumps, _ := filepath.Glob(filepath.Join(dir, "desyncs", "*", "*"))
		for _, d := range dumps {
			keep := filepath.Join(artifacts(t), "desync-"+filepath.Base(d))
			if b, err := os.ReadFile(d); err == nil {
				os.WriteFile(keep, b, 0o644)
			}
			t.Errorf("a client desynced: the server dumped %s (kept as %s; see it with webtron replay)", filepath.Base(d), keep)
		}
	})
	return dir
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
