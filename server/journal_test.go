package server

import (
	"context"
	"testing"
	"time"

	"webtron/cluster"
	"webtron/headless"
	"webtron/history"
	"webtron/internal/natstest"
	"webtron/room"
)

// recoverRoom reads room's history back as another node would.
func recoverRoom(t *testing.T, url, name string) []*room.Entry {
	t.Helper()
	b, err := cluster.Start(cluster.Options{Name: "reader", PublicURL: "http://127.0.0.1:1", NATS: []string{url}, Replicas: 1, Secret: clusterSecret, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	<-b.Ready()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := b.Recover(ctx, name)
	if err != nil {
		t.Fatalf("recovering %s: %v", name, err)
	}
	var es []*room.Entry
	for _, r := range rec.Records {
		e, err := room.DecodeEntry(r)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	return es
}

// TestClusterRoomHistoryReplicated: a cluster node's room writes its
// history to the cluster as it is made: read back by another node, it
// starts with a base entry naming the room and holds every event the room
// has confirmed since; the players' proposals are timed to their
// broadcast, the history's acknowledgements to theirs. A room closed for
// good leaves no history to rebuild it from.
func TestClusterRoomHistoryReplicated(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.Bots = 3; c.EmptyRoomTTL = 200 * time.Millisecond })
	p := player(t, s.url, headless.Options{Name: "ann", Room: "j", BrakeEvery: 100 * time.Millisecond})
	drive(t, p)
	time.Sleep(2 * time.Second)
	var confirmed []history.TickEvent
	var conf int64
	s.inspect(t, "j", func(r *room.Room) {
		conf = r.Timeline().Confirmed().Tick()
		for _, te := range r.Timeline().Log.From(0) {
			if te.Tick < conf {
				confirmed = append(confirmed, te)
			}
		}
	})
	es := recoverRoom(t, url, "j")
	if es[0].Kind != room.EntryBase || es[0].Meta == nil || es[0].Meta.Name != "j" {
		t.Fatalf("history starts with %+v", es[0])
	}
	in := map[history.TickEvent]bool{}
	for _, e := range es {
		for _, te := range e.Events {
			in[te] = true
		}
	}
	n := 0
	for _, te := range confirmed {
		if te.Tick >= es[0].Tick {
			n++
			if !in[te] {
				t.Fatalf("confirmed event %+v at tick %d is not in the replicated history", te.Ev, te.Tick)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no confirmed event to look for (confirmed tick %d, base at %d)", conf, es[0].Tick)
	}
	if got := summaryCount(t, s, MetricDurableDelay); got == 0 {
		t.Fatal("no history acknowledgement timed")
	}
	if got := summaryCount(t, s, MetricProposalBroadcast); got == 0 {
		t.Fatal("no proposal timed to its broadcast")
	}

	// A spectator's room (a player's seat would wait for her 30 s) closes
	// when she leaves, for good.
	w := player(t, s.url, headless.Options{Name: "bob", Room: "k", Spectate: true})
	eventually(t, 5*time.Second, "room k open", func() bool { return s.hasRoom("k") })
	recoverRoom(t, url, "k")
	w.Close()
	eventually(t, 10*time.Second, "room closed", func() bool { return !s.hasRoom("k") })
	eventually(t, 10*time.Second, "history ended", func() bool {
		b, err := cluster.Start(cluster.Options{Name: "reader2", PublicURL: "http://127.0.0.1:1", NATS: []string{url}, Replicas: 1, Secret: clusterSecret, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		<-b.Ready()
		_, err = b.Recover(t.Context(), "k")
		return err == cluster.ErrNoHistory
	})
}

// summaryCount is how many observations a summary of s's metrics holds.
func summaryCount(t *testing.T, s *testServer, name string) uint64 {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetSummary().GetSampleCount()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
