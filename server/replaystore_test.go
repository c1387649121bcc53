package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"webtron/cluster"
	"webtron/internal/natstest"
	"webtron/replay"
	"webtron/web"
)

// The cluster's replays (replaystore.go): rounds finished on any node are
// listed and played by every node, survive a node's replays directory,
// are pruned within the limits cluster-wide, and nothing written to the
// store without the cluster secret is listed or served.

// replayPage is a page for /replay/{id}.
var replayPage = fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><base href="/">`)}}

// embeddedCluster starts n servers, each embedding a NATS server routed
// to the others on loopback, the replay store replicated on all n.
func embeddedCluster(t *testing.T, n int, mutate func(*Config)) []*testServer {
	t.Helper()
	// Free route ports: picked by listening, freed for the servers.
	var ports []int
	var routes []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		routes = append(routes, fmt.Sprintf("nats://%s", l.Addr()))
	}
	for _, l := range ls {
		l.Close()
	}
	out := make([]*testServer, n)
	for i := range n {
		name := string(rune('a' + i))
		out[i] = newTestServer(t, func(c *Config) {
			c.DataDir = t.TempDir()
			c.Web = web.NewHandler(replayPage)
			c.Cluster = &cluster.Options{Name: name, PublicURL: "http://127.0.0.1:1", ClusterAddr: fmt.Sprintf("127.0.0.1:%d", ports[i]),
				Routes: routes, StoreDir: t.TempDir(), Replicas: n, Secret: clusterSecret,
				LeaseTTL: 2 * time.Second, Renew: 200 * time.Millisecond, Heartbeat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond}
			if mutate != nil {
				mutate(c)
			}
		})
	}
	return out
}

func (s *testServer) http() string { return "http" + strings.TrimPrefix(s.url, "ws") }

func storeReady(t *testing.T, ss ...*testServer) {
	t.Helper()
	for _, s := range ss {
		select {
		case <-s.store.rs.Ready():
		case <-time.After(60 * time.Second):
			t.Fatal("replay store not ready in 60 s")
		}
	}
}

// listedIDs returns the ids s lists.
func listedIDs(t *testing.T, s *testServer) []string {
	t.Helper()
	var list []ReplayInfo
	if code := getJSON(t, s.http()+"/api/replays?limit=500", &list); code != 200 {
		t.Fatalf("/api/replays: status %d", code)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	return ids
}

// finish hands s's replay writer one finished round of room, as a room
// does at a round's end, and returns its id once s has stored it.
func finish(t *testing.T, s *testServer, room string, n int64) string {
	t.Helper()
	f := recordedFile(t, room, time.Now())
	before := s.replays.written.Load()
	s.replays.round(room, n, f.Record, f.Names)
	var id string
	eventually(t, 10*time.Second, "the round written", func() bool { return s.replays.written.Load() > before })
	eventually(t, 20*time.Second, "the round stored", func() bool {
		if id == "" {
			for _, e := range s.listReplays(500, room) {
				if e.Round == n {
					id = e.ID
				}
			}
		}
		return id != "" && s.store.idx.has(id)
	})
	return id
}

// spoolFiles counts the replay files in s's replays directory.
func spoolFiles(s *testServer) int {
	n := 0
	filepath.WalkDir(filepath.Join(s.cfg.DataDir, replaysDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, replay.Ext) {
			n++
		}
		return nil
	})
	return n
}

// TestClusterReplays: a round finished on node a is listed by b and c and
// played from them; a's replays directory holds nothing once the store
// has the round, and deleting it loses nothing. The limits hold for the
// cluster's rounds in all: four rounds of two nodes, each node's two well
// within --replay-max-bytes, are more than it allows together, and the
// oldest goes; a round older than --replay-keep goes, whoever stored it.
// With a gone altogether (its NATS server and its disk), b and c still
// list and serve its rounds.
func TestClusterReplays(t *testing.T) {
	one, _ := replay.Marshal(recordedFile(t, "room0", time.Now()))
	size := int64(len(one))
	nodes := embeddedCluster(t, 3, func(c *Config) { c.ReplayMaxBytes = 3*size + size/2 })
	a, b, c := nodes[0], nodes[1], nodes[2]
	storeReady(t, nodes...)
	id := finish(t, a, "room0", 1)
	for _, s := range []*testServer{b, c} {
		eventually(t, 10*time.Second, "listed on another node", func() bool { return slices.Contains(listedIDs(t, s), id) })
	}
	if n := spoolFiles(a); n != 0 {
		t.Errorf("node a keeps %d replay files once the store has them", n)
	}
	if err := os.RemoveAll(filepath.Join(a.cfg.DataDir, replaysDir)); err != nil {
		t.Fatal(err)
	}
	served := func(s *testServer, id string, round int64) {
		t.Helper()
		code, got := get(t, s.http()+"/api/replays/"+id)
		f, err := replay.Unmarshal(got)
		if code != 200 || err != nil || f.Round != round || f.Room != fmt.Sprint("room", round-1) {
			t.Fatalf("%s: /api/replays/%s: status %d, %d bytes, %v", s.cl.node.Name(), id, code, len(got), err)
		}
		if code, page := get(t, s.http()+"/replay/"+id); code != 200 || !bytes.Contains(page, []byte("<base")) {
			t.Errorf("%s: /replay/%s: status %d", s.cl.node.Name(), id, code)
		}
	}
	for _, s := range nodes {
		served(s, id, 1)
	}

	// Pruning, cluster-wide.
	ids := []string{id}
	for i, s := range []*testServer{b, a, b} {
		time.Sleep(5 * time.Millisecond)
		ids = append(ids, finish(t, s, fmt.Sprint("room", i+1), int64(i+2)))
	}
	// A round of 40 days ago, waiting in c's replays directory.
	old := writeReplay(t, c.cfg.DataDir, recordedFile(t, "old", time.Now().Add(-40*24*time.Hour)), false)
	c.store.poke()
	for _, s := range nodes {
		eventually(t, 20*time.Second, "pruned to the limits", func() bool {
			got := listedIDs(t, s)
			slices.Sort(got)
			want := slices.Clone(ids[1:])
			slices.Sort(want)
			return slices.Equal(got, want)
		})
	}
	for _, id := range []string{ids[0], old} {
		if code, _ := get(t, b.http()+"/api/replays/"+id); code != 404 {
			t.Errorf("pruned %s: status %d", id, code)
		}
	}
	if n := spoolFiles(c); n != 0 {
		t.Errorf("node c keeps %d replay files", n)
	}

	// Node a lost: its server, its NATS server and its disk.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	a.Shutdown(ctx)
	cancel()
	os.RemoveAll(a.cfg.DataDir)
	os.RemoveAll(a.cfg.Cluster.StoreDir)
	for _, s := range []*testServer{b, c} {
		eventually(t, 30*time.Second, "served without node a", func() bool {
			code, got := get(t, s.http()+"/api/replays/"+ids[2])
			_, err := replay.Unmarshal(got)
			return code == 200 && err == nil && slices.Contains(listedIDs(t, s), ids[2])
		})
		served(s, ids[2], 3)
	}
}

// TestClusterReplayForged: objects put in the replay store by someone with
// NATS access but not the cluster secret are neither listed nor served: an
// unsigned round, a signed round's signature under another name, and a
// signed round whose bytes were replaced.
func TestClusterReplayForged(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.DataDir = t.TempDir() })
	storeReady(t, s)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	obs, err := js.ObjectStore(t.Context(), cluster.ReplayBucket)
	if err != nil {
		t.Fatal(err)
	}
	genuine := finish(t, s, "lobby", 1)
	info, err := obs.GetInfo(t.Context(), genuine)
	if err != nil {
		t.Fatal(err)
	}
	f := recordedFile(t, "lobby", time.Now())
	f.Names = []string{"mallory", "mallory", "mallory"}
	forgedBytes, _ := replay.Marshal(f)
	var sum ReplayInfo
	json.Unmarshal([]byte(info.Metadata["webtron-summary"]), &sum)
	ms := time.Now().UnixMilli() - 1000
	unsigned := fmt.Sprintf("%d-1-lobby", ms)
	sum.ID = unsigned
	unsignedSum, _ := json.Marshal(sum)
	moved := fmt.Sprintf("%d-1-lobby", ms+1)
	for _, o := range []struct {
		name string
		meta map[string]string
		data []byte
	}{
		{unsigned, map[string]string{"webtron-summary": string(unsignedSum)}, forgedBytes},
		{moved, info.Metadata, forgedBytes},   // another round's signature
		{genuine, info.Metadata, forgedBytes}, // a signed round's bytes replaced
	} {
		if _, err := obs.Put(t.Context(), jetstream.ObjectMeta{Name: o.name, Metadata: o.meta}, bytes.NewReader(o.data)); err != nil {
			t.Fatal(err)
		}
	}
	later := finish(t, s, "lobby", 2) // the watch saw the forgeries before it
	if got := listedIDs(t, s); !slices.Equal(got, []string{later}) {
		t.Errorf("listed %v, want only %s", got, later)
	}
	for _, id := range []string{unsigned, moved, genuine} {
		if code, b := get(t, s.http()+"/api/replays/"+id); code != 404 {
			t.Errorf("forged %s: status %d, %d bytes", id, code, len(b))
		}
	}
	// A signed round whose chunks grew in the stream: listed (its
	// signature holds) but refused as damaged.
	info, err = obs.GetInfo(t.Context(), later)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(t.Context(), "$O."+cluster.ReplayBucket+".C."+info.NUID, []byte("more")); err != nil {
		t.Fatal(err)
	}
	if code, b := get(t, s.http()+"/api/replays/"+later); code != 422 || !strings.Contains(string(b), "not those stored") {
		t.Errorf("tampered %s: status %d, %q", later, code, b)
	}
	if n := s.store.rs.Forged.Load(); n < 4 {
		t.Errorf("%d forged objects counted, want 4 at least", n)
	}
}

// TestClusterReplaySpoolSkipsBadFile: a file in the replays directory that
// cannot be a replay (larger than any) stays there, and the rounds after it
// are stored all the same.
func TestClusterReplaySpoolSkipsBadFile(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.DataDir = t.TempDir() })
	storeReady(t, s)
	bad := filepath.Join(s.cfg.DataDir, replaysDir, "lobby", "1000-1"+replay.Ext)
	os.MkdirAll(filepath.Dir(bad), 0o755)
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bad, replay.MaxFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	finish(t, s, "lobby", 1)
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("the bad file: %v", err)
	}
}

// TestClusterReplayNameTaken: a round whose id another stored round has
// already (two nodes' rounds of one room in one millisecond) is stored
// under the next millisecond's, and neither replaces the other.
func TestClusterReplayNameTaken(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.DataDir = t.TempDir() })
	storeReady(t, s)
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	first := recordedFile(t, "lobby", t0)
	first.Names = []string{"first", "first", "first"}
	b, _ := replay.Marshal(first)
	id := fmt.Sprintf("%d-1-lobby", t0.UnixMilli())
	sum, _ := json.Marshal(ReplayInfo{ID: id, Room: "lobby", Round: 1})
	if err := s.store.rs.Put(t.Context(), id, b, sum); err != nil {
		t.Fatal(err)
	}
	if got := writeReplay(t, s.cfg.DataDir, recordedFile(t, "lobby", t0), false); got != id {
		t.Fatalf("spooled as %s, want %s", got, id)
	}
	s.store.poke()
	next := fmt.Sprintf("%d-1-lobby", t0.UnixMilli()+1)
	eventually(t, 10*time.Second, "both stored", func() bool { return s.store.idx.has(id) && s.store.idx.has(next) })
	for want, name := range map[string]string{id: "first", next: recordedFile(t, "lobby", t0).Names[0]} {
		code, got := get(t, s.http()+"/api/replays/"+want)
		f, err := replay.Unmarshal(got)
		if code != 200 || err != nil || f.Names[0] != name {
			t.Errorf("%s: status %d, %v", want, code, err)
		}
	}
}
