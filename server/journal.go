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
			Help: "Time from a batch of accepted events' hand-over to the room's journal writer to its acknowledgement by the history stream's replicas: what a write-ahead broadcast would wait (docs/netcode.md, section 8)."})
}
