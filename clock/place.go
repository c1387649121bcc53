package clock

import "time"

// WorstLag returns the largest perceived lag U_j(i) among the pairs of
// players whose one-way latencies to a server are oneWays, under policy p
// (netcode.md, section 3): the lag of the worst-served pair. With fewer
// than two players there is no pair, and it returns the largest round
// trip (2 × one-way): what a lone player waits for the server.
func (p Policy) WorstLag(oneWays []time.Duration) time.Duration {
	if len(oneWays) < 2 {
		var w time.Duration
		for _, o := range oneWays {
			w = max(w, 2*max(o, 0))
		}
		return w
	}
	leads, _ := p.Compute(oneWays)
	worst := time.Duration(-1 << 63)
	for i, oi := range oneWays {
		for j, oj := range oneWays {
			if i != j {
				worst = max(worst, PerceivedLag(max(oi, 0), max(oj, 0), leads[i], leads[j]))
			}
		}
	}
	return worst
}

// Place picks where a room of players should live: rtts[i][r] is player
// i's round trip to candidate server r (every row as long as the
// candidates). It returns the candidate whose worst pair's perceived lag
// (WorstLag, from each player's one-way latency RTT/2) is least, and that
// lag; among equals, the one with the smaller sum of round trips (the
// lesser load on the players' links and the server's leniency), then the
// first. With no candidates it returns -1.
func (p Policy) Place(rtts [][]time.Duration) (best int, worst time.Duration) {
	if len(rtts) == 0 {
		return -1, 0
	}
	best = -1
	var bestSum time.Duration
	oneWays := make([]time.Duration, len(rtts))
	for r := range rtts[0] {
		var sum time.Duration
		for i, row := range rtts {
			oneWays[i] = row[r] / 2
			sum += row[r]
		}
		w := p.WorstLag(oneWays)
		if best < 0 || w < worst || w == worst && sum < bestSum {
			best, worst, bestSum = r, w, sum
		}
	}
	return best, worst
}
