package cluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Bucket is the JetStream key-value bucket of room leases: one key per open
// room, its value the owner (Owner as JSON).
const Bucket = "webtron-rooms"

// Owner is a lease's holder, as stored in the bucket. It names no URL: a
// node reaches the holder at the URL of its signed heartbeats (Peer).
type Owner struct {
	Node        string `json:"node"`
	Incarnation string `json:"inc"`
	Rev         uint64 `json:"-"` // the key's revision when read
}

// ErrNotReady is returned while the lease bucket is not available yet.
var ErrNotReady = errors.New("cluster: lease bucket not ready")

// roomKey maps a room name (any printable text) to a bucket key, which
// allows only letters, digits and -/_=. : unpadded base64url, behind a
// prefix so that no name makes an empty or dotted key.
func roomKey(room string) string {
	return "r" + base64.RawURLEncoding.EncodeToString([]byte(room))
}

// lease is a room this node holds. Its mutex orders a renewal and a
// release of the same lease: a release that deleted the key while a renewal
// was on its way would otherwise see that renewal fence, find the key gone
// and create it again.
type lease struct {
	mu       sync.Mutex // held across a renewal's or the release's requests
	released bool       // guarded by mu

	// Guarded by leaseTable.mu.
	rev   uint64
	since time.Time // when it was acquired
	ok    time.Time // last successful renewal (or acquisition)
	fails int       // renewals failed in a row
}

// leaseTable holds this node's leases; acquisitions of one room are
// serialized so that two joins racing for a new room make one Create.
type leaseTable struct {
	mu      sync.Mutex
	held    map[string]*lease
	pending map[string]chan struct{} // rooms being acquired: closed when done
}

func (t *leaseTable) init() {
	t.held = map[string]*lease{}
	t.pending = map[string]chan struct{}{}
}

// openBucket makes (or finds) the lease bucket and the history stream
// (history.go), retrying until they work:
// a JetStream cluster answers only once a quorum of its servers is up, and
// a bucket of 3 replicas needs 3 servers.
func (n *Node) openBucket() {
	defer n.wg.Done()
	cfg := jetstream.KeyValueConfig{Bucket: Bucket, Description: "webtron room leases (owner of each open room)",
		History: 1, TTL: n.opt.LeaseTTL, Storage: jetstream.FileStorage, Replicas: n.opt.Replicas}
	wait := 250 * time.Millisecond
	for tries := 1; ; tries++ {
		ctx, cancel := context.WithTimeout(n.ctx, 5*time.Second)
		kv, err := n.js.CreateOrUpdateKeyValue(ctx, cfg)
		if err != nil && !errors.Is(err, context.Canceled) {
			// An existing bucket made with other settings (another TTL) is
			// still usable: the first node's settings win.
			if kv2, err2 := n.js.KeyValue(ctx, Bucket); err2 == nil {
				n.log.Warn("cluster: lease bucket exists with other settings; using it", "err", err)
				kv, err = kv2, nil
			}
		}
		var hist jetstream.Stream
		if err == nil {
			hist, err = n.openHistory(ctx)
		}
		cancel()
		if err == nil {
			n.kvMu.Lock()
			n.kv, n.hist = kv, hist
			n.kvMu.Unlock()
			close(n.ready)
			n.log.Info("cluster: lease bucket ready", "bucket", Bucket, "replicas", n.opt.Replicas, "ttl", n.opt.LeaseTTL)
			return
		}
		if n.ctx.Err() != nil {
			return
		}
		if tries == 1 || tries%20 == 0 {
			n.log.Warn("cluster: lease bucket not ready yet, retrying", "replicas", n.opt.Replicas, "err", err)
		}
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

func (n *Node) bucket() jetstream.KeyValue {
	n.kvMu.Lock()
	defer n.kvMu.Unlock()
	return n.kv
}

// Lookup reads a room's lease: its owner, and false when nobody holds it.
func (n *Node) Lookup(ctx context.Context, room string) (Owner, bool, error) {
	kv := n.bucket()
	if kv == nil {
		return Owner{}, false, ErrNotReady
	}
	e, err := kv.Get(ctx, roomKey(room))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return Owner{}, false, nil
	}
	if err != nil {
		return Owner{}, false, fmt.Errorf("cluster: reading the lease of %q: %w", room, err)
	}
	var o Owner
	if err := json.Unmarshal(e.Value(), &o); err != nil {
		return Owner{}, false, fmt.Errorf("cluster: lease of %q: %w", room, err)
	}
	o.Rev = e.Revision()
	return o, true, nil
}

// Holds reports whether this node holds room's lease.
func (n *Node) Holds(room string) bool {
	n.leases.mu.Lock()
	defer n.leases.mu.Unlock()
	return n.leases.held[room] != nil
}

// Held returns the rooms whose leases this node holds.
func (n *Node) Held() []string {
	n.leases.mu.Lock()
	defer n.leases.mu.Unlock()
	out := make([]string, 0, len(n.leases.held))
	for r := range n.leases.held {
		out = append(out, r)
	}
	return out
}

// HeldSince returns when this node acquired room's lease (zero if it does
// not hold it).
func (n *Node) HeldSince(room string) time.Time {
	n.leases.mu.Lock()
	defer n.leases.mu.Unlock()
	if l := n.leases.held[room]; l != nil {
		return l.since
	}
	return time.Time{}
}

func (n *Node) self() Owner {
	return Owner{Node: n.opt.Name, Incarnation: n.inc}
}

func (n *Node) mine(o Owner) bool { return o.Node == n.opt.Name && o.Incarnation == n.inc }

// Acquire takes room's lease for this node (Claim for itself).
func (n *Node) Acquire(ctx context.Context, room string) (Owner, error) {
	return n.Claim(ctx, room, NodeInfo{Name: n.opt.Name, Incarnation: n.inc, URL: n.opt.PublicURL})
}

// Claim names target (Place's choice) the holder of room's lease: it creates
// the key when nobody holds it, or replaces it, compare-and-set on its
// revision, when its holder is dead (Alive). It returns the owner
// afterwards: target when the claim won, else whoever holds the room. A
// lease this node wins for itself is held (renewed) from now on; one won
// for another node is that node's to Adopt when the join it placed
// arrives, and expires if it never does.
func (n *Node) Claim(ctx context.Context, room string, target NodeInfo) (Owner, error) {
	kv := n.bucket()
	if kv == nil {
		return Owner{}, ErrNotReady
	}
	for {
		n.leases.mu.Lock()
		if n.leases.held[room] != nil {
			n.leases.mu.Unlock()
			return n.self(), nil
		}
		wait, busy := n.leases.pending[room]
		if !busy {
			n.leases.pending[room] = make(chan struct{})
		}
		n.leases.mu.Unlock()
		if !busy {
			break
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return Owner{}, ctx.Err()
		}
	}
	defer func() {
		n.leases.mu.Lock()
		close(n.leases.pending[room])
		delete(n.leases.pending, room)
		n.leases.mu.Unlock()
	}()
	return n.claim(ctx, kv, room, Owner{Node: target.Name, Incarnation: target.Incarnation})
}

func (n *Node) claim(ctx context.Context, kv jetstream.KeyValue, room string, want Owner) (Owner, error) {
	val, _ := json.Marshal(want)
	key := roomKey(room)
	won := func(rev uint64) Owner {
		if n.mine(want) {
			n.hold(room, rev)
		}
		want.Rev = rev
		return want
	}
	// A replica that serves reads may lag the leader that decides writes for
	// a moment: a few rounds settle what a stale read left open.
	for range 5 {
		rev, err := kv.Create(ctx, key, val)
		if err == nil {
			return won(rev), nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return Owner{}, fmt.Errorf("cluster: creating the lease of %q: %w", room, err)
		}
		o, ok, err := n.Lookup(ctx, room)
		switch {
		case err != nil:
			return Owner{}, err
		case !ok:
			continue // expired or released meanwhile, or a stale read
		case n.mine(o):
			n.hold(room, o.Rev) // ours already (placed here by another node, or an answer lost)
			return o, nil
		case n.Alive(o):
			return o, nil
		}
		rev, err = kv.Update(ctx, key, val, o.Rev)
		if err == nil {
			n.metrics.Takeovers.Add(1)
			n.log.Info("cluster: took over the room of a dead node", "room", room, "from", o.Node, "to", want.Node)
			return won(rev), nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return Owner{}, fmt.Errorf("cluster: taking over the lease of %q: %w", room, err)
		}
	}
	return Owner{}, fmt.Errorf("cluster: the lease of %q keeps changing hands", room)
}

// Adopt starts holding (renewing) a lease that names this node, as read by
// Lookup or returned by Claim: another node placed the room here.
func (n *Node) Adopt(room string, o Owner) error {
	if !n.mine(o) {
		return fmt.Errorf("cluster: the lease of %q names %s, not this node", room, o.Node)
	}
	n.leases.mu.Lock()
	l := n.leases.held[room]
	n.leases.mu.Unlock()
	if l == nil {
		n.hold(room, o.Rev)
	}
	return nil
}

func (n *Node) hold(room string, rev uint64) {
	now := time.Now()
	n.leases.mu.Lock()
	n.leases.held[room] = &lease{rev: rev, since: now, ok: now}
	n.leases.mu.Unlock()
	n.metrics.Acquired.Add(1)
}

// Release gives room's lease up, unless another node holds it by now: the
// delete is compare-and-set on the revision this node last wrote.
func (n *Node) Release(ctx context.Context, room string) error {
	n.leases.mu.Lock()
	l := n.leases.held[room]
	delete(n.leases.held, room)
	n.leases.mu.Unlock()
	kv := n.bucket()
	if l == nil || kv == nil {
		return nil
	}
	l.mu.Lock() // after any renewal in flight
	defer l.mu.Unlock()
	l.released = true
	n.leases.mu.Lock()
	rev := l.rev
	n.leases.mu.Unlock()
	err := kv.Delete(ctx, roomKey(room), jetstream.LastRevision(rev))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		// Ours at a newer revision (a renewal whose answer was lost), or
		// another node's: delete only the former.
		o, ok, lerr := n.Lookup(ctx, room)
		if lerr != nil || !ok || !n.mine(o) {
			return lerr
		}
		err = kv.Delete(ctx, roomKey(room), jetstream.LastRevision(o.Rev))
	}
	if err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return fmt.Errorf("cluster: releasing %q: %w", room, err)
	}
	return nil
}

// leaderLoop notes which server leads the lease stream, every few seconds,
// for /api/nodes: the operator (and the failover test) can see whose loss
// would stall lease writes.
func (n *Node) leaderLoop() {
	defer n.wg.Done()
	select {
	case <-n.ready:
	case <-n.ctx.Done():
		return
	}
	for {
		ctx, cancel := n.opctx()
		if st, err := n.js.Stream(ctx, "KV_"+Bucket); err == nil {
			if info := st.CachedInfo(); info.Cluster != nil {
				l := info.Cluster.Leader
				n.leader.Store(&l)
			}
		}
		cancel()
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(3 * time.Second):
		}
	}
}

// renewLoop renews every held lease each Options.Renew.
func (n *Node) renewLoop() {
	defer n.wg.Done()
	select {
	case <-n.ready:
	case <-n.ctx.Done():
		return
	}
	t := time.NewTicker(n.opt.Renew)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		n.renewAll()
	}
}

// renewAll renews the leases concurrently (a stall must not make one slow
// renewal wait behind another) and waits for the lot.
func (n *Node) renewAll() {
	n.leases.mu.Lock()
	rooms := make([]string, 0, len(n.leases.held))
	leases := make([]*lease, 0, len(n.leases.held))
	for r, l := range n.leases.held {
		rooms = append(rooms, r)
		leases = append(leases, l)
	}
	n.leases.mu.Unlock()
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i, room := range rooms {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			n.renew(room, leases[i])
		}()
	}
	wg.Wait()
}

// renew renews one lease, compare-and-set on the revision last written. A
// failure that is not a conflict (a timeout while the stream elects a
// leader) keeps the lease: the room goes on, and the next renewal fences.
func (n *Node) renew(room string, l *lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return
	}
	n.leases.mu.Lock()
	rev := l.rev
	n.leases.mu.Unlock()
	ctx, cancel := n.opctx()
	defer cancel()
	kv := n.bucket()
	val, _ := json.Marshal(n.self())
	newRev, err := kv.Update(ctx, roomKey(room), val, rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		newRev, err = n.fence(ctx, kv, room, val)
	}
	n.leases.mu.Lock()
	defer n.leases.mu.Unlock()
	if n.leases.held[room] != l {
		return // replaced meanwhile
	}
	switch {
	case err == nil:
		if l.fails > 0 {
			n.log.Info("cluster: lease renewed again", "room", room, "failed", l.fails, "stalled", time.Since(l.ok).Round(time.Millisecond))
		}
		l.rev, l.ok, l.fails = newRev, time.Now(), 0
		n.metrics.Renewals.Add(1)
	case errors.Is(err, errLost):
		delete(n.leases.held, room)
		n.metrics.Losses.Add(1)
		n.log.Warn("cluster: lease lost to another node", "room", room, "err", err)
		if n.opt.OnLost != nil {
			go n.opt.OnLost(room)
		}
	default:
		l.fails++
		n.metrics.RenewFailures.Add(1)
		if l.fails == 1 {
			n.log.Warn("cluster: lease renewal failed; still serving the room", "room", room, "err", err)
		}
	}
}

// errLost says another node holds a lease this node held.
var errLost = errors.New("cluster: lease held by another node")

// fence settles a renewal whose revision did not match: the value may be
// ours at a newer revision (a renewal that succeeded but whose answer was
// lost), or gone (expired while writes stalled: create it again, which only
// works if nobody else did), or another node's (lost). Reads may come from a
// replica a moment behind, so only a value that names another node loses
// the lease; anything unsettled after a few reads counts as a failed
// renewal, to be settled by the next.
func (n *Node) fence(ctx context.Context, kv jetstream.KeyValue, room string, val []byte) (uint64, error) {
	for range 3 {
		o, ok, err := n.Lookup(ctx, room)
		switch {
		case err != nil:
			return 0, err
		case ok && n.mine(o):
			rev, err := kv.Update(ctx, roomKey(room), val, o.Rev)
			if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				return rev, err
			}
		case ok:
			return 0, fmt.Errorf("%w: %s", errLost, o.Node)
		default:
			rev, err := kv.Create(ctx, roomKey(room), val)
			if !errors.Is(err, jetstream.ErrKeyExists) {
				return rev, err
			}
		}
	}
	return 0, fmt.Errorf("cluster: the lease of %q did not settle", room)
}
