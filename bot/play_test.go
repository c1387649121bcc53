package bot

import (
	"runtime"
	"testing"
	"time"

	"webtron/sim"
)

// withArena returns cfg with an arena c metres wide under either settings
// set (SIZE_FACTOR 0).
func withArena(cfg sim.Config, m int64) sim.Config {
	cfg.ArenaSize = m * sim.Meter
	cfg.SP.SizeFactor, cfg.MP.SizeFactor = 0, 0
	return cfg
}

// newGame seats n bots in a fresh state whose joining tick has been stepped.
func newGame(t testing.TB, cfg sim.Config, seed uint64, n int) (*sim.State, []*Bot) {
	t.Helper()
	s, err := sim.NewState(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Joins(n))
	bots := make([]*Bot, n)
	for p := range bots {
		bots[p] = New(p, seed+uint64(p))
	}
	return s, bots
}

// TestCrowdedRounds runs 8 and 32 bots for 20,000 ticks in an arena small
// enough for rounds to end: bots must not panic, every round must end, the
// next must start, and each winner must score the win.
func TestCrowdedRounds(t *testing.T) {
	for _, n := range []int{8, 32} {
		cfg := withArena(sim.DefaultConfig(), int64(40+2*n))
		s, bots := newGame(t, cfg, 5, n)
		var evs []sim.Event
		var before [sim.MaxPlayers]sim.Cycle
		ended, started, won := 0, 0, 0
		prev, _ := s.Phase()
		round, match := s.Round()
		for k := 0; k < 20_000; k++ {
			for _, b := range bots {
				evs = b.Decide(s, evs)
			}
			for p := 0; p < n; p++ {
				before[p] = s.Cycle(p)
			}
			s.Step(evs)
			evs = evs[:0]
			ph, _ := s.Phase()
			switch {
			case prev == sim.PhasePlay && ph == sim.PhaseOver:
				ended++
				if w := s.Winner(); w >= 0 {
					won++
					c := s.Cycle(w)
					want := cfg.SP.ScoreWin + cfg.ScoreKill*(c.Kills-before[w].Kills)
					if got := c.Score - before[w].Score; got != want {
						t.Errorf("%d bots: winner %d scored %d for the round's last tick, want %d", n, w, got, want)
					}
				}
			case prev == sim.PhaseOver && ph == sim.PhasePrepare:
				started++
				r, m := s.Round()
				if !(m == match && r == round+1 || m == match+1 && r == 1) {
					t.Errorf("%d bots: round went from %d/%d to %d/%d", n, match, round, m, r)
				}
				round, match = r, m
			}
			prev = ph
		}
		t.Logf("%d bots, %d m arena: %d rounds ended (%d won), %d started", n, cfg.ArenaSize/sim.Meter, ended, won, started)
		if ended < 3 || started < ended-1 || won == 0 {
			t.Errorf("%d bots: %d rounds ended, %d started, %d won", n, ended, started, won)
		}
	}
}

// TestEvents checks what bots send: only turns and brakes, for their own
// player, with sequence numbers 1, 2, 3..., only while alive in play.
func TestEvents(t *testing.T) {
	s, bots := newGame(t, sim.DefaultConfig(), 3, 8)
	var evs []sim.Event
	var seq [8]uint32
	turns := 0
	for k := 0; k < 20_000; k++ {
		for p, b := range bots {
			from := len(evs)
			evs = b.Decide(s, evs)
			ph, _ := s.Phase()
			for _, e := range evs[from:] {
				switch {
				case int(e.Player) != p:
					t.Fatalf("bot %d sent an event for player %d", p, e.Player)
				case e.Kind != sim.EvTurnLeft && e.Kind != sim.EvTurnRight && e.Kind != sim.EvBrakeOn && e.Kind != sim.EvBrakeOff:
					t.Fatalf("bot %d sent a %v event", p, e.Kind)
				case e.Seq != seq[p]+1:
					t.Fatalf("bot %d sent seq %d after %d", p, e.Seq, seq[p])
				case ph != sim.PhasePlay || !s.Cycle(p).Alive:
					t.Fatalf("bot %d sent %v while not alive in play", p, e.Kind)
				}
				seq[p] = e.Seq
				if e.Kind == sim.EvTurnLeft || e.Kind == sim.EvTurnRight {
					turns++
				}
			}
		}
		s.Step(evs)
		evs = evs[:0]
	}
	t.Logf("8 bots sent %d turns in 20,000 ticks", turns)
	if turns < 100 {
		t.Errorf("only %d turns: the bots hardly play", turns)
	}
}

// fresh returns the map a bot would draw from scratch for the state now.
func fresh(s *sim.State) *grid {
	var w world
	w.attach(s)
	w.redraw(s)
	return &w.g
}

// sameMap reports how many words of the two maps' wall bitsets differ.
func sameMap(a, b *grid) int {
	diff := 0
	for k := range a.south {
		if a.south[k] != b.south[k] || a.west[k] != b.west[k] {
			diff++
		}
	}
	return diff
}

// TestMapFollowsState checks that a bot's map, kept up to date a few walls at
// a time, is the map drawn afresh from the state: through turns, deaths,
// vanishing wrecks and new rounds, and after the state is rolled back.
func TestMapFollowsState(t *testing.T) {
	mapFollows(t, withArena(sim.DefaultConfig(), 200))
}

// TestMapFollowsStateAxes is TestMapFollowsState on a map of 8 axes, whose
// slanted trails are on the map as staircases.
func TestMapFollowsStateAxes(t *testing.T) {
	cfg := withArena(sim.DefaultConfig(), 200)
	u := int64(sim.Unit)
	cfg.Map = &sim.Map{Axes: 8, Spawns: []sim.MapSpawn{{X: 100 * u, Y: 100 * u, Dir: 1}, {X: 400 * u, Y: 400 * u, Dir: 5}, {X: 400 * u, Y: 100 * u, Dir: 3}, {X: 100 * u, Y: 400 * u, Dir: 7}},
		Walls: []sim.MapWall{{X1: 0, Y1: 0, X2: 0, Y2: 500 * u}, {X1: 0, Y1: 500 * u, X2: 500 * u, Y2: 500 * u},
			{X1: 500 * u, Y1: 500 * u, X2: 500 * u, Y2: 0}, {X1: 500 * u, Y1: 0, X2: 0, Y2: 0}}}
	mapFollows(t, cfg)
}

// mapFollows is TestMapFollowsState under cfg.
func mapFollows(t *testing.T, cfg sim.Config) {
	s, bots := newGame(t, cfg, 9, 8)
	var snap sim.Snapshot
	checked, slanted := 0, 0
	for k := 1; k <= 24_000; k++ {
		if k == 12_000 {
			s.Save(&snap)
		}
		if k == 12_700 {
			if err := s.Restore(&snap); err != nil {
				t.Fatal(err)
			}
		}
		Play(s, bots, 1)
		if k%500 != 0 {
			continue
		}
		want := fresh(s)
		for _, w := range s.RoundWalls() {
			if w.X1 != w.X2 && w.Y1 != w.Y2 {
				slanted++
			}
		}
		round, match := s.Round()
		for _, b := range bots {
			me := s.Cycle(b.id)
			if ph, _ := s.Phase(); ph != sim.PhasePlay || !me.Alive || b.w.round != round || b.w.match != match {
				continue // not playing, so not following this round
			}
			b.w.due = [sim.MaxPlayers]int64{} // bring every cycle in, however far
			b.w.holesDue = 0                  // and every hole, however new
			b.w.update(s, &me, 1)
			if d := sameMap(&b.w.g, want); d != 0 {
				t.Errorf("tick %d: bot %d's map differs from the state in %d words", s.Tick(), b.id, d)
			}
			checked++
		}
	}
	t.Logf("%d maps checked against a fresh drawing (%d slanted walls seen)", checked, slanted)
	if checked < 50 || cfg.Map != nil && cfg.Map.Axes != 4 && slanted < 50 {
		t.Errorf("only %d maps checked, %d slanted walls seen", checked, slanted)
	}
}

// TestFill checks the batched flood fill, with its open-square shortcut,
// against a plain flood fill of each seed, on maps with random walls.
func TestFill(t *testing.T) {
	var g grid
	rng := New(0, 1) // only for its random numbers
	for m := 0; m < 200; m++ {
		g.init(int64(40+m*3) * sim.Meter)
		for w := int64(0); w < int64(m%50*2); w++ {
			x, y := rng.between(0, g.arena), rng.between(0, g.arena)
			l := rng.between(-g.arena/2, g.arena/2)
			if w%2 == 0 {
				g.wall(x, y, min(g.arena, max(0, x+l)), y, 1)
			} else {
				g.wall(x, y, x, min(g.arena, max(0, y+l)), 1)
			}
		}
		g.forget()
		i, j := rng.between(0, g.n-1), rng.between(0, g.n-1)
		for k := 0; k < maxFills+1; k++ {
			// near the last seed, as the ways of one decision are
			i, j = min(g.n-1, max(0, i+rng.between(-3, 3))), min(g.n-1, max(0, j+rng.between(-3, 3)))
			limit := int(rng.between(20, 500))
			side := int64(1)
			for side*side < int64(limit) {
				side++
			}
			if got, want := g.fill(i, j, limit, side), plainFill(&g, i, j, limit); got != want {
				t.Fatalf("map %d seed %d,%d limit %d: fill %d, plain fill %d", m, i, j, limit, got, want)
			}
		}
	}
}

// plainFill is the flood fill without shortcuts or shared marks.
func plainFill(g *grid, i, j int64, limit int) int {
	seen := make([]bool, stride*stride)
	queue := [][2]int64{{i, j}}
	seen[j*stride+i] = true
	for h := 0; h < len(queue) && len(queue) < limit; h++ {
		c := queue[h]
		for _, d := range [4][3]int64{{1, 0, 0}, {-1, 0, 1}, {0, 1, 2}, {0, -1, 3}} {
			ni, nj := c[0]+d[0], c[1]+d[1]
			if ni < 0 || nj < 0 || ni >= g.n || nj >= g.n || seen[nj*stride+ni] {
				continue
			}
			if d[2] == 0 && g.blockedX(ni, nj) || d[2] == 1 && g.blockedX(c[0], c[1]) ||
				d[2] == 2 && g.blockedY(ni, nj) || d[2] == 3 && g.blockedY(c[0], c[1]) {
				continue
			}
			seen[nj*stride+ni] = true
			queue = append(queue, [2]int64{ni, nj})
		}
	}
	return min(len(queue), limit)
}

// TestNoAllocs checks that deciding allocates nothing once a bot's buffers
// have grown.
func TestNoAllocs(t *testing.T) {
	s, bots := newGame(t, sim.DefaultConfig(), 4, 32)
	evs := make([]sim.Event, 0, 256)
	Play(s, bots, 3000)
	var m0, m1 runtime.MemStats
	var allocs uint64
	for k := 0; k < 600; k++ {
		runtime.ReadMemStats(&m0)
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		runtime.ReadMemStats(&m1)
		allocs += m1.Mallocs - m0.Mallocs
		s.Step(evs)
		evs = evs[:0]
	}
	// MemStats counts every malloc of the process, the runtime's own
	// included (seen: 6 in 600 ticks once, on a busy machine); a bot that
	// allocates on its path allocates hundreds of times here.
	if allocs > 20 {
		t.Errorf("32 bots allocated %d times in 600 ticks", allocs)
	}
}

// benchBots plays n bots through b.N ticks of a match on the default arena
// (rounds start and end along the way, so the figure is amortised over whole
// rounds, prepare and round-over pauses included) and reports the bots' time
// per tick and the simulation's separately.
func benchBots(b *testing.B, n int) {
	s, bots := newGame(b, sim.DefaultConfig(), 7, n)
	evs := make([]sim.Event, 0, 4*n)
	Play(s, bots, 3000) // buffers grow to their steady size
	b.ReportAllocs()
	b.ResetTimer()
	var think, step time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, bt := range bots {
			evs = bt.Decide(s, evs)
		}
		t1 := time.Now()
		s.Step(evs)
		step += time.Since(t1)
		think += t1.Sub(t0)
		evs = evs[:0]
	}
	b.ReportMetric(float64(think.Nanoseconds())/float64(b.N), "bots-ns/tick")
	b.ReportMetric(float64(step.Nanoseconds())/float64(b.N), "step-ns/tick")
}

func BenchmarkBots8(b *testing.B)  { benchBots(b, 8) }
func BenchmarkBots32(b *testing.B) { benchBots(b, 32) }
