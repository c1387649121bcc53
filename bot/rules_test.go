package bot

import (
	"testing"

	"webtron/internal/detcheck"
	"webtron/sim"
)

// TestOtherRules plays bots under rules other than the defaults, which the
// map and the timing must follow: finite trails (whose tails recede), another
// tick rate, no turn delay, a tiny and a huge arena. Bots must not panic and
// must die far less often than cycles that never turn.
func TestOtherRules(t *testing.T) {
	rules := []struct {
		name string
		set  func(*sim.Config)
	}{
		{"finite trails", func(c *sim.Config) { c.SP.WallsLength, c.MP.WallsLength = 150*sim.Meter, 150*sim.Meter }},
		{"60 Hz", func(c *sim.Config) { c.TickRate = 60 }},
		{"no turn delay", func(c *sim.Config) { c.TurnDelayMs = 0 }},
		{"40 m arena", func(c *sim.Config) { *c = withArena(*c, 40) }},
		{"2 km arena", func(c *sim.Config) { *c = withArena(*c, 2000) }},
		{"teams of 4 in a 500 m arena", func(c *sim.Config) { *c = withArena(*c, 500); c.SP.TeamMaxPlayers = 4 }},
	}
	for _, r := range rules {
		cfg := sim.DefaultConfig()
		r.set(&cfg)
		bots := game(t, cfg, 3, 4, 4, 20_000)
		straight := game(t, cfg, 3, 4, 0, 20_000)
		b, z := bots.deathsPerHour(cfg.TickRate), straight.deathsPerHour(cfg.TickRate)
		t.Logf("%s: deaths per hour of driving: bots %d, straight drivers %d", r.name, b, z)
		if b > z/3 {
			t.Errorf("%s: bots die %d times an hour, straight drivers %d", r.name, b, z)
		}
	}
}

// TestLatency delays every bot event by a few ticks, as a network or a
// server postponing events would: bots learn the delay from their own turns
// and turn that much earlier, so they must survive nearly as well.
func TestLatency(t *testing.T) {
	rate := sim.DefaultConfig().TickRate
	var base int64
	for _, delay := range []int{0, 4, 12} {
		var deaths, lived int64
		for seed := uint64(1); seed <= 2; seed++ {
			s, bots := newGame(t, sim.DefaultConfig(), seed, 8)
			late := make([][]sim.Event, delay+1) // late[k]: events for k ticks from now
			var was [8]bool
			for k := 0; k < 40_000; k++ {
				for _, b := range bots {
					late[delay] = b.Decide(s, late[delay])
				}
				s.Step(late[0])
				first := late[0][:0]
				copy(late, late[1:])
				late[delay] = first
				ph, _ := s.Phase()
				for p := range was {
					c := s.Cycle(p)
					if was[p] && !c.Alive {
						deaths++
					}
					if c.Alive && ph == sim.PhasePlay {
						lived++
					}
					was[p] = c.Alive
				}
			}
		}
		perHour := deaths * 3600 * rate / max(1, lived)
		t.Logf("events %d ticks late: %d deaths per hour of driving", delay, perHour)
		if delay == 0 {
			base = perHour
		} else if perHour > 2*base+10 {
			t.Errorf("events %d ticks late: %d deaths per hour, against %d on time", delay, perHour, base)
		}
	}
}

// TestImportRules guards the bot's determinism the way the simulation guards
// its own: no floats, no goroutines, no maps, no package-level variables, and
// nothing imported but the simulation.
func TestImportRules(t *testing.T) {
	detcheck.Check(t, []string{"webtron/sim"}, 5)
}

// TestWinZoneRide: once the win zone opens, bots ride into it. With a zone
// that opens after 10 s of play and 5 s without a death and stays 5 m wide
// (no expansion: only a cycle that seeks it finds it), most rounds of four
// bots in the 500 m arena end by a ride into the zone, with several cycles
// still alive.
func TestWinZoneRide(t *testing.T) {
	cfg := withArena(sim.DefaultConfig(), 500)
	cfg.SP.WinZoneMinRoundTimeMs, cfg.SP.WinZoneMinLastDeathMs = 10_000, 5_000
	cfg.WinZoneExpansion = 0
	s, bots := newGame(t, cfg, 7, 4)
	zoneWins, rounds := 0, 0
	prev, _ := s.Phase()
	for k := 0; k < 40_000; k++ {
		Play(s, bots, 1)
		ph, _ := s.Phase()
		if prev == sim.PhasePlay && ph == sim.PhaseOver {
			rounds++
			alive := 0
			for p := 0; p < 4; p++ {
				if s.Cycle(p).Alive {
					alive++
				}
			}
			if alive > 1 {
				zoneWins++
			}
		}
		prev = ph
	}
	t.Logf("%d of %d rounds won in the zone", zoneWins, rounds)
	if rounds < 3 || zoneWins*2 < rounds {
		t.Fatalf("%d of %d rounds won in the zone, want most", zoneWins, rounds)
	}
}
