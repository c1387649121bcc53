package playback

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"webtron/clock"
	"webtron/lab"
	"webtron/replay"
	"webtron/sim"
)

// humans returns the slots of f's players the server measured.
func humans(f *replay.File) []int {
	var out []int
	seen := map[int]bool{}
	for _, n := range f.Record.Net {
		if !seen[int(n.Player)] {
			seen[int(n.Player)] = true
			out = append(out, int(n.Player))
		}
	}
	slices.Sort(out)
	return out
}

// TestSightViews: a human's view exists and follows the shown tick; a bot's
// does not, nor anyone's in a version-1 file.
func TestSightViews(t *testing.T) {
	f := duelRun(t).longest()
	hs := humans(f)
	if len(hs) != 2 {
		t.Fatalf("humans %v", hs)
	}
	p := open(t, f)
	start, end := p.Range()
	if err := p.SetView(hs[0]); err != nil {
		t.Fatal(err)
	}
	for _, tick := range []int64{(start + end) / 2, end, start + 1000, start + 1001} {
		if err := p.SeekTick(tick); err != nil {
			t.Fatal(err)
		}
		if st := p.ViewState(); st == nil || st.Tick() != tick || p.View() != hs[0] {
			t.Fatalf("view at %d: %v", tick, st)
		}
	}
	for slot := range sim.MaxPlayers {
		if !slices.Contains(hs, slot) {
			if err := p.SetView(slot); !errors.Is(err, ErrNoSight) {
				t.Fatalf("slot %d (no human): %v", slot, err)
			}
		}
	}
	if err := p.SetView(-1); err != nil || p.ViewState() != p.State() {
		t.Fatalf("overhead: %v", err)
	}
	g := *f
	g.Record.Net, g.Record.Timing = nil, nil // what a version-1 file has
	if _, err := open(t, &g).Sight(hs[0]); !errors.Is(err, ErrNoSight) {
		t.Fatalf("without measurements: %v", err)
	}
}

// TestSightStepsAsItRebuilds: her view reached tick by tick (with the
// rollbacks she went through) is the view rebuilt at that tick from the
// record: one definition, two ways of computing it.
func TestSightStepsAsItRebuilds(t *testing.T) {
	f := duelRun(t).longest()
	p := open(t, f)
	p.LoadAll()
	_, end := p.Range()
	for _, who := range humans(f) {
		s, err := p.Sight(who)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SeekTick(s.From()); err != nil {
			t.Fatal(err)
		}
		rollbacks, checked := 0, 0
		for s.t < end {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if s.LastRollback > 0 {
				rollbacks++
			}
			if s.t%97 == 0 {
				fresh, _ := p.Sight(who)
				if err := fresh.SeekTick(s.t); err != nil {
					t.Fatal(err)
				}
				if fresh.State().Hash() != s.State().Hash() {
					t.Fatalf("player %d at tick %d: stepped and rebuilt views differ", who, s.t)
				}
				checked++
			}
		}
		if rollbacks == 0 || checked < 10 {
			t.Fatalf("player %d: %d rollbacks, %d ticks checked", who, rollbacks, checked)
		}
	}
}

// accuracy compares, frame by frame, what each client of a lab run showed
// with the reconstruction of its view from the record, and with the
// recorded truth at the same tick.
type accuracy struct {
	frames                 int
	exact, truthExact      int             // frames whose whole state matched
	others, truthOthers    []float64       // position error of other cycles, mm
	own                    []float64       // of the player's own cycle, mm
	clockMs                []float64       // modelled clock minus the real one, ms
	extra                  []time.Duration // estimated mind-reader lead per player
	players, roundsChecked int
}

func measure(t testing.TB, run *labRun, m model) *accuracy {
	a := &accuracy{}
	for _, f := range run.files {
		p := open(t, f)
		p.LoadAll()
		start, end := p.Range()
		a.roundsChecked++
		for _, who := range humans(f) {
			s, err := newSight(p, who, m)
			if err != nil {
				t.Fatal(err)
			}
			a.players++
			a.extra = append(a.extra, s.extra)
			truth := open(t, f)
			for _, fr := range run.frames[who] {
				if fr.tick < max(start, s.From()) || fr.tick > end {
					continue
				}
				if err := s.SeekTick(fr.tick); err != nil {
					t.Fatal(err)
				}
				if err := truth.SeekTick(fr.tick); err != nil {
					t.Fatal(err)
				}
				a.frames++
				mine, real := s.State(), truth.State()
				if mine.Hash() == fr.hash {
					a.exact++
				}
				if real.Hash() == fr.hash {
					a.truthExact++
				}
				if fr.timed {
					a.clockMs = append(a.clockMs, float64(fr.now+s.offset(fr.now)-fr.clk)/1e6)
				}
				for i, c := range fr.cyc {
					if !c.in {
						continue
					}
					m, r := mine.Cycle(i), real.Cycle(i)
					em := math.Hypot(float64(m.X-c.x), float64(m.Y-c.y)) / 1000
					er := math.Hypot(float64(r.X-c.x), float64(r.Y-c.y)) / 1000
					if i == who {
						a.own = append(a.own, em)
					} else if m.InRound && r.InRound {
						a.others = append(a.others, em)
						a.truthOthers = append(a.truthOthers, er)
					}
				}
			}
		}
	}
	return a
}

func pct(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func (a *accuracy) String() string {
	clk := "not known on a real network"
	if len(a.clockMs) > 0 {
		clk = fmt.Sprintf("%+.1f/%+.1f/%+.1f ms", pct(a.clockMs, .05), pct(a.clockMs, .5), pct(a.clockMs, .95))
	}
	return fmt.Sprintf("%d rounds, %d players, %d frames: exact %.1f%% (truth %.1f%%); other cycles p50/p95/p99/max %.0f/%.0f/%.0f/%.0f mm "+
		"(truth %.0f/%.0f/%.0f/%.0f mm); own p99 %.0f mm; clock p05/p50/p95 %s; extra lead %v",
		a.roundsChecked, a.players, a.frames, 100*float64(a.exact)/float64(a.frames), 100*float64(a.truthExact)/float64(a.frames),
		pct(a.others, .5), pct(a.others, .95), pct(a.others, .99), pct(a.others, 1),
		pct(a.truthOthers, .5), pct(a.truthOthers, .95), pct(a.truthOthers, .99), pct(a.truthOthers, 1),
		pct(a.own, .99), clk, a.extra)
}

// TestSightAccuracy measures how close the reconstruction comes to what real
// clients showed (docs/replays.md has the figures; -v prints them) and
// requires it to be closer than the plain truth, which shows no prediction
// at all: for the whole state and for the other cycles' positions.
func TestSightAccuracy(t *testing.T) {
	run := duelRun(t)
	a := measure(t, run, model{})
	t.Logf("60/160 ms, charity auto: %v", a)
	if a.frames < 10000 {
		t.Fatalf("only %d frames compared", a.frames)
	}
	if a.exact <= a.truthExact || pct(a.others, .95) >= pct(a.truthOthers, .95) || pct(a.others, .5) > pct(a.truthOthers, .5) {
		t.Errorf("the reconstruction is no closer to the clients' screens than the truth: %v", a)
	}
	if testing.Verbose() {
		variants(t, run)
	}
}

// TestSightAccuracyJitter is the same measurement on links with jitter and
// loss (a stream: losses delay messages), eight clients.
func TestSightAccuracyJitter(t *testing.T) {
	if testing.Short() {
		t.Skip("eight clients, two minutes of game time")
	}
	var pings []time.Duration
	for _, ms := range []int{30, 50, 80, 100, 120, 150, 200, 250} {
		pings = append(pings, time.Duration(ms)*time.Millisecond)
	}
	run := runLab(t, lab.Options{Pings: pings, Jitter: 20 * time.Millisecond, Loss: 0.02,
		Charity: clock.Charity{Auto: true}, MindReader: true, Duration: 2 * time.Minute, Seed: 5, Rules: smallArena()})
	a := measure(t, run, model{})
	t.Logf("8 clients, 20 ms jitter, 2%% loss: %v", a)
	if testing.Verbose() {
		variants(t, run)
	}
	if a.exact <= a.truthExact || pct(a.others, .95) >= pct(a.truthOthers, .95) {
		t.Errorf("the reconstruction is no closer to the clients' screens than the truth: %v", a)
	}
}

// variants measures the model's other choices, for docs/replays.md.
func variants(t *testing.T, run *labRun) {
	for _, v := range []struct {
		name string
		m    model
	}{
		{"latency without the jitter term", model{noJitter: true}},
		{"her clock from her pongs", model{pongClock: true}},
	} {
		t.Logf("%s: %v", v.name, measure(t, run, v.m))
	}
}

// TestSightWhileLoading: a player's view can be watched from the first tick
// while the load pass is still behind, and shows what it shows once loaded.
func TestSightWhileLoading(t *testing.T) {
	f := duelRun(t).longest()
	who := humans(f)[0]
	p := open(t, f)
	if err := p.SetView(who); err != nil {
		t.Fatal(err)
	}
	start, end := p.Range()
	target := (start + end) / 2
	for p.Tick() < target {
		if err := p.Step(1); err != nil {
			t.Fatal(err)
		}
	}
	if p.Loaded() > target+p.rate || p.Loaded() >= end {
		t.Fatalf("loaded to %d of %d: the test did not watch ahead of the load pass", p.Loaded(), end)
	}
	q := open(t, f)
	q.LoadAll()
	q.SetView(who)
	if err := q.SeekTick(p.Tick()); err != nil {
		t.Fatal(err)
	}
	if p.ViewState().Hash() != q.ViewState().Hash() || p.ViewState() == p.State() {
		t.Fatalf("at tick %d the view watched while loading differs from the loaded one's", p.Tick())
	}
}
