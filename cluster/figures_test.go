package cluster_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"webtron/headless"
)

// TestClusterFigures measures the figures docs/performance.md gives for a
// cluster: join latency through the owner and through another node, and
// the NATS traffic that leases and heartbeats cost per room. It runs only
// when asked (it measures, it checks nothing a figure could flake on):
//
//	WEBTRON_CLUSTER_FIGURES=1 go test -count=1 -run TestClusterFigures -v ./cluster/
func TestClusterFigures(t *testing.T) {
	if os.Getenv("WEBTRON_CLUSTER_FIGURES") == "" {
		t.Skip("set WEBTRON_CLUSTER_FIGURES=1 to measure")
	}
	webtronBinary(t)
	dir := t.TempDir()
	ports := freePorts(t, 12)
	routes := ports[6:9]
	var urls []string
	auth := newNATSAuth(t)
	for i := range 3 {
		name := fmt.Sprintf("ns%d", i+1)
		p := natsServer(t, dir, name, auth, ports[3+i], routes[i], routes, ports[9+i])
		t.Cleanup(func() { p.stop(3 * time.Second) })
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
	}
	nodes := make([]*node, 3)
	for i := range nodes {
		name := fmt.Sprintf("n%d", i+1)
		addr := fmt.Sprintf("127.0.0.1:%d", ports[i])
		mine := append([]string{urls[i]}, slices.Delete(slices.Clone(urls), i, i+1)...)
		args, env := auth.nodeArgs(mine)
		nodes[i] = &node{addr: addr, proc: proc{t: t, name: name, log: filepath.Join(dir, name+".log"),
			args: nodeArgs(name, addr, filepath.Join(dir, name), args...), env: env}}
		nodes[i].start()
		t.Cleanup(func() { nodes[i].stop(8 * time.Second) })
	}
	waitCluster(t, nodes, 60*time.Second)
	ctx := ctxFor(t, 5*time.Minute)
	traffic := func() (msgs, bytes float64) {
		for i := range 3 {
			var v struct {
				InMsgs   float64 `json:"in_msgs"`
				InBytes  float64 `json:"in_bytes"`
				OutMsgs  float64 `json:"out_msgs"`
				OutBytes float64 `json:"out_bytes"`
			}
			if err := getJSON(fmt.Sprintf("http://127.0.0.1:%d/varz", ports[9+i]), &v); err != nil {
				t.Fatal(err)
			}
			msgs += v.InMsgs
			bytes += v.InBytes
		}
		return msgs, bytes
	}
	const window = 30 * time.Second
	m0, b0 := traffic()
	time.Sleep(window)
	m1, b1 := traffic()
	idleMsgs, idleBytes := (m1-m0)/window.Seconds(), (b1-b0)/window.Seconds()

	// 30 rooms, one idle player each, each joined through the node that
	// places it (a first join), then a second player through every node.
	const rooms = 30
	var first, owner, other []time.Duration
	var players []*headless.Player
	defer func() {
		for _, p := range players {
			p.Close()
		}
	}()
	join := func(room string, via int) time.Duration {
		start := time.Now()
		p, err := headless.Dial(ctx, headless.Options{URL: nodes[via].wsURL(), Name: fmt.Sprintf("p%d", len(players)), Room: room, Idle: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.WaitWelcome(ctx); err != nil {
			t.Fatal(err)
		}
		players = append(players, p)
		return time.Since(start)
	}
	for r := range rooms {
		first = append(first, join(fmt.Sprintf("fig-%02d", r), r%3))
	}
	own := map[string]string{}
	waitFor(t, 5*time.Second, "lobby lists every room", func() error {
		m, err := owners(nodes[0])
		own = m
		if err != nil || len(m) < rooms {
			return fmt.Errorf("%d rooms listed (%v)", len(m), err)
		}
		return nil
	})
	for r := range rooms {
		room := fmt.Sprintf("fig-%02d", r)
		for i, n := range nodes {
			d := join(room, i)
			if own[room] == n.name {
				owner = append(owner, d)
			} else {
				other = append(other, d)
			}
		}
	}
	t.Logf("join latency (dial to Welcome, loopback) p50/p95: first join of a new room %v/%v; existing room through its owner %v/%v, through another node %v/%v",
		pct(first, 0.5), pct(first, 0.95), pct(owner, 0.5), pct(owner, 0.95), pct(other, 0.5), pct(other, 0.95))

	var renewed0 float64
	for _, n := range nodes {
		list, _ := n.nodes()
		renewed0 += float64(list[0].Renewals)
	}
	m0, b0 = traffic()
	time.Sleep(window)
	m1, b1 = traffic()
	var renewed1 float64
	for _, n := range nodes {
		list, _ := n.nodes()
		renewed1 += float64(list[0].Renewals)
	}
	busyMsgs, busyBytes := (m1-m0)/window.Seconds(), (b1-b0)/window.Seconds()
	t.Logf("NATS traffic into the 3 servers (clients and routes): idle cluster %.0f msgs/s %.0f B/s; with %d rooms %.0f msgs/s %.0f B/s",
		idleMsgs, idleBytes, rooms, busyMsgs, busyBytes)
	t.Logf("per room: %.2f msgs/s, %.0f B/s; lease renewals %.3f per room per second",
		(busyMsgs-idleMsgs)/rooms, (busyBytes-idleBytes)/rooms, (renewed1-renewed0)/window.Seconds()/rooms)
}

func pct(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(q*float64(len(s))))].Round(10 * time.Microsecond)
}
