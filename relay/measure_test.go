//go:build unix

package relay

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMeasureAccuracy measures the relay's own error, the one-way delay it
// adds beyond the configured one, for docs/performance.md. It takes about
// 30 s, so it runs only on request:
//
//	WEBTRON_RELAY_MEASURE=1 go test ./relay/ -run TestMeasureAccuracy -count=1 -v
//
// Each message is 8 bytes client->server, answered by 24 bytes
// server->client, on 127.0.0.1; "error" is the measured one-way delay minus
// the configured one. WEBTRON_RELAY_MEASURE_N sets the messages per case
// (default 3000, 1 ms apart; the 100-connection cases send six times as many,
// 3 s of traffic). CPU is that of the whole test process, clients and server
// included: the relay's share is the difference from the direct case.
func TestMeasureAccuracy(t *testing.T) {
	if os.Getenv("WEBTRON_RELAY_MEASURE") == "" || testing.Short() {
		t.Skip("set WEBTRON_RELAY_MEASURE=1 to measure the relay's accuracy")
	}
	n := 3000
	if s := os.Getenv("WEBTRON_RELAY_MEASURE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 100 {
			t.Fatalf("WEBTRON_RELAY_MEASURE_N=%q: want a number >= 100", s)
		}
	}
	const d = 30 * time.Millisecond
	server := startProbeServer(t)
	cases := []struct {
		name    string
		relay   bool
		delay   time.Duration
		timer   bool // time.Timer instead of timerfd
		conns   int  // concurrent connections, each sending at 60 Hz
		gap     time.Duration
		perConn int
	}{
		{name: "direct, no relay", gap: time.Millisecond, conns: 1, perConn: n},
		{name: "relay, delay 0", relay: true, gap: time.Millisecond, conns: 1, perConn: n},
		{name: "relay, delay 30ms", relay: true, delay: d, gap: time.Millisecond, conns: 1, perConn: n},
		{name: "relay, delay 30ms, time.Timer", relay: true, delay: d, timer: true, gap: time.Millisecond, conns: 1, perConn: n},
		{name: "direct, 100 conns at 60Hz", gap: time.Second / 60, conns: 100, perConn: max(60, 6*n/100)},
		{name: "relay, delay 30ms, 100 conns at 60Hz", relay: true, delay: d, gap: time.Second / 60, conns: 100, perConn: max(60, 6*n/100)},
		{name: "relay, 30ms, 100 conns, time.Timer", relay: true, delay: d, timer: true, gap: time.Second / 60, conns: 100, perConn: max(60, 6*n/100)},
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average before: %s", strings.TrimSpace(string(load)))
	}
	t.Logf("%-38s %-4s %8s %8s %8s %8s %8s  %s", "case (error = one-way - delay)", "dir", "p50", "p90", "p99", "max", "samples", "CPU")
	for _, c := range cases {
		addr := server
		if c.relay {
			preciseSleep = !c.timer
			dir := Direction{Delay: c.delay}
			addr = startRelay(t, Config{To: server, Up: dir, Down: dir}).Addr()
		}
		probes := make([]*probe, c.conns)
		for i := range probes {
			probes[i] = dialProbe(t, addr)
		}
		var mu sync.Mutex
		var ups, downs []time.Duration
		var wg sync.WaitGroup
		cpu0, wall0 := cpuTime(), time.Now()
		for i, p := range probes {
			wg.Go(func() {
				// Spread the senders over one gap, as clients of a game are.
				time.Sleep(c.gap * time.Duration(i) / time.Duration(c.conns))
				up, down := p.run(c.perConn, c.gap)
				mu.Lock()
				ups, downs = append(ups, up...), append(downs, down...)
				mu.Unlock()
			})
		}
		wg.Wait()
		cpu := float64(cpuTime()-cpu0) / float64(time.Since(wall0)) * 100
		preciseSleep = true
		for _, s := range []struct {
			name string
			ds   []time.Duration
		}{{"up", ups}, {"down", downs}} {
			for i := range s.ds {
				s.ds[i] -= c.delay
			}
			t.Logf("%-38s %-4s %8s %8s %8s %8s %8d  %.0f%%", c.name, s.name,
				us(quantile(s.ds, 0.5)), us(quantile(s.ds, 0.9)), us(quantile(s.ds, 0.99)), us(quantile(s.ds, 1)), len(s.ds), cpu)
		}
		if c.relay && !c.timer && c.conns == 1 {
			if p50 := quantile(ups, 0.5); p50 >= time.Millisecond {
				t.Errorf("%s: got p50 error %v, want well under 1ms", c.name, p50)
			}
		}
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average after: %s", strings.TrimSpace(string(load)))
	}
}

func us(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e3, 'f', 0, 64) + "µs" }

// cpuTime is the user and system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
