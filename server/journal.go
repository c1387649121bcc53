package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"webtron/cluster"
	"webtron/room"
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
		if e, ok := rec.(*room.Entry); ok && e.Kind == room.EntryEvents {
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
