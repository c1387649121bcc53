package lab

import (
	"fmt"
	"io"
	"strings"
	"time"

	"webtron/clock"
)

// Where a room of players from several regions should live (docs/deploy.md,
// "Several regions"): clock.Policy.Place picks the candidate server whose
// worst pair's perceived lag is least, from each player's round trip to
// each candidate. The lab checks that choice by playing the room on every
// candidate (each player's ping being its round trip there) and measuring
// every pair's perceived lag.

// Regions are the candidate servers of the placement scenarios.
var Regions = []string{"Tokyo", "Frankfurt", "Virginia", "Oregon"}

// regionRTT is the round trip between two regions' data centres, in ms,
// in Regions' order: typical figures between public clouds' regions, an
// assumption of the scenarios (not measured here). A player adds accessRTT
// to reach the data centre of its own region.
var regionRTT = [4][4]time.Duration{
	{0, 230, 150, 100},
	{230, 0, 90, 150},
	{150, 90, 0, 70},
	{100, 150, 70, 0},
}

// accessRTT is a player's round trip to its own region's data centre.
const accessRTT = 20 * time.Millisecond

// RegionRTTs returns a player's round trip to each of Regions, from its
// home region (an index of Regions).
func RegionRTTs(home int) []time.Duration {
	out := make([]time.Duration, len(Regions))
	for r := range Regions {
		out[r] = accessRTT + regionRTT[home][r]*time.Millisecond
	}
	return out
}

// PlacementScenario is a room of players from given regions.
type PlacementScenario struct {
	Name   string
	Homes  []int // each player's home region (an index of Regions)
	Policy clock.Policy
	Jitter time.Duration
	Loss   float64
}

// PlacementScenarios are the doc's table: pairs and rooms across two or
// three regions, under the server's default charity (auto, capped at
// 250 ms), none, and a fixed 50 ms.
func PlacementScenarios() []PlacementScenario {
	auto := clock.Policy{Charity: clock.Charity{Auto: true}}
	const tk, fr, va, or = 0, 1, 2, 3
	return []PlacementScenario{
		{Name: "Tokyo + Frankfurt, auto", Homes: []int{tk, fr}, Policy: auto},
		{Name: "Tokyo + Frankfurt, charity 0", Homes: []int{tk, fr}},
		{Name: "Tokyo + Frankfurt, 50 ms", Homes: []int{tk, fr}, Policy: clock.Policy{Charity: clock.FixedCharity(50 * time.Millisecond)}},
		{Name: "2 Frankfurt + 1 Tokyo, auto", Homes: []int{fr, fr, tk}, Policy: auto},
		{Name: "4 Frankfurt + 4 Virginia, auto", Homes: []int{fr, fr, fr, fr, va, va, va, va}, Policy: auto},
		{Name: "4 Frankfurt + 4 Virginia, charity 0", Homes: []int{fr, fr, fr, fr, va, va, va, va}},
		{Name: "3 Tokyo + 1 Oregon + 1 Frankfurt, auto", Homes: []int{tk, tk, tk, or, fr}, Policy: auto},
		{Name: "Tokyo + Virginia, auto, 15 ms jitter, 1 % loss", Homes: []int{tk, va}, Policy: auto, Jitter: 15 * time.Millisecond, Loss: 0.01},
	}
}

// PlacementResult is a scenario's formula choice and what the lab measured
// on every candidate.
type PlacementResult struct {
	Scenario  PlacementScenario
	Choice    int           // clock.Policy.Place's candidate
	Predicted time.Duration // its worst pair's lag by the formula
	// WorstP50 is, for each candidate, the largest over pairs of the
	// measured median perceived lag (ms); Best the candidate where it is
	// least.
	WorstP50 []float64
	Best     int
}

// MeasurePlacement plays sc's room on every candidate for d of game time.
func MeasurePlacement(sc PlacementScenario, d time.Duration, seed uint64) (PlacementResult, error) {
	rtts := make([][]time.Duration, len(sc.Homes))
	for i, h := range sc.Homes {
		rtts[i] = RegionRTTs(h)
	}
	res := PlacementResult{Scenario: sc, Best: -1}
	res.Choice, res.Predicted = sc.Policy.Place(rtts)
	for r := range Regions {
		pings := make([]time.Duration, len(rtts))
		for i := range rtts {
			pings[i] = rtts[i][r]
		}
		rep, err := Run(Options{Pings: pings, Jitter: sc.Jitter, Loss: sc.Loss, Charity: sc.Policy.Charity, CharityCap: sc.Policy.Cap,
			Rule: sc.Policy.Rule, MindReader: true, Duration: d, Seed: seed, TickRate: 120})
		if err != nil {
			return res, fmt.Errorf("%s on %s: %w", sc.Name, Regions[r], err)
		}
		worst := 0.0
		for _, p := range rep.Pairs {
			worst = max(worst, p.P50)
		}
		if len(rep.Pairs) == 0 {
			return res, fmt.Errorf("%s on %s: no pair measured", sc.Name, Regions[r])
		}
		res.WorstP50 = append(res.WorstP50, worst)
		if res.Best < 0 || worst < res.WorstP50[res.Best] {
			res.Best = r
		}
	}
	return res, nil
}

// PrintPlacement writes results as the doc's Markdown table.
func PrintPlacement(w io.Writer, rs []PlacementResult) {
	fmt.Fprintf(w, "| scenario | %s | formula's choice (predicted) | lab's best | choice's excess |\n", strings.Join(Regions, " | "))
	fmt.Fprintf(w, "|---|%s---|---|---|\n", strings.Repeat("---|", len(Regions)))
	for _, r := range rs {
		var cells []string
		for i, v := range r.WorstP50 {
			c := fmt.Sprintf("%.1f", v)
			if i == r.Choice {
				c = "**" + c + "**"
			}
			cells = append(cells, c)
		}
		fmt.Fprintf(w, "| %s | %s | %s (%.1f) | %s | %+.1f ms |\n", r.Scenario.Name, strings.Join(cells, " | "),
			Regions[r.Choice], float64(r.Predicted)/float64(time.Millisecond), Regions[r.Best], r.WorstP50[r.Choice]-r.WorstP50[r.Best])
	}
}
