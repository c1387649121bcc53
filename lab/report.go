package lab

import (
	"fmt"
	"io"
	"slices"
	"time"

	"webtron/clock"
	"webtron/internal/stats"
)

// Report is the lab's result. JSON field names are a contract: tools read them.
type Report struct {
	TickRate    int64        `json:"tick_rate"`
	CharityMs   float64      `json:"charity_ms"`
	CharityMode string       `json:"charity_mode"`
	CharityRule string       `json:"charity_rule"`
	MindReader  bool         `json:"mind_reader"`
	DurationS   float64      `json:"duration_s"`
	Players     []PlayerRow  `json:"players"`
	Pairs       []PairRow    `json:"pairs"`
	Input       Percentiles3 `json:"input_latency_ms"`
	TurnInput   Percentiles3 `json:"turn_input_latency_ms"` // the turns alone: they carry their instant within the tick
	Rollback    Percentiles2 `json:"server_rollback_ms"`
	Events      int64        `json:"events"`
	Postponed   int64        `json:"postponed_events"`
	Refused     int64        `json:"refused_events"`
	Desyncs     int64        `json:"desyncs"`
	Resyncs     int64        `json:"resyncs"`
	Lost        int64        `json:"lost_events"`
	// LagExcess is every perceived-lag sample minus its pair's prediction.
	LagExcess stats.Excess `json:"lag_excess_ms"`
	Bandwidth Bandwidth    `json:"bytes_per_second"`
	Rounds    int64        `json:"rounds"`
}

// PlayerRow is one client: its RTT, and the lead and leniency the server gave it.
type PlayerRow struct {
	ID         int     `json:"id"`
	RTTMs      float64 `json:"rtt_ms"`
	LeadMs     float64 `json:"lead_ms"`
	LeniencyMs float64 `json:"leniency_ms"`
}

// The report's rows are the ones every measuring tool shares (package
// stats), so the headless players' report reads like the lab's.
type (
	// PairRow is U_viewer(peer), predicted and measured.
	PairRow = stats.PairRow
	// Percentiles3 are p05, p50 and p95 in milliseconds.
	Percentiles3 = stats.Percentiles3
	// Percentiles2 are p50 and p95 in milliseconds.
	Percentiles2 = stats.Percentiles2
	// Bandwidth is bytes per second per client, median over clients.
	Bandwidth = stats.Bandwidth
)

func (x *experiment) report() *Report {
	o := x.opt
	r := &Report{TickRate: o.TickRate, CharityRule: ruleName(o.Rule), MindReader: o.MindReader, DurationS: o.Duration.Seconds()}
	r.CharityMode = o.Charity.String()
	// Published state per client: the roster the server would send now.
	leads := map[int]time.Duration{}
	ones := map[int]time.Duration{}
	slotToID := map[int]int{}
	var inputs, turns []time.Duration
	var ups, downs []float64
	secs := x.net.Now().Seconds()
	for _, p := range x.players {
		if p.sess == nil || p.sess.You() < 0 {
			continue
		}
		slotToID[p.sess.You()] = p.id
		inputs = append(inputs, p.inputs...)
		turns = append(turns, p.turns...)
		st := x.net.Stats(x.server, p.node)
		downs = append(downs, float64(st.Sent.Bytes)/secs)
		ups = append(ups, float64(p.up)/secs)
		r.Resyncs += p.sess.Stats().Resyncs
	}
	ro := x.room.RosterNow()
	for _, pl := range ro.Players {
		id, ok := slotToID[int(pl.ID)]
		if !ok || pl.Spectator {
			continue
		}
		ones[id] = time.Duration(pl.Latency) * time.Microsecond
		leads[id] = time.Duration(pl.Lead) * time.Microsecond
		r.Players = append(r.Players, PlayerRow{ID: id, RTTMs: stats.Ms(o.Pings[id-1]), LeadMs: stats.Ms(leads[id]),
			LeniencyMs: stats.Ms(time.Duration(pl.Leniency) * time.Microsecond)})
	}
	slices.SortFunc(r.Players, func(a, b PlayerRow) int { return a.ID - b.ID })
	if c := o.Charity; c.Auto || c.Fixed > 0 {
		r.CharityMs = stats.Ms(c.Amount(minOf(ones), maxOf(ones), max(o.CharityCap, 0)))
		if o.CharityCap == 0 {
			r.CharityMs = stats.Ms(c.Amount(minOf(ones), maxOf(ones), clock.DefaultCharityCap))
		}
	}
	extra, queue := time.Duration(0), time.Duration(0)
	if o.MindReader {
		// Backdated events are tagged at the real key press, which the core
		// saw QueueLatency later: the viewer sees that much more lag.
		extra, queue = x.dt+o.QueueLatency, o.QueueLatency
	}
	var excess []time.Duration
	for _, p := range x.players {
		if p.sess == nil {
			continue
		}
		for slot, v := range p.drv.Lags() {
			peer, ok := slotToID[slot]
			if !ok {
				continue
			}
			// U_viewer(peer) = o_peer + o_viewer + L_viewer - L_peer with the
			// leads the clients really run at: the server's target plus the
			// mind reader's extra (section 4), the same for every lab client.
			pred := ones[peer] + ones[p.id] + (leads[p.id] + extra) - (leads[peer] + extra) + queue
			lag := stats.Summarize2(v)
			for _, d := range v {
				excess = append(excess, d-pred)
			}
			if pp := stats.Ms(stats.Percentile(v, 0.99) - pred); len(r.Pairs) == 0 || pp > r.LagExcess.WorstPairP99 {
				r.LagExcess.WorstPairP99 = pp
			}
			r.Pairs = append(r.Pairs, PairRow{Viewer: p.id, Peer: peer, Predicted: stats.Ms(pred), P50: lag.P50, P95: lag.P95, Samples: len(v)})
		}
	}
	slices.SortFunc(r.Pairs, func(a, b PairRow) int {
		if a.Viewer != b.Viewer {
			return a.Viewer - b.Viewer
		}
		return a.Peer - b.Peer
	})
	r.LagExcess.P50, r.LagExcess.P99 = stats.Ms(stats.Percentile(excess, 0.5)), stats.Ms(stats.Percentile(excess, 0.99))
	r.Input, r.TurnInput = percentiles3(inputs), percentiles3(turns)
	var rb []time.Duration
	for _, d := range x.room.Stats.RollbackTicks {
		rb = append(rb, time.Duration(d)*x.dt)
	}
	r.Rollback = stats.Summarize2(rb)
	r.Events, r.Postponed, r.Refused, r.Desyncs = x.room.Stats.Events, x.room.Stats.Postponed, x.room.Stats.Refused, x.room.Stats.Desyncs
	r.Lost = x.lost()
	r.Bandwidth = Bandwidth{UpP50: stats.Median(ups), DownP50: stats.Median(downs)}
	r.Rounds = x.rounds
	return r
}

// lost counts events a client proposed that the server never decided on
// (accepted, postponed or refused): with retransmission, none should be.
func (x *experiment) lost() int64 {
	var sent int64
	for _, p := range x.players {
		if p.sess != nil {
			sent += p.sess.Stats().EventsSent
		}
	}
	return sent - x.room.Stats.Events - x.room.Stats.Refused
}

func minOf(m map[int]time.Duration) time.Duration {
	first := true
	var v time.Duration
	for _, d := range m {
		if first || d < v {
			v, first = d, false
		}
	}
	return v
}

func maxOf(m map[int]time.Duration) time.Duration {
	var v time.Duration
	for _, d := range m {
		v = max(v, d)
	}
	return v
}

// Print writes the report as tables.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "tick rate %d Hz, charity %s (%.1f ms), rule %s, mind reader %v, %.0f s\n\n",
		r.TickRate, r.CharityMode, r.CharityMs, r.CharityRule, r.MindReader, r.DurationS)
	fmt.Fprintf(w, "%-6s %8s %8s %12s\n", "player", "rtt ms", "lead ms", "leniency ms")
	for _, p := range r.Players {
		fmt.Fprintf(w, "%-6d %8.1f %8.1f %12.1f\n", p.ID, p.RTTMs, p.LeadMs, p.LeniencyMs)
	}
	fmt.Fprintf(w, "\nperceived lag U_viewer(peer), ms\n%-6s %-6s %10s %10s %10s %8s\n", "viewer", "peer", "predicted", "p50", "p95", "samples")
	for _, p := range r.Pairs {
		fmt.Fprintf(w, "%-6d %-6d %10.1f %10.1f %10.1f %8d\n", p.Viewer, p.Peer, p.Predicted, p.P50, p.P95, p.Samples)
	}
	fmt.Fprintf(w, "over predicted: p50 %.1f ms  p99 %.1f ms  worst pair's p99 %.1f ms\n",
		r.LagExcess.P50, r.LagExcess.P99, r.LagExcess.WorstPairP99)
	fmt.Fprintf(w, "\ninput latency ms: p05 %.1f  p50 %.1f  p95 %.1f\n", r.Input.P05, r.Input.P50, r.Input.P95)
	fmt.Fprintf(w, "turns alone: p05 %.2f  p50 %.2f  p95 %.2f\n", r.TurnInput.P05, r.TurnInput.P50, r.TurnInput.P95)
	fmt.Fprintf(w, "server rollback ms: p50 %.1f  p95 %.1f\n", r.Rollback.P50, r.Rollback.P95)
	fmt.Fprintf(w, "events %d  postponed %d  refused %d  lost %d  desyncs %d  resyncs %d  rounds %d\n",
		r.Events, r.Postponed, r.Refused, r.Lost, r.Desyncs, r.Resyncs, r.Rounds)
	fmt.Fprintf(w, "bytes/s per client: up %.0f  down %.0f\n", r.Bandwidth.UpP50, r.Bandwidth.DownP50)
}

// percentiles3 summarizes latencies in milliseconds.
func percentiles3(v []time.Duration) Percentiles3 {
	return Percentiles3{P05: stats.Ms(stats.Percentile(v, 0.05)), P50: stats.Ms(stats.Percentile(v, 0.5)), P95: stats.Ms(stats.Percentile(v, 0.95))}
}
