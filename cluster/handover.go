package cluster

import (
	"context"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A live handover (issue 26): a node that drains, or an operator moving
// one room, stops the room here with its history written out (not ended),
// hands the lease to another node (Hand: compare-and-set on the revision
// this node last wrote, as a renewal), and asks that node to take the room
// now (Ask), which it does by rebuilding it from its history as after a
// failover. The players, told the room moved, rejoin through any node.

// takeSubject is the subject a node's incarnation is asked on to take a
// room handed to it.
func takeSubject(node, inc string) string { return "webtron.take." + node + "." + inc }

// answerTakes subscribes this node to the rooms handed to it: the room's
// name comes in, Options.OnTake rebuilds it, the error (if any) goes back.
// Anyone on NATS may ask; OnTake takes only a room whose lease names this
// node.
func (n *Node) answerTakes() error {
	_, err := n.nc.Subscribe(takeSubject(n.opt.Name, n.inc), func(m *nats.Msg) {
		room := string(m.Data)
		go func() {
			var reply []byte
			if n.opt.OnTake == nil {
				reply = []byte("this node takes no rooms")
			} else if err := n.opt.OnTake(room); err != nil {
				reply = []byte(err.Error())
			}
			m.Respond(reply)
		}()
	})
	return err
}

// Hand gives room's lease, held here, to target at once: compare-and-set
// on the revision this node last wrote, so that it fails if the room was
// taken meanwhile. This node stops renewing it.
func (n *Node) Hand(ctx context.Context, room string, target NodeInfo) error {
	kv := n.bucket()
	n.leases.mu.Lock()
	l := n.leases.held[room]
	delete(n.leases.held, room)
	n.leases.mu.Unlock()
	if l == nil || kv == nil {
		return fmt.Errorf("cluster: handing %q over: this node does not hold it", room)
	}
	l.mu.Lock() // after any renewal in flight
	defer l.mu.Unlock()
	l.released = true
	n.leases.mu.Lock()
	rev := l.rev
	n.leases.mu.Unlock()
	val, _ := json.Marshal(Owner{Node: target.Name, Incarnation: target.Incarnation})
	_, err := kv.Update(ctx, roomKey(room), val, rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		// Ours at a newer revision (a renewal whose answer was lost)?
		o, ok, lerr := n.Lookup(ctx, room)
		if lerr != nil || !ok || !n.mine(o) {
			return fmt.Errorf("cluster: handing %q over: the lease changed hands meanwhile", room)
		}
		_, err = kv.Update(ctx, roomKey(room), val, o.Rev)
	}
	if err != nil {
		return fmt.Errorf("cluster: handing %q over: %w", room, err)
	}
	n.metrics.Handed.Add(1)
	return nil
}

// Ask asks target to take room, whose lease Hand gave it, and waits for
// its answer: nil once the room runs there.
func (n *Node) Ask(ctx context.Context, target NodeInfo, room string) error {
	m, err := n.nc.RequestWithContext(ctx, takeSubject(target.Name, target.Incarnation), []byte(room))
	if err != nil {
		return fmt.Errorf("cluster: asking %s to take %q: %w", target.Name, room, err)
	}
	if len(m.Data) > 0 {
		return fmt.Errorf("cluster: %s did not take %q: %s", target.Name, room, m.Data)
	}
	return nil
}

// Node returns the live node called name (this one included).
func (n *Node) Node(name string) (NodeInfo, bool) {
	for _, i := range n.Nodes() {
		if i.Name == name {
			return i, true
		}
	}
	return NodeInfo{}, false
}

// AdminToken is the bearer token of a cluster's operator endpoints (the
// server's room moves): derived from the cluster secret, so that whoever
// holds the secret (the operator, `webtron move`) has it, and nobody else.
func AdminToken(secret []byte) string { return hex.EncodeToString(derive(secret, "webtron admin")) }

// CheckAdmin reports whether token is this cluster's AdminToken, in
// constant time.
func (n *Node) CheckAdmin(token string) bool {
	return hmac.Equal([]byte(token), []byte(n.keys.admin))
}
