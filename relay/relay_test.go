package relay

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
)

// startEcho starts a server that sends back what it reads and half-closes
// when its client does, so a stream through a relay tests both directions and
// the propagation of closes.
func startEcho(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := io.Copy(c, c); err == nil {
					c.(*net.TCPConn).CloseWrite()
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestStreamArrivesCompleteAndInOrder(t *testing.T) {
	const conns, size = 3, 1 << 20
	lossy := Direction{Delay: 2 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.02}
	// Jitter larger than the delay: delays clamp at zero and must not reorder.
	jumpy := Direction{Delay: time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.02}
	r := startRelay(t, Config{To: startEcho(t), Up: lossy, Down: jumpy, Seed: 7})

	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			data := make([]byte, size)
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
			c, err := net.Dial("tcp", r.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(60 * time.Second))
			go func() {
				// Writes of random sizes make chunks of many sizes.
				for rest := data; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(16<<10))
					if _, err := c.Write(rest[:n]); err != nil {
						return
					}
					rest = rest[n:]
				}
				c.(*net.TCPConn).CloseWrite()
			}()
			got, err := io.ReadAll(c) // ends only if the half-close went both ways
			if err != nil {
				t.Errorf("conn %d: read: %v", i, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("conn %d: got %d bytes back, want the %d sent, in order", i, len(got), len(data))
			}
		})
	}
	wg.Wait()
	waitFor(t, "connections to close", func() bool { return r.Stats().Active == 0 })
	s := r.Stats()
	if s.Connections != conns || s.Up.Bytes != conns*size || s.Down.Bytes != conns*size {
		t.Errorf("stats: got %d connections, %d bytes up, %d down; want %d, %d, %d",
			s.Connections, s.Up.Bytes, s.Down.Bytes, conns, conns*size, conns*size)
	}
	if s.Up.Held == 0 || s.Down.Held == 0 {
		t.Errorf("stats: got %d chunks held up and %d down of %d and %d, want some at 2%% loss",
			s.Up.Held, s.Down.Held, s.Up.Chunks, s.Down.Chunks)
	}
}

// The lower bounds hold on any machine: nothing is released before its
// time. The bound on the median is loose enough for a loaded machine but
// catches a delay applied twice.
func TestDelayIsAdded(t *testing.T) {
	const slack = 15 * time.Millisecond
	tests := []struct {
		name     string
		up, down Direction
	}{
		{"symmetric 30ms", Direction{Delay: 30 * time.Millisecond}, Direction{Delay: 30 * time.Millisecond}},
		{"up only", Direction{Delay: 30 * time.Millisecond}, Direction{}},
		{"jitter", Direction{Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}, Direction{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startRelay(t, Config{To: startProbeServer(t), Up: tt.up, Down: tt.down})
			up, down := dialProbe(t, r.Addr()).run(40, 5*time.Millisecond)
			for _, c := range []struct {
				name string
				d    Direction
				got  []time.Duration
			}{{"up", tt.up, up}, {"down", tt.down, down}} {
				floor := max(0, c.d.Delay-c.d.Jitter)
				if lo := quantile(c.got, 0); lo < floor {
					t.Errorf("%s: got a one-way delay of %v, want >= %v", c.name, lo, floor)
				}
				if med := quantile(c.got, 0.5); med >= c.d.Delay+slack {
					t.Errorf("%s: got median one-way delay %v, want < %v", c.name, med, c.d.Delay+slack)
				}
			}
		})
	}
}

// The RTO is longer than Linux's so that the test never mistakes a stall of a
// loaded machine for a held chunk.
func TestLossHoldsChunksBackByRTO(t *testing.T) {
	const n, rto = 10, time.Second
	tests := []struct {
		name     string
		loss     float64
		wantLate bool
	}{
		{"100% loss", 1, true},
		{"no loss", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := Direction{Delay: 5 * time.Millisecond, Loss: tt.loss, RTO: rto}
			r := startRelay(t, Config{To: startProbeServer(t), Up: up})
			ups, downs := dialProbe(t, r.Addr()).run(n, 10*time.Millisecond)
			for i, d := range ups {
				if late := d >= up.Delay+rto; late != tt.wantLate {
					t.Errorf("message %d: got one-way delay %v, want late by >= RTO %v: %v", i, d, rto, tt.wantLate)
				}
			}
			if d := quantile(downs, 1); d >= rto {
				t.Errorf("down: got one-way delay %v with no loss that way, want < %v", d, rto)
			}
			s := r.Stats()
			wantHeld := int64(0)
			if tt.wantLate {
				wantHeld = s.Up.Chunks
			}
			if s.Up.Held != wantHeld || s.Up.Chunks == 0 || s.Down.Held != 0 {
				t.Errorf("stats: got %d of %d chunks held up, %d down; want %d up, 0 down",
					s.Up.Held, s.Up.Chunks, s.Down.Held, wantHeld)
			}
		})
	}
}

func TestSetDirectionsChangesLiveConnections(t *testing.T) {
	r := startRelay(t, Config{To: startProbeServer(t), Up: Direction{Delay: 10 * time.Millisecond}})
	p := dialProbe(t, r.Addr())
	steps := []struct{ up, down time.Duration }{
		{30 * time.Millisecond, 30 * time.Millisecond},
		{80 * time.Millisecond, 0},
		{0, 5 * time.Millisecond},
	}
	for _, s := range steps {
		if err := r.SetDirections(Direction{Delay: s.up}, Direction{Delay: s.down}); err != nil {
			t.Fatal(err)
		}
		up, down := p.run(5, 5*time.Millisecond)
		if lo := quantile(up, 0); lo < s.up {
			t.Errorf("after setting up delay %v: got up one-way %v", s.up, lo)
		}
		if lo := quantile(down, 0); lo < s.down {
			t.Errorf("after setting down delay %v: got down one-way %v", s.down, lo)
		}
	}
	if err := r.SetDirections(Direction{Delay: -time.Second}, Direction{}); err == nil {
		t.Error("SetDirections with a negative delay: got no error")
	}
}
