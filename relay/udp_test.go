package relay

import (
	"encoding/binary"
	"flag"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// startUDPEcho starts a UDP server that sends every datagram back, on the
// port of a TCP listener it also opens (a relay forwards both to one address).
func startUDPEcho(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	pc, err := net.ListenPacket("udp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			pc.WriteTo(buf[:n], from)
		}
	}()
	return ln.Addr().String()
}

// udpClient sends n numbered datagrams through the relay, gap apart, and
// returns the round-trip time of each one that came back, by number.
func udpClient(t *testing.T, addr string, n int, gap time.Duration, wait time.Duration) map[uint32]time.Duration {
	t.Helper()
	c, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sent := make([]time.Time, n)
	got := map[uint32]time.Duration{}
	var order []uint32
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			c.SetReadDeadline(time.Now().Add(wait))
			k, err := c.Read(buf)
			if err != nil {
				return
			}
			i := binary.LittleEndian.Uint32(buf[:k])
			mu.Lock()
			got[i] = time.Since(sent[i])
			order = append(order, i)
			mu.Unlock()
		}
	}()
	for i := range n {
		b := binary.LittleEndian.AppendUint32(nil, uint32(i))
		mu.Lock()
		sent[i] = time.Now()
		mu.Unlock()
		if _, err := c.Write(append(b, make([]byte, 100)...)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(gap)
	}
	<-done
	for k := 1; k < len(order); k++ {
		if order[k] < order[k-1] {
			t.Fatalf("datagram %d came back after %d: reordered", order[k], order[k-1])
		}
	}
	return got
}

// TestUDPDelayAndJitter: each way adds its delay within its jitter, and
// datagrams sent 1 ms apart with 5 ms of jitter still keep their order.
func TestUDPDelayAndJitter(t *testing.T) {
	r := startRelay(t, Config{To: startUDPEcho(t), UDP: true, Seed: 3,
		Up: Direction{Delay: 20 * ms, Jitter: 5 * ms}, Down: Direction{Delay: 10 * ms, Jitter: 5 * ms}})
	got := udpClient(t, r.Addr(), 200, ms, 500*ms)
	if len(got) != 200 {
		t.Fatalf("%d of 200 came back without loss", len(got))
	}
	var rtts []time.Duration
	for _, d := range got {
		rtts = append(rtts, d)
	}
	lo, hi := quantile(rtts, 0), quantile(rtts, 1)
	// 30 ms out and back, ±10 ms; order keeping can only add.
	if lo < 20*ms || quantile(rtts, 0.5) > 45*ms {
		t.Fatalf("round trips %v..%v (p50 %v), want about 30 ms ± 10 ms", lo, hi, quantile(rtts, 0.5))
	}
	if st := r.Stats(); st.Up.Chunks != 200 || st.Down.Chunks != 200 || st.Up.Held != 0 || st.Connections != 1 {
		t.Fatalf("stats %+v, want 200 datagrams each way in one flow", st)
	}
}

// TestUDPLossDrops: loss drops datagrams (nothing is held back or resent),
// at about the configured rate, one way only when only one way is lossy.
func TestUDPLossDrops(t *testing.T) {
	r := startRelay(t, Config{To: startUDPEcho(t), UDP: true, Seed: 5,
		Up: Direction{Loss: 0.3}, Down: Direction{Delay: ms}})
	// Spaced out, so that socket buffers drop none, and read until a
	// second passes without one: a loaded machine stalls the reader now and then.
	got := udpClient(t, r.Addr(), 500, ms, time.Second)
	st := r.Stats()
	// 150 dropped expected; 4 standard deviations of a binomial (about 10) either side.
	if st.Up.Held < 110 || st.Up.Held > 190 || st.Down.Held != 0 {
		t.Fatalf("stats %+v: want about 150 of 500 dropped up at 30 %% loss, none down", st)
	}
	// None of the dropped ones comes back later, as a held TCP chunk would.
	if n := int64(len(got)); n > 500-st.Up.Held || n < 500-st.Up.Held-10 {
		t.Fatalf("%d came back, want the %d the relay did not drop", n, 500-st.Up.Held)
	}
}

// TestUDPFlowsApart: two clients get their own answers, each through its
// own flow (the server sees two peers).
func TestUDPFlowsApart(t *testing.T) {
	r := startRelay(t, Config{To: startUDPEcho(t), UDP: true})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if got := udpClient(t, r.Addr(), 50, ms, 200*ms); len(got) != 50 {
				t.Errorf("%d of 50 came back", len(got))
			}
		})
	}
	wg.Wait()
	if st := r.Stats(); st.Connections != 2 {
		t.Fatalf("%d flows, want 2", st.Connections)
	}
}

func TestParseArgsUDP(t *testing.T) {
	for args, want := range map[string]bool{"--to x:1": false, "--to x:1 --udp": true} {
		cfg, err := ParseArgs(flag.NewFlagSet("relay", flag.ContinueOnError), strings.Fields(args))
		if err != nil || cfg.UDP != want {
			t.Errorf("%s: UDP %v, err %v; want %v", args, cfg.UDP, err, want)
		}
	}
}
