package relay

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"testing"
	"time"
)

// epoch makes timestamps monotonic: a payload cannot carry a time.Time's
// monotonic reading, but both ends of a probe live in this process.
var epoch = time.Now()

func stamp() int64 { return int64(time.Since(epoch)) }

const (
	probeMsg   = 8  // client->server: when the client sent it
	probeReply = 24 // server->client: client's send time, server's receive time, server's send time
)

// startProbeServer answers every probe message with its timestamps, so the
// client can compute the one-way delay of each direction.
func startProbeServer(t testing.TB) string {
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
				var msg [probeMsg]byte
				var reply [probeReply]byte
				for {
					if _, err := io.ReadFull(c, msg[:]); err != nil {
						return
					}
					copy(reply[:8], msg[:])
					binary.LittleEndian.PutUint64(reply[8:], uint64(stamp()))
					binary.LittleEndian.PutUint64(reply[16:], uint64(stamp()))
					if _, err := c.Write(reply[:]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// probe is a client of a probe server, through a relay or directly.
type probe struct {
	t       testing.TB
	conn    net.Conn
	samples chan [2]time.Duration // one-way up and down of each message
}

func dialProbe(t testing.TB, addr string) *probe {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p := &probe{t: t, conn: c, samples: make(chan [2]time.Duration, 1<<14)}
	go func() {
		var reply [probeReply]byte
		for {
			if _, err := io.ReadFull(c, reply[:]); err != nil {
				close(p.samples)
				return
			}
			now := stamp()
			sent := int64(binary.LittleEndian.Uint64(reply[0:]))
			recv := int64(binary.LittleEndian.Uint64(reply[8:]))
			back := int64(binary.LittleEndian.Uint64(reply[16:]))
			p.samples <- [2]time.Duration{time.Duration(recv - sent), time.Duration(now - back)}
		}
	}()
	return p
}

// send writes n messages gap apart, without waiting for replies.
func (p *probe) send(n int, gap time.Duration) {
	var msg [probeMsg]byte
	for i := range n {
		if i > 0 {
			time.Sleep(gap)
		}
		binary.LittleEndian.PutUint64(msg[:], uint64(stamp()))
		if _, err := p.conn.Write(msg[:]); err != nil {
			p.t.Errorf("probe write: %v", err)
			return
		}
	}
}

// collect returns the one-way delays of the next n replies. It may run in
// a goroutine of its own, so it reports failures with Errorf.
func (p *probe) collect(n int) (up, down []time.Duration) {
	timeout := time.After(30 * time.Second)
	for range n {
		select {
		case s, ok := <-p.samples:
			if !ok {
				p.t.Errorf("probe: connection closed after %d of %d replies", len(up), n)
				return up, down
			}
			up, down = append(up, s[0]), append(down, s[1])
		case <-timeout:
			p.t.Errorf("probe: %d of %d replies after 30s", len(up), n)
			return up, down
		}
	}
	return up, down
}

// run sends n messages gap apart and returns their one-way delays.
func (p *probe) run(n int, gap time.Duration) (up, down []time.Duration) {
	p.send(n, gap)
	return p.collect(n)
}

// startRelay starts a relay to addr that the test closes when it ends.
func startRelay(t testing.TB, cfg Config) *Relay {
	t.Helper()
	r, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// quantile returns the q quantile (0..1) of ds, which it sorts.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// waitFor polls cond, since what the relay does after a close happens in
// its own goroutines; it fails the test if cond is still false after 10s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after 10s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
