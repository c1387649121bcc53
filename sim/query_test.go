package sim

import (
	"slices"
	"testing"
)

// TestGoldenQueries: the pruned searches the step uses find exactly what the
// straightforward ones find, in the same order, over random worlds: the
// golden hashes only cover the situations the recorded games happen to reach.
func TestGoldenQueries(t *testing.T) {
	t.Run("crossings", func(t *testing.T) {
		s := playing(t, testConfig(), MaxPlayers)
		rng := uint64(7)
		found := 0
		for round := range 2000 {
			// Moves packed into a few metres so that many of them meet; some
			// seats idle, some moves of length zero.
			for i := range s.moves {
				rng = splitmix(rng)
				c := &s.c.Cycles[i]
				c.Dir = uint8(rng & 3)
				x0, y0 := int64(rng>>8%6)*Meter/2, int64(rng>>16%6)*Meter/2
				l := int64(rng>>24%5) * Meter / 2
				fx, fy, _, _ := frame(c.Dir)
				s.moves[i] = move{X0: x0, Y0: y0, X1: x0 + fx*l, Y1: y0 + fy*l, Len: l, active: rng>>40%4 != 0}
			}
			var want []crossing
			for a := range s.moves {
				for b := a + 1; b < len(s.moves); b++ {
					if s.moves[a].active && s.moves[b].active {
						if x, ok := s.cross(a, b); ok {
							want = append(want, x)
						}
					}
				}
			}
			s.findCrossings()
			if !slices.Equal(s.crossings, want) {
				t.Fatalf("world %d: found %v, all pairs find %v", round, s.crossings, want)
			}
			found += len(want)
		}
		if found < 2000 {
			t.Fatalf("only %d crossings in 2000 worlds: the test does not exercise the search", found)
		}
	})
}
