package cluster_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"webtron/client"
	"webtron/sim"
)

// TestClusterRollingRestart restarts every node of three in turn (SIGTERM,
// which drains: each room is handed to another node live, then the node
// starts again) while 9 rooms play: no round is lost (every player of a
// drained node's rooms, and every one whose connection went through it,
// is back by itself in its seat of the same round, its cycle and walls
// kept), no player resyncs, and it logs each player's stall (from its
// connection's end to its next Welcome).
func TestClusterRollingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	webtronBinary(t)
	nodes := embeddedNodes(t)
	c := &clusterRun{t: t, nodes: nodes, rng: rand.New(rand.NewPCG(26, 3))}
	for _, n := range nodes {
		n.start()
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.stop(8 * time.Second)
		}
		if t.Failed() {
			for _, n := range nodes {
				t.Logf("--- %s log:\n%s", n.name, n.tail())
			}
		}
	})
	waitCluster(t, nodes, 60*time.Second)
	ctx := ctxFor(t, 4*time.Minute)
	var ps []*tplayer
	for r := range 9 {
		for p := range 2 {
			ps = append(ps, c.dial(ctx, fmt.Sprintf("roll-%d", r+1), fmt.Sprintf("r%d-%d", r+1, p+1), c.rng.IntN(3), nil))
		}
	}
	c.play(ctx, ps)
	waitFor(t, 30*time.Second, "every player riding", func() error {
		for _, p := range ps {
			var phase sim.Phase
			p.Inspect(func(s *client.Session) { phase, _ = s.State().Phase() })
			if phase != sim.PhasePlay {
				return fmt.Errorf("%s in %s: phase %v", p.Name(), p.room, phase)
			}
		}
		return nil
	})
	var stalls []time.Duration
	for _, d := range nodes {
		own := c.ownersAgreed(nodes)
		cut := slices.DeleteFunc(slices.Clone(ps), func(p *tplayer) bool { return own[p.room] != d.name && p.URL() != d.wsURL() })
		kept := c.keep(cut)
		start := time.Now()
		d.stop(20 * time.Second)
		t.Logf("%s drained and exited in %v (%d players cut)", d.name, time.Since(start).Round(10*time.Millisecond), len(cut))
		if len(cut) > 0 {
			c.backInSeat(cut, start, kept)
			stalls = append(stalls, c.logStalls(cut, start)...)
		}
		d.start()
		waitCluster(t, nodes, 60*time.Second)
	}
	slices.Sort(stalls)
	n := len(stalls)
	if n == 0 {
		t.Fatal("the restarts cut no player off")
	}
	t.Logf("rolling restart: %d stalls, p50 %v, p95 %v, max %v", n, stalls[n/2].Round(time.Millisecond),
		stalls[(n*95+99)/100-1].Round(time.Millisecond), stalls[n-1].Round(time.Millisecond))
	for _, p := range ps {
		if err := p.Err(); err != nil {
			t.Fatalf("%s in %s: %v", p.Name(), p.room, err)
		}
		for _, st := range append(p.EndedStats(), c.stats(p)) {
			if st.Resyncs != 0 || st.ProtocolErrors != 0 {
				t.Fatalf("%s in %s: %d resyncs, %d protocol errors", p.Name(), p.room, st.Resyncs, st.ProtocolErrors)
			}
		}
	}
}
