package vnet_test

import (
	"encoding/binary"
	"testing"
	"time"

	"webtron/vnet"
)

// arrival is one message as the receiver saw it.
type arrival struct {
	seq      int
	sent, at time.Duration
}

// pump sends count 12-byte messages a -> b, one every interval from time 0,
// each carrying its sequence number and send time, runs the net until all
// could have arrived, and returns the arrivals in arrival order.
func pump(n *vnet.Net, a, b vnet.NodeID, count int, interval time.Duration) []arrival {
	var got []arrival
	n.SetHandler(b, func(from vnet.NodeID, msg []byte) {
		got = append(got, arrival{int(binary.LittleEndian.Uint32(msg)), time.Duration(binary.LittleEndian.Uint64(msg[4:])), n.Now()})
	})
	buf := make([]byte, 12) // reused on purpose: Send must copy
	for i := range count {
		n.At(time.Duration(i)*interval, func() {
			binary.LittleEndian.PutUint32(buf, uint32(i))
			binary.LittleEndian.PutUint64(buf[4:], uint64(n.Now()))
			n.Send(a, b, buf)
		})
	}
	n.RunFor(time.Duration(count)*interval + time.Hour)
	return got
}

func pair(seed uint64, p vnet.Profile) (*vnet.Net, vnet.NodeID, vnet.NodeID) {
	n := vnet.New(seed)
	a, b := n.AddNode(nil), n.AddNode(nil)
	n.SetLink(a, b, p)
	return n, a, b
}

func TestStreamDeliversEverythingOnceInOrder(t *testing.T) {
	tests := []struct {
		name        string
		p           vnet.Profile
		wantRetrans bool
	}{
		{"perfect", vnet.Profile{}, false},
		{"latency only", vnet.Profile{Latency: 30 * ms}, false},
		{"jitter never reorders", vnet.Profile{Latency: 30 * ms, Jitter: 20 * ms}, false},
		{"loss 10%", vnet.Profile{Latency: 30 * ms, Jitter: 5 * ms, Loss: 0.1}, true},
		{"loss 30% custom RTO", vnet.Profile{Latency: 30 * ms, Loss: 0.3, RTO: 50 * ms}, true},
	}
	const count = 10000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, a, b := pair(7, tt.p)
			retries := make([]int, count) // by seq, from the trace
			n.Trace = func(e vnet.TraceEvent) {
				if e.Kind == vnet.TraceSend {
					retries[binary.LittleEndian.Uint32(e.Msg)] = e.Retries
				}
			}
			got := pump(n, a, b, count, 8*ms)
			if len(got) != count {
				t.Fatalf("got %d arrivals, want %d", len(got), count)
			}
			rto := n.Link(a, b).RTO
			late, heldBehind := 0, 0
			for i, g := range got {
				if g.seq != i {
					t.Fatalf("arrival %d: got seq %d, want %d", i, g.seq, i)
				}
				delay, k := g.at-g.sent, retries[i]
				if floor := tt.p.Latency + time.Duration(k)*rto; delay < floor {
					t.Fatalf("seq %d: got delay %v, want >= latency + %d RTO = %v", i, delay, k, floor)
				}
				if k > 0 {
					late++
				} else if delay > tt.p.Latency+tt.p.Jitter {
					heldBehind++ // not retried itself, yet later than its own worst case
				}
			}
			st := n.Stats(a, b)
			if st.Sent.Msgs != count || st.Delivered.Msgs != count || st.Delivered.Bytes != 12*count || st.Dropped.Msgs != 0 {
				t.Errorf("got stats %+v, want %d sent and delivered (12 bytes each), none dropped", st, count)
			}
			if got := late > 0 && heldBehind > 0 && st.Retransmitted.Msgs > 0; got != tt.wantRetrans {
				t.Errorf("got %d late, %d held behind, %d retransmitted; want some of each: %v",
					late, heldBehind, st.Retransmitted.Msgs, tt.wantRetrans)
			}
			// Retransmissions form a geometric series: count*p/(1-p) expected.
			want := float64(count) * tt.p.Loss / (1 - tt.p.Loss)
			if r := float64(st.Retransmitted.Msgs); r < want*0.85 || r > want*1.15 {
				t.Errorf("got %v retransmissions, want %.0f within 15%%", r, want)
			}
		})
	}
}

func TestDatagramLossReorderDuplicate(t *testing.T) {
	tests := []struct {
		name        string
		p           vnet.Profile
		wantReorder bool
	}{
		{"perfect", vnet.Profile{Mode: vnet.Datagram, Latency: 30 * ms}, false},
		{"loss 1%", vnet.Profile{Mode: vnet.Datagram, Latency: 30 * ms, Loss: 0.01}, false},
		{"loss 10% jitter", vnet.Profile{Mode: vnet.Datagram, Latency: 30 * ms, Jitter: 10 * ms, Loss: 0.1}, true},
		{"loss 50%", vnet.Profile{Mode: vnet.Datagram, Loss: 0.5}, false},
		{"loss 100%", vnet.Profile{Mode: vnet.Datagram, Loss: 1}, false},
		{"explicit reorder", vnet.Profile{Mode: vnet.Datagram, Latency: 30 * ms, Reorder: 0.05}, true},
		{"duplicate 5%", vnet.Profile{Mode: vnet.Datagram, Latency: 30 * ms, Duplicate: 0.05}, false},
		{"duplicate 5% jitter", vnet.Profile{Mode: vnet.Datagram, Latency: 30 * ms, Jitter: 10 * ms, Duplicate: 0.05}, true},
	}
	const count = 100000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, a, b := pair(11, tt.p)
			got := pump(n, a, b, count, ms)
			st := n.Stats(a, b)
			// The binomial standard deviation is at most 158 here; 1000 is over
			// six of them, and with the seed fixed the result never changes.
			if d := float64(st.Dropped.Msgs) - count*tt.p.Loss; d < -1000 || d > 1000 {
				t.Errorf("got %d dropped, want %.0f ± 1000", st.Dropped.Msgs, count*tt.p.Loss)
			}
			if d := float64(st.Duplicated.Msgs) - count*(1-tt.p.Loss)*tt.p.Duplicate; d < -1000 || d > 1000 {
				t.Errorf("got %d duplicated, want %.0f ± 1000", st.Duplicated.Msgs, count*tt.p.Duplicate)
			}
			if want := st.Sent.Msgs - st.Dropped.Msgs + st.Duplicated.Msgs; uint64(len(got)) != want || st.Delivered.Msgs != want {
				t.Errorf("got %d arrivals (%d counted), want sent-dropped+duplicated = %d", len(got), st.Delivered.Msgs, want)
			}
			seen := make([]int, count)
			reordered := 0
			for i, g := range got {
				seen[g.seq]++
				if i > 0 && g.seq < got[i-1].seq {
					reordered++
				}
				if g.at-g.sent < tt.p.Latency {
					t.Fatalf("seq %d: got delay %v, want >= %v", g.seq, g.at-g.sent, tt.p.Latency)
				}
			}
			maxCopies := 1
			if tt.p.Duplicate > 0 {
				maxCopies = 2
			}
			for seq, k := range seen {
				if k > maxCopies {
					t.Fatalf("seq %d: got %d copies, want at most %d", seq, k, maxCopies)
				}
			}
			if (reordered > 0) != tt.wantReorder {
				t.Errorf("got %d reorderings, want some: %v", reordered, tt.wantReorder)
			}
		})
	}
}

func TestSetLinkMidRunAffectsLaterSendsOnly(t *testing.T) {
	tests := []struct {
		mode   vnet.Mode
		before time.Duration // one-way latency until 1s, then after
		after  time.Duration
		want   func(sent time.Duration) time.Duration
	}{
		{vnet.Datagram, 30 * ms, 80 * ms, func(s time.Duration) time.Duration { return s + pick(s < time.Second, 30*ms, 80*ms) }},
		{vnet.Stream, 30 * ms, 80 * ms, func(s time.Duration) time.Duration { return s + pick(s < time.Second, 30*ms, 80*ms) }},
		{vnet.Datagram, 80 * ms, 30 * ms, func(s time.Duration) time.Duration { return s + pick(s < time.Second, 80*ms, 30*ms) }},
		// A stream never lets later messages overtake: those sent in the first
		// 50ms after the switch wait for the last one sent before it (due 1079ms).
		{vnet.Stream, 80 * ms, 30 * ms, func(s time.Duration) time.Duration {
			return max(s+pick(s < time.Second, 80*ms, 30*ms), pick(s < time.Second, 0, 1079*ms))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String()+" "+tt.before.String()+" to "+tt.after.String(), func(t *testing.T) {
			n, a, b := pair(3, vnet.Profile{Mode: tt.mode, Latency: tt.before})
			n.At(time.Second, func() { n.SetLink(a, b, vnet.Profile{Mode: tt.mode, Latency: tt.after}) })
			got := pump(n, a, b, 2000, ms)
			if len(got) != 2000 {
				t.Fatalf("got %d arrivals, want 2000", len(got))
			}
			for _, g := range got {
				if want := tt.want(g.sent); g.at != want {
					t.Fatalf("seq %d sent %v: got arrival %v, want %v", g.seq, g.sent, g.at, want)
				}
			}
		})
	}
}

func pick(c bool, a, b time.Duration) time.Duration {
	if c {
		return a
	}
	return b
}

func TestBadProfilePanics(t *testing.T) {
	for _, p := range []vnet.Profile{
		{Loss: 1}, {Loss: -0.1}, {Mode: vnet.Datagram, Loss: 1.5}, {Mode: 9},
		{Latency: -ms}, {Mode: vnet.Datagram, Duplicate: 2},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetLink(%+v): got no panic, want one", p)
				}
			}()
			pair(1, p)
		}()
	}
}
