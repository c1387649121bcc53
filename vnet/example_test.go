package vnet_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"webtron/vnet"
)

// A server ticks at 120 Hz and sends each of two clients a 64-byte snapshot
// per tick; each client acknowledges every snapshot with 8 bytes. One client
// is on a WebSocket, the other on lossy, jittery datagrams; both have a 60 ms
// RTT. Ten virtual seconds take a few milliseconds of real time.
func Example() {
	n := vnet.New(42)
	server := n.AddNode(nil) // counters are all this server needs
	clients := make([]vnet.NodeID, 2)
	for i := range clients {
		clients[i] = n.AddNode(nil)
		id := clients[i]
		n.SetHandler(id, func(from vnet.NodeID, msg []byte) { n.Send(id, from, msg[:8]) })
	}
	n.SetLink(server, clients[0], vnet.Profile{Mode: vnet.Stream, Latency: 30 * time.Millisecond, Loss: 0.01})
	n.SetLink(server, clients[1], vnet.Profile{Mode: vnet.Datagram, Latency: 30 * time.Millisecond,
		Jitter: 10 * time.Millisecond, Loss: 0.02})

	snapshot := make([]byte, 64)
	var tick func()
	tick = func() {
		for _, c := range clients {
			n.Send(server, c, snapshot)
		}
		n.After(time.Second/120, tick)
	}
	n.After(0, tick)
	n.RunFor(10 * time.Second)

	for _, c := range clients {
		down, up := n.Stats(server, c), n.Stats(c, server)
		fmt.Printf("%s client: down %d B/s (%d dropped, %d resent), up %d B/s\n", n.Link(server, c).Mode,
			down.Delivered.Bytes/10, down.Dropped.Msgs, down.Retransmitted.Msgs, up.Delivered.Bytes/10)
	}
	// Output:
	// stream client: down 7660 B/s (0 dropped, 18 resent), up 954 B/s
	// datagram client: down 7507 B/s (23 dropped, 0 resent), up 917 B/s
}

// chatter runs two clients exchanging messages with a server over lossy,
// jittery links of both modes and returns the trace, one line per event.
func chatter(seed uint64) []string {
	n := vnet.New(seed)
	var trace []string
	n.Trace = func(e vnet.TraceEvent) { trace = append(trace, e.String()) }
	s, a, b := n.AddNode(nil), n.AddNode(nil), n.AddNode(nil)
	n.SetLink(s, a, vnet.Profile{Latency: 30 * ms, Jitter: 15 * ms, Loss: 0.1})
	n.SetLink(s, b, vnet.Profile{Mode: vnet.Datagram, Latency: 20 * ms, Jitter: 30 * ms, Loss: 0.1, Reorder: 0.05, Duplicate: 0.05})
	echo := func(self vnet.NodeID) vnet.Handler {
		return func(from vnet.NodeID, msg []byte) {
			if len(msg) < 40 {
				n.Send(self, from, append(msg, byte(self)))
			}
		}
	}
	n.SetHandler(s, echo(s))
	n.SetHandler(a, echo(a))
	n.SetHandler(b, echo(b))
	for i := range 200 {
		n.At(time.Duration(i)*7*ms, func() { n.Send(s, a, []byte{byte(i)}); n.Send(s, b, []byte{byte(i)}) })
	}
	n.RunFor(10 * time.Second)
	return trace
}

func TestSameSeedSameTrace(t *testing.T) {
	tests := []struct {
		seedA, seedB uint64
		wantSame     bool
	}{
		{1, 1, true},
		{0xdeadbeef, 0xdeadbeef, true},
		{1, 2, false},
		{0, 1 << 63, false},
	}
	for _, tt := range tests {
		a, b := chatter(tt.seedA), chatter(tt.seedB)
		if len(a) < 1000 {
			t.Fatalf("seed %d: got %d trace events, want a busy run", tt.seedA, len(a))
		}
		if got := slices.Equal(a, b); got != tt.wantSame {
			t.Errorf("seeds %d and %d: got same trace %v, want %v", tt.seedA, tt.seedB, got, tt.wantSame)
		}
	}
}

// TestLinksAreIndependent checks the promise that what happens on one link
// direction depends only on the seed and the sends on that direction.
func TestLinksAreIndependent(t *testing.T) {
	run := func(noise bool) []string {
		n := vnet.New(5)
		a, b, c := n.AddNode(nil), n.AddNode(nil), n.AddNode(nil)
		lossy := vnet.Profile{Mode: vnet.Datagram, Latency: 10 * ms, Jitter: 10 * ms, Loss: 0.2}
		n.SetLink(a, b, lossy)
		n.SetLink(c, b, lossy)
		var got []string
		n.Trace = func(e vnet.TraceEvent) {
			if e.From == a { // ids are global, so leave them out
				got = append(got, fmt.Sprint(e.At, e.Kind, e.To, e.Size, e.Due))
			}
		}
		for i := range 500 {
			n.At(time.Duration(i)*ms, func() {
				if noise {
					n.Send(c, b, make([]byte, i))
				}
				n.Send(a, b, make([]byte, 10))
			})
		}
		n.RunFor(time.Minute)
		return got
	}
	quiet, noisy := run(false), run(true)
	if !slices.Equal(quiet, noisy) {
		t.Errorf("got a -> b changed by traffic on c -> b, want it unaffected")
	}
}

func BenchmarkSend(b *testing.B) {
	for _, p := range []vnet.Profile{
		{Mode: vnet.Stream, Latency: 30 * ms, Jitter: 5 * ms, Loss: 0.05},
		{Mode: vnet.Datagram, Latency: 30 * ms, Jitter: 5 * ms, Loss: 0.05},
	} {
		b.Run(p.Mode.String(), func(b *testing.B) {
			n := vnet.New(1)
			src, dst := n.AddNode(nil), n.AddNode(func(vnet.NodeID, []byte) {})
			n.SetLink(src, dst, p)
			msg := make([]byte, 64)
			for range 1024 { // a standing queue of messages in flight
				n.Send(src, dst, msg)
			}
			b.ReportAllocs()
			for b.Loop() {
				n.Send(src, dst, msg)
				n.Step()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
