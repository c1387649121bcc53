// Package leakcheck fails a test binary that leaves goroutines behind, for
// packages whose tests start servers, connections and writers that must all
// end with them.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Main runs the tests, then waits up to 5 s for the goroutine count to fall
// back to what it was before; if it does not, it prints every stack and exits
// with a failure. Call it from TestMain.
func Main(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(5 * time.Second)
		for ours() > before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := ours(); n > before {
			buf := make([]byte, 1<<20)
			fmt.Fprintf(os.Stderr, "goroutine leak: %d before, %d after\n%s\n", before, n, buf[:runtime.Stack(buf, true)])
			code = 1
		}
	}
	os.Exit(code)
}

// ours counts the live goroutines, less those nats-server itself started:
// a JetStream file store created while its embedded server shuts down (a
// race inside nats-server, seen as one flushStreamStateLoop and its ats
// timer left behind) is the library's, and failing every test binary that
// embeds NATS on it would hide our own leaks behind a flake.
func ours() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.TrimSpace(g) == "" {
			continue
		}
		if strings.Contains(g, "created by github.com/nats-io/nats-server/") {
			continue
		}
		count++
	}
	return count
}
