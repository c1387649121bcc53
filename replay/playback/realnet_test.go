//go:build !js

package playback

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"webtron/client"
	"webtron/clock"
	"webtron/headless"
	"webtron/relay"
	"webtron/replay"
	"webtron/server"
	"webtron/sim"
)

// realRun plays rounds on the real server with headless clients (the same
// client.Session as the browser) through delay relays, records every
// client's screen frame by frame, and returns them with the replay files
// the server wrote.
func realRun(t *testing.T, pings []time.Duration, jitter time.Duration, rounds int) *labRun {
	rules := sim.DefaultConfig()
	rules.ArenaSize = 100 * sim.Meter // rounds of tens of seconds, not minutes
	data := t.TempDir()
	srv, err := server.New(server.Config{Bots: 2, Seats: 2 + len(pings), Policy: clock.Policy{Charity: clock.Charity{Auto: true}},
		DataDir: data, Rules: &rules, Seed: 11, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := &labRun{frames: map[int][]frame{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, rtt := range pings {
		dir := relay.Direction{Delay: rtt / 2, Jitter: jitter}
		r, err := relay.Start(ctx, relay.Config{Listen: "127.0.0.1:0", To: ln.Addr().String(), Up: dir, Down: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p, err := headless.Dial(ctx, headless.Options{URL: "ws://" + r.Addr(), Name: fmt.Sprintf("p%d", i+1), Room: "sight",
			Seed: uint64(i + 1), MindReader: true, BrakeEvery: 300 * time.Millisecond, Header: http.Header{"Origin": {"http://" + r.Addr()}}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(4 * time.Millisecond)
			defer tk.Stop()
			for ctx.Err() == nil {
				<-tk.C
				p.Frame()
				p.Inspect(func(s *client.Session) {
					st := s.State()
					if st == nil || s.You() < 0 {
						return
					}
					fr := frame{tick: st.Tick(), hash: st.Hash()}
					for i := range fr.cyc {
						c := st.Cycle(i)
						fr.cyc[i] = seen{c.X, c.Y, c.InRound}
					}
					mu.Lock()
					run.frames[s.You()] = append(run.frames[s.You()], fr)
					mu.Unlock()
				})
			}
		}()
	}
	dir := filepath.Join(data, "replays", "sight")
	deadline := time.Now().Add(time.Duration(rounds) * 90 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*"+replay.Ext))
		if len(files) > rounds || time.Now().After(deadline) { // the first record holds the wait for players
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+replay.Ext))
	for _, name := range files {
		f, err := replay.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(humans(f)) > 0 {
			run.files = append(run.files, f)
		}
	}
	if len(run.files) == 0 {
		t.Fatal("no round with the players in it was written")
	}
	return run
}

// TestSightOnRealNetwork is the accuracy measurement through the real
// server and real sockets (docs/replays.md). It takes minutes of real time:
// WEBTRON_MEASURE=1 go test -count=1 -run SightOnRealNetwork -v ./replay/playback/
func TestSightOnRealNetwork(t *testing.T) {
	if os.Getenv("WEBTRON_MEASURE") == "" {
		t.Skip("a measurement: set WEBTRON_MEASURE=1")
	}
	for _, c := range []struct {
		pings  []time.Duration
		jitter time.Duration
	}{
		{[]time.Duration{60 * time.Millisecond, 160 * time.Millisecond}, 0},
		{[]time.Duration{60 * time.Millisecond, 160 * time.Millisecond}, 10 * time.Millisecond},
	} {
		t.Run(fmt.Sprintf("%v/jitter%v", c.pings, c.jitter), func(t *testing.T) {
			run := realRun(t, c.pings, c.jitter, 3)
			a := measure(t, run, model{})
			t.Logf("real network, pings %v, jitter ±%v: %v", c.pings, c.jitter, a)
			variants(t, run)
			if a.exact <= a.truthExact {
				t.Errorf("the reconstruction is no closer to the clients' screens than the truth")
			}
		})
	}
}
