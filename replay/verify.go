package replay

import (
	"errors"
	"fmt"
	"io"
	"time"

	"webtron/sim"
)

// MaxTicks bounds a re-simulation: a day at 1000 Hz. A round never comes
// near it; a crafted file with a valid checksum cannot keep us busy forever.
const MaxTicks = 86_400_000

// ErrMismatch is wrapped by Verify's error when a recorded hash differs from
// the re-simulation's.
var ErrMismatch = errors.New("replay: hash mismatch")

// PlayerResult is one player's part in the recorded round.
type PlayerResult struct {
	Slot                 int
	Name                 string
	Score, Kills, Deaths int64 // totals in the match when the round was decided
	RoundScore           int64 // what this round added to Score
	Alive                bool  // still driving when the round was decided
}

// Summary is what re-simulating a file found.
type Summary struct {
	Kind               Kind
	Room               string
	Round              int64
	Created            time.Time
	TickRate           int64
	StartTick, EndTick int64
	Events             int
	Players            []PlayerResult
	Winner             int // player slot, -1 for none (a draw, or the round was cut short)
	Decided            bool
	HashesChecked      int
	FinalHash          uint64
	// Mismatches lists every hash that differed (Verify also returns an error).
	Mismatches []Mismatch
	// DesyncHash is the re-simulation's hash at the desync's tick, when the
	// record covers it: equal to Desync.Want when the server side reproduces.
	DesyncHash    uint64
	DesyncChecked bool
}

// Mismatch is one recorded hash that the re-simulation did not reproduce.
type Mismatch struct {
	Tick          int64
	Recorded, Got uint64
}

// Verify re-simulates f from its start snapshot through every recorded event,
// checking each recorded hash. The summary is filled even when a hash does
// not match, so the caller can still show what happened.
func Verify(f *File) (*Summary, error) {
	rec := &f.Record
	st, err := sim.UnmarshalState(rec.Start)
	if err != nil {
		return nil, fmt.Errorf("replay: start snapshot: %w", err)
	}
	if st.Tick() != rec.StartTick {
		return nil, fmt.Errorf("%w: start snapshot is at tick %d, the file says %d", ErrCorrupt, st.Tick(), rec.StartTick)
	}
	if rec.EndTick-rec.StartTick > MaxTicks {
		return nil, fmt.Errorf("%w: %d ticks is longer than any round", ErrCorrupt, rec.EndTick-rec.StartTick)
	}
	s := &Summary{Kind: f.Kind, Room: f.Room, Round: f.Round, Created: f.Created, TickRate: st.Config().TickRate,
		StartTick: rec.StartTick, EndTick: rec.EndTick, Events: len(rec.Events), Winner: -1}
	startScore := scores(st)
	var decided *sim.State
	evs := rec.Events
	hashes := rec.Hashes
	var buf []sim.Event
	for tick := rec.StartTick; ; tick++ {
		for len(hashes) > 0 && hashes[0].Tick == tick {
			s.check(tick, hashes[0].Hash, st.Hash())
			hashes = hashes[1:]
		}
		if f.Desync != nil && f.Desync.Tick == tick {
			s.DesyncHash, s.DesyncChecked = st.Hash(), true
		}
		if tick == rec.EndTick {
			break
		}
		buf = buf[:0]
		for len(evs) > 0 && evs[0].Tick == tick {
			buf = append(buf, evs[0].Ev)
			evs = evs[1:]
		}
		before, _ := st.Phase()
		st.Step(buf)
		// The record ends when the next round has started, which may reset the
		// match's scores: keep the state as it was when this round was decided.
		if ph, _ := st.Phase(); ph == sim.PhaseOver && before != sim.PhaseOver && decided == nil {
			decided, _ = sim.UnmarshalState(st.AppendBinary(nil))
		}
	}
	s.FinalHash = st.Hash()
	final := st
	if decided != nil {
		final, s.Decided, s.Winner = decided, true, decided.Winner()
	}
	for slot := 0; slot < sim.MaxPlayers; slot++ {
		c := final.Cycle(slot)
		name := ""
		if slot < len(f.Names) {
			name = f.Names[slot]
		}
		if !c.Present && !c.InRound && name == "" {
			continue
		}
		s.Players = append(s.Players, PlayerResult{Slot: slot, Name: name, Score: c.Score, Kills: c.Kills,
			Deaths: c.Deaths, RoundScore: c.Score - startScore[slot], Alive: c.Alive})
	}
	if len(s.Mismatches) > 0 {
		m := s.Mismatches[0]
		return s, fmt.Errorf("%w at tick %d: recorded %016x, re-simulated %016x (%d of %d hashes differ)",
			ErrMismatch, m.Tick, m.Recorded, m.Got, len(s.Mismatches), s.HashesChecked)
	}
	return s, nil
}

func (s *Summary) check(tick int64, want, got uint64) {
	s.HashesChecked++
	if want != got {
		s.Mismatches = append(s.Mismatches, Mismatch{Tick: tick, Recorded: want, Got: got})
	}
}

func scores(st *sim.State) [sim.MaxPlayers]int64 {
	var v [sim.MaxPlayers]int64
	for i := range v {
		v[i] = st.Cycle(i).Score
	}
	return v
}

// Print writes the summary for people: what was played, by whom, who won.
func (s *Summary) Print(w io.Writer, f *File) {
	dur := time.Duration(0)
	if s.TickRate > 0 {
		dur = time.Duration(s.EndTick-s.StartTick) * time.Second / time.Duration(s.TickRate)
	}
	fmt.Fprintf(w, "%s of room %q, round %d, recorded %s\n", s.Kind, s.Room, s.Round, s.Created.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "ticks %d..%d (%d ticks, %s at %d Hz), %d events\n", s.StartTick, s.EndTick,
		s.EndTick-s.StartTick, dur.Round(time.Millisecond), s.TickRate, s.Events)
	for _, p := range s.Players {
		state := "dead"
		if p.Alive {
			state = "alive"
		}
		// Names come from the file: quoted, so that no control sequence in
		// one reaches the terminal.
		fmt.Fprintf(w, "  player %2d  %-26q score %4d (%+d)  kills %3d  deaths %3d  %s\n",
			p.Slot, p.Name, p.Score, p.RoundScore, p.Kills, p.Deaths, state)
	}
	switch {
	case !s.Decided:
		fmt.Fprintln(w, "winner: none (the record ends before the round was decided)")
	case s.Winner < 0:
		fmt.Fprintln(w, "winner: none (draw)")
	default:
		fmt.Fprintf(w, "winner: player %d %q\n", s.Winner, s.name(s.Winner))
	}
	fmt.Fprintf(w, "hashes: %d checked, %d mismatched\n", s.HashesChecked, len(s.Mismatches))
	if f != nil && f.Desync != nil {
		d := f.Desync
		fmt.Fprintf(w, "desync: player %d at tick %d: client %016x, server %016x", d.Player, d.Tick, d.Client, d.Want)
		switch {
		case !s.DesyncChecked:
			fmt.Fprintln(w, "; the record does not cover that tick")
		case s.DesyncHash == d.Want:
			fmt.Fprintln(w, "; re-simulation reproduces the server's hash, so the client diverged")
		default:
			fmt.Fprintf(w, "; re-simulation gives %016x, so the server's own history differs\n", s.DesyncHash)
		}
	}
}

func (s *Summary) name(slot int) string {
	for _, p := range s.Players {
		if p.Slot == slot {
			return p.Name
		}
	}
	return ""
}
