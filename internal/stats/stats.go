// Package stats holds the few summaries the measuring tools share (the lab,
// the headless players, the real-network tests): percentiles of durations,
// in milliseconds, and the report rows whose JSON names are a contract.
package stats

import (
	"slices"
	"time"
)

// Ms converts a duration to fractional milliseconds, the unit of every report.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Percentile returns the q-quantile (0..1) of v, nearest rank below; 0 for
// no samples. v is not modified.
func Percentile(v []time.Duration, q float64) time.Duration {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// Median returns the middle value of v (upper middle for an even count), 0
// for none. v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// PairRow is U_viewer(peer), the perceived lag of one ordered pair of
// players: predicted by the formula of docs/netcode.md section 3, and
// measured from the events the viewer received.
type PairRow struct {
	Viewer    int     `json:"viewer"`
	Peer      int     `json:"peer"`
	Predicted float64 `json:"predicted_ms"`
	P50       float64 `json:"measured_p50_ms"`
	P95       float64 `json:"measured_p95_ms"`
	Samples   int     `json:"samples"`
}

// Percentiles3 are p05, p50 and p95 in milliseconds.
type Percentiles3 struct {
	P05 float64 `json:"p05"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// Percentiles2 are p50 and p95 in milliseconds.
type Percentiles2 struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// Summarize2 returns the p50 and p95 of v in milliseconds.
func Summarize2(v []time.Duration) Percentiles2 {
	return Percentiles2{Ms(Percentile(v, 0.5)), Ms(Percentile(v, 0.95))}
}

// Bandwidth is bytes per second per client, median over clients.
type Bandwidth struct {
	UpP50   float64 `json:"up_p50"`
	DownP50 float64 `json:"down_p50"`
}

// Excess is how far measured perceived lags lie above their predictions,
// in milliseconds (the headless swarm's and the lab's reports).
type Excess struct {
	P50 float64 `json:"p50"` // every sample of every pair
	P99 float64 `json:"p99"`
	// WorstPairP99 is the largest of each pair's own p99 minus its prediction.
	WorstPairP99 float64 `json:"worst_pair_p99"`
}
