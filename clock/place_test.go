package clock

import (
	"testing"
	"time"
)

// Round trips in ms from a player in Tokyo and one in Frankfurt to servers
// in Tokyo, Frankfurt, Virginia and Oregon (20 ms to their own region).
var (
	fromTokyo     = []time.Duration{20, 250, 170, 120}
	fromFrankfurt = []time.Duration{250, 20, 110, 170}
)

func inMs(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d * time.Millisecond
	}
	return out
}

// TestPlace: the room goes where its worst pair's perceived lag is least,
// which depends on the charity: without it each sees the world with its
// own ping, so the worst pair's lag is the largest ping and a server
// between the players wins; with enough charity a pair sees the average of
// its pings, so a server at either end of the path is as good as one on
// it; a fixed 50 ms lies between. Lags worked out by hand from section 3's
// formulas.
func TestPlace(t *testing.T) {
	auto := Policy{Charity: Charity{Auto: true}}
	for _, c := range []struct {
		name    string
		p       Policy
		players [][]time.Duration
		best    int
		worst   time.Duration
	}{
		{"pair, charity 0", Policy{}, [][]time.Duration{fromTokyo, fromFrankfurt}, 2, 170},                                         // max RTT 250/250/170/170; Virginia's sum 280 < 290
		{"pair, auto", auto, [][]time.Duration{fromTokyo, fromFrankfurt}, 0, 135},                                                  // (RTT_i + RTT_j) / 2: 135/135/140/145
		{"pair, 50 ms", Policy{Charity: FixedCharity(50 * time.Millisecond)}, [][]time.Duration{fromTokyo, fromFrankfurt}, 2, 140}, // 200/200/140/145
		{"pair, auto capped at 50 ms", Policy{Charity: Charity{Auto: true}, Cap: 50 * time.Millisecond}, [][]time.Duration{fromTokyo, fromFrankfurt}, 2, 140},
		{"two in Frankfurt, one in Tokyo, auto", auto, [][]time.Duration{fromTokyo, fromFrankfurt, fromFrankfurt}, 1, 135}, // 250/135/140/170
		{"alone", auto, [][]time.Duration{{30, 10}}, 1, 10},
	} {
		rtts := make([][]time.Duration, len(c.players))
		for i, row := range c.players {
			rtts[i] = inMs(row)
		}
		best, worst := c.p.Place(rtts)
		if best != c.best || worst != c.worst*time.Millisecond {
			t.Errorf("%s: placed on %d with worst lag %v, want %d with %v", c.name, best, worst, c.best, c.worst*time.Millisecond)
		}
	}
	if best, _ := auto.Place(nil); best != -1 {
		t.Errorf("no players: %d", best)
	}
}
