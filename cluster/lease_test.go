package cluster_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"webtron/cluster"
	"webtron/internal/natstest"
)

// In-process tests of leases and the registry: one NATS server with
// JetStream, nodes that join it as clients, and a bare client that writes
// the bucket behind their backs.

// lost collects the rooms a node was told it lost.
type lost struct {
	mu    sync.Mutex
	rooms []string
}

func (l *lost) add(r string) { l.mu.Lock(); l.rooms = append(l.rooms, r); l.mu.Unlock() }
func (l *lost) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.rooms...)
}

// testSecret is the cluster secret of the tests' nodes.
var testSecret = []byte("the-tests-cluster-secret-0123456789")

func startNode(t *testing.T, url, name string, l *lost) *cluster.Node {
	t.Helper()
	n, err := cluster.Start(cluster.Options{Name: name, PublicURL: "http://" + name + ":1", NATS: []string{url}, Replicas: 1, Secret: testSecret,
		LeaseTTL: 3 * time.Second, Renew: 300 * time.Millisecond, Heartbeat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond,
		OnLost: l.add, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Status: func() cluster.NodeInfo { return cluster.NodeInfo{MaxPlayers: 100, MaxRooms: 10} }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	select {
	case <-n.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("lease bucket not ready")
	}
	return n
}

// bucket opens the lease bucket as a bare client.
func bucket(t *testing.T, url string) jetstream.KeyValue {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(context.Background(), cluster.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func key(room string) string { return "r" + base64.RawURLEncoding.EncodeToString([]byte(room)) }

func until(t *testing.T, d time.Duration, what string, f func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Fatalf("%s: not within %v", what, d)
}

// TestRenewFences: a renewal whose revision no longer matches settles on
// what the key holds: another node's value loses the room (OnLost), our own
// value at a newer revision (a renewal whose answer was lost) keeps it, and
// a key gone (expired while writes stalled) is created again and kept.
func TestRenewFences(t *testing.T) {
	url := natstest.Start(t)
	var l lost
	a := startNode(t, url, "a", &l)
	kv := bucket(t, url)
	ctx := t.Context()
	for _, room := range []string{"taken", "mine", "gone"} {
		if o, err := a.Acquire(ctx, room); err != nil || o.Node != "a" {
			t.Fatalf("acquire %s: %+v, %v", room, o, err)
		}
	}
	mine, _ := json.Marshal(cluster.Owner{Node: "a", Incarnation: a.Incarnation()})
	other, _ := json.Marshal(cluster.Owner{Node: "b", Incarnation: "x"})
	if _, err := kv.Put(ctx, key("taken"), other); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, key("mine"), mine); err != nil {
		t.Fatal(err)
	}
	if err := kv.Purge(ctx, key("gone")); err != nil {
		t.Fatal(err)
	}
	until(t, 3*time.Second, "the lost room reported", func() bool { return len(l.get()) == 1 })
	time.Sleep(time.Second) // a few more renewals
	if got := l.get(); len(got) != 1 || got[0] != "taken" {
		t.Fatalf("lost %v, want [taken]", got)
	}
	if a.Holds("taken") || !a.Holds("mine") || !a.Holds("gone") {
		t.Fatalf("holds taken %v mine %v gone %v, want false true true", a.Holds("taken"), a.Holds("mine"), a.Holds("gone"))
	}
	for _, room := range []string{"mine", "gone"} {
		o, ok, err := a.Lookup(ctx, room)
		if err != nil || !ok || o.Node != "a" {
			t.Fatalf("%s after fencing: %+v %v %v", room, o, ok, err)
		}
	}
	if m := a.Metrics(); m.Losses.Load() != 1 || m.Renewals.Load() == 0 {
		t.Fatalf("losses %d renewals %d", m.Losses.Load(), m.Renewals.Load())
	}
}

// TestClaimTakesOnlyFromTheDead: a room held by a live node stays its own;
// once that node has gone another takes it over.
func TestClaimTakesOnlyFromTheDead(t *testing.T) {
	url := natstest.Start(t)
	var la, lb lost
	a := startNode(t, url, "a", &la)
	b := startNode(t, url, "b", &lb)
	ctx := t.Context()
	if o, err := a.Acquire(ctx, "room"); err != nil || o.Node != "a" {
		t.Fatalf("a acquires: %+v %v", o, err)
	}
	time.Sleep(600 * time.Millisecond) // b has listened past DeadAfter
	if o, err := b.Acquire(ctx, "room"); err != nil || o.Node != "a" {
		t.Fatalf("b acquires a live node's room: %+v %v, want a's", o, err)
	}
	if b.Holds("room") {
		t.Fatal("b holds a live node's room")
	}
	o, _, _ := b.Lookup(ctx, "room")
	if !b.Alive(o) {
		t.Fatal("a counts as dead while it sends heartbeats")
	}
	a.Close() // says goodbye: b forgets it at once
	until(t, 2*time.Second, "a dead to b", func() bool { return !b.Alive(o) })
	if o, err := b.Acquire(ctx, "room"); err != nil || o.Node != "b" {
		t.Fatalf("b takes a dead node's room: %+v %v", o, err)
	}
	if b.Metrics().Takeovers.Load() != 1 {
		t.Fatalf("takeovers %d", b.Metrics().Takeovers.Load())
	}
}

// TestLeaseExpires: a lease nobody renews leaves the bucket after its TTL
// (the bucket's MaxAge), and the room is free to claim.
func TestLeaseExpires(t *testing.T) {
	url := natstest.Start(t)
	a := startNode(t, url, "a", &lost{})
	b := startNode(t, url, "b", &lost{})
	ctx := t.Context()
	if _, err := a.Acquire(ctx, "room"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	start := time.Now()
	until(t, 6*time.Second, "lease expired", func() bool {
		_, ok, err := b.Lookup(ctx, "room")
		return err == nil && !ok
	})
	if d := time.Since(start); d < 2*time.Second {
		t.Fatalf("lease gone after %v, before its 3 s TTL", d)
	}
}

// TestPlaceSpreads: rooms placed in one burst spread over equal nodes (the
// pending count and the hash tie-break), and a full or draining node gets
// none.
func TestPlaceSpreads(t *testing.T) {
	url := natstest.Start(t)
	a := startNode(t, url, "a", &lost{})
	startNode(t, url, "b", &lost{})
	startNode(t, url, "c", &lost{})
	until(t, 3*time.Second, "three nodes heard", func() bool { return len(a.Nodes()) == 3 })
	count := map[string]int{}
	for i := range 30 {
		n, ok := a.Place(fmt.Sprintf("room-%d", i), 8)
		if !ok {
			t.Fatal("no node to place on")
		}
		count[n.Name]++
	}
	for _, name := range []string{"a", "b", "c"} {
		if count[name] < 5 {
			t.Fatalf("30 rooms placed %v: %s got fewer than 5", count, name)
		}
	}
	full := cluster.NodeInfo{MaxPlayers: 10, Connections: 10, MaxRooms: 5}
	drain := cluster.NodeInfo{MaxPlayers: 10, MaxRooms: 5, Draining: true}
	rooms := cluster.NodeInfo{MaxPlayers: 10, MaxRooms: 1, Rooms: []cluster.RoomInfo{{Name: "x"}}}
	if full.Free() != 0 || drain.Free() != 0 || rooms.Free() != 0 {
		t.Fatalf("free: full %d draining %d out of rooms %d, want 0", full.Free(), drain.Free(), rooms.Free())
	}
}

// TestForgedHeartbeatsDropped: heartbeats published by someone with access
// to NATS but not the cluster secret change nothing: a node with room for
// everyone is not heard (nor placed on), one in the name of a live node
// does not replace it, a goodbye in its name does not remove it.
func TestForgedHeartbeatsDropped(t *testing.T) {
	url := natstest.Start(t)
	a := startNode(t, url, "a", &lost{})
	b := startNode(t, url, "b", &lost{})
	until(t, 3*time.Second, "a hears b", func() bool { return len(a.Nodes()) == 2 })
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var forged [][]byte
	for _, f := range []cluster.NodeInfo{
		{Name: "evil", Incarnation: "x", URL: "http://evil.example:1", MaxPlayers: 1 << 30, MaxRooms: 1 << 20},
		{Name: "b", Incarnation: "x", URL: "http://evil.example:1", MaxPlayers: 1 << 30, MaxRooms: 1 << 20},
		{Name: "b", Incarnation: b.Incarnation(), Gone: true},
	} {
		data, _ := json.Marshal(f)
		forged = append(forged, data)
	}
	// Forgeries all along, as fast as heartbeats come: each would last
	// until the next true heartbeat, or DeadAfter.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			for _, f := range forged {
				nc.Publish("webtron.nodes", f) // the heartbeats' subject
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	until(t, 3*time.Second, "forgeries dropped", func() bool { return a.Metrics().Forged.Load() >= uint64(10*len(forged)) })
	for i := range 20 {
		nodes := a.Nodes()
		if len(nodes) != 2 || nodes[1].Name != "b" || nodes[1].Incarnation != b.Incarnation() || nodes[1].URL != b.URL() {
			t.Fatalf("a hears %+v", nodes)
		}
		if n, _ := a.Place(fmt.Sprintf("room-%d", i), 8); n.Name != "a" && n.Name != "b" {
			t.Fatalf("a room placed on %q", n.Name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
