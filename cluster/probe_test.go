package cluster

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"webtron/internal/natstest"
)

// TestProbeFindsTheDeadAtOnce: a node whose connection to NATS is gone
// (as after kill -9) is taken for dead by a probe about as soon as its
// heartbeat is late, long before DeadAfter, and its rooms are Orphans
// (its private ones too, which its heartbeat names apart);
// a node that is only late (its heartbeats stalled, its process alive and
// listening) is not, until DeadAfter.
func TestProbeFindsTheDeadAtOnce(t *testing.T) {
	url := natstest.Start(t)
	start := func(name string) *Node {
		n, err := Start(Options{Name: name, PublicURL: "http://" + name + ":1", NATS: []string{url}, Replicas: 1,
			Secret: []byte("the-tests-cluster-secret-0123456789"), Heartbeat: 100 * time.Millisecond, DeadAfter: 10 * time.Second,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Status: func() NodeInfo {
				return NodeInfo{MaxPlayers: 100, MaxRooms: 10, Rooms: []RoomInfo{{Name: "room of " + name}}, Private: []string{"private of " + name}}
			}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	a, b, c := start("a"), start("b"), start("c")
	defer a.Close()
	defer c.Close()
	// a must have listened for DeadAfter before it tells the dead: start it
	// as if it had.
	a.reg.mu.Lock()
	a.reg.since = time.Now().Add(-time.Minute)
	a.reg.mu.Unlock()
	ob, oc := Owner{Node: "b", Incarnation: b.inc}, Owner{Node: "c", Incarnation: c.inc}
	deadline := time.Now().Add(5 * time.Second)
	for !a.Alive(ob) || !a.Alive(oc) {
		if time.Now().After(deadline) {
			t.Fatal("a does not hear b and c")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// c stalls: no heartbeats, but its connection still listens.
	c.stop()
	c.wg.Wait()
	// b dies: its connection goes without a goodbye.
	killed := time.Now()
	b.stop()
	b.wg.Wait()
	b.nc.Close()
	for a.Alive(ob) {
		if time.Since(killed) > 3*time.Second {
			t.Fatalf("b still taken for alive %v after its death (DeadAfter 10 s)", time.Since(killed))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("b taken for dead %v after its connection closed", time.Since(killed).Round(time.Millisecond))
	if got := a.Orphans(); len(got) != 2 || got[0] != "private of b" || got[1] != "room of b" {
		t.Fatalf("orphans %v, want b's two rooms", got)
	}
	if !a.Alive(oc) {
		t.Fatal("c, late but listening, taken for dead")
	}
}
