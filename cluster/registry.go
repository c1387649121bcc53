package cluster

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// subject carries the heartbeats (core NATS: no JetStream, so they keep
// flowing while a stream elects a leader).
const subject = "webtron.nodes"

// RoomInfo is one room of a node's heartbeat.
type RoomInfo struct {
	Name       string `json:"name"`
	Players    int    `json:"players"`
	Bots       int    `json:"bots"`
	Spectators int    `json:"spectators"`
	// Map and MapName say which map the room plays (server's /api/maps
	// id and name), so every node's lobby lists it.
	Map     string `json:"map,omitempty"`
	MapName string `json:"map_name,omitempty"`
	RoomTeams
}

// RoomTeams is how a room plays: every one for themselves or in teams, and
// the teams of its current round. Its JSON keys are part of /api/rooms.
type RoomTeams struct {
	Mode           string     `json:"mode"`             // "teams" or "ffa" (every one for themselves), by the current round's settings set
	TeamMaxPlayers int        `json:"team_max_players"` // TEAM_MAX_PLAYERS of that set
	TeamSize       int        `json:"team_size"`        // players on the largest team now, 0 before the first round
	Teams          []TeamInfo `json:"teams"`            // the teams dealt, by number; empty in "ffa"
}

// TeamInfo is one team of a room: who is on it and its score this match.
type TeamInfo struct {
	Team    int   `json:"team"` // sim's Cycle.Team: 0 is Armagetron's team 1 (blue)
	Players int   `json:"players"`
	Bots    int   `json:"bots"`
	Score   int64 `json:"score"`
}

// NodeInfo is what a node tells the others every heartbeat, and (Public)
// one entry of /api/nodes. The JSON keys are a contract.
type NodeInfo struct {
	Name string `json:"name"`
	// Incarnation and URL are for the nodes only (a goodbye names the
	// incarnation it ends; the URL is on the nodes' private network):
	// Public leaves them out.
	Incarnation string     `json:"incarnation,omitempty"`
	URL         string     `json:"url,omitempty"`
	Rooms       []RoomInfo `json:"rooms"`
	Players     int        `json:"players"`     // humans seated in this node's rooms
	Connections int        `json:"connections"` // sockets open on this node, proxied ones included
	MaxPlayers  int        `json:"max_players"` // its --max-players: the capacity
	MaxRooms    int        `json:"max_rooms"`
	Draining    bool       `json:"draining"`
	Leases      int        `json:"leases"`
	Renewals    uint64     `json:"lease_renewals"`
	Failures    uint64     `json:"lease_renewal_failures"`
	Losses      uint64     `json:"lease_losses"`
	Ready       bool       `json:"ready"` // its lease bucket is usable
	// LeaseLeader is the server leading the lease bucket's stream, as this
	// node last asked (every few seconds): the one whose loss stalls writes.
	LeaseLeader string `json:"lease_leader"`
	Gone        bool   `json:"gone,omitempty"` // a goodbye: the node is stopping
	// SeenAgoMs is how long ago its last heartbeat arrived (in /api/nodes).
	SeenAgoMs int64 `json:"seen_ago_ms"`
	// Private names the node's private rooms (a server's Practice rooms),
	// which no lobby lists: its peers need only their names, to carry them
	// on when the node dies (Orphans). Public leaves them out.
	Private []string `json:"private,omitempty"`
}

// Public is the node as /api/nodes shows it to anyone.
func (i NodeInfo) Public() NodeInfo {
	i.Incarnation, i.URL, i.Private = "", "", nil
	return i
}

// Free is the node's free capacity for placing a room: player places left,
// none once it has all the rooms it may hold or is draining.
func (i *NodeInfo) Free() int {
	if i.Draining || i.Gone || len(i.Rooms) >= i.MaxRooms {
		return 0
	}
	return max(i.MaxPlayers-i.Connections, 0)
}

type peer struct {
	info NodeInfo
	seen time.Time
	gone bool // taken for dead by a probe (probe.go)
	// pending counts player places promised by rooms placed on this node
	// since its last heartbeat, so that rooms placed in one burst spread.
	pending int
}

// dead reports whether the peer is dead: silent for deadAfter, or found
// gone by a probe.
func (p *peer) dead(now time.Time, deadAfter time.Duration) bool {
	return p.gone || now.Sub(p.seen) >= deadAfter
}

// registry is this node's view of the cluster, from heartbeats.
type registry struct {
	self  string
	since time.Time // when the subscription began

	mu    sync.Mutex
	peers map[string]*peer
}

func (r *registry) init(self string) {
	r.self = self
	r.peers = map[string]*peer{}
}

// sigHeader carries a heartbeat's signature (secret.go): a heartbeat
// without it, or signed with another secret, is dropped.
const sigHeader = "Webtron-Sig"

func (r *registry) subscribe(n *Node) error {
	r.since = time.Now()
	_, err := n.nc.Subscribe(subject, func(m *nats.Msg) {
		if !n.keys.verify(m.Data, m.Header.Get(sigHeader)) {
			n.forged(m.Data)
			return
		}
		var info NodeInfo
		if json.Unmarshal(m.Data, &info) != nil || info.Name == "" {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if info.Gone {
			if p := r.peers[info.Name]; p != nil && p.info.Incarnation == info.Incarnation {
				delete(r.peers, info.Name)
			}
			return
		}
		r.peers[info.Name] = &peer{info: info, seen: time.Now()}
	})
	if err != nil {
		return fmt.Errorf("cluster: subscribing to heartbeats: %w", err)
	}
	if !n.nc.IsConnected() {
		// Still connecting (the servers are not up yet): the subscription
		// is made when the connection is, and until this node hears itself
		// it takes nobody for dead (Alive).
		return nil
	}
	return n.nc.Flush()
}

// forged counts a heartbeat that failed its signature and says so, once a
// minute at most: a node with another secret, or someone who is no node.
func (n *Node) forged(b []byte) {
	n.metrics.Forged.Add(1)
	if !oncePer(&n.forgedLog, time.Minute) {
		return
	}
	var who struct {
		Name string `json:"name"`
	}
	json.Unmarshal(b, &who)
	n.log.Error("cluster: dropped a heartbeat not signed with this cluster's secret: a node with another secret "+
		"(WEBTRON_NATS_SECRET or --nats-secret-file: the same on every node), or someone who is no node",
		"claims_to_be", who.Name, "secret_id", n.keys.id, "dropped_so_far", n.metrics.Forged.Load())
}

// oncePer reports whether d has passed since it last said true for last
// (unix ns): a log line that could come many times a second comes once.
func oncePer(last *atomic.Int64, d time.Duration) bool {
	now, was := time.Now().UnixNano(), last.Load()
	return now-was >= int64(d) && last.CompareAndSwap(was, now)
}

// publish sends a heartbeat (or a goodbye), signed.
func (n *Node) publish(info NodeInfo) {
	b, err := json.Marshal(info)
	if err != nil {
		return
	}
	m := nats.NewMsg(subject)
	m.Data = b
	m.Header.Set(sigHeader, n.keys.sign(b))
	n.metrics.HeartbeatBytes.Add(uint64(len(b)))
	n.nc.PublishMsg(m)
}

// info fills in what the node itself knows.
func (n *Node) info() NodeInfo {
	i := n.opt.Status()
	i.Name, i.Incarnation, i.URL = n.opt.Name, n.inc, n.opt.PublicURL
	n.leases.mu.Lock()
	i.Leases = len(n.leases.held)
	n.leases.mu.Unlock()
	i.Renewals, i.Failures, i.Losses = n.metrics.Renewals.Load(), n.metrics.RenewFailures.Load(), n.metrics.Losses.Load()
	i.Ready = n.bucket() != nil
	if l := n.leader.Load(); l != nil {
		i.LeaseLeader = *l
	}
	if i.Rooms == nil {
		i.Rooms = []RoomInfo{}
	}
	return i
}

func (n *Node) announceLoop() {
	defer n.wg.Done()
	t := time.NewTicker(n.opt.Heartbeat)
	defer t.Stop()
	for {
		n.Announce()
		sent := time.Now()
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		case <-n.changed:
			// Rooms opening and closing all the time (Practice rooms come
			// and go with their players) must not make every heartbeat
			// extra: a change waits for changedGap after the last one.
			select {
			case <-n.ctx.Done():
				return
			case <-time.After(time.Until(sent.Add(min(changedGap, n.opt.Heartbeat)))):
			}
		}
	}
}

// changedGap is the least time between two heartbeats that Changed asks
// for: at most four extra heartbeats a second however fast rooms come and
// go, and a room is known to the other nodes within it of opening.
const changedGap = 250 * time.Millisecond

// Announce sends a heartbeat now (the loop sends one every
// Options.Heartbeat): a node that starts draining says so at once.
func (n *Node) Announce() { n.publish(n.info()) }

// Changed says the node's rooms changed (one opened or closed): the loop
// sends a heartbeat now rather than at its tick. The other nodes carry a
// dead node's rooms on from its last heartbeat (Orphans), so a room opened
// since then would otherwise be revived only by its players' rejoins. It
// never blocks, and the changes of a burst go out together: a heartbeat
// at most every changedGap.
func (n *Node) Changed() {
	select {
	case n.changed <- struct{}{}:
	default:
	}
}

func (r *registry) bye(n *Node) {
	n.publish(NodeInfo{Name: n.opt.Name, Incarnation: n.inc, Gone: true})
}

// Nodes returns the live nodes, this one first, then by name. This node's
// entry is current; the others' are their last heartbeats.
func (n *Node) Nodes() []NodeInfo {
	self := n.info()
	now := time.Now()
	out := []NodeInfo{self}
	n.reg.mu.Lock()
	for name, p := range n.reg.peers {
		if name == n.opt.Name || p.dead(now, n.opt.DeadAfter) {
			continue
		}
		i := p.info
		i.SeenAgoMs = now.Sub(p.seen).Milliseconds()
		out = append(out, i)
	}
	n.reg.mu.Unlock()
	slices.SortFunc(out[1:], func(a, b NodeInfo) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Alive reports whether o's holder is alive: the same incarnation of a node
// heard within DeadAfter. A node that has not itself been listening for
// DeadAfter, or that has not heard its own heartbeat for that long (cut off
// from NATS), cannot tell, and answers true: it never takes a room on
// hearsay.
func (n *Node) Alive(o Owner) bool {
	if n.mine(o) {
		return true
	}
	now := time.Now()
	n.reg.mu.Lock()
	defer n.reg.mu.Unlock()
	if now.Sub(n.reg.since) < n.opt.DeadAfter {
		return true
	}
	if me := n.reg.peers[n.opt.Name]; me == nil || now.Sub(me.seen) >= n.opt.DeadAfter {
		return true
	}
	if o.Node == n.opt.Name {
		return false // a former incarnation of this node
	}
	p := n.reg.peers[o.Node]
	if p == nil || p.dead(now, n.opt.DeadAfter) {
		return false
	}
	return p.info.Incarnation == o.Incarnation
}

// Peer returns the live node that holds a lease as o names it: heard
// within DeadAfter, in a heartbeat signed with the cluster's secret, as the
// same incarnation. Its URL is the only one the node proxies players to.
func (n *Node) Peer(o Owner) (NodeInfo, bool) {
	n.reg.mu.Lock()
	defer n.reg.mu.Unlock()
	p := n.reg.peers[o.Node]
	if p == nil || p.dead(time.Now(), n.opt.DeadAfter) || p.info.Incarnation != o.Incarnation {
		return NodeInfo{}, false
	}
	return p.info, true
}

// Place picks the node for a new room: the one with the most free capacity,
// ties (within one room's seats) broken by a hash of the room and node
// names, so that rooms placed in one burst spread over equal nodes. It
// returns false when no node has room.
func (n *Node) Place(room string, seats int) (NodeInfo, bool) {
	nodes := n.Nodes()
	n.reg.mu.Lock()
	defer n.reg.mu.Unlock()
	free := make([]int, len(nodes))
	best := 0
	for i := range nodes {
		free[i] = nodes[i].Free()
		if p := n.reg.peers[nodes[i].Name]; p != nil && free[i] > 0 {
			free[i] = max(free[i]-p.pending, 1)
		}
		best = max(best, free[i])
	}
	if best == 0 {
		return NodeInfo{}, false
	}
	pick, top := -1, uint64(0)
	for i := range nodes {
		if free[i] == 0 || free[i] < best-seats {
			continue
		}
		if h := rendezvous(room, nodes[i].Name); pick < 0 || h > top {
			pick, top = i, h
		}
	}
	if p := n.reg.peers[nodes[pick].Name]; p != nil {
		p.pending += seats
	}
	return nodes[pick], true
}

func rendezvous(room, node string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(room))
	h.Write([]byte{0})
	h.Write([]byte(node))
	return h.Sum64()
}

// Metrics are the node's counters since it started.
type Metrics struct {
	Acquired       atomic.Uint64 // leases acquired (created or taken over)
	Takeovers      atomic.Uint64 // leases taken from dead nodes
	Renewals       atomic.Uint64 // successful renewals
	RenewFailures  atomic.Uint64 // renewals that failed without losing the lease
	Losses         atomic.Uint64 // leases found held by another node
	HeartbeatBytes atomic.Uint64 // heartbeat payload bytes sent
	Forged         atomic.Uint64 // heartbeats dropped: not signed with the cluster's secret

	HistoryBatches atomic.Uint64 // history batches stored (history.go)
	HistoryRecords atomic.Uint64 // history records stored
	HistoryBytes   atomic.Uint64 // history batch bytes stored
	HistoryDropped atomic.Uint64 // history records refused: a room's queue was full
	HistoryLost    atomic.Uint64 // rooms given up: another node continued their history
	HistoryForged  atomic.Uint64 // messages in rooms' histories not signed with the cluster's secret, or out of their chain
	Probed         atomic.Uint64 // nodes taken for dead by a probe before DeadAfter (probe.go)
	Handed         atomic.Uint64 // leases handed to another node live (handover.go)
}

// Metrics returns the node's counters.
func (n *Node) Metrics() *Metrics { return &n.metrics }
