package playback

import (
	"sync"
	"testing"
	"time"

	"webtron/client"
	"webtron/clock"
	"webtron/history"
	"webtron/lab"
	"webtron/replay"
	"webtron/room"
	"webtron/sim"
)

// seen is one cycle on a client's screen.
type seen struct {
	x, y int64
	in   bool // in the round
}

// frame is what a client's screen showed after one of its frames.
type frame struct {
	now  time.Duration // server time (the lab's room starts its tick 0 at time 0)
	tick int64         // its present tick
	clk  time.Duration // its clock: its estimate of server time plus its lead
	// timed: now and clk are known (the lab's virtual clock is the
	// server's; on a real network the server's clock is out of reach)
	timed bool
	hash  uint64
	cyc   [8]seen
}

// labRun is a lab experiment: the rounds as the server would write them
// (through Marshal and Unmarshal, so as a file holds them), and every
// client's screen frame by frame, by player slot.
type labRun struct {
	files  []*replay.File
	frames map[int][]frame
}

func runLab(tb testing.TB, opt lab.Options) *labRun {
	tb.Helper()
	run := &labRun{frames: map[int][]frame{}}
	opt.OnRound = func(rec history.RoundRecord, names []string) {
		if rec.EndTick-rec.StartTick < opt.TickRate*5 {
			return // the record before the first round, or a round cut short
		}
		b, err := replay.Marshal(&replay.File{Kind: replay.KindRound, Room: "lab", Round: int64(len(run.files) + 1),
			Created: time.UnixMilli(1_700_000_000_000), Names: names, Record: rec})
		if err != nil {
			tb.Fatal(err)
		}
		f, err := replay.Unmarshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		run.files = append(run.files, f)
	}
	opt.OnFrame = func(id int, s *client.Session, now time.Duration) {
		st := s.State()
		if st == nil || s.You() < 0 {
			return
		}
		fr := frame{now: now, tick: st.Tick(), hash: st.Hash(), clk: s.Clock(now), timed: true}
		for i := range fr.cyc {
			c := st.Cycle(i)
			fr.cyc[i] = seen{c.X, c.Y, c.InRound}
		}
		run.frames[s.You()] = append(run.frames[s.You()], fr)
	}
	if opt.TickRate == 0 {
		opt.TickRate = 120
	}
	if _, err := lab.Run(opt); err != nil {
		tb.Fatal(err)
	}
	if len(run.files) == 0 {
		tb.Fatal("the lab recorded no round")
	}
	return run
}

// duel is two clients at 60 and 160 ms with two server bots, charity auto,
// in a 100 m arena (rounds of tens of seconds): the fixture of most tests
// here.
var duel struct {
	once sync.Once
	run  *labRun
}

func duelRun(tb testing.TB) *labRun {
	duel.once.Do(func() {
		duel.run = runLab(tb, lab.Options{Pings: []time.Duration{60 * time.Millisecond, 160 * time.Millisecond},
			Charity: clock.Charity{Auto: true}, MindReader: true, Bots: 2, Duration: 2 * time.Minute, Seed: 3, Rules: smallArena()})
	})
	if duel.run == nil {
		tb.Fatal("the lab run failed")
	}
	return duel.run
}

// smallArena is the default rules in a 100 m arena.
func smallArena() *sim.Config {
	r := sim.DefaultConfig()
	r.ArenaSize = 100 * sim.Meter
	return &r
}

// longest returns the run's longest round.
func (r *labRun) longest() *replay.File {
	best := r.files[0]
	for _, f := range r.files {
		if f.Record.EndTick-f.Record.StartTick > best.Record.EndTick-best.Record.StartTick {
			best = f
		}
	}
	return best
}

// long is a round of eight bots of at least five minutes, the size the
// issue asks load figures for.
var long struct {
	once sync.Once
	file *replay.File
	b    []byte
}

func longRound(tb testing.TB) (*replay.File, []byte) {
	long.once.Do(func() {
		cfg := sim.DefaultConfig()
		// Bots alone play on (FINISH_TYPE 3), no win zone opens, and in a
		// 1000 m arena eight bots ride for minutes (seed 2: 316 s):
		// the defaults end a round without humans within seconds, and in
		// the 500 m arena no round of eight bots lasts three minutes.
		for _, set := range []*sim.Set{&cfg.SP, &cfg.MP} {
			set.FinishType, set.WinZoneMinRoundTimeMs = sim.FinishNormal, 1_000_000_000
		}
		cfg.ArenaSize = 1000 * sim.Meter
		var found *replay.File
		r, err := room.New("long", room.Config{Sim: cfg, Seed: 2, Bots: 8, Seats: 8, OnRound: func(rec history.RoundRecord, names []string) {
			if found == nil && rec.EndTick-rec.StartTick >= 5*60*cfg.TickRate {
				found = &replay.File{Kind: replay.KindRound, Room: "long", Round: 1, Created: time.UnixMilli(1_700_000_000_000), Names: names, Record: rec}
			}
		}}, 0, room.Discard)
		if err != nil {
			panic(err)
		}
		for now := time.Duration(0); found == nil && now < time.Hour; now += r.TickDuration() {
			if err := r.Tick(now); err != nil {
				panic(err)
			}
		}
		if found == nil {
			return
		}
		b, err := replay.Marshal(found)
		if err != nil {
			panic(err)
		}
		long.file, _ = replay.Unmarshal(b)
		long.b = b
	})
	if long.file == nil {
		tb.Fatal("no five-minute round in an hour of eight bots")
	}
	return long.file, long.b
}
