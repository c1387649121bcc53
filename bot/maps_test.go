package bot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webtron/aamap"
	"webtron/bot"
	"webtron/internal/aamaptest"
	"webtron/sim"
)

// TestGoldenMaps rides eight bots for a round on each of Armagetron's ten
// stock maps (aamaptest) and compares the state's hash at the round's end
// with testdata/golden_maps.txt: natively (GOAMD64=v1 and v3) and under
// js/wasm the same hashes, so a client in the browser plays every map as
// the server does. Each round must be decided within the run, with every
// cycle having ridden (spawned on the map and moved). On inaktek, whose
// Axes is 8, the trails must run at 45 degrees too.
func TestGoldenMaps(t *testing.T) {
	const file = "testdata/golden_maps.txt"
	update := flag("update")
	want := map[string]string{}
	if b, err := os.ReadFile(file); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				want[line[:i]] = line[i+1:]
			}
		}
	} else if !update {
		t.Fatal(err)
	}
	const players, limit = 8, 120 * 300
	var out strings.Builder
	for k, path := range aamaptest.Paths(t) {
		m, err := aamap.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.DefaultConfig()
		if _, err := m.Apply(&cfg); err != nil {
			t.Fatal(err)
		}
		s, err := sim.NewState(cfg, uint64(k+1))
		if err != nil {
			t.Fatal(err)
		}
		bots := make([]*bot.Bot, players)
		for p := range bots {
			bots[p] = bot.New(p, uint64(k*100+p))
		}
		s.Step(bot.Joins(players))
		var evs []sim.Event
		moved, slanted := 0, 0
		for tick := 0; tick < limit; tick++ {
			if ph, _ := s.Phase(); ph == sim.PhaseOver {
				break
			}
			evs = evs[:0]
			for _, b := range bots {
				evs = b.Decide(s, evs)
			}
			s.Step(evs)
			for p := 0; p < players; p++ {
				if c := s.Cycle(p); c.Alive && c.Dir%2 == 1 && m.Axes == 8 {
					slanted++
				}
			}
			if ph, _ := s.Phase(); ph == sim.PhasePlay && moved == 0 {
				moved = -1 // first tick of play: count the cycles that move on the next
			} else if moved == -1 {
				moved = 0
				for p := 0; p < players; p++ {
					if c := s.Cycle(p); c.Alive && (c.X != c.TurnX || c.Y != c.TurnY) {
						moved++
					}
				}
			}
		}
		ph, _ := s.Phase()
		if ph != sim.PhaseOver || moved != players {
			t.Errorf("%s: phase %d after %d ticks, %d of %d cycles rode", filepath.Base(path), ph, s.Tick(), moved, players)
		}
		if m.Axes == 8 && slanted == 0 {
			t.Errorf("%s: Axes 8, and no cycle rode a diagonal", filepath.Base(path))
		}
		t.Logf("%s: round decided at tick %d (%d cycle-ticks on a diagonal)", filepath.Base(path), s.Tick(), slanted)
		key := fmt.Sprintf("map=%s players=%d seed=%d", strings.TrimSuffix(filepath.Base(path), ".aamap.xml"), players, k+1)
		got := fmt.Sprintf("%016x", s.Hash())
		fmt.Fprintf(&out, "%s %s\n", key, got)
		if !update && want[key] != got {
			t.Errorf("%s: hash %s at tick %d, want %s", key, got, s.Tick(), want[key])
		}
	}
	if update {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// flag reports whether the boolean test flag name (TestGolden's -update)
// was set.
func flag(name string) bool {
	for _, a := range os.Args[1:] {
		if a == "-"+name || a == "--"+name || a == "-test."+name || a == "-"+name+"=true" {
			return true
		}
	}
	return false
}

// TestBotsTakeFortress seats two bots on Z-Man's fortress map
// for_old_clients, a zone in front of each one's spawn point: bots head for
// the enemy's fortress (as for the win zone), and the round ends by a
// conquest (a zone collapsing) within a minute of play.
func TestBotsTakeFortress(t *testing.T) {
	aamaptest.Paths(t)
	m, err := aamap.Load(filepath.Join(aamaptest.Dir, "Z-Man/fortress/for_old_clients-0.1.0.aamap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	if _, err := m.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Both(cfg.MP) // SIZE_FACTOR 0: the map's own 500 m
	for seed := uint64(1); seed <= 3; seed++ {
		s, err := sim.NewState(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		bots := []*bot.Bot{bot.New(0, seed*10), bot.New(1, seed*10+1)}
		s.Step(bot.Joins(2))
		var evs []sim.Event
		for tick := 0; tick < 480+60*120; tick++ {
			if ph, _ := s.Phase(); ph == sim.PhaseOver {
				break
			}
			evs = evs[:0]
			for _, b := range bots {
				evs = b.Decide(s, evs)
			}
			s.Step(evs)
		}
		conquered := false
		for k := 0; k < 2; k++ {
			if _, _, _, _, z, _, _ := s.MapZone(k); z.State != sim.ZoneOpen {
				conquered = true
			}
		}
		if ph, _ := s.Phase(); ph != sim.PhaseOver || !conquered {
			t.Errorf("seed %d: phase %d at tick %d, a zone conquered %v: want the round ended by a conquest", seed, ph, s.Tick(), conquered)
		}
	}
}

// TestBotsEightAxes seats four full-skill bots and four riders on inaktek,
// whose Axes is 8: the AI's map draws slanted trails as staircases and its
// looks go along the map's axes, so it outlives the riders, which only
// turn at a wall, by far (measured: 70-94 s against 2.4 s a round,
// `webtron sim --skill 100,100,100,100,rider,rider,rider,rider --survival
// --seed 5 --ticks 60000 --map-file Your_mom/clever/inaktek-0.7.2.aamap.xml`).
func TestBotsEightAxes(t *testing.T) {
	aamaptest.Paths(t)
	m, err := aamap.Load(filepath.Join(aamaptest.Dir, "Your_mom/clever/inaktek-0.7.2.aamap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	if _, err := m.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	s, err := sim.NewState(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	bots := []*bot.Bot{bot.NewSkill(0, 1, bot.MaxSkill), bot.NewSkill(1, 2, bot.MaxSkill), bot.NewSkill(2, 3, bot.MaxSkill), bot.NewSkill(3, 4, bot.MaxSkill),
		bot.NewRider(4), bot.NewRider(5), bot.NewRider(6), bot.NewRider(7)}
	s.Step(bot.Joins(len(bots)))
	var v bot.Survival
	var evs []sim.Event
	for tick := 0; tick < 30_000 && v.Rounds[0] < 2; tick++ {
		evs = evs[:0]
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		s.Step(evs)
		v.Observe(s)
	}
	rate := cfg.TickRate
	ai := (v.MeanLife(0, rate) + v.MeanLife(1, rate) + v.MeanLife(2, rate) + v.MeanLife(3, rate)) / 4
	riders := (v.MeanLife(4, rate) + v.MeanLife(5, rate) + v.MeanLife(6, rate) + v.MeanLife(7, rate)) / 4
	t.Logf("%d rounds: the AI's mean life %d ms, the riders' %d ms", v.Rounds[0], ai, riders)
	if v.Rounds[0] < 1 || ai < 5*riders || ai < 10_000 {
		t.Fatalf("%d rounds: the AI's mean life %d ms, the riders' %d ms; want the AI's 5 times and 10 s at least", v.Rounds[0], ai, riders)
	}
}

// TestBotsOtherAxes rides four full-skill bots and four riders for three
// rounds on a 500 m square of 6, 3 and 12 axes: every round is decided, and
// the log says how long each kind lives (docs/physics.md section 8: the
// AI's turning point at a wall is tuned for 90 and 45 degrees).
func TestBotsOtherAxes(t *testing.T) {
	for _, n := range []int64{6, 3, 12} {
		cfg := sim.DefaultConfig()
		u := int64(sim.Unit)
		cfg.Map = &sim.Map{Axes: n, Spawns: []sim.MapSpawn{{X: 100 * u, Y: 100 * u, Dir: 0}, {X: 400 * u, Y: 400 * u, Dir: uint8(n / 2)}, {X: 400 * u, Y: 100 * u, Dir: 1}, {X: 100 * u, Y: 400 * u, Dir: 2}},
			Walls: []sim.MapWall{{X1: 0, Y1: 0, X2: 0, Y2: 500 * u}, {X1: 0, Y1: 500 * u, X2: 500 * u, Y2: 500 * u},
				{X1: 500 * u, Y1: 500 * u, X2: 500 * u, Y2: 0}, {X1: 500 * u, Y1: 0, X2: 0, Y2: 0}}}
		s, err := sim.NewState(cfg, 5)
		if err != nil {
			t.Fatal(err)
		}
		bots := []*bot.Bot{bot.NewSkill(0, 1, bot.MaxSkill), bot.NewSkill(1, 2, bot.MaxSkill), bot.NewSkill(2, 3, bot.MaxSkill), bot.NewSkill(3, 4, bot.MaxSkill),
			bot.NewRider(4), bot.NewRider(5), bot.NewRider(6), bot.NewRider(7)}
		s.Step(bot.Joins(len(bots)))
		var v bot.Survival
		var evs []sim.Event
		for tick := 0; tick < 60_000 && v.Rounds[0] < 3; tick++ {
			evs = evs[:0]
			for _, b := range bots {
				evs = b.Decide(s, evs)
			}
			s.Step(evs)
			v.Observe(s)
		}
		if v.Rounds[0] < 3 {
			t.Fatalf("%d axes: %d rounds decided in 60,000 ticks", n, v.Rounds[0])
		}
		lo, hi := [2]int64{1 << 62, 1 << 62}, [2]int64{}
		for p := 0; p < 8; p++ {
			l := v.MeanLife(p, cfg.TickRate)
			lo[p/4], hi[p/4] = min(lo[p/4], l), max(hi[p/4], l)
		}
		t.Logf("%d axes: the AI lives %d-%d ms a round, the riders %d-%d ms", n, lo[0], hi[0], lo[1], hi[1])
	}
}
