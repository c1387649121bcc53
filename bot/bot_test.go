package bot

import (
	"testing"

	"webtron/sim"
)

// stats is what a headless game measured over the rounds it finished.
type stats struct {
	rounds   int   // rounds whose play phase ended
	lives    int   // cycles that took part in those rounds
	alive    int64 // ticks cycles spent alive in those rounds, summed over cycles
	grinding int64 // of which within WallNear of an accelerating wall
	wins     [sim.MaxPlayers]int
	deaths   int   // over the whole game
	lived    int64 // ticks cycles spent alive over the whole game
	hash     uint64
}

// deathsPerHour is how often a cycle dies per hour of driving.
func (st *stats) deathsPerHour(rate int64) int64 {
	return int64(st.deaths) * 3600 * rate / max(1, st.lived)
}

// meanLife is the mean time a cycle stays alive in a round, in hundredths of a second.
func (st *stats) meanLife(rate int64) int64 {
	return st.alive * 100 / max(1, int64(st.lives)) / rate
}

// grindPct is the share of alive time spent grinding, in percent.
func (st *stats) grindPct() int64 { return st.grinding * 100 / max(1, st.alive) }

// game plays n players for ticks ticks after the joining tick. Players below
// nbots are bots; the others never send anything, so they drive straight.
// It watches every cycle every tick, which costs more than the bots do.
func game(t testing.TB, cfg sim.Config, seed uint64, n, nbots, ticks int) stats {
	t.Helper()
	s, err := sim.NewState(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Joins(n))
	bots := make([]*Bot, nbots)
	for p := range bots {
		bots[p] = New(p, seed*1000+uint64(p))
	}
	var st stats
	var roundAlive, roundGrind int64
	evs := make([]sim.Event, 0, 64)
	prev, _ := s.Phase()
	var was [sim.MaxPlayers]bool
	for k := 0; k < ticks; k++ {
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		s.Step(evs)
		evs = evs[:0]
		ph, _ := s.Phase()
		if ph == sim.PhasePlay || prev == sim.PhasePlay {
			for p := 0; p < n; p++ {
				c := s.Cycle(p)
				if was[p] && !c.Alive {
					st.deaths++
				}
				was[p] = c.Alive
				if !c.Alive {
					continue
				}
				st.lived++
				roundAlive++
				if l, r := s.Sensors(c.X, c.Y, c.Dir, p); l >= 0 || r >= 0 {
					roundGrind++
				}
			}
		}
		if prev == sim.PhasePlay && ph == sim.PhaseOver {
			st.rounds++
			st.lives += n
			st.alive += roundAlive
			st.grinding += roundGrind
			if w := s.Winner(); w >= 0 {
				st.wins[w]++
			}
		}
		if ph != sim.PhasePlay {
			roundAlive, roundGrind = 0, 0
		}
		prev = ph
	}
	st.hash = s.Hash()
	return st
}

// sum adds up the games of several seeds.
func sum(t testing.TB, cfg sim.Config, seeds []uint64, n, nbots, ticks int) stats {
	var all stats
	for _, seed := range seeds {
		st := game(t, cfg, seed, n, nbots, ticks)
		all.rounds += st.rounds
		all.lives += st.lives
		all.alive += st.alive
		all.grinding += st.grinding
		for p := range st.wins {
			all.wins[p] += st.wins[p]
		}
	}
	return all
}

var seeds = []uint64{1, 2, 3}

// TestSurvival compares two bots with two cycles that never turn, in the same
// seeded 2-player games, and pits a bot against a straight driver.
func TestSurvival(t *testing.T) {
	cfg := sim.DefaultConfig()
	bots := sum(t, cfg, seeds, 2, 2, 120_000)
	straight := sum(t, cfg, seeds, 2, 0, 120_000)
	b, z := bots.meanLife(cfg.TickRate), straight.meanLife(cfg.TickRate)
	t.Logf("mean survival per round: bots %d.%02d s over %d rounds, straight drivers %d.%02d s over %d rounds",
		b/100, b%100, bots.rounds, z/100, z%100, straight.rounds)
	if bots.rounds < 3 || straight.rounds < 3 {
		t.Fatalf("too few rounds to compare: %d and %d", bots.rounds, straight.rounds)
	}
	if b < 5*z {
		t.Errorf("bots survive %d cs per round, not 5x the %d cs of straight drivers", b, z)
	}

	mixed := sum(t, cfg, seeds, 2, 1, 60_000)
	t.Logf("bot against straight driver: bot won %d of %d rounds", mixed.wins[0], mixed.rounds)
	if mixed.wins[0] < mixed.rounds*9/10 {
		t.Errorf("bot won only %d of %d rounds against a straight driver", mixed.wins[0], mixed.rounds)
	}
}

// TestGrinding checks that bots spend much of their time within WallNear of
// a wall that accelerates them, the game's core skill.
func TestGrinding(t *testing.T) {
	cfg := sim.DefaultConfig()
	for _, n := range []int{2, 8} {
		st := sum(t, cfg, seeds[:2], n, n, 60_000)
		z := sum(t, cfg, seeds[:2], n, 0, 20_000)
		t.Logf("%d players: bots grind %d%% of their alive time (straight drivers %d%%)", n, st.grindPct(), z.grindPct())
		if st.grindPct() < 40 {
			t.Errorf("%d players: bots grind only %d%% of the time", n, st.grindPct())
		}
	}
}

// TestDeterminism replays the same seeded games and expects the same final
// hash, and different seeds to give different games.
func TestDeterminism(t *testing.T) {
	cfg := sim.DefaultConfig()
	for _, n := range []int{2, 8} {
		a := game(t, cfg, 11, n, n, 20_000)
		b := game(t, cfg, 11, n, n, 20_000)
		c := game(t, cfg, 12, n, n, 20_000)
		if a.hash != b.hash {
			t.Errorf("%d players: same seed, hashes %x and %x", n, a.hash, b.hash)
		}
		if a.hash == c.hash {
			t.Errorf("%d players: seeds 11 and 12 played the same game", n)
		}
	}
}

// TestSlantedMapWall checks that a map wall at 45 degrees (the diamond's
// edge y = x + 250 m) stands on the bot's map as a staircase a lane cannot
// cross: riding north from (100, 300) m the bot sees it about 50 m ahead,
// within the map's resolution, and riding west from (200, 449) m, 1 m from
// it, within a metre and two cells.
func TestSlantedMapWall(t *testing.T) {
	var g grid
	g.init(500 * sim.Meter)
	g.slanted(0, 250*sim.Meter, 250*sim.Meter, 500*sim.Meter)
	if d := g.ahead(100*sim.Meter, 300*sim.Meter, 1, 200*sim.Meter, 0); d < 50*sim.Meter-2*g.cell || d > 50*sim.Meter+2*g.cell {
		t.Errorf("north from (100, 300): %d ahead, want 50 m within two cells", d)
	}
	if d := g.ahead(200*sim.Meter, 449*sim.Meter, 2, 200*sim.Meter, 0); d > 2*sim.Meter+2*g.cell {
		t.Errorf("west from (200, 449): %d ahead, want about 1 m", d)
	}
}
