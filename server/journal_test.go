package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"webtron/client"
	"webtron/cluster"
	"webtron/headless"
	"webtron/history"
	"webtron/internal/natstest"
	"webtron/room"
	"webtron/sim"
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

// TestClusterWriteAhead: with Config.WriteAhead a room sends nothing (no
// broadcast, no heartbeat) that follows a record of its history not yet
// stored by the cluster; when the stream cannot store (here: sealed), the
// room's output waits, then goes out maxHeld late rather than never.
// Broadcast first (the default) keeps sending meanwhile.
func TestClusterWriteAhead(t *testing.T) {
	for _, wa := range []bool{true, false} {
		url := natstest.Start(t)
		s := clusterServer(t, url, func(c *Config) { c.Bots = 3; c.WriteAhead = wa })
		p := player(t, s.url, headless.Options{Name: "ann", Room: "wa", BrakeEvery: 100 * time.Millisecond})
		drive(t, p)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := p.WaitWelcome(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		bytesIn := func() int64 {
			var n int64
			p.Inspect(func(s *client.Session) { n = s.Stats().BytesIn })
			return n
		}
		time.Sleep(500 * time.Millisecond)
		if got := summaryCount(t, s, MetricProposalBroadcast); wa && got == 0 {
			t.Fatal("write-ahead: no proposal answered once its history was stored")
		}
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := jetstream.New(nc)
		st, err := js.Stream(context.Background(), cluster.HistoryStream)
		if err != nil {
			t.Fatal(err)
		}
		cfg := st.CachedInfo().Config
		cfg.Sealed = true // it takes no more writes
		if _, err := js.UpdateStream(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		nc.Close()
		time.Sleep(150 * time.Millisecond) // what was on its way
		before := bytesIn()
		time.Sleep(maxHeld / 2)
		if held := bytesIn() == before; held != wa {
			t.Fatalf("write-ahead %v: output held while the history could not be stored: %v", wa, held)
		}
		eventually(t, 3*maxHeld, "output sent at last", func() bool { return bytesIn() > before })
		if err := p.Err(); err != nil {
			t.Fatalf("write-ahead %v: %v", wa, err)
		}
	}
}

// TestClusterOtherRulesOpenAfresh: a room's history written under other
// rules (sim.RulesVersion: a build before a change of the simulation) is
// not carried on, since its round cannot be replayed under these; the join
// does not fail either: the room opens afresh, and the log says why.
func TestClusterOtherRulesOpenAfresh(t *testing.T) {
	url := natstest.Start(t)
	var log lockedBuffer
	s := clusterServer(t, url, func(c *Config) { c.Bots = 1; c.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	drive(t, player(t, s.url, headless.Options{Name: "ann", Room: "r"}))
	time.Sleep(time.Second) // its history written
	es := recoverRoom(t, url, "r")
	for _, e := range es {
		if e.Meta != nil {
			e.Meta.Name, e.Meta.Rules = "old", sim.RulesVersion-1
		}
	}
	// A node of the older build played room "old" and died, its history
	// recent enough to carry on.
	w, err := cluster.Start(cluster.Options{Name: "w", PublicURL: "http://127.0.0.1:1", NATS: []string{url}, Replicas: 1, Secret: clusterSecret, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	<-w.Ready()
	h := w.OpenHistory("old", cluster.Chain{})
	for _, e := range es {
		var flags byte
		if e.Kind == room.EntryBase {
			flags = cluster.Base
			if e.RoundStart {
				flags |= cluster.RoundStart
			}
		}
		h.Append(e, flags)
	}
	h.Close(false)
	<-h.Done()
	w.Close()

	drive(t, player(t, s.url, headless.Options{Name: "bob", Room: "old"}))
	if n := s.cl.resumed.Load(); n != 0 {
		t.Fatalf("%d rooms carried on from their history, want none", n)
	}
	var humans int
	s.inspect(t, "old", func(r *room.Room) { humans, _ = r.Humans() })
	if humans != 1 {
		t.Fatalf("room old has %d humans, want bob alone (a fresh room: ann's seat not held)", humans)
	}
	want := fmt.Sprintf(`msg="cluster: a room's history was played under other rules (sim.RulesVersion); a round cannot go on under others: opening it afresh" room=old its_rules=%d rules=%d`, sim.RulesVersion-1, sim.RulesVersion)
	if !strings.Contains(log.String(), want) {
		t.Fatalf("the log does not say %s:\n%s", want, log.String())
	}
}

// TestClusterJoinOpensNoHistoryAfresh: a join that found its room open
// here and reaches it only once the room has closed (its history continued
// by another writer, or its lease lost: evict) must not open the room
// afresh: a fresh room knows none of the round's tokens (its players came
// back in other seats, of a new round) and its history, new, supersedes
// the one the round goes on from. The join is told to try again, and the
// next one carries the room on from its history, the player in her seat.
func TestClusterJoinOpensNoHistoryAfresh(t *testing.T) {
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.Bots = 3 })
	p := player(t, s.url, headless.Options{Name: "ann", Room: "h"})
	drive(t, p)
	seat, round, match := riding(t, p)
	var token []byte
	p.Inspect(func(cs *client.Session) { token = cs.Token() })
	s.mu.Lock()
	old := s.rooms["h"]
	s.mu.Unlock()
	// The room closes here; a join that saw it open (clusterNode.join's
	// first test) reaches attach only now.
	s.evict("h", reasonMoved)
	old.waitWritten(5 * time.Second)
	c := newConn(s.Server, nil, nil)
	if h, why := s.attach(c, "h"); h != nil {
		t.Fatal("a join that reached room h once it had closed opened it afresh: a room without the round's seats, whose history supersedes the round's")
	} else if why != &reasonBusy {
		t.Fatalf("a join that reached room h once it had closed: %v, want to try again (%v)", why, reasonBusy)
	}
	backInSeat(t, s, "h", token, seat, round, match)
}
