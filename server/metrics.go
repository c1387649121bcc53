package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus series, on a registry of its own so
// that several servers (tests) never collide in the global one.
type metrics struct {
	reg *prometheus.Registry
	// proposalBroadcast and durableDelay: a proposal's way to its
	// broadcast, and a journal's acknowledgement (journal.go).
	proposalBroadcast, durableDelay prometheus.Summary
	tickDuration                    prometheus.Histogram
	tickLateness                    prometheus.Histogram
	rollback                        prometheus.Histogram
	events                          *prometheus.CounterVec
	desyncs                         prometheus.Counter
	roomPanics                      prometheus.Counter
	bytesIn                         prometheus.Counter
	bytesOut                        prometheus.Counter
	disconnects                     *prometheus.CounterVec
	rounds                          prometheus.Counter
	replays                         *prometheus.CounterVec
	conns                           *prometheus.CounterVec // connections opened, by transport
	datagrams                       *prometheus.CounterVec // WebTransport datagrams sent, received, lost, resent
	quicRefused                     *prometheus.CounterVec // QUIC connections refused, by reason (quicGate)
	// Reports from pages (clienterror.go): by kind, and those past the limits.
	clientErrors        *prometheus.CounterVec
	clientErrorsLimited prometheus.Counter
}

// Metric names, for dashboards and for the load test that reads them back.
const (
	MetricRooms        = "webtron_rooms"
	MetricPlayers      = "webtron_players"
	MetricConnections  = "webtron_connections"
	MetricHTTPConns    = "webtron_http_connections"
	MetricTickDuration = "webtron_tick_duration_seconds"
	MetricTickLateness = "webtron_tick_lateness_seconds"
	MetricRollback     = "webtron_rollback_ticks"
	MetricEvents       = "webtron_events_total"
	MetricDesyncs      = "webtron_desyncs_total"
	MetricRoomPanics   = "webtron_room_panics_total"
	MetricBytes        = "webtron_bytes_total"
	MetricDisconnects  = "webtron_disconnects_total"
	MetricRounds       = "webtron_rounds_total"
	MetricReplays      = "webtron_replays_total"
	MetricConnsOpened  = "webtron_connections_opened_total"
	MetricDatagrams    = "webtron_datagrams_total"
	MetricQUICConns    = "webtron_quic_connections"
	MetricQUICRefused  = "webtron_quic_refused_total"
	MetricClientErrors = "webtron_client_errors_total"
	MetricErrsLimited  = "webtron_client_errors_limited_total"
)

func newMetrics(s *Server) *metrics {
	reg := prometheus.NewRegistry()
	// The scheduler's latencies (go_sched_latencies_seconds: time goroutines
	// waited to run) tell Go's queueing apart from the kernel's when ticks
	// run late.
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsGC, collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Tick work is tens to hundreds of microseconds; lateness is scheduling
	// noise of a millisecond or so, and trouble beyond a tick (8.3 ms at 120 Hz).
	fine := prometheus.ExponentialBuckets(25e-6, 2, 14) // 25 µs .. 0.2 s
	// Lateness has bounds an operator asks about: the 5 ms target and one
	// tick at 120 Hz (8.33 ms).
	lateness := []float64{1e-4, 2.5e-4, 5e-4, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6.5e-3, 8.33e-3, 12.5e-3, 25e-3, 50e-3, 0.1, 0.2}
	m := &metrics{
		reg: reg,
		tickDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricTickDuration,
			Help: "Time a room spends in one Tick call.", Buckets: fine}),
		tickLateness: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricTickLateness,
			Help: "How late a room processed a tick versus its nominal time.", Buckets: lateness}),
		rollback: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricRollback,
			Help: "Server rollback depth in ticks per late accepted event.", Buckets: []float64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48}}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricEvents,
			Help: "Proposed events by decision: accepted (every one that lands, postponed ones included), postponed, refused."}, []string{"result"}),
		desyncs: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricDesyncs,
			Help: "Client hash reports that differed from the server's confirmed hash."}),
		roomPanics: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricRoomPanics,
			Help: "Rooms closed because they could not go on: a panic on their goroutine or a failed tick (each logged with its cause and a dump under crashes/)."}),
		bytesIn: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricBytes,
			Help: "WebSocket message payload bytes.", ConstLabels: prometheus.Labels{"direction": "in"}}),
		bytesOut: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricBytes,
			Help: "WebSocket message payload bytes.", ConstLabels: prometheus.Labels{"direction": "out"}}),
		disconnects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricDisconnects,
			Help: "Connections ended, by reason."}, []string{"reason"}),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricRounds,
			Help: "Rounds finished (and handed to the replay writer)."}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricReplays,
			Help: "Replay and desync files by outcome: written, failed, dropped (writer behind), pruned (old); in a cluster, stored (put into the cluster's replay store)."}, []string{"result"}),
	}
	m.conns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricConnsOpened,
		Help: "Connections opened, by transport (websocket, webtransport)."}, []string{"transport"})
	m.datagrams = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricDatagrams,
		Help: "WebTransport datagrams: sent, received; lost (QUIC packets the server declared lost); resent (broadcasts sent again: on a client's request, or as a second copy on a path that loses packets)."}, []string{"event"})
	m.quicRefused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricQUICRefused,
		Help: "QUIC connection attempts (WebTransport's) refused before their handshake, by the Initial packets refused (a client's first flight may be two): addr (--max-conns-per-addr from one address), total (--max-players in all)."}, []string{"reason"})
	for _, r := range []string{"addr", "total"} {
		m.quicRefused.WithLabelValues(r)
	}
	m.clientErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricClientErrors,
		Help: "Errors pages reported (POST /api/client-error), by kind: exception (uncaught on the page), worker (uncaught in the core's worker), panic (the wasm core panicked or stopped), load (the core did not load), webgl (no WebGL, or the WebGL renderer failed: the game cannot be drawn)."}, []string{"kind"})
	for _, k := range clientErrorKinds {
		m.clientErrors.WithLabelValues(k)
	}
	m.clientErrorsLimited = prometheus.NewCounter(prometheus.CounterOpts{Name: MetricErrsLimited,
		Help: "Error reports refused for coming too often (from one address, or from all), neither counted by kind nor logged."})
	for _, t := range []string{"websocket", "webtransport"} {
		m.conns.WithLabelValues(t)
	}
	for _, e := range []string{"sent", "received", "lost", "resent"} {
		m.datagrams.WithLabelValues(e)
	}
	for _, r := range []string{"accepted", "postponed", "refused"} {
		m.events.WithLabelValues(r)
	}
	for _, r := range []string{"written", "failed", "dropped", "pruned"} {
		m.replays.WithLabelValues(r)
	}
	m.proposalBroadcast, m.durableDelay = newDelaySummaries()
	reg.MustRegister(m.proposalBroadcast, m.durableDelay)
	reg.MustRegister(m.tickDuration, m.tickLateness, m.rollback, m.events, m.desyncs, m.roomPanics, m.bytesIn, m.bytesOut,
		m.disconnects, m.rounds, m.replays, m.conns, m.datagrams, m.quicRefused, m.clientErrors, m.clientErrorsLimited)
	gauge := func(name, help string, labels prometheus.Labels, f func(*popTotals) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { t := s.population(); return f(&t) }))
	}
	gauge(MetricRooms, "Rooms open.", nil, func(t *popTotals) float64 { return float64(t.rooms) })
	gauge(MetricConnections, "Connections open, by transport.", prometheus.Labels{"transport": "websocket"},
		func(t *popTotals) float64 { return float64(t.conns - t.wtConns) })
	gauge(MetricConnections, "Connections open, by transport.", prometheus.Labels{"transport": "webtransport"},
		func(t *popTotals) float64 { return float64(t.wtConns) })
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: MetricHTTPConns,
		Help: "HTTP connections open (kept alive or in a request), WebSockets not counted; Serve only."},
		func() float64 { return float64(s.httpConns.Load()) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: MetricQUICConns,
		Help: "QUIC connections open under WebTransport, handshakes and connections without a session included."},
		func() float64 { return float64(s.quic.open()) }))
	gauge(MetricPlayers, "Players seated in rooms, by kind.", prometheus.Labels{"kind": "human"},
		func(t *popTotals) float64 { return float64(t.players) })
	gauge(MetricPlayers, "Players seated in rooms, by kind.", prometheus.Labels{"kind": "bot"},
		func(t *popTotals) float64 { return float64(t.bots) })
	gauge(MetricPlayers, "Players seated in rooms, by kind.", prometheus.Labels{"kind": "spectator"},
		func(t *popTotals) float64 { return float64(t.spectators) })
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
