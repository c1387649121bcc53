package server

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"webtron/cluster"
	"webtron/proto"
	"webtron/room"
	"webtron/sim"
)

// The server's side of a cluster (package cluster): which node a join goes
// to, the proxy to rooms of other nodes (proxy.go), fencing of lost leases,
// draining, the merged lobby and /api/nodes. Without Config.Cluster none of
// it runs: s.cl is nil and a join attaches to a local room as always.

// clusterNode is the server's membership of a cluster.
type clusterNode struct {
	s        *Server
	node     *cluster.Node
	draining atomic.Bool
	proxied  atomic.Int64 // connections proxied to rooms of other nodes
	stop     chan struct{}
	done     chan struct{}

	// Failover (journal.go): rooms being resumed, rooms resumed, and since
	// when each dead node's room has been seen orphaned (reconcileLoop's).
	resuming    roomLocks
	resumed     atomic.Uint64
	orphanSince map[string]time.Time
	taking      inFlight
	takers      sync.WaitGroup
	handed      atomic.Uint64 // rooms handed to other nodes live (handover.go)
}

// The reasons a cluster closes a connection. Each uses a code the page takes
// as "try again" (not a fatal one), so the page rejoins by itself and lands
// wherever the room is now.
var (
	reasonMoved     = reason{label: "room_moved", code: proto.CloseShutdown, text: "this room moved to another server: rejoining", status: websocket.StatusGoingAway, tell: true}
	reasonDrain     = reason{label: "drain", code: proto.CloseShutdown, text: "this server is closing for maintenance: rejoining on another", status: websocket.StatusGoingAway, tell: true}
	reasonBusy      = reason{label: "cluster_busy", code: proto.CloseOther, text: "the servers are busy settling who hosts this room: try again", status: websocket.StatusTryAgainLater, tell: true}
	reasonNoNode    = reason{label: "cluster_full", code: proto.CloseRoomFull, text: "every server is full", status: websocket.StatusTryAgainLater, tell: true}
	reasonOwnerDown = reason{label: "owner_lost", code: proto.CloseShutdown, text: "the server hosting this room went away: rejoining", status: websocket.StatusGoingAway, tell: true}
)

// hopHeader marks a WebSocket opened by another node's proxy: the node it
// reaches serves the room itself or refuses, so that a join is proxied
// once at most (a chain would tie a player to two nodes' lives).
const hopHeader = "Webtron-Hop"

// maxHops bounds a join's forwards: one, to the owner.
const maxHops = 1

// startCluster joins the cluster configured in Config.Cluster.
func (s *Server) startCluster() error {
	g := &clusterNode{s: s, stop: make(chan struct{}), done: make(chan struct{}), orphanSince: map[string]time.Time{}}
	o := *s.cfg.Cluster
	o.Logger = s.log
	o.OnLost = func(name string) { s.evict(name, reasonMoved) }
	o.OnTake = g.take
	o.Status = g.status
	node, err := cluster.Start(o)
	if err != nil {
		return err
	}
	g.node = node
	s.cl = g
	s.mux.HandleFunc("GET /api/nodes", g.serveNodes)
	s.mux.HandleFunc("POST /api/rooms/move", g.serveMove)
	g.registerMetrics(s.metrics.reg)
	go g.reconcileLoop()
	s.log.Info("cluster: node started", "node", node.Name(), "url", node.URL())
	return nil
}

// roomsChanged tells the cluster, if any, that this node's rooms changed,
// for its heartbeat to say so at once (cluster.Node.Changed).
func (s *Server) roomsChanged() {
	if s.cl != nil {
		s.cl.node.Changed()
	}
}

// status is this node's heartbeat.
func (g *clusterNode) status() cluster.NodeInfo {
	s := g.s
	t := s.population()
	all := s.Rooms()
	// Practice rooms are nobody else's business, but they take places
	// (the rooms this node may still open are what MaxRooms says less
	// them), and the nodes need their names to carry them on should this
	// one die: named apart (Private), never in the lobby.
	info := cluster.NodeInfo{Rooms: make([]cluster.RoomInfo, 0, len(all)), Players: t.players, Connections: t.conns,
		MaxPlayers: s.cfg.MaxPlayers, Draining: g.draining.Load()}
	for _, r := range all {
		if r.Private {
			info.Private = append(info.Private, r.Name)
			continue
		}
		info.Rooms = append(info.Rooms, cluster.RoomInfo{Name: r.Name, Players: r.Players, Bots: r.Bots, Spectators: r.Spectators, Map: r.Map, MapName: r.MapName, RoomTeams: r.RoomTeams})
	}
	info.MaxRooms = s.cfg.MaxRooms - (t.rooms - len(info.Rooms))
	return info
}

// join attaches c to room name here, or proxies it to the node that holds
// the room, placing the room first when nobody does.
func (s *Server) join(c *conn, name string, hello *proto.Hello) *reason {
	if s.cl == nil {
		_, why := s.attach(c, name)
		return why
	}
	// What the cluster cannot settle at once (a node still connecting, the
	// lease of a dead node's room changing hands, two nodes placing the same
	// room, a read that lags a write) settles within a few seconds: try
	// again here before telling the player to, so that rejoining after a
	// node died takes one click.
	// The waits grow from 50 ms by half each time (about 3 s in all): a
	// room on its way to another node (a drain's handover) is there within
	// a few hundred milliseconds, and a join should find it soon after.
	start := time.Now()
	for wait := 50 * time.Millisecond; ; wait += wait / 2 {
		why := s.cl.join(c, name, hello)
		if why != &reasonBusy || time.Since(start) > 3*time.Second {
			return why
		}
		time.Sleep(wait)
	}
}

// deliver hands a client's message on: to its room here, or up the proxy.
func (s *Server) deliver(c *conn, in inbound) bool {
	if c.up != nil {
		return c.up.send(in.msg)
	}
	return c.host.deliver(in)
}

// leave ends c's membership of its room, here or through the proxy.
func (s *Server) leave(c *conn) {
	if c.up != nil {
		c.up.close()
	}
	if c.host != nil {
		c.host.deliverLeave(c)
		s.detach(c)
	}
}

func (g *clusterNode) join(c *conn, name string, hello *proto.Hello) *reason {
	s, node := g.s, g.node
	if g.draining.Load() && c.hop == 0 {
		// A join here would be cut again when this node stops: the
		// player rejoins on another node at once (CloseShutdown).
		return &reasonDrain
	}
	if node.Holds(name) && s.hasRoom(name) {
		_, why := s.attach(c, name)
		return why
	}
	select {
	case <-node.Ready():
	default:
		return &reasonBusy
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	owner, held, err := node.Lookup(ctx, name)
	if err != nil {
		s.log.Warn("cluster: cannot read a room's lease", "room", name, "err", err)
		return &reasonBusy
	}
	if isPractice(name) && (!held || s.cfg.EphemeralRooms && !node.Alive(owner)) {
		// Only /api/practice opens one, leased to its node. One whose node
		// died is carried on from its history like any room, never opened
		// afresh (attach refuses that), and its room refuses a join without
		// its player's token (room.ErrPrivate).
		return &reasonPracticeGone
	}
	if !held || !node.Alive(owner) {
		// Nobody alive holds the room: it opens on the node with the most
		// free capacity, named in the lease by this node, so that the
		// node's first join finds the room its own.
		target, ok := node.Place(name, s.cfg.Seats)
		if !ok {
			return &reasonNoNode
		}
		if owner, err = node.Claim(ctx, name, target); err != nil {
			s.log.Warn("cluster: cannot take a room's lease", "room", name, "err", err)
			return &reasonBusy
		}
	}
	if owner.Node == node.Name() && owner.Incarnation == node.Incarnation() {
		if g.draining.Load() && !s.hasRoom(name) && c.hop > 0 {
			// On its way to another node (handOver): the node that passed
			// the join on asks again in a moment and finds it there.
			return &reasonBusy
		}
		if g.draining.Load() {
			return &reasonDrain
		}
		if err := node.Adopt(name, owner); err != nil {
			return &reasonBusy
		}
		fresh, err := g.resume(name)
		if err != nil {
			return &reasonBusy
		}
		_, why := s.attachOrOpen(c, name, fresh)
		return why
	}
	if c.hop >= maxHops {
		return &reasonElsewhere
	}
	// The owner is reached at the URL of its own signed heartbeats, never
	// at one a lease names: a lease is only as trustworthy as whoever may
	// write the bucket. An owner not heard yet (this node just started) is
	// settled by trying again.
	peer, ok := node.Peer(owner)
	if !ok {
		return &reasonBusy
	}
	why := g.forward(c, peer.URL, hello)
	if why == &reasonOwnerDown && !s.cfg.EphemeralRooms && node.Probe(owner) {
		return &reasonBusy // dead: settled again, by whoever carries the room on
	}
	return why
}

// hasRoom reports whether room name is open here.
func (s *Server) hasRoom(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rooms[name] != nil
}

// evict closes room name here with reason r (its round in progress is
// written as a replay) and forgets it, so that the next join of that name
// goes wherever the cluster says.
func (s *Server) evict(name string, r reason) {
	s.mu.Lock()
	h := s.rooms[name]
	if h == nil || h.reclaimed {
		s.mu.Unlock()
		return
	}
	delete(s.rooms, name)
	h.reclaimed = true
	s.mu.Unlock()
	s.roomsChanged()
	s.log.Info("server: room closed", "room", name, "reason", r.label)
	select {
	case h.inbox <- inbound{fn: func(*room.Room) {
		h.moved = r == reasonMoved // its history goes on elsewhere: leave it be
		if h.moved {
			h.room.Checkpoint() // where the next node starts from
		}
		for _, c := range h.conns {
			c.close(r)
		}
		close(h.stop) // the goroutine's next turn writes the replay and ends
	}}:
	case <-h.done:
	}
}

// reconcileLoop settles rooms and leases every second: a room open here
// without a lease (a join that raced a loss) takes one or closes; a lease
// without a room (the room was reclaimed when it emptied) is released.
func (g *clusterNode) reconcileLoop() {
	defer close(g.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		case <-g.node.Deaths():
		}
		g.reconcile()
		g.takeOrphans()
	}
}

func (g *clusterNode) reconcile() {
	s, node := g.s, g.node
	select {
	case <-node.Ready():
	default:
		return
	}
	s.mu.Lock()
	open := make(map[string]bool, len(s.rooms))
	for name := range s.rooms {
		open[name] = true
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for name := range open {
		if node.Holds(name) {
			continue
		}
		owner, err := node.Acquire(ctx, name)
		if err != nil {
			continue // a stall: keep serving, try again next time
		}
		if owner.Node != node.Name() || owner.Incarnation != node.Incarnation() {
			s.evict(name, reasonMoved)
		}
	}
	for _, name := range node.Held() {
		_, orphan := g.orphanSince[name] // being carried on: its history may take a while to read
		if !open[name] && !orphan && time.Since(node.HeldSince(name)) > 5*time.Second {
			node.Release(ctx, name)
		}
	}
}

// Drain prepares a cluster node to stop: it stops taking new rooms (and says
// so, so that joins are placed elsewhere and /healthz answers 503), lets
// each room's round in progress finish, closes each room when its round is
// over or when ctx ends (its replay written), with a reason that tells the
// page to rejoin, and hands its lease on. A single node has nothing to drain.
func (s *Server) Drain(ctx context.Context) {
	g := s.cl
	if g == nil {
		return
	}
	g.draining.Store(true)
	g.node.Announce()
	s.log.Info("cluster: draining")
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		s.mu.Lock()
		hosts := make([]*roomHost, 0, len(s.rooms))
		for _, h := range s.rooms {
			hosts = append(hosts, h)
		}
		s.mu.Unlock()
		if len(hosts) == 0 {
			break
		}
		late := ctx.Err() != nil
		// The rooms whose history is replicated go on elsewhere now, all
		// at once (each handover waits on its room's writer and on the
		// other node).
		var wg sync.WaitGroup
		kept := make(chan *roomHost, len(hosts))
		for _, h := range hosts {
			if h.hist == nil {
				kept <- h
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				moved, err := g.handOver(h.name, nil)
				if err != nil {
					s.log.Warn("cluster: handing a room over", "room", h.name, "err", err)
				}
				if !moved {
					kept <- h
				}
			}()
		}
		wg.Wait()
		close(kept)
		var closed []*roomHost
		for h := range kept {
			if late || !h.playing() {
				s.evict(h.name, reasonDrain)
				closed = append(closed, h)
			}
		}
		for _, h := range closed {
			// The lease goes only once the room's history has ended: a
			// node that took it sooner would carry on, from a history
			// about to end, a room whose players were told it closed.
			h.waitWritten(handTimeout)
			rctx, cancel := context.WithTimeout(context.Background(), time.Second)
			g.node.Release(rctx, h.name)
			cancel()
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	s.log.Info("cluster: drained")
}

// playing reports whether h's room has a round in progress (it answers
// false for a room that is gone).
func (h *roomHost) playing() bool {
	ans := make(chan bool, 1)
	select {
	case h.inbox <- inbound{fn: func(r *room.Room) {
		ph, _ := r.State().Phase()
		ans <- ph == sim.PhasePrepare || ph == sim.PhasePlay
	}}:
	case <-h.done:
		return false
	}
	select {
	case p := <-ans:
		return p
	case <-h.done:
		return false
	}
}

// stopCluster hands every lease on and leaves the cluster (Shutdown).
func (s *Server) stopCluster() {
	g := s.cl
	if g == nil {
		return
	}
	close(g.stop)
	<-g.done
	g.takers.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, name := range g.node.Held() {
		g.node.Release(ctx, name)
	}
	g.node.Close()
}

// lobby is /api/rooms: this node's rooms and, in a cluster, every live
// node's, each with the node that holds it.
func (s *Server) lobby() []RoomInfo {
	own := s.publicRooms()
	if s.cl == nil {
		return own
	}
	nodes := s.cl.node.Nodes()
	seen := make(map[string]bool, len(own))
	for i := range own {
		own[i].Node = s.cl.node.Name()
		seen[own[i].Name] = true
	}
	for _, n := range nodes[1:] {
		for _, r := range n.Rooms {
			if !seen[r.Name] {
				seen[r.Name] = true
				own = append(own, RoomInfo{Name: r.Name, Players: r.Players, Bots: r.Bots, Spectators: r.Spectators, Node: n.Name, Map: r.Map, MapName: r.MapName, RoomTeams: r.RoomTeams})
			}
		}
	}
	slices.SortFunc(own, func(a, b RoomInfo) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Node, b.Node))
	})
	return own
}

// serveNodes is /api/nodes: the live nodes, this one first, as the public
// may see them.
func (g *clusterNode) serveNodes(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	nodes := g.node.Nodes()
	for i := range nodes {
		nodes[i] = nodes[i].Public()
	}
	json.NewEncoder(w).Encode(nodes)
}

// Cluster metric names.
const (
	MetricClusterNodes   = "webtron_cluster_nodes"
	MetricCapacity       = "webtron_capacity_players"
	MetricLeases         = "webtron_leases"
	MetricLeaseRenewals  = "webtron_lease_renewals_total"
	MetricLeaseFailures  = "webtron_lease_renewal_failures_total"
	MetricLeaseLosses    = "webtron_lease_losses_total"
	MetricLeaseTakeovers = "webtron_lease_takeovers_total"
	MetricProxied        = "webtron_proxied_connections"
	MetricHeartbeatBytes = "webtron_cluster_heartbeat_bytes_total"
	MetricForged         = "webtron_cluster_heartbeats_forged_total"
	MetricRoomsResumed   = "webtron_rooms_resumed_total"
	MetricRoomsHanded    = "webtron_rooms_handed_over_total"
)

func (g *clusterNode) registerMetrics(reg *prometheus.Registry) {
	m := g.node.Metrics()
	gauge := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
	counter := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
	}
	gauge(MetricClusterNodes, "Live nodes this node hears, itself included.", func() float64 { return float64(len(g.node.Nodes())) })
	gauge(MetricCapacity, "This node's capacity (--max-players).", func() float64 { return float64(g.s.cfg.MaxPlayers) })
	gauge(MetricLeases, "Room leases this node holds.", func() float64 { return float64(len(g.node.Held())) })
	gauge(MetricProxied, "Connections proxied to rooms of other nodes.", func() float64 { return float64(g.proxied.Load()) })
	counter(MetricLeaseRenewals, "Lease renewals that succeeded.", func() float64 { return float64(m.Renewals.Load()) })
	counter(MetricLeaseFailures, "Lease renewals that failed and kept the lease (a stalled JetStream).", func() float64 { return float64(m.RenewFailures.Load()) })
	counter(MetricLeaseLosses, "Leases found held by another node (their rooms closed here).", func() float64 { return float64(m.Losses.Load()) })
	counter(MetricLeaseTakeovers, "Leases taken from dead nodes.", func() float64 { return float64(m.Takeovers.Load()) })
	counter(MetricHeartbeatBytes, "Heartbeat payload bytes sent.", func() float64 { return float64(m.HeartbeatBytes.Load()) })
	counter(MetricForged, "Heartbeats dropped: not signed with the cluster secret.", func() float64 { return float64(m.Forged.Load()) })
	counter(MetricRoomsHanded, "Rooms handed to another node live (a drain, or an operator's move).", func() float64 { return float64(g.handed.Load()) })
	counter(MetricRoomsResumed, "Rooms carried on here from their replicated history (a dead node's, issue 26).", func() float64 { return float64(g.resumed.Load()) })
}
