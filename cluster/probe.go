package cluster

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
)

// A node killed (kill -9) falls silent, and DeadAfter (4 s) of silence is
// long for the players of its rooms, whose rounds another node could carry
// on within a second (issue 26). Its NATS interest, though, goes with its
// process: its connection (to an external server, or the routes of its
// embedded one) closes, and a request on a subject only it answers comes
// back at once with "no responders". So a node whose heartbeat is late by
// half an interval is asked (Probe); a "no responders" answer, which the
// NATS servers give only for a subject nobody listens to, takes it for
// dead at once, as if DeadAfter had passed. A node merely slow (a stalled
// process, a loaded machine) still listens and is left alone; a node cut
// off from NATS is, for the cluster, dead either way, and its rooms are
// fenced (leases by revision, histories by sequence) as after DeadAfter.

// aliveSubject is the subject a node's incarnation answers probes on.
func aliveSubject(node, inc string) string { return "webtron.alive." + node + "." + inc }

// probeEvery is how often late peers are asked.
const probeEvery = 250 * time.Millisecond

// answerProbes makes this node answer probes of its incarnation.
func (n *Node) answerProbes() error {
	_, err := n.nc.Subscribe(aliveSubject(n.opt.Name, n.inc), func(m *nats.Msg) { m.Respond(nil) })
	return err
}

// probeLoop asks the peers whose heartbeats are late whether they are
// still there.
func (n *Node) probeLoop() {
	defer n.wg.Done()
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		var late []Owner
		n.reg.mu.Lock()
		for name, p := range n.reg.peers {
			if since := now.Sub(p.seen); name != n.opt.Name && !p.gone && since >= n.opt.Heartbeat*3/2 && since < n.opt.DeadAfter {
				late = append(late, Owner{Node: name, Incarnation: p.info.Incarnation})
			}
		}
		n.reg.mu.Unlock()
		for _, o := range late {
			n.Probe(o)
		}
	}
}

// Probe asks o's holder whether it is still there, and takes it for dead
// at once (Alive says false from then on) when nobody listens on its
// subject. It reports whether it is dead.
func (n *Node) Probe(o Owner) bool {
	if n.mine(o) {
		return false
	}
	if !n.Alive(o) {
		return true
	}
	_, err := n.nc.Request(aliveSubject(o.Node, o.Incarnation), nil, n.opt.Heartbeat)
	if !errors.Is(err, nats.ErrNoResponders) {
		return false
	}
	n.reg.mu.Lock()
	p := n.reg.peers[o.Node]
	found := p != nil && p.info.Incarnation == o.Incarnation && !p.gone
	if found {
		p.gone = true
	}
	n.reg.mu.Unlock()
	if found {
		n.metrics.Probed.Add(1)
		n.log.Warn("cluster: a node stopped answering: taken for dead", "node", o.Node, "silent", time.Since(p.seen).Round(time.Millisecond))
		select {
		case n.deaths <- struct{}{}:
		default:
		}
	}
	return true
}

// Deaths receives a token when a node has been taken for dead by a probe:
// its rooms (Orphans) are to be carried on now.
func (n *Node) Deaths() <-chan struct{} { return n.deaths }

// orphanFor is how long after its death a node's rooms are Orphans: past
// it their leases have expired, and a join opens them afresh.
func (n *Node) orphanFor() time.Duration { return n.opt.LeaseTTL }

// Orphans returns the rooms that the nodes dead by now named in their last
// heartbeats (public and private), at most orphanFor after they were last
// heard, sorted. A node
// that cannot tell who is dead (Alive) sees none.
func (n *Node) Orphans() []string {
	now := time.Now()
	var out []string
	n.reg.mu.Lock()
	defer n.reg.mu.Unlock()
	if me := n.reg.peers[n.opt.Name]; now.Sub(n.reg.since) < n.opt.DeadAfter || me == nil || now.Sub(me.seen) >= n.opt.DeadAfter {
		return nil
	}
	for name, p := range n.reg.peers {
		if name == n.opt.Name || !p.dead(now, n.opt.DeadAfter) || now.Sub(p.seen) > n.orphanFor() {
			continue
		}
		for _, r := range p.info.Rooms {
			out = append(out, r.Name)
		}
		out = append(out, p.info.Private...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Rank is this node's place, from 0, among the live nodes that may take
// room (not draining), ordered by a hash of the room's and the nodes'
// names: the node of rank 0 takes a dead node's room first, the others
// only if it has not after a while, so that the rooms of a dead node
// spread over the survivors without their agreeing on anything but the
// lease.
func (n *Node) Rank(room string) int {
	nodes := n.Nodes()
	nodes = slices.DeleteFunc(nodes, func(i NodeInfo) bool { return i.Name != n.opt.Name && (i.Draining || i.Gone) })
	slices.SortFunc(nodes, func(a, b NodeInfo) int { return cmp.Compare(rendezvous(room, b.Name), rendezvous(room, a.Name)) })
	for i, x := range nodes {
		if x.Name == n.opt.Name {
			return i
		}
	}
	return len(nodes)
}
