package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// lockedBuffer is a log the handlers' goroutines write while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// reportError posts body to /api/client-error as a page does (JSON, the
// page's own origin), from the address from (X-Forwarded-For, "" for none),
// and returns the answer.
func reportError(t *testing.T, s *testServer, contentType, origin, from, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", s.ts.URL+"/api/client-error", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "TestBrowser/1.0")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if from != "" {
		req.Header.Set("X-Forwarded-For", from)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestClientErrorReport: a page's report is counted by kind in /metrics and
// logged with its message, where it came from and the browser.
func TestClientErrorReport(t *testing.T) {
	var log lockedBuffer
	s := newTestServer(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	body := `{"kind": "panic", "message": "webtron core: update: runtime error: index out of range [3] with length 2", "stack": "main.(*core).update\n\tmain.go:42", "page": "/"}`
	if resp := reportError(t, s, "application/json", s.ts.URL, "", body); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status %d, want 204", resp.StatusCode)
	}
	if got := testutil.ToFloat64(s.metrics.clientErrors.WithLabelValues("panic")); got != 1 {
		t.Errorf("%s{kind=panic} = %v, want 1", MetricClientErrors, got)
	}
	if got := testutil.ToFloat64(s.metrics.clientErrors.WithLabelValues("exception")); got != 0 {
		t.Errorf("%s{kind=exception} = %v, want 0", MetricClientErrors, got)
	}
	logged := log.String()
	for _, want := range []string{"client error", "kind=panic", "index out of range [3] with length 2", "main.go:42", "TestBrowser/1.0", "127.0.0.1"} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log lacks %q:\n%s", want, logged)
		}
	}
	resp, err := http.Get(s.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var metrics bytes.Buffer
	metrics.ReadFrom(resp.Body)
	resp.Body.Close()
	if want := MetricClientErrors + `{kind="panic"} 1`; !strings.Contains(metrics.String(), want) {
		t.Errorf("/metrics lacks %q", want)
	}
}

// TestClientErrorBounded: a report from another site, not in JSON, of a
// kind not on the list or larger than clientErrorBody is refused, and so is
// one past the address's clientErrorsPerAddr or past clientErrorsTotal in
// all; nothing refused is counted as a report or logged, the rate-limited
// ones are counted as limited.
func TestClientErrorBounded(t *testing.T) {
	var log lockedBuffer
	s := newTestServer(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&log, nil))
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	// A stopped clock: no quota refills while the test posts, however slow the machine.
	s.clientErrs = newClientErrorLimits(func() time.Duration { return 0 })
	ok := func(i int) string { return fmt.Sprintf(`{"kind": "exception", "message": "report %d"}`, i) }
	for _, c := range []struct {
		ctype, origin, body string
		want                int
	}{
		{"application/json", "http://evil.example", ok(0), http.StatusForbidden},
		{"text/plain", "", ok(0), http.StatusUnsupportedMediaType},
		{"application/json", "", `{"kind": "nonsense", "message": "x"}`, http.StatusBadRequest},
		{"application/json", "", `{"message": "x"}`, http.StatusBadRequest},
		{"application/json", "", `{"kind": "panic", "message": "x", "extra": 1}`, http.StatusBadRequest},
		{"application/json", "", `{"kind": "panic", "message": "` + strings.Repeat("x", clientErrorBody) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		if got := reportError(t, s, c.ctype, c.origin, "", c.body).StatusCode; got != c.want {
			t.Errorf("%s %.60q from %q: status %d, want %d", c.ctype, c.body, c.origin, got, c.want)
		}
	}
	if got := testutil.ToFloat64(s.metrics.clientErrors.WithLabelValues("panic")); got != 0 {
		t.Fatalf("refused reports counted: %v", got)
	}
	if strings.Contains(log.String(), "client error") {
		t.Fatalf("a refused report was logged:\n%s", log.String())
	}

	// One address: clientErrorsPerAddr, then 429 with a Retry-After.
	n := 0
	for i := range clientErrorsPerAddr {
		if got := reportError(t, s, "application/json", "", "10.0.0.1", ok(n)).StatusCode; got != http.StatusNoContent {
			t.Fatalf("report %d from one address: status %d", i+1, got)
		}
		n++
	}
	resp := reportError(t, s, "application/json", "", "10.0.0.1", ok(n))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("report %d from one address: status %d, Retry-After %q; want 429 with one", clientErrorsPerAddr+1, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// Other addresses, one report each, until the total runs out.
	for i := 2; n < clientErrorsTotal; i++ {
		if got := reportError(t, s, "application/json", "", fmt.Sprintf("10.0.%d.%d", i/256, i%256), ok(n)).StatusCode; got != http.StatusNoContent {
			t.Fatalf("report %d in all: status %d", n+1, got)
		}
		n++
	}
	if got := reportError(t, s, "application/json", "", "10.9.9.9", ok(n)).StatusCode; got != http.StatusTooManyRequests {
		t.Fatalf("a fresh address past the total: status %d, want 429", got)
	}
	if got := testutil.ToFloat64(s.metrics.clientErrors.WithLabelValues("exception")); got != clientErrorsTotal {
		t.Errorf("reports counted %v, want %d", got, clientErrorsTotal)
	}
	if got := testutil.ToFloat64(s.metrics.clientErrorsLimited); got != 2 {
		t.Errorf("limited reports counted %v, want 2", got)
	}
	if got := strings.Count(log.String(), "client error"); got != clientErrorsTotal {
		t.Errorf("%d reports logged, want %d", got, clientErrorsTotal)
	}
}
