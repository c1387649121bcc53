package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"webtron/cluster"
	"webtron/headless"
	"webtron/internal/natstest"
)

// A server as the one node of a cluster on an in-process NATS server: the
// glue between leases and rooms (fencing, release, drain). The process
// tests in package cluster run several nodes.

// clusterSecret is the cluster secret of the tests' nodes.
var clusterSecret = []byte("the-tests-cluster-secret-0123456789")

func clusterServer(t *testing.T, url string, mutate func(*Config)) *testServer {
	t.Helper()
	s := newTestServer(t, func(c *Config) {
		c.Cluster = &cluster.Options{Name: "a", PublicURL: "http://127.0.0.1:1", NATS: []string{url}, Replicas: 1, Secret: clusterSecret,
			LeaseTTL: 2 * time.Second, Renew: 200 * time.Millisecond, Heartbeat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond}
		if mutate != nil {
			mutate(c)
		}
	})
	select {
	case <-s.cl.node.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("lease bucket not ready")
	}
	return s
}

func leaseKey(room string) string { return "r" + base64.RawURLEncoding.EncodeToString([]byte(room)) }

func eventually(t *testing.T, d time.Duration, what string, f func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Fatalf("%s: not within %v", what, d)
}

// TestClusterLostLeaseClosesRoom: when another node turns out to hold a
// room's lease, the room closes here and its players are told it moved, so
// that the page rejoins wherever the room is now.
func TestClusterLostLeaseClosesRoom(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, nil)
	p := player(t, s.url, headless.Options{Name: "ann", Room: "x"})
	drive(t, p)
	if !s.cl.node.Holds("x") {
		t.Fatal("the room's node holds no lease")
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(t.Context(), cluster.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := json.Marshal(cluster.Owner{Node: "b", Incarnation: "x"})
	if _, err := kv.Put(t.Context(), leaseKey("x"), other); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("the player stayed in a room whose lease is lost")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "moved") {
		t.Fatalf("player told %v, want the room moved", err)
	}
	if s.hasRoom("x") {
		t.Fatal("the room is still open here")
	}
}

// TestClusterReleasesClosedRoom: a room reclaimed when it empties hands its
// lease back, so the room is free for any node.
func TestClusterReleasesClosedRoom(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.EmptyRoomTTL = 200 * time.Millisecond })
	// A spectator: a player's seat would wait 30 s for its reconnect.
	p := player(t, s.url, headless.Options{Name: "ann", Room: "y", Spectate: true})
	p.Close()
	eventually(t, 10*time.Second, "lease released", func() bool {
		_, held, err := s.cl.node.Lookup(t.Context(), "y")
		return err == nil && !held && !s.cl.node.Holds("y")
	})
}

// TestClusterDrain: draining closes each room (at its round's end, or here
// at the deadline) with a reason that tells the player to rejoin, and
// releases the lease once the room's history has ended; /healthz answers
// 503 from the start. (The room closes
// as at Shutdown, which writes the round in progress: ops_test.go.)
func TestClusterDrain(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.Bots = 3; c.DataDir = t.TempDir() })
	p := player(t, s.url, headless.Options{Name: "ann", Room: "z"})
	drive(t, p)
	time.Sleep(500 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { s.Drain(ctx); close(done) }()
	eventually(t, time.Second, "healthz 503", func() bool {
		resp, err := s.ts.Client().Get(s.ts.URL + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 503
	})
	<-done
	// The lease went only once the history had ended: a node taking it
	// at once finds nothing to carry on (the players were told the room
	// closed).
	if _, err := s.cl.node.Recover(t.Context(), "z"); !errors.Is(err, cluster.ErrNoHistory) {
		t.Fatalf("the history right after the drain: %v, want it ended (ErrNoHistory)", err)
	}
	select {
	case <-p.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("the player is still connected after the drain")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "maintenance") {
		t.Fatalf("player told %v, want the drain's reason", err)
	}
	_, held, err := s.cl.node.Lookup(t.Context(), "z")
	if err != nil || held {
		t.Fatalf("lease after the drain: held %v, err %v", held, err)
	}
}

// TestClusterProxiesOnlyToTrustedNodes: a party with access to NATS but
// not the cluster secret announces a node "b" with room for everyone, at a
// URL of its own, and writes the lease of room "far" in b's name. No player
// goes there: b is no node this one trusts, so "far" is taken over and
// played here, and new rooms open here too.
func TestClusterProxiesOnlyToTrustedNodes(t *testing.T) {
	var hits atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "evil", http.StatusTeapot)
	}))
	defer evil.Close()
	url := natstest.Start(t)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	beat, _ := json.Marshal(cluster.NodeInfo{Name: "b", Incarnation: "x", URL: evil.URL, MaxPlayers: 1 << 30, MaxRooms: 1 << 20, Rooms: []cluster.RoomInfo{}})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			nc.Publish("webtron.nodes", beat) // the heartbeats' subject
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	s := clusterServer(t, url, nil)
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(t.Context(), cluster.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	// As leases were written when they named a URL.
	if _, err := kv.Put(t.Context(), leaseKey("far"), []byte(`{"node":"b","inc":"x","url":"`+evil.URL+`"}`)); err != nil {
		t.Fatal(err)
	}
	for _, room := range []string{"far", "new"} {
		p := player(t, s.url, headless.Options{Name: "ann", Room: room, Spectate: true})
		p.Close()
		if !s.hasRoom(room) {
			t.Fatalf("room %s did not open here", room)
		}
		if o, held, err := s.cl.node.Lookup(t.Context(), room); err != nil || !held || o.Node != "a" {
			t.Fatalf("lease of %s: %+v held %v err %v, want this node's", room, o, held, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the URL a stranger named", n)
	}
	for _, n := range s.cl.node.Nodes() {
		if n.Name == "b" {
			t.Fatal("the node counts the stranger's b among the live nodes")
		}
	}
}

// TestClusterNodesPublic: /api/nodes tells the public neither a node's
// incarnation (with it, anyone on NATS could say goodbye in a node's name)
// nor its URL on the nodes' network.
func TestClusterNodesPublic(t *testing.T) {
	s := clusterServer(t, natstest.Start(t), nil)
	resp, err := s.ts.Client().Get(s.ts.URL + "/api/nodes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var nodes []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0]["name"] != "a" {
		t.Fatalf("/api/nodes: %v", nodes)
	}
	for _, k := range []string{"incarnation", "url"} {
		if _, ok := nodes[0][k]; ok {
			t.Fatalf("/api/nodes shows %q: %v", k, nodes[0])
		}
	}
}
