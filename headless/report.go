package headless

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"webtron/client"
	"webtron/internal/stats"
)

// Report is a swarm's result. JSON field names are a contract, like the
// lab's; Pairs uses the lab's structure.
type Report struct {
	URL            string             `json:"url"`
	Players        int                `json:"players"`
	Connected      int                `json:"connected"`
	Transports     map[string]int     `json:"transports"` // connected players by transport (websocket, webtransport)
	Failed         int                `json:"failed"`     // could not connect or was refused a Welcome
	Dropped        int                `json:"dropped"`    // ended by the server or the network during the run
	DurationS      float64            `json:"duration_s"`
	EventsSent     int64              `json:"events_sent"`
	EventsReceived int64              `json:"events_received"`
	Postponed      int64              `json:"postponed_events"`
	Refused        int64              `json:"refused_events"`
	Rollbacks      int64              `json:"rollbacks"`
	Desyncs        int64              `json:"desyncs"` // resyncs received
	ProtocolErrors int64              `json:"protocol_errors"`
	Lag            stats.Percentiles2 `json:"perceived_lag_ms"` // every sample of every pair
	// LagExcess is measured minus predicted perceived lag, in ms.
	LagExcess    Excess          `json:"lag_excess_ms"`
	Bandwidth    stats.Bandwidth `json:"bytes_per_second"` // per player, Welcome excluded
	WelcomeBytes WelcomeSize     `json:"welcome_bytes"`
	Errors       []string        `json:"errors,omitempty"` // the first few
	Names        []NameRow       `json:"names"`
	Pairs        []stats.PairRow `json:"pairs"`
}

// Excess is how far measured perceived lags ran past the predicted ones
// (each sample minus its pair's prediction at the end of the run), in ms.
type Excess = stats.Excess

// WelcomeSize is the size of the join snapshot message.
type WelcomeSize struct {
	P50 int `json:"p50"`
	Max int `json:"max"`
}

// NameRow maps a pair's ids (1..N, the order of the names) to players.
type NameRow struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	Room string `json:"room"`
	Slot int    `json:"slot"` // player id in the room
}

// Check returns an error when the run saw anything that must fail a load test.
func (r *Report) Check() error {
	if r.Desyncs > 0 || r.ProtocolErrors > 0 || r.Failed > 0 || r.Dropped > 0 {
		return fmt.Errorf("headless: %d desyncs, %d protocol errors, %d failed to connect, %d dropped",
			r.Desyncs, r.ProtocolErrors, r.Failed, r.Dropped)
	}
	return nil
}

// collect reads every session's numbers; the players are still connected.
func collect(o SwarmOptions, players []*Player, errs []error, dur time.Duration) *Report {
	r := &Report{URL: o.URL, Players: len(players), DurationS: dur.Seconds(), Transports: map[string]int{}}
	type key struct {
		room string
		slot int
	}
	ids := map[key]int{}
	infos := make([]client.Info, len(players))
	var all []time.Duration
	var ups, downs []float64
	var welcomes []int
	for i, p := range players {
		if p == nil {
			r.Failed++
			if len(r.Errors) < 10 && errs[i] != nil {
				r.Errors = append(r.Errors, errs[i].Error())
			}
			continue
		}
		r.Connected++
		r.Transports[p.Transport()]++
		if err := p.Err(); err != nil {
			r.Dropped++
			if len(r.Errors) < 10 {
				r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", p.opt.Name, err))
			}
		}
		var st client.Stats
		slot := -1
		p.Inspect(func(s *client.Session) {
			st, infos[i], slot = s.Stats(), s.Info(), s.You()
		})
		p.mu.Lock()
		welcome, elapsed := p.welcome, p.now()
		for _, v := range p.drv.Lags() {
			all = append(all, v...)
		}
		p.mu.Unlock()
		ids[key{p.opt.Room, slot}] = i + 1
		r.Names = append(r.Names, NameRow{ID: i + 1, Name: p.opt.Name, Room: p.opt.Room, Slot: slot})
		r.EventsSent += st.EventsSent
		r.EventsReceived += st.EventsReceived
		r.Postponed += st.Postponed
		r.Refused += st.Refused
		r.Rollbacks += st.Rollbacks
		r.Desyncs += st.Resyncs
		r.ProtocolErrors += st.ProtocolErrors
		welcomes = append(welcomes, welcome)
		if s := elapsed.Seconds(); s > 0 {
			ups = append(ups, float64(st.BytesOut)/s)
			downs = append(downs, float64(st.BytesIn-int64(welcome))/s)
		}
	}
	var excess []time.Duration
	for i, p := range players {
		if p == nil {
			continue
		}
		predicted := map[int]float64{}
		for _, pi := range infos[i].Players {
			predicted[pi.ID] = pi.PredictedLagMs
		}
		p.mu.Lock()
		for slot, v := range p.drv.Lags() {
			peer, ok := ids[key{p.opt.Room, slot}]
			if !ok || len(v) == 0 {
				continue // a server bot, or a player of another process
			}
			lag := stats.Summarize2(v)
			r.Pairs = append(r.Pairs, stats.PairRow{Viewer: i + 1, Peer: peer, Predicted: predicted[slot],
				P50: lag.P50, P95: lag.P95, Samples: len(v)})
			pred := time.Duration(predicted[slot] * float64(time.Millisecond))
			for _, d := range v {
				excess = append(excess, d-pred)
			}
			if pp := stats.Ms(stats.Percentile(v, 0.99) - pred); len(r.Pairs) == 1 || pp > r.LagExcess.WorstPairP99 {
				r.LagExcess.WorstPairP99 = pp
			}
		}
		p.mu.Unlock()
	}
	slices.SortFunc(r.Pairs, func(a, b stats.PairRow) int { return cmp.Or(a.Viewer-b.Viewer, a.Peer-b.Peer) })
	r.Lag = stats.Summarize2(all)
	r.LagExcess.P50, r.LagExcess.P99 = stats.Ms(stats.Percentile(excess, 0.5)), stats.Ms(stats.Percentile(excess, 0.99))
	r.Bandwidth = stats.Bandwidth{UpP50: stats.Median(ups), DownP50: stats.Median(downs)}
	if len(welcomes) > 0 {
		slices.Sort(welcomes)
		r.WelcomeBytes = WelcomeSize{P50: welcomes[len(welcomes)/2], Max: welcomes[len(welcomes)-1]}
	}
	return r
}

// Print writes the summary for people; pairs only when there are few.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "players %d  connected %d  failed %d  dropped %d  (%.1f s)  transports %v\n", r.Players, r.Connected, r.Failed, r.Dropped, r.DurationS, r.Transports)
	fmt.Fprintf(w, "events sent %d  received %d  postponed %d  refused %d  rollbacks %d\n",
		r.EventsSent, r.EventsReceived, r.Postponed, r.Refused, r.Rollbacks)
	fmt.Fprintf(w, "perceived lag p50 %.1f ms  p95 %.1f ms; over predicted: p50 %.1f ms  p99 %.1f ms  worst pair's p99 %.1f ms\n",
		r.Lag.P50, r.Lag.P95, r.LagExcess.P50, r.LagExcess.P99, r.LagExcess.WorstPairP99)
	fmt.Fprintf(w, "bandwidth per player: down %.0f B/s  up %.0f B/s  welcome %d B (max %d)\n",
		r.Bandwidth.DownP50, r.Bandwidth.UpP50, r.WelcomeBytes.P50, r.WelcomeBytes.Max)
	fmt.Fprintf(w, "desyncs %d  protocol errors %d\n", r.Desyncs, r.ProtocolErrors)
	if len(r.Pairs) > 0 && len(r.Pairs) <= 64 {
		fmt.Fprintln(w, "viewer  peer  predicted_ms  p50_ms  p95_ms  samples")
		for _, p := range r.Pairs {
			fmt.Fprintf(w, "%6d  %4d  %12.1f  %6.1f  %6.1f  %7d\n", p.Viewer, p.Peer, p.Predicted, p.P50, p.P95, p.Samples)
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintln(w, "error:", e)
	}
}
