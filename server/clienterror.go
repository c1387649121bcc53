package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Client error reports (issue 23): the page posts what went wrong in the
// browser to POST /api/client-error, so that an operator sees in /metrics
// (webtron_client_errors_total{kind}) and in the log what players meet and
// the server cannot see: an uncaught exception, a worker that failed, a
// panic in the wasm core, a core that did not load, no WebGL. Anyone can
// post anything here, so the body is small, the kinds a fixed list (the
// metric's labels), the reports limited per address and in all (the log
// with them), and the text only ever logged, quoted by slog.

// clientErrorKinds are the kinds a report may have (web/src/report.ts).
var clientErrorKinds = []string{"exception", "worker", "panic", "load", "webgl"}

const (
	// clientErrorBody bounds a report's JSON; past it the answer is 413.
	clientErrorBody = 4 << 10
	// clientErrorText and clientErrorStack bound what of a report is
	// logged, in runes.
	clientErrorText  = 500
	clientErrorStack = 1500
	// clientErrorsPerAddr reports a minute from one address (addrKey), as a
	// burst at most; clientErrorsTotal a minute from all addresses together.
	// The page sends each error once, so a player never meets these; a page
	// in a loop, or many pages of one broken release, fill the log no more.
	clientErrorsPerAddr = 5
	clientErrorsTotal   = 60
)

// clientErrorReport is /api/client-error's body.
type clientErrorReport struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Stack   string `json:"stack"`
	Page    string `json:"page"` // the page's path
}

// clientErrorLimits are the report quotas: one bucket for all, one per
// address.
type clientErrorLimits struct {
	mu     sync.Mutex
	now    func() time.Duration // the server's clock (tests stop it)
	total  bucket
	byAddr map[netip.Prefix]*bucket
}

func newClientErrorLimits(now func() time.Duration) *clientErrorLimits {
	return &clientErrorLimits{now: now, total: newBucket(clientErrorsTotal/60.0, clientErrorsTotal, now()),
		byAddr: map[netip.Prefix]*bucket{}}
}

// take spends one of key's reports and one of all; false when either has
// none left (then neither is spent).
func (l *clientErrorLimits) take(key netip.Prefix) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.byAddr[key]
	if b == nil {
		if len(l.byAddr) >= maxQuotas {
			l.prune(now)
		}
		nb := newBucket(clientErrorsPerAddr/60.0, clientErrorsPerAddr, now)
		b = &nb
		l.byAddr[key] = b
	}
	if !b.take(now) {
		return false
	}
	if !l.total.take(now) {
		b.tokens++ // the address did not get to report: its turn is not spent
		return false
	}
	return true
}

// prune forgets the addresses back to a full quota (they lose nothing).
func (l *clientErrorLimits) prune(now time.Duration) {
	for k, b := range l.byAddr {
		if b.tokens+b.rate*(now-b.last).Seconds() >= b.burst {
			delete(l.byAddr, k)
		}
	}
}

// serveClientError is POST /api/client-error {"kind", "message", "stack",
// "page"}: it counts the report by kind, logs it, and answers 204. As for
// /api/practice, only a page of this server's origin may post, in JSON;
// past the limits the answer is 429 and the report is only counted as
// limited.
func (s *Server) serveClientError(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, text string) { plainError(w, status, text) }
	if !s.pagePost(w, r, "send the report as application/json") {
		return
	}
	var rep clientErrorReport
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, clientErrorBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("a report is %d bytes at most", clientErrorBody))
			return
		}
		fail(http.StatusBadRequest, `want {"kind", "message", "stack", "page"}`)
		return
	}
	if !slices.Contains(clientErrorKinds, rep.Kind) {
		fail(http.StatusBadRequest, fmt.Sprintf("kind %.40q is not one of %q", rep.Kind, clientErrorKinds))
		return
	}
	addr := s.clientAddr(r)
	if !s.clientErrs.take(addrKey(addr)) {
		s.metrics.clientErrorsLimited.Inc()
		w.Header().Set("Retry-After", strconv.Itoa(60/clientErrorsPerAddr))
		fail(http.StatusTooManyRequests, "too many error reports")
		return
	}
	s.metrics.clientErrors.WithLabelValues(rep.Kind).Inc()
	s.log.Warn("client error", "kind", rep.Kind, "message", clip(rep.Message, clientErrorText),
		"stack", clip(rep.Stack, clientErrorStack), "page", clip(rep.Page, 100),
		"addr", addr.String(), "ua", clip(r.UserAgent(), 200))
	w.WriteHeader(http.StatusNoContent)
}

// clip cuts s to n runes at most, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
