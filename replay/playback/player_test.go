package playback

import (
	"errors"
	"math/rand/v2"
	"testing"

	"webtron/history"
	"webtron/replay"
	"webtron/sim"
)

// reference re-simulates f plainly and returns the hash at every tick.
func reference(t testing.TB, f *replay.File) map[int64]uint64 {
	t.Helper()
	st, err := sim.UnmarshalState(f.Record.Start)
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[int64]uint64{st.Tick(): st.Hash()}
	evs := f.Record.Events
	var buf []sim.Event
	for st.Tick() < f.Record.EndTick {
		buf = buf[:0]
		for len(evs) > 0 && evs[0].Tick == st.Tick() {
			buf = append(buf, evs[0].Ev)
			evs = evs[1:]
		}
		st.Step(buf)
		hashes[st.Tick()] = st.Hash()
	}
	return hashes
}

func open(t testing.TB, f *replay.File) *Player {
	t.Helper()
	p, err := New(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlayerAgreesWithVerify: the load pass finds what replay.Verify finds,
// and the kill feed counts every death.
func TestPlayerAgreesWithVerify(t *testing.T) {
	for _, f := range duelRun(t).files {
		p := open(t, f)
		p.LoadAll()
		if err := p.Damaged(); err != nil {
			t.Fatal(err)
		}
		sum, err := replay.Verify(f)
		if err != nil {
			t.Fatal(err)
		}
		_, winner, ok := p.Decided()
		if ok != sum.Decided || winner != sum.Winner {
			t.Errorf("round %d: decided %v winner %d, Verify %v %d", f.Round, ok, winner, sum.Decided, sum.Winner)
		}
		start, _ := sim.UnmarshalState(f.Record.Start)
		deaths := int64(0)
		for _, r := range sum.Players {
			deaths += r.Deaths - start.Cycle(r.Slot).Deaths
		}
		n := int64(0)
		for _, k := range p.Kills() {
			if k.Cause != sim.CauseLeft {
				n++
			}
		}
		if n != deaths || n == 0 {
			t.Errorf("round %d: %d kills in the feed, %d deaths", f.Round, n, deaths)
		}
	}
}

// TestSeek: wherever it comes from (forward, backward, far, near, the ends,
// before the load pass got there), the shown state is the one a plain
// re-simulation has at that tick.
func TestSeek(t *testing.T) {
	f := duelRun(t).longest()
	ref := reference(t, f)
	p, err := Open(mustMarshal(t, f), Options{})
	if err != nil {
		t.Fatal(err)
	}
	start, end := p.Range()
	check := func(what string, tick int64) {
		t.Helper()
		if err := p.SeekTick(tick); err != nil {
			t.Fatalf("%s %d: %v", what, tick, err)
		}
		if p.Tick() != tick || p.State().Hash() != ref[tick] {
			t.Fatalf("%s %d: at tick %d, hash %016x, want %016x", what, tick, p.Tick(), p.State().Hash(), ref[tick])
		}
	}
	p.Load(200)
	check("beyond the loaded part", (start+end)/2)
	check("end", end)
	check("start", start)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		switch tick := p.Tick(); rng.IntN(4) {
		case 0:
			check("far", start+rng.Int64N(end-start+1))
		case 1:
			check("near forward", min(end, tick+rng.Int64N(10)))
		case 2:
			check("near backward", max(start, tick-rng.Int64N(10)))
		default:
			check("a few seconds", min(end, max(start, tick+rng.Int64N(2000)-1000)))
		}
	}
	for range 50 {
		p.Step(-1)
	}
	check("after stepping back", p.Tick())
	if err := p.SeekTick(end + 1); !errors.Is(err, ErrRange) {
		t.Fatalf("beyond the end: %v", err)
	}
	if err := p.Damaged(); err != nil {
		t.Fatal(err)
	}
}

func mustMarshal(t testing.TB, f *replay.File) []byte {
	t.Helper()
	b, err := replay.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tampered is f with one turn moved a tick later: a well-formed file whose
// history no longer gives its recorded hashes.
func tampered(t *testing.T, f *replay.File) (*replay.File, int64) {
	g := *f
	g.Record.Events = append([]history.TickEvent(nil), f.Record.Events...)
	for i, te := range g.Record.Events {
		if te.Ev.Kind >= sim.EvTurnLeft && te.Ev.Kind <= sim.EvTurnRight && te.Tick > g.Record.StartTick+1000 &&
			te.Tick+1 < g.Record.EndTick && (i+1 == len(g.Record.Events) || g.Record.Events[i+1].Tick > te.Tick+1) {
			g.Record.Events[i].Tick++
			if g.Record.Timing != nil {
				g.Record.Timing = append([]history.EventTiming(nil), g.Record.Timing...)
				g.Record.Timing[i].Asked++
			}
			h, err := replay.Unmarshal(mustMarshal(t, &g))
			if err != nil {
				t.Fatal(err)
			}
			return h, te.Tick
		}
	}
	t.Fatal("no turn to move")
	return nil, 0
}

// TestDamagedWhilePlaying: a file whose history was changed (its checksum
// made right again) is found damaged by the hashes while playing, as soon as
// the play passes the change.
func TestDamagedWhilePlaying(t *testing.T) {
	g, at := tampered(t, duelRun(t).longest())
	p := open(t, g)
	if err := p.SeekTick(at - 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Damaged(); err != nil {
		t.Fatalf("damaged before the change: %v", err)
	}
	_, end := p.Range()
	for p.Tick() < end && p.Damaged() == nil {
		p.Step(1)
	}
	if err := p.Damaged(); !errors.Is(err, ErrDamaged) || p.Tick() > at+history.DefaultHashEvery+1 {
		t.Fatalf("at tick %d (changed at %d): %v", p.Tick(), at, err)
	}
}

// TestStatedResultChecked: a version-2 file that states another winner is
// damaged.
func TestStatedResultChecked(t *testing.T) {
	f := *duelRun(t).longest()
	f.Record.Winner = (f.Record.Winner + 1) % 4
	if !f.Record.Decided {
		f.Record.Decided, f.Record.Winner = true, 0
	}
	g, err := replay.Unmarshal(mustMarshal(t, &f))
	if err != nil {
		t.Fatal(err)
	}
	p := open(t, g)
	p.LoadAll()
	if err := p.Damaged(); !errors.Is(err, ErrDamaged) {
		t.Fatalf("stated result not checked: %v", err)
	}
}

// TestEndsOnTheRound: the last tick a replay shows is its round's final
// state, the round over with its winner, not the next round's empty arena
// (the record's EndTick, after the tick that started it).
func TestEndsOnTheRound(t *testing.T) {
	f := duelRun(t).longest()
	p, err := Open(mustMarshal(t, f), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.LoadAll()
	start, end := p.Range()
	if err := p.SeekTick(start); err != nil {
		t.Fatal(err)
	}
	round, match := p.State().Round()
	if err := p.SeekTick(end); err != nil {
		t.Fatal(err)
	}
	r, m := p.State().Round()
	ph, _ := p.State().Phase()
	if r != round || m != match || ph != sim.PhaseOver {
		t.Fatalf("the last tick shown (%d) is in round %d of match %d, phase %d; want round %d of match %d, over", end, r, m, ph, round, match)
	}
	if end != f.Record.EndTick-1 {
		t.Fatalf("the last tick shown is %d, want %d: the one before the next round began", end, f.Record.EndTick-1)
	}
	if err := p.Damaged(); err != nil {
		t.Fatal(err)
	}
}
