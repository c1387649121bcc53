package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"webtron/client"
	"webtron/cluster"
	"webtron/headless"
	"webtron/history"
	"webtron/room"
	"webtron/server"
	"webtron/sim"
)

// The process tests: three `webtron serve` nodes on loopback, 30 rooms of
// headless players joining through randomly chosen nodes, kill -9 of a node
// mid-round and of the node leading the lease stream. TestClusterEmbedded
// lets the nodes form the NATS cluster with their embedded servers;
// TestClusterDebianNATS runs three Debian nats-server processes (2.9.10)
// and the nodes join them as clients.

const (
	testRooms      = 30
	playersPerRoom = 2
	// lobbyBound is the bound on a dead node's rooms leaving every
	// lobby.
	lobbyBound = 15 * time.Second
)

// embeddedNodes returns three nodes (not started) that each embed a NATS
// server routed to the other two, with extra flags for every node.
func embeddedNodes(t *testing.T, extra ...string) []*node {
	dir := t.TempDir()
	ports := freePorts(t, 6)
	var routes []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
	}
	nodes := make([]*node, 3)
	for i := range nodes {
		name := fmt.Sprintf("n%d", i+1)
		addr := fmt.Sprintf("127.0.0.1:%d", ports[i])
		args := append([]string{"--nats-cluster", fmt.Sprintf("127.0.0.1:%d", ports[3+i]), "--nats-routes", strings.Join(routes, ",")}, extra...)
		nodes[i] = &node{addr: addr, proc: proc{t: t, name: name, log: filepath.Join(dir, name+".log"),
			args: nodeArgs(name, addr, filepath.Join(dir, name), args...)}}
	}
	return nodes
}

func TestClusterEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	webtronBinary(t)
	nodes := embeddedNodes(t)
	c := &clusterRun{t: t, nodes: nodes, drain: true, leader: func(name string) *proc {
		for _, n := range nodes {
			if n.name == name {
				return &n.proc
			}
		}
		return nil
	}}
	c.run()
}

func TestClusterDebianNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	webtronBinary(t)
	nodes, servers, urls, auth := externalNodes(t)
	c := &clusterRun{t: t, nodes: nodes, drain: true, leader: func(name string) *proc { return servers[name] }}
	c.history = func(room string) map[history.TickEvent]bool {
		o := cluster.Options{Name: "reader", PublicURL: "http://127.0.0.1:1", NATS: urls, Replicas: 3, Secret: testSecret,
			User: "webtron", Password: natsPassword, TLS: cluster.TLSFiles{CA: auth.ca, Cert: auth.cert, Key: auth.key},
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		return roomHistory(t, o, room)
	}
	c.run()
}

// externalNodes returns three nodes (not started), each a client of three
// Debian nats-server processes (started, routed together, named ns1..ns3)
// that run apart from them, as a deployment with its own NATS cluster
// does, with extra flags for every node; and the servers, their client
// URLs and the credentials the nodes use.
func externalNodes(t *testing.T, extra ...string) ([]*node, map[string]*proc, []string, natsAuth) {
	if _, err := exec.LookPath("nats-server"); err != nil {
		t.Skip("nats-server is not installed (make test installs Debian's: scripts/install-nats-server.sh)")
	}
	out, _ := exec.Command("nats-server", "--version").Output()
	t.Logf("external NATS: %s", strings.TrimSpace(string(out)))
	dir := t.TempDir()
	ports := freePorts(t, 9)
	routes := ports[6:9]
	var urls []string
	servers := map[string]*proc{}
	var all []*proc
	auth := newNATSAuth(t)
	for i := range 3 {
		name := fmt.Sprintf("ns%d", i+1)
		p := natsServer(t, dir, name, auth, ports[3+i], routes[i], routes)
		servers[name] = p
		all = append(all, p)
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
	}
	t.Cleanup(func() {
		for _, p := range all {
			p.stop(3 * time.Second)
		}
	})
	nodes := make([]*node, 3)
	for i := range nodes {
		name := fmt.Sprintf("n%d", i+1)
		addr := fmt.Sprintf("127.0.0.1:%d", ports[i])
		// Each node lists its own server first, as on one machine each.
		mine := append([]string{urls[i]}, slices.Delete(slices.Clone(urls), i, i+1)...)
		args, env := auth.nodeArgs(mine)
		nodes[i] = &node{addr: addr, proc: proc{t: t, name: name, log: filepath.Join(dir, name+".log"),
			args: nodeArgs(name, addr, filepath.Join(dir, name), append(args, extra...)...), env: env}}
	}
	return nodes, servers, urls, auth
}

// roomHistory reads room's replicated history as a node of options o
// would, and returns every event in it.
func roomHistory(t *testing.T, o cluster.Options, name string) map[history.TickEvent]bool {
	t.Helper()
	n, err := cluster.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	select {
	case <-n.Ready():
	case <-time.After(20 * time.Second):
		t.Fatal("the history reader's bucket not ready")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := n.RecoverAll(ctx, name)
	if err != nil {
		t.Fatalf("reading the history of %s: %v", name, err)
	}
	in := map[history.TickEvent]bool{}
	for _, b := range rec.All {
		e, err := room.DecodeEntry(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, te := range e.Events {
			in[te] = true
		}
	}
	return in
}

func nodeArgs(name, addr, data string, extra ...string) []string {
	return append([]string{binary, "serve", "--addr", addr, "--node-name", name, "--public-url", "http://" + addr,
		"--data", data, "--bots", "2", "--seats", "4", "--drain-timeout", "5s",
		// Every player of the test comes from 127.0.0.1.
		"--max-conns-per-addr", "0", "--rooms-per-addr", "0"}, extra...)
}

// clusterRun is one run of the scenario over three nodes.
type clusterRun struct {
	t      *testing.T
	nodes  []*node
	leader func(server string) *proc // the process whose kill loses the stream's leader
	drain  bool                      // end with a drain (SIGTERM) of a node
	// history reads a room's replicated history (every event in it), when
	// the test can reach the NATS servers; nil otherwise.
	history func(room string) map[history.TickEvent]bool
	rng     *rand.Rand

	mu      sync.Mutex
	players []*tplayer
}

// tplayer is a headless player and where it went.
type tplayer struct {
	*headless.Player
	room string
	via  int // index of the node it dialed
	slot int
}

func (c *clusterRun) run() {
	t := c.t
	c.rng = rand.New(rand.NewPCG(15, 15))
	for _, n := range c.nodes {
		n.start()
	}
	t.Cleanup(func() {
		for _, n := range c.nodes {
			n.stop(8 * time.Second)
		}
		for _, n := range c.nodes {
			if b, _ := os.ReadFile(n.log); bytes.Contains(b, []byte("DATA RACE")) {
				t.Errorf("%s: data race (WEBTRON_RACE=1 build):\n%s", n.name, b)
			}
		}
		if t.Failed() {
			for _, n := range c.nodes {
				t.Logf("--- %s log:\n%s", n.name, n.tail())
			}
		}
	})
	waitCluster(t, c.nodes, 60*time.Second)
	ctx := ctxFor(t, 4*time.Minute)

	// 30 rooms, each player through a random node.
	var first []*tplayer
	for r := range testRooms {
		for p := range playersPerRoom {
			first = append(first, c.dial(ctx, fmt.Sprintf("room-%02d", r+1), fmt.Sprintf("p%d-%d", r+1, p+1), c.rng.IntN(3), nil))
		}
	}
	c.play(ctx, first)
	own := c.ownersAgreed(c.nodes)
	perNode := map[string]int{}
	for _, o := range own {
		perNode[o]++
	}
	t.Logf("rooms per node: %v", perNode)
	if len(perNode) != 3 {
		t.Fatalf("30 rooms on %d nodes, want all 3 used: %v", len(perNode), perNode)
	}
	c.reachableEverywhere(ctx, own)

	// Kill -9 a node mid-round (not the lease stream's leader: that comes
	// next). Mid-round means every player rides: one who leaves before ever
	// riding gives the seat back at once (room.Leave), so a kill within the
	// first countdown (PREPARE_TIME, 4 s) left the token of every player cut
	// off with it unknown, and their rejoins refused.
	waitFor(t, 30*time.Second, "every player riding", func() error {
		for _, p := range first {
			var phase sim.Phase
			var in bool
			p.Inspect(func(s *client.Session) {
				st := s.State()
				phase, _ = st.Phase()
				in = st.Cycle(s.You()).InRound
			})
			if phase != sim.PhasePlay || !in {
				return fmt.Errorf("%s in %s: phase %v, in the round %v", p.Name(), p.room, phase, in)
			}
		}
		return nil
	})
	time.Sleep(time.Second) // the rooms' confirmed states past the countdown too
	leader := c.leaderName()
	victim := -1
	for i, n := range c.nodes {
		if perNode[n.name] > 0 && n.name != leader && (victim < 0 || c.rng.IntN(2) == 0) {
			victim = i
		}
	}
	if victim < 0 {
		victim = 0
	}
	k := c.nodes[victim]
	t.Logf("kill -9 %s (%d rooms; lease stream leader %s)", k.name, perNode[k.name], leader)
	before := c.snapshot()
	kept := c.keep(first)
	killed := time.Now()
	k.kill9()

	survivors := slices.DeleteFunc(slices.Clone(c.nodes), func(n *node) bool { return n == k })
	took := waitFor(t, lobbyBound, "the dead node's rooms carried on by the survivors", func() error {
		for _, n := range survivors {
			m, err := owners(n)
			if err != nil {
				return err
			}
			for room, o := range own {
				if o == k.name && (m[room] == "" || m[room] == k.name) {
					return fmt.Errorf("%s lists %s on %q", n.name, room, m[room])
				}
			}
		}
		return nil
	})
	t.Logf("the dead node's rooms listed on survivors %v after the kill", took.Round(10*time.Millisecond))
	cut := slices.DeleteFunc(slices.Clone(first), func(p *tplayer) bool { return own[p.room] != k.name && p.via != victim })
	c.backInSeat(cut, killed, kept)
	time.Sleep(max(0, 10*time.Second-time.Since(killed)))
	c.checkUnharmed(first, before, func(p *tplayer) bool { return own[p.room] != k.name && p.via != victim })
	c.checkConfirmedKept(kept, own, k.name)

	// The killed node comes back and takes new rooms (it has the most free
	// capacity now).
	k.start()
	waitCluster(t, c.nodes, 60*time.Second)
	var fresh []*tplayer
	for r := range 6 {
		fresh = append(fresh, c.dial(ctx, fmt.Sprintf("fresh-%d", r+1), fmt.Sprintf("f%d", r+1), c.rng.IntN(3), nil))
	}
	c.play(ctx, fresh)
	own2 := c.ownersAgreed(c.nodes)
	onK := 0
	for r := range 6 {
		if own2[fmt.Sprintf("fresh-%d", r+1)] == k.name {
			onK++
		}
	}
	if onK == 0 {
		t.Fatalf("the restarted node %s took none of 6 new rooms: %v", k.name, own2)
	}
	t.Logf("restarted %s took %d of 6 new rooms", k.name, onK)

	// Kill the process leading the lease stream: a failover stalls lease
	// writes for seconds, and no surviving node may lose a room.
	leader = c.leaderName()
	lp := c.leader(leader)
	if lp == nil {
		t.Fatalf("lease stream leader %q is none of the test's processes", leader)
	}
	live := c.livePlayers()
	own3 := c.ownersAgreed(c.nodes)
	var dead *node
	for i, n := range c.nodes {
		if &n.proc == lp {
			dead, victim = n, i
		}
	}
	lossesBefore := c.losses()
	via := map[*tplayer]string{} // where each player's session goes through now
	for _, p := range live {
		via[p] = p.URL()
	}
	t.Logf("kill -9 %s, the lease stream's leader", leader)
	before = c.snapshot()
	lp.kill9()
	time.Sleep(15 * time.Second) // the stall and then some renewals
	keep := func(p *tplayer) bool {
		return dead == nil || own3[p.room] != dead.name && via[p] != dead.wsURL()
	}
	c.checkUnharmed(live, before, keep)
	for _, n := range c.nodes {
		if n == dead || !n.running() {
			continue
		}
		list, err := n.nodes()
		if err != nil {
			t.Fatal(err)
		}
		if list[0].Losses != lossesBefore[n.name] {
			t.Fatalf("%s lost %d leases in the failover", n.name, list[0].Losses-lossesBefore[n.name])
		}
		t.Logf("%s after the failover: %d leases, %d renewals, %d failed renewals, leader now %s",
			n.name, list[0].Leases, list[0].Renewals, list[0].Failures, list[0].LeaseLeader)
		m, err := owners(n)
		if err != nil {
			t.Fatal(err)
		}
		for room, o := range own3 {
			if o == n.name && m[room] != n.name {
				t.Fatalf("%s no longer holds %s after the failover (lobby says %q)", n.name, room, m[room])
			}
		}
	}
	if c.drain {
		if dead != nil { // its NATS server too: bring the quorum back first
			dead.start()
			waitCluster(t, c.nodes, 60*time.Second)
		}
		c.drainOne(ctx)
	}
}

// drainOne stops a node holding rooms with SIGTERM: its players are told
// to rejoin, its rounds are written as replays, and the rooms open again
// on the other nodes.
func (c *clusterRun) drainOne(ctx context.Context) {
	t := c.t
	own := c.ownersAgreed(c.nodes)
	var d *node
	for _, n := range c.nodes {
		if n.running() && slices.Contains(slices.Collect(maps.Values(own)), n.name) {
			d = n
			break
		}
	}
	if d == nil {
		t.Fatal("no node to drain")
	}
	var mine []*tplayer
	for _, p := range c.livePlayers() {
		if own[p.room] == d.name {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		t.Fatalf("no player in %s's rooms to drain", d.name)
	}
	t.Logf("SIGTERM %s (%d players in its rooms)", d.name, len(mine))
	kept := c.keep(mine)
	start := time.Now()
	d.stop(20 * time.Second)
	t.Logf("%s drained and exited in %v", d.name, time.Since(start).Round(10*time.Millisecond))
	// Each room goes on elsewhere, live: its players, told it moved, are
	// back in their seats of the same round (headless.Options.Rejoin).
	c.backInSeat(mine, start, kept)
	c.logStalls(mine, start)
	back := mine
	survivor := -1
	for i, n := range c.nodes {
		if n.running() {
			survivor = i
		}
	}
	drained := map[string]bool{}
	for _, p := range mine {
		drained[p.room] = true
	}
	var replays []server.ReplayInfo
	// Their rounds, carried on elsewhere, are written there when they end,
	// in the cluster's replay store, which every node lists
	// (docs/replays.md).
	waitFor(t, 90*time.Second, "the drained rooms' rounds listed by another node", func() error {
		var all []server.ReplayInfo
		if err := getJSON(c.nodes[survivor].url()+"/api/replays?limit=500", &all); err != nil {
			return err
		}
		replays = slices.DeleteFunc(all, func(r server.ReplayInfo) bool { return !drained[r.Room] })
		if len(replays) == 0 {
			return fmt.Errorf("none of %d listed", len(all))
		}
		return nil
	})
	waitFor(t, 5*time.Second, "drained rooms listed on other nodes", func() error {
		after, err := owners(c.nodes[survivor])
		if err != nil {
			return err
		}
		for _, p := range back {
			if o := after[p.room]; o == "" || o == d.name {
				return fmt.Errorf("%s listed on %q", p.room, o)
			}
		}
		return nil
	})
	t.Logf("%d players rejoined the drained rooms on other nodes; %d replays written", len(back), len(replays))
}

// dial connects a player to room through node via, with a reconnect token
// or none, and waits for its Welcome.
func (c *clusterRun) dial(ctx context.Context, room, name string, via int, token []byte) *tplayer {
	c.t.Helper()
	var all []string
	for i := range c.nodes {
		all = append(all, c.nodes[(via+i)%len(c.nodes)].wsURL())
	}
	p, err := headless.Dial(ctx, headless.Options{URL: c.nodes[via].wsURL(), Name: name, Room: room, Token: token,
		Seed: c.rng.Uint64(), Rejoin: all, Confirmed: true})
	if err != nil {
		c.t.Fatalf("%s joining %s through %s: %v", name, room, c.nodes[via].name, err)
	}
	tp := &tplayer{Player: p, room: room, via: via}
	c.mu.Lock()
	c.players = append(c.players, tp)
	c.mu.Unlock()
	c.t.Cleanup(func() { p.Close() })
	return tp
}

// play waits for the players' Welcomes and drives their frames until the
// test ends.
func (c *clusterRun) play(ctx context.Context, ps []*tplayer) {
	c.t.Helper()
	list := make([]*headless.Player, len(ps))
	for i, p := range ps {
		list[i] = p.Player
	}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		headless.Run(rctx, list, 0)
	}()
	c.t.Cleanup(func() { cancel(); wg.Wait() })
	for _, p := range ps {
		wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := p.WaitWelcome(wctx)
		cancel()
		if err != nil {
			c.t.Fatalf("%s in %s through %s: no welcome: %v", p.Name(), p.room, c.nodes[p.via].name, err)
		}
		p.Inspect(func(s *client.Session) { p.slot = s.You() })
	}
}

// ownersAgreed waits until every running node's lobby lists the same
// owner for every room, and returns it.
func (c *clusterRun) ownersAgreed(nodes []*node) map[string]string {
	var agreed map[string]string
	waitFor(c.t, 10*time.Second, "lobbies agree", func() error {
		agreed = nil
		for _, n := range nodes {
			if !n.running() {
				continue
			}
			m, err := owners(n)
			if err != nil {
				return err
			}
			if agreed == nil {
				agreed = m
				continue
			}
			if len(m) != len(agreed) {
				return fmt.Errorf("%s lists %d rooms, another %d", n.name, len(m), len(agreed))
			}
			for r, o := range m {
				if agreed[r] != o {
					return fmt.Errorf("%s says %s is on %q, another %q", n.name, r, o, agreed[r])
				}
			}
		}
		return nil
	})
	return agreed
}

// reachableEverywhere joins every room through every node, as a spectator.
func (c *clusterRun) reachableEverywhere(ctx context.Context, own map[string]string) {
	t := c.t
	for room := range own {
		for i, n := range c.nodes {
			p, err := headless.Dial(ctx, headless.Options{URL: n.wsURL(), Name: fmt.Sprintf("watch%d", i), Room: room, Spectate: true})
			if err != nil {
				t.Fatalf("%s through %s: %v", room, n.name, err)
			}
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = p.WaitWelcome(wctx)
			cancel()
			p.Close()
			if err != nil {
				t.Fatalf("%s is not reachable through %s (node %d): %v", room, n.name, i, err)
			}
		}
	}
	t.Logf("all %d rooms reachable through all %d nodes", len(own), len(c.nodes))
}

// progress is what a player has seen so far.
type progress struct {
	tick     int64
	received int64
}

func (c *clusterRun) snapshot() map[*tplayer]progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := map[*tplayer]progress{}
	for _, p := range c.players {
		p.Inspect(func(s *client.Session) {
			var tick int64
			if st := s.State(); st != nil {
				tick = st.Tick()
			}
			m[p] = progress{tick: tick, received: s.Stats().BytesIn}
		})
	}
	return m
}

// checkUnharmed fails unless each player that sel picks is still connected,
// has had no resync (a desync, or a clock so far from the room's that the
// client asked for one) nor protocol error in its life, and has kept playing
// since before.
func (c *clusterRun) checkUnharmed(ps []*tplayer, before map[*tplayer]progress, sel func(*tplayer) bool) {
	c.t.Helper()
	n := 0
	for _, p := range ps {
		if !sel(p) {
			continue
		}
		n++
		if err := p.Err(); err != nil {
			c.t.Fatalf("%s in %s through %s was disconnected: %v", p.Name(), p.room, c.nodes[p.via].name, err)
		}
		var st client.Stats
		var tick int64
		p.Inspect(func(s *client.Session) {
			st = s.Stats()
			if s.State() != nil {
				tick = s.State().Tick()
			}
		})
		if st.Resyncs != 0 || st.ProtocolErrors != 0 {
			c.t.Fatalf("%s in %s through %s: %d resyncs, %d protocol errors", p.Name(), p.room, c.nodes[p.via].name, st.Resyncs, st.ProtocolErrors)
		}
		b := before[p]
		if tick-b.tick < 120*5 || st.BytesIn <= b.received {
			c.t.Fatalf("%s in %s stopped playing: tick %d -> %d, bytes in %d -> %d", p.Name(), p.room, b.tick, tick, b.received, st.BytesIn)
		}
	}
	if n == 0 {
		c.t.Fatal("no player left to check")
	}
	c.t.Logf("%d players of the surviving nodes' rooms: 0 disconnects, 0 resyncs, still playing", n)
}

// kept is what a player had seen confirmed before a kill: its room's
// round, what became of each cycle, the walls, and the events.
type kept struct {
	round  int64
	match  int64
	tick   int64
	cycles [sim.MaxPlayers]sim.Cycle
	walls  int
	events []history.TickEvent
	slot   int // the player's seat at the kill
}

func (c *clusterRun) keep(ps []*tplayer) map[*tplayer]kept {
	m := map[*tplayer]kept{}
	for _, p := range ps {
		p.Inspect(func(s *client.Session) {
			st := s.ConfirmedState()
			k := kept{tick: st.Tick(), walls: st.WallCount(), slot: s.You()}
			k.round, k.match = st.Round()
			for i := range k.cycles {
				k.cycles[i] = st.Cycle(i)
			}
			// The round's events: the stream forgets a round once the next
			// one starts.
			start, _ := s.Timeline().RoundStart()
			for _, te := range s.Timeline().Log.From(start) {
				if te.Tick < st.Tick() {
					k.events = append(k.events, te)
				}
			}
			m[p] = k
		})
	}
	return m
}

// backInSeat waits until every player the kill cut off has come back by
// itself (headless.Options.Rejoin: through any node, with its token) into
// its own seat of the same round, its cycle, walls and score kept, and
// logs how long after the kill (or the drain) each was welcomed back.
func (c *clusterRun) backInSeat(cut []*tplayer, killed time.Time, kept map[*tplayer]kept) {
	t := c.t
	t.Helper()
	if len(cut) == 0 {
		t.Fatal("the kill cut off no player")
	}
	waitFor(t, 30*time.Second, "cut-off players back in their seats", func() error {
		for _, p := range cut {
			var in bool
			p.Inspect(func(s *client.Session) { in = s.Started() })
			if w := p.Welcomes(); len(w) < 2 || w[len(w)-1].Before(killed) || !in {
				return fmt.Errorf("%s in %s not back (%d welcomes, in a session %v)", p.Name(), p.room, len(w), in)
			}
		}
		return nil
	})
	var took []time.Duration
	for _, p := range cut {
		w := p.Welcomes()
		took = append(took, w[len(w)-1].Sub(killed))
		k := kept[p]
		var slot int
		var st *sim.State
		p.Inspect(func(s *client.Session) { slot, st = s.You(), s.ConfirmedState() })
		if slot != p.slot {
			var at []string
			for _, w := range p.Welcomes() {
				at = append(at, w.Sub(killed).Round(time.Millisecond).String())
			}
			t.Fatalf("%s back in %s in seat %d, had %d at its first welcome and %d at the kill; welcomes at %v from the kill",
				p.Name(), p.room, slot, p.slot, k.slot, strings.Join(at, ", "))
		}
		round, match := st.Round()
		if match < k.match || match == k.match && round < k.round {
			t.Fatalf("%s back in %s in round %d of match %d, was in round %d of %d: the round was lost", p.Name(), p.room, round, match, k.round, k.match)
		}
		if match > k.match || round > k.round {
			continue // it ended meanwhile: nothing more of it to compare
		}
		if st.WallCount() < k.walls {
			t.Fatalf("%s in %s: %d walls this round after, %d before", p.Name(), p.room, st.WallCount(), k.walls)
		}
		for i, was := range k.cycles {
			now := st.Cycle(i)
			// A cycle rides on, and one dead stays dead (it may still score:
			// a crash into its wall is credited to it).
			if was.Present && (now.Odo < was.Odo || was.InRound && !was.Alive && (now.Alive || now.Score < was.Score || now.Deaths != was.Deaths)) {
				t.Fatalf("%s in %s: cycle %d before %+v, after %+v", p.Name(), p.room, i, was, now)
			}
		}
	}
	slices.Sort(took)
	t.Logf("%d cut-off players back in their seats: p50 %v, p95 %v, max %v after", len(took),
		took[len(took)/2].Round(time.Millisecond), took[(len(took)*95+99)/100-1].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
	for _, p := range cut {
		for _, st := range append(p.EndedStats(), c.stats(p)) {
			if st.Resyncs != 0 || st.ProtocolErrors != 0 {
				t.Fatalf("%s in %s: %d resyncs, %d protocol errors", p.Name(), p.room, st.Resyncs, st.ProtocolErrors)
			}
		}
	}
}

// logStalls logs, for players whose connection a handover ended after
// since, how long each was without one (headless.Player.Stalls), and
// returns them sorted.
func (c *clusterRun) logStalls(ps []*tplayer, since time.Time) []time.Duration {
	var stalls []time.Duration
	for _, p := range ps {
		ws := p.Welcomes()
		if len(ws) == 0 || ws[len(ws)-1].Before(since) {
			continue
		}
		st := p.Stalls()
		stalls = append(stalls, st[len(st)-1])
	}
	slices.Sort(stalls)
	if n := len(stalls); n > 0 {
		c.t.Logf("%d players' stalls: p50 %v, p95 %v, max %v", n, stalls[n/2].Round(time.Millisecond),
			stalls[(n*95+99)/100-1].Round(time.Millisecond), stalls[n-1].Round(time.Millisecond))
	}
	return stalls
}

func (c *clusterRun) stats(p *tplayer) client.Stats {
	var st client.Stats
	p.Inspect(func(s *client.Session) { st = s.Stats() })
	return st
}

// checkConfirmedKept compares, when the test can read the rooms'
// histories (Options.history), what each player of the dead node's rooms
// had seen confirmed before the kill with the room's history after it:
// every event is in it.
func (c *clusterRun) checkConfirmedKept(kept map[*tplayer]kept, own map[string]string, dead string) {
	t := c.t
	if c.history == nil {
		return
	}
	n, checked := 0, 0
	byRoom := map[string]map[history.TickEvent]bool{}
	for p, k := range kept {
		if own[p.room] != dead {
			continue
		}
		in, ok := byRoom[p.room]
		if !ok {
			in = c.history(p.room)
			byRoom[p.room] = in
		}
		n++
		for _, te := range k.events {
			if te.Tick < k.tick && !in[te] {
				t.Fatalf("%s in %s saw %+v at tick %d confirmed before the kill; it is not in the room's history after", p.Name(), p.room, te.Ev, te.Tick)
			}
			checked++
		}
	}
	t.Logf("%d confirmed events of %d players of the dead node's rooms all in their rooms' histories", checked, n)
}

func (c *clusterRun) leaderName() string {
	for _, n := range c.nodes {
		if !n.running() {
			continue
		}
		if list, err := n.nodes(); err == nil && list[0].LeaseLeader != "" {
			return list[0].LeaseLeader
		}
	}
	c.t.Fatal("no node knows the lease stream's leader")
	return ""
}

func (c *clusterRun) livePlayers() []*tplayer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tplayer
	for _, p := range c.players {
		if p.Err() == nil {
			select {
			case <-p.Done():
			default:
				out = append(out, p)
			}
		}
	}
	return out
}

func (c *clusterRun) losses() map[string]uint64 {
	m := map[string]uint64{}
	for _, n := range c.nodes {
		if list, err := n.nodes(); err == nil {
			m[n.name] = list[0].Losses
		}
	}
	return m
}
