package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"webtron/clock"
	"webtron/server"
	"webtron/sim"
	"webtron/web"
)

// TestBrowserFirefox is the newcomer's path in Firefox ESR (Debian's
// firefox-esr), driven over WebDriver BiDi by e2e/firefox/drive.mjs
// (puppeteer-core) under Xvfb, where Firefox has WebGL (headless it has
// none): page A opens the lobby, types a name and a room, clicks Play,
// rides and turns with the left arrow; page B, in a window of its own in
// the same room, sees the turn at the same corner as the server's history.
// The server offers WebTransport: A takes what the page picks (logged:
// WebTransport, or the WebSocket it falls back to), B asks for the
// WebSocket (?transport=websocket), so both ways in are played. Both pages
// draw with WebGL (the game's last frame has many colours, the screenshots
// are not blank) and log no error. `make firefox` installs what it needs
// (e2e/README.md).
func TestBrowserFirefox(t *testing.T) {
	browserTests(t)
	t0 := time.Now()
	// The first round starts when both pages are in: page A does not ride
	// alone (and crash) while Firefox opens page B's window.
	rules := sim.DefaultConfig()
	rules.MinPlayers = 2
	addr := startServerWTWith(t, server.Config{Web: web.Handler(), Rules: &rules, Policy: clock.Policy{Charity: clock.FixedCharity(50 * time.Millisecond)}})
	room := fmt.Sprintf("fox-%d", time.Now().UnixNano()%1e6)
	w := watch(t, addr, room)
	fx := startFirefox(t, startXvfb(t))
	t.Logf("%s up after %.1f s", fx.version, time.Since(t0).Seconds())

	a := fx.playIn(t, "a", "http://"+addr+"/", room, "Alice")
	b := fx.playIn(t, "b", "http://"+addr+"/?transport=websocket", room, "Bob")
	var sa, sb pageState
	waitFor(t, "both Firefox pages to be welcomed, B seeing A", 20*time.Second, func() bool {
		sa, sb = a.state(t), b.state(t)
		return sa.You >= 0 && sb.You >= 0 && len(sb.Players) >= 2
	})
	t.Logf("page A plays over %s (what the page picked), page B over %s (asked for)", sa.Transport, sb.Transport)
	if sb.Transport != "websocket" {
		t.Errorf("page B asked for the WebSocket and got %q", sb.Transport)
	}
	if sa.Transport != "webtransport" && sa.Transport != "websocket" {
		t.Errorf("page A: transport %q, want webtransport or websocket", sa.Transport)
	}
	want := turnLeftOnceMoving(t, a, sa.You)
	seesTurnAsHistory(t, w, b, sa.You, want)

	for _, p := range []*foxPage{a, b} {
		gl := p.webgl(t)
		t.Logf("page %s: %s (%s), %dx%d, %d colours in the frame it drew", p.name, gl.Version, gl.Renderer, gl.Width, gl.Height, gl.Colors)
		if gl.Error != "" || gl.Colors < 8 {
			t.Errorf("page %s: WebGL in Firefox under Xvfb: %s; the game's frame has %d colours (want 8 or more: the arena drawn)", p.name, gl.Error, gl.Colors)
		}
		path := filepath.Join(artifacts(t), "firefox-"+p.name+".png")
		p.do(t, map[string]any{"op": "screenshot", "path": path}, nil)
		shot, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if blank(t, shot) {
			t.Errorf("page %s: the screenshot is one flat colour: Firefox drew nothing (WebGL under Xvfb?); see %s", p.name, path)
		}
		for _, e := range p.errors(t) {
			t.Errorf("page %s: %s", p.name, e)
		}
	}
	t.Logf("the whole path took %.1f s", time.Since(t0).Seconds())
}

// startXvfb runs an X server on a display it picks itself (-displayfd: no
// race for a free number with other tests or sessions) until the test ends,
// and returns the display (":N").
func startXvfb(t *testing.T) string {
	t.Helper()
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Fatal("Xvfb is not installed: `make firefox` installs Debian's xvfb and firefox-esr")
	}
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{wr}
	var mu sync.Mutex
	var stderr strings.Builder
	cmd.Stderr = syncWriter{&mu, &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	wr.Close()
	t.Cleanup(func() { stop(cmd, syscall.SIGTERM, 5*time.Second) })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("Xvfb gave no display number (%q): %s", n, stderr.String())
		}
		return ":" + n
	case <-time.After(10 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("Xvfb did not start within 10 s: %s", stderr.String())
	}
	return ""
}

// firefox is Firefox run by e2e/firefox/drive.mjs: one JSON command a line
// to its stdin, one answer a line from its stdout.
type firefox struct {
	version string
	in      io.Writer
	out     *bufio.Scanner
	id      int // of the last command
	outMu   sync.Mutex
	output  *strings.Builder // the driver's and Firefox's stdout and stderr, under outMu
}

// startFirefox starts the driver and Firefox on display until the test ends.
func startFirefox(t *testing.T, display string) *firefox {
	t.Helper()
	exe := os.Getenv("FIREFOX")
	if exe == "" {
		exe = "/usr/bin/firefox-esr"
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("no Firefox at %s (set FIREFOX, or `make firefox` installs Debian's firefox-esr): %v", exe, err)
	}
	if _, err := os.Stat(filepath.Join("firefox", "node_modules", "puppeteer-core")); err != nil {
		t.Fatal("e2e/firefox has no puppeteer-core: `make firefox` runs npm ci there")
	}
	cmd := exec.Command("node", "drive.mjs")
	cmd.Dir = "firefox"
	// Firefox's profile goes under TMPDIR: the test's, removed after it.
	// NO_AT_BRIDGE: no accessibility bus (its dbus-launch is not installed).
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "FIREFOX="+exe, "TMPDIR="+t.TempDir(), "NO_AT_BRIDGE=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Firefox's processes with it: one group to end
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, wout, err := os.Pipe() // the answers, on the driver's fd 3
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{wout}
	fx := &firefox{in: in, out: bufio.NewScanner(out), output: &strings.Builder{}}
	fx.out.Buffer(nil, 1<<20)
	cmd.Stdout = syncWriter{&fx.outMu, fx.output}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node drive.mjs: %v", err)
	}
	wout.Close()
	t.Cleanup(func() { out.Close() })
	t.Cleanup(func() {
		in.Close() // the driver closes the browser and exits
		stop(cmd, nil, 10*time.Second)
	})
	var ready struct{ Ready string }
	// Seen: 7 to 16 s at a load average of 6 to 9 on this project's 2 cores,
	// 26 s at 18, 65 s at 27.
	if err := fx.read(&ready, 90*time.Second); err != nil || ready.Ready == "" {
		t.Fatalf("Firefox did not start over WebDriver BiDi: %v; the driver said: %s", err, fx.said())
	}
	fx.version = ready.Ready
	return fx
}

// stop ends a process the test started: sig, if not nil (SIGTERM: Xvfb
// removes its lock file), then after grace SIGKILL to its whole process
// group (the driver's holds Firefox's processes).
func stop(cmd *exec.Cmd, sig os.Signal, grace time.Duration) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if sig != nil {
		cmd.Process.Signal(sig)
	}
	select {
	case <-done:
	case <-time.After(grace):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
		<-done
	}
}

// syncWriter guards a writer shared by a process's output and the test.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// said is the end of what the driver and Firefox printed, for failure messages.
func (fx *firefox) said() string {
	fx.outMu.Lock()
	defer fx.outMu.Unlock()
	s := fx.output.String()
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// read decodes the driver's next line into v, waiting at most d.
func (fx *firefox) read(v any, d time.Duration) error {
	line := make(chan error, 1)
	go func() {
		if !fx.out.Scan() {
			line <- fmt.Errorf("the driver exited (%v)", fx.out.Err())
			return
		}
		line <- json.Unmarshal(fx.out.Bytes(), v)
	}()
	select {
	case err := <-line:
		return err
	case <-time.After(d):
		return fmt.Errorf("no answer within %v", d)
	}
}

// call sends one command and decodes its answer's value into v (when not nil).
func (fx *firefox) call(cmd map[string]any, v any) error {
	fx.id++
	cmd["id"] = fx.id
	b, _ := json.Marshal(cmd)
	if _, err := fx.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("the driver is gone: %v", err)
	}
	var ans struct {
		ID    int
		Value json.RawMessage
		Error string
	}
	if err := fx.read(&ans, 30*time.Second); err != nil {
		return err
	}
	if ans.ID != fx.id {
		return fmt.Errorf("answer %d to command %d", ans.ID, fx.id)
	}
	if ans.Error != "" {
		return fmt.Errorf("%s", ans.Error)
	}
	if v != nil {
		return json.Unmarshal(ans.Value, v)
	}
	return nil
}

// foxPage is one page (a window of its own) in Firefox.
type foxPage struct {
	fx   *firefox
	name string
}

// do runs one command on the page and fails the test, saying what Firefox
// was asked, when it fails.
func (p *foxPage) do(t *testing.T, cmd map[string]any, v any) {
	t.Helper()
	cmd["page"] = p.name
	if err := p.fx.call(cmd, v); err != nil {
		t.Fatalf("Firefox page %s, %v: %v; the driver said: %s", p.name, cmd, err, p.fx.said())
	}
}

func (p *foxPage) eval(t *testing.T, js string, v any) {
	t.Helper()
	p.do(t, map[string]any{"op": "eval", "js": js}, v)
}

func (p *foxPage) state(t *testing.T) pageState {
	t.Helper()
	var js string
	p.eval(t, `JSON.stringify(window.webtron ? window.webtron.state() : {tick:0,you:-1,players:[]})`, &js)
	var s pageState
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("page %s: state %q: %v", p.name, js, err)
	}
	return s
}

// errors are the page's console errors and uncaught exceptions so far.
func (p *foxPage) errors(t *testing.T) []string {
	t.Helper()
	var errs []string
	p.do(t, map[string]any{"op": "errors"}, &errs)
	return errs
}

func (p *foxPage) arrowLeft(t *testing.T) {
	t.Helper()
	p.do(t, map[string]any{"op": "press", "key": "ArrowLeft"}, nil)
}

// playIn opens url in a new window (the first page in Firefox's own),
// types name and room into the lobby with real keys, clicks Play, and waits
// until the page shows the game with a player of its own.
func (fx *firefox) playIn(t *testing.T, name, url, room, player string) *foxPage {
	t.Helper()
	p := &foxPage{fx, name}
	p.do(t, map[string]any{"op": "open", "url": url, "window": name != "a"}, nil)
	p.do(t, map[string]any{"op": "type", "selector": "#name", "text": player}, nil)
	p.do(t, map[string]any{"op": "type", "selector": "#room", "text": room}, nil)
	p.do(t, map[string]any{"op": "click", "selector": "#play"}, nil)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var shown bool
		p.eval(t, `document.getElementById("lobby").hidden && !document.getElementById("game").hidden`, &shown)
		if shown && p.state(t).You >= 0 {
			break
		}
		if time.Now().After(end) {
			var msg string
			p.eval(t, `document.getElementById("lobby-msg").textContent`, &msg)
			t.Fatalf("Firefox page %s (%s) did not join %s within 20 s after Play: the game shown %v, the lobby says %q; the page's errors: %q", name, player, room, shown, msg, p.errors(t))
		}
	}
	return p
}

// glReport is what foxPage.webgl reads off the game's canvas.
type glReport struct {
	Error, Renderer, Version string
	Width, Height, Colors    int
}

// webgl reads the game's WebGL context (#view) right after the game drew a
// frame (a requestAnimationFrame callback queued after the game's own runs
// before the frame is shown, when the drawing buffer still holds it), and
// counts the colours in it, sampled as blank does a screenshot's: a page
// whose WebGL failed, or that draws nothing, has one.
func (p *foxPage) webgl(t *testing.T) glReport {
	t.Helper()
	var r glReport
	p.eval(t, `new Promise((done) => requestAnimationFrame(() => {
		const gl = document.getElementById("view").getContext("webgl2");
		if (!gl) return done({error: "the game's canvas has no WebGL 2 context"});
		const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
		const px = new Uint8Array(4 * w * h);
		gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
		const colours = new Set();
		for (let y = 0; y < h; y += 7) for (let x = 0; x < w; x += 7) {
			const i = 4 * (y * w + x);
			colours.add((px[i] >> 3) << 10 | (px[i + 1] >> 3) << 5 | px[i + 2] >> 3);
		}
		done({renderer: gl.getParameter(gl.RENDERER), version: gl.getParameter(gl.VERSION),
			width: w, height: h, colors: colours.size, error: gl.getError() ? "readPixels failed" : ""});
	}))`, &r)
	return r
}
