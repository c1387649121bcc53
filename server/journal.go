package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"webtron/cluster"
	"webtron/room"
	"webtron/sim"
)

// A cluster node writes each room's journal (room/journal.go) to the
// cluster's history stream (cluster/history.go), so that another node can
// carry the room's round on when this one dies (issue 26).

// roomJournal is a room's room.Journal on the cluster: the room's entries
// go to its History writer, never waiting.
type roomJournal struct {
	h *cluster.History
}

// Append hands e to the writer (room.Journal).
func (j roomJournal) Append(e *room.Entry) (uint64, bool) {
	var flags byte
	if e.Kind == room.EntryBase {
		flags = cluster.Base
		if e.RoundStart {
			flags |= cluster.RoundStart
		}
	}
	return j.h.Append(e, flags)
}

// Durable returns the newest entry made durable (room.Journal).
func (j roomJournal) Durable() uint64 { return j.h.Durable() }

// openJournal gives a room about to be made on this cluster node its
// journal, continuing chain (the zero Chain for a new room). Without a
// cluster, or with Config.EphemeralRooms, a room has none.
func (s *Server) openJournal(h *roomHost, cfg *room.Config, chain cluster.Chain) {
	if s.cl == nil || s.cfg.EphemeralRooms {
		return
	}
	h.hist = s.cl.node.OpenHistory(h.name, chain)
	m := s.metrics
	h.hist.OnDurable = func(rec cluster.Encoder, queued time.Time) {
		if e, ok := rec.(*room.Entry); ok && e.Kind != room.EntryBase && len(e.Events) > 0 {
			m.durableDelay.Observe(time.Since(queued).Seconds())
		}
	}
	cfg.Journal = roomJournal{h.hist}
	cfg.EpochWall = time.Now().Add(-(s.now() - h.epoch)).UnixNano()
}

// closeJournal stops the room's writer once it has written what is
// queued; a room over for good (not lost to another node) ends its
// history, so that nobody rebuilds it.
func (h *roomHost) closeJournal() {
	if h.hist != nil {
		h.hist.Close(!h.moved)
	}
}

// lostJournal is the room's writer's word that another node continued the
// room's history: it closes the room here, as a lost lease does.
func (h *roomHost) lostJournal() <-chan struct{} {
	if h.hist == nil {
		return nil
	}
	return h.hist.Lost()
}

// ackedJournal wakes a write-ahead room when its journal made records
// durable, to send what waited for them.
func (h *roomHost) ackedJournal() <-chan struct{} {
	if h.hist == nil || !h.srv.cfg.WriteAhead {
		return nil
	}
	return h.hist.Acked()
}

// heldOut is one iteration's output, held until the journal has made
// durable every record the room had written by then (write-ahead).
type heldOut struct {
	n       uint64 // the journal's newest record then
	at      time.Duration
	conns   []*conn
	batches [][][]byte
	props   []time.Duration // arrivals of the proposals it answers
}

// maxHeld bounds how long output waits for the journal, as room's maxHold
// bounds finality's wait: a stream that cannot write for seconds must not
// freeze every room.
const maxHeld = time.Second

// hold, for a write-ahead room, holds this iteration's output when
// anything the room wrote is not yet durable (or older output still
// waits), then sends what is durable by now; it reports whether it took
// the output.
func (h *roomHost) hold() bool {
	if h.hist == nil || !h.srv.cfg.WriteAhead {
		return false
	}
	n := h.hist.Appended()
	if len(h.held) == 0 && n <= h.hist.Durable() {
		return false
	}
	o := heldOut{n: n, at: h.srv.now(), props: append([]time.Duration(nil), h.props...)}
	h.props = h.props[:0]
	for _, c := range h.touched {
		if len(c.pend) > 0 {
			o.conns, o.batches = append(o.conns, c), append(o.batches, c.pend)
			c.pend = nil
		}
	}
	clear(h.touched)
	h.touched = h.touched[:0]
	if len(o.conns) > 0 || len(o.props) > 0 {
		h.held = append(h.held, o)
	}
	h.release()
	return true
}

// release sends the held output that is durable now (or has waited
// maxHeld), in order, and times the proposals it answers.
func (h *roomHost) release() {
	d, now := h.hist.Durable(), h.srv.now()
	k := 0
	for ; k < len(h.held) && (h.held[k].n <= d || now-h.held[k].at >= maxHeld); k++ {
		o := &h.held[k]
		for i, c := range o.conns {
			if !c.enqueue(o.batches[i]) {
				h.dropped = append(h.dropped, c)
			}
		}
		for _, at := range o.props {
			h.srv.metrics.proposalBroadcast.Observe((now - at).Seconds())
		}
	}
	h.held = append(h.held[:0], h.held[k:]...)
}

// resumeWithin bounds the age of a history a node carries on: a room whose
// history was last written longer ago is over (its node died long ago and
// nobody came back), and a join opens it afresh.
const resumeWithin = 20 * time.Second

// roomLocks serializes the resumption of one room on this node.
type roomLocks struct {
	mu   sync.Mutex
	busy map[string]chan struct{}
}

func (l *roomLocks) lock(name string) func() {
	for {
		l.mu.Lock()
		if l.busy == nil {
			l.busy = map[string]chan struct{}{}
		}
		wait, ok := l.busy[name]
		if !ok {
			ch := make(chan struct{})
			l.busy[name] = ch
			l.mu.Unlock()
			return func() {
				l.mu.Lock()
				delete(l.busy, name)
				l.mu.Unlock()
				close(ch)
			}
		}
		l.mu.Unlock()
		<-wait
	}
}

// resume opens room name here from its replicated history, when it has a
// recent one: the round the node that died was playing goes on here, at
// the present tick, its humans' seats held for their reconnect tokens. It
// is called once this node holds the room's lease, before a join attaches
// to the room and when this node takes a dead node's room over
// (takeOrphans). It reports fresh when the room has no history to go on
// from (none, one too old, or one that does not rebuild the room): only
// then may a join open it afresh (attachOrOpen); else the room is open
// here (now or already) or the server is closing. It returns an error
// when the history could not be read (a stream electing a leader after
// its leader's node died): the room must not open afresh then, which
// would end the round the history holds; the join tries again.
func (g *clusterNode) resume(name string) (fresh bool, err error) {
	s := g.s
	if s.cfg.EphemeralRooms {
		return true, nil
	}
	if s.hasRoom(name) {
		return false, nil
	}
	defer g.resuming.lock(name)()
	if s.hasRoom(name) {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rec, err := g.node.Recover(ctx, name)
	if errors.Is(err, cluster.ErrNoHistory) {
		return true, nil
	}
	if err != nil {
		s.log.Warn("cluster: cannot read a room's history yet", "room", name, "err", err)
		return false, err
	}
	if age := time.Since(rec.Written); age > resumeWithin {
		s.log.Info("cluster: a room's history is too old to carry on; opening it afresh", "room", name, "age", age.Round(time.Second))
		return true, nil
	}
	entries := make([]*room.Entry, 0, len(rec.Records))
	for _, b := range rec.Records {
		e, err := room.DecodeEntry(b)
		if err != nil {
			s.log.Error("cluster: a room's history does not decode; opening it afresh", "room", name, "err", err)
			return true, nil
		}
		entries = append(entries, e)
	}
	h, err := restoreRoomHost(s, name, entries, rec.Chain)
	if errors.Is(err, room.ErrRules) {
		// A build of other rules wrote it (a rolling upgrade that changed
		// the simulation): its round replayed here would not be the one
		// its players saw.
		var rules int
		if m := entries[0].Meta; m != nil {
			rules = m.Rules
		}
		s.log.Warn("cluster: a room's history was played under other rules (sim.RulesVersion); a round cannot go on under others: opening it afresh",
			"room", name, "its_rules", rules, "rules", sim.RulesVersion)
		return true, nil
	}
	if err != nil {
		s.log.Error("cluster: cannot rebuild a room from its history; opening it afresh", "room", name, "err", err)
		return true, nil
	}
	s.mu.Lock()
	if s.closing || s.rooms[name] != nil {
		s.mu.Unlock()
		h.moved = true
		h.closeJournal()
		return false, nil
	}
	s.rooms[name] = h
	s.roomWG.Add(1)
	go func() {
		defer s.roomWG.Done()
		h.run()
	}()
	s.mu.Unlock()
	s.roomsChanged() // a room carried on here: the others hear of it at once
	g.resumed.Add(1)
	s.log.Info("cluster: room carried on from its history", "room", name, "entries", len(entries), "tick", h.room.Now(),
		"written_ago", time.Since(rec.Written).Round(time.Millisecond), "private", h.private, "bot_skill", h.room.BotSkill())
	return false, nil
}

// takeOrphans carries on the rooms of the nodes that died: each room is
// taken first by the live node of rank 0 (cluster.Node.Rank), by the next
// a second later if it has not, and so on; the lease decides (Claim,
// compare-and-set), the history fences whoever lost.
func (g *clusterNode) takeOrphans() {
	s, node := g.s, g.node
	if s.cfg.EphemeralRooms || g.draining.Load() {
		return
	}
	orphans := node.Orphans()
	now := time.Now()
	for name := range g.orphanSince {
		if !slices.Contains(orphans, name) {
			delete(g.orphanSince, name)
		}
	}
	for _, name := range orphans {
		// Practice rooms too (the dead node's heartbeat named them
		// apart): rebuilt from the history, still private, its bots of
		// the same skill (room.Meta), its player's seat held for its token.
		if s.hasRoom(name) {
			continue
		}
		since, ok := g.orphanSince[name]
		if !ok {
			since = now
			g.orphanSince[name] = now
		}
		if now.Sub(since) < time.Duration(node.Rank(name))*time.Second {
			continue
		}
		if !g.taking.start(name) {
			continue
		}
		g.takers.Add(1)
		go func() {
			defer g.takers.Done()
			defer g.taking.done(name)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			owner, err := node.Acquire(ctx, name)
			cancel()
			if err != nil || owner.Node != node.Name() || owner.Incarnation != node.Incarnation() {
				return // carried on elsewhere, or to try again
			}
			g.resume(name)
		}()
	}
}

// inFlight is a set of rooms being taken over: each on a goroutine of its
// own, so that one stalled read does not hold the others back.
type inFlight struct {
	mu    sync.Mutex
	rooms map[string]bool
}

func (f *inFlight) start(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rooms == nil {
		f.rooms = map[string]bool{}
	}
	if f.rooms[name] {
		return false
	}
	f.rooms[name] = true
	return true
}

func (f *inFlight) done(name string) {
	f.mu.Lock()
	delete(f.rooms, name)
	f.mu.Unlock()
}

// Journal metric names.
const (
	MetricProposalBroadcast = "webtron_proposal_broadcast_seconds"
	MetricDurableDelay      = "webtron_history_durable_seconds"
)

// quantiles are what the two summaries below report: the median and p99
// that docs/performance.md quotes.
var quantiles = map[float64]float64{0.5: 0.005, 0.9: 0.005, 0.99: 0.001}

func newDelaySummaries() (proposal, durable prometheus.Summary) {
	return prometheus.NewSummary(prometheus.SummaryOpts{Name: MetricProposalBroadcast, Objectives: quantiles,
			Help: "Time from a proposal's arrival at the server to the broadcast of its decision (handed to the connections' writers)."}),
		prometheus.NewSummary(prometheus.SummaryOpts{Name: MetricDurableDelay, Objectives: quantiles,
			Help: "Time from a batch of accepted events' hand-over to the room's journal writer to its acknowledgement by the history stream's replicas: what a write-ahead room (--write-ahead) waits before it sends (docs/netcode.md, section 8)."})
}
