package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/proto"
)

// TestMain runs the command itself when asked to (WEBTRON_MAIN=1, the
// arguments in WEBTRON_ARGS), so that the tests can run webtron as a process
// without building it first.
func TestMain(m *testing.M) {
	if os.Getenv("WEBTRON_MAIN") == "1" {
		os.Args = append([]string{"webtron"}, strings.Fields(os.Getenv("WEBTRON_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// webtron starts the command with args and returns it with its stderr lines.
func webtron(t *testing.T, args string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WEBTRON_MAIN=1", "WEBTRON_ARGS="+args)
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(errOut)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return cmd, lines
}

// TestServeExitsZeroOnSIGTERM: a clean SIGTERM ends `webtron serve` with
// status 0 within its 5 s budget, even when a client never finishes the
// close handshake: cutting it is expected, not a failure.
func TestServeExitsZeroOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the server as a process")
	}
	cmd, lines := webtron(t, "serve --addr 127.0.0.1:0 --bots 1 --data "+t.TempDir())
	var addr string
	for line := range lines {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "webtron: listening" {
			addr = rec.Addr
			break
		}
	}
	if addr == "" {
		t.Fatal("the server never said where it listens")
	}
	var logged []string
	drained := make(chan struct{})
	go func() { // keep the pipe drained
		defer close(drained)
		for line := range lines {
			logged = append(logged, line)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	hello, err := proto.Marshal(&proto.Hello{Name: "stalled", Room: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Write(ctx, websocket.MessageBinary, hello); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Read(ctx); err != nil { // the Welcome; then it stops reading
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10 s of SIGTERM")
	}
	<-drained
	t.Log(strings.Join(logged, "\n"))
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v, want status 0", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v to exit, want within 5 s", took)
	}
	t.Logf("exited 0 after %v", time.Since(start).Round(time.Millisecond))
}

// TestParseInterval: --turn-every takes D or MIN-MAX and refuses the rest.
func TestParseInterval(t *testing.T) {
	for in, want := range map[string][2]time.Duration{
		"400ms-1.2s": {400 * time.Millisecond, 1200 * time.Millisecond},
		"1s":         {time.Second, time.Second},
	} {
		got, err := parseInterval(in)
		if err != nil || got != want {
			t.Errorf("parseInterval(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "1s-", "2s-1s", "0s", "-1s", "1s-2s-3s"} {
		if got, err := parseInterval(in); err == nil {
			t.Errorf("parseInterval(%q) = %v, want an error", in, got)
		}
	}
}
