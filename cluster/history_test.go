package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"webtron/cluster"
	"webtron/internal/natstest"
)

// rec is a test record: its text.
type rec string

func (r rec) AppendRecord(dst []byte) []byte { return append(dst, r...) }

func appendAll(t *testing.T, h *cluster.History, flags byte, recs ...string) uint64 {
	t.Helper()
	var n uint64
	for _, r := range recs {
		var ok bool
		if n, ok = h.Append(rec(r), flags); !ok {
			t.Fatalf("record %q refused", r)
		}
		flags = 0
	}
	return n
}

func waitDurable(t *testing.T, h *cluster.History, n uint64) {
	t.Helper()
	until(t, 10*time.Second, fmt.Sprintf("record %d durable", n), func() bool { return h.Durable() >= n })
}

func texts(rs [][]byte) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

func recovered(t *testing.T, n *cluster.Node, room string) cluster.Recovered {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := n.Recover(ctx, room)
	if err != nil {
		t.Fatalf("recovering %s: %v", room, err)
	}
	return r
}

// TestHistoryRoundTrip: a room's records come back in order from its last
// base record on, and a round start purges what came before it.
func TestHistoryRoundTrip(t *testing.T) {
	url := natstest.Start(t)
	a := startNode(t, url, "a", &lost{})
	h := a.OpenHistory("room one", cluster.Chain{})
	appendAll(t, h, cluster.Base|cluster.RoundStart, "start-1", "ev-1", "ev-2")
	n := appendAll(t, h, cluster.Base, "checkpoint", "ev-3")
	waitDurable(t, h, n)
	r := recovered(t, a, "room one")
	if got := fmt.Sprint(texts(r.Records)); got != "[checkpoint ev-3]" {
		t.Fatalf("recovered %s, want the records from the last base on", got)
	}
	n = appendAll(t, h, cluster.Base|cluster.RoundStart, "start-2", "ev-4")
	waitDurable(t, h, n)
	r = recovered(t, a, "room one")
	if got := fmt.Sprint(texts(r.Records)); got != "[start-2 ev-4]" {
		t.Fatalf("recovered %s after a round start", got)
	}
	until(t, 5*time.Second, "the older rounds purged", func() bool {
		st, err := jsOf(t, url).Stream(context.Background(), cluster.HistoryStream)
		if err != nil {
			return false
		}
		info, err := st.Info(context.Background())
		return err == nil && info.State.Msgs <= 2
	})

	// The room closes for good: nothing to rebuild it from.
	h.Close(true)
	<-h.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := a.Recover(ctx, "room one"); !errors.Is(err, cluster.ErrNoHistory) {
		t.Fatalf("a room closed for good recovers: %v", err)
	}
}

// TestHistoryFenced: the node that rebuilds a room continues its history;
// the writer that had it before finds the subject moved on and gives the
// room up (Lost), and its batches never enter the history.
func TestHistoryFenced(t *testing.T) {
	url := natstest.Start(t)
	a := startNode(t, url, "a", &lost{})
	b := startNode(t, url, "b", &lost{})
	ha := a.OpenHistory("r", cluster.Chain{})
	waitDurable(t, ha, appendAll(t, ha, cluster.Base, "base-a", "ev-a1"))

	r := recovered(t, b, "r")
	hb := b.OpenHistory("r", r.Chain)
	waitDurable(t, hb, appendAll(t, hb, cluster.Base, "base-b", "ev-b1"))

	appendAll(t, ha, 0, "ev-a2") // a does not know yet
	select {
	case <-ha.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the old writer was not fenced out")
	}
	r = recovered(t, b, "r")
	if got := fmt.Sprint(texts(r.Records)); got != "[base-b ev-b1]" {
		t.Fatalf("recovered %s, want b's continuation and none of a's late batch", got)
	}
	hb.Close(false)
}

// TestHistoryForgeryIgnored: whoever publishes on NATS without the cluster
// secret cannot add to a room's history: not an unsigned batch, not a
// signed batch of another room moved over, not an old batch of the room
// replayed. The writer steps over such messages and goes on.
func TestHistoryForgeryIgnored(t *testing.T) {
	url := natstest.Start(t)
	a := startNode(t, url, "a", &lost{})
	h := a.OpenHistory("victim", cluster.Chain{})
	waitDurable(t, h, appendAll(t, h, cluster.Base, "base", "ev-1"))
	other := a.OpenHistory("other", cluster.Chain{})
	waitDurable(t, other, appendAll(t, other, cluster.Base, "other-base", "other-ev"))

	js := jsOf(t, url)
	ctx := context.Background()
	st, err := js.Stream(ctx, cluster.HistoryStream)
	if err != nil {
		t.Fatal(err)
	}
	victim, err := st.GetLastMsgForSubject(ctx, subjectOf("victim"))
	if err != nil {
		t.Fatal(err)
	}
	oth, err := st.GetLastMsgForSubject(ctx, subjectOf("other"))
	if err != nil {
		t.Fatal(err)
	}
	// A stranger's batch: the victim's own bytes with another body; a
	// signed batch of another room; the victim's first batch again.
	forged := append([]byte(nil), victim.Data...)
	forged[len(forged)-1] ^= 1
	sig := func(m *jetstream.RawStreamMsg) nats.Header {
		return nats.Header{"Webtron-Sig": {m.Header.Get("Webtron-Sig")}}
	}
	for _, m := range []*nats.Msg{
		{Subject: victim.Subject, Data: forged, Header: sig(victim)},
		{Subject: victim.Subject, Data: oth.Data, Header: sig(oth)},
		{Subject: victim.Subject, Data: victim.Data, Header: sig(victim)},
	} {
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	waitDurable(t, h, appendAll(t, h, 0, "ev-2"))
	r := recovered(t, a, "victim")
	if got := fmt.Sprint(texts(r.Records)); got != "[base ev-1 ev-2]" {
		t.Fatalf("recovered %s: forged messages entered the history", got)
	}
	if r.Skipped != 3 {
		t.Fatalf("%d messages skipped, want the 3 forged", r.Skipped)
	}
	select {
	case <-h.Lost():
		t.Fatal("a forged message made the writer give the room up")
	default:
	}
	h.Close(false)
	other.Close(false)
}

func jsOf(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// subjectOf is room's subject in the history stream.
func subjectOf(room string) string { return "webtron.history." + key(room) }
