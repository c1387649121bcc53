package replay

import (
	"errors"
	"strconv"
	"time"

	"webtron/internal/errwrap"
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
	Team                 int   // its team in the round (sim.Cycle.Team)
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
	// Winner is the team that won (sim.State.Winner), -1 for none (a draw,
	// or the round was cut short). With TeamMax 1 every player is a team of
	// its own, numbered by its slot.
	Winner        int
	TeamMax       int64 // TEAM_MAX_PLAYERS of the round's settings set
	Decided       bool
	HashesChecked int
	FinalHash     uint64
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
		return nil, errwrap.New("replay: start snapshot: "+err.Error(), err)
	}
	if st.Tick() != rec.StartTick {
		return nil, errwrap.Wrap(ErrCorrupt, "start snapshot is at tick "+itoa(st.Tick())+", the file says "+itoa(rec.StartTick))
	}
	if rec.EndTick-rec.StartTick > MaxTicks {
		return nil, errwrap.Wrap(ErrCorrupt, itoa(rec.EndTick-rec.StartTick)+" ticks is longer than any round")
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
	set, _ := final.Rules()
	s.TeamMax = set.TeamMaxPlayers
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
			Deaths: c.Deaths, RoundScore: c.Score - startScore[slot], Alive: c.Alive, Team: int(c.Team)})
	}
	// A version-2 file says how the round ended: the listing of replays
	// shows it without re-simulating, so it must be what happened.
	if f.Version >= 2 && (rec.Decided != s.Decided || rec.Decided && rec.Winner != s.Winner) {
		return s, errwrap.Wrap(ErrMismatch, "the file says decided "+strconv.FormatBool(rec.Decided)+", winner "+itoa(int64(rec.Winner))+
			"; re-simulated decided "+strconv.FormatBool(s.Decided)+", winner "+itoa(int64(s.Winner)))
	}
	if len(s.Mismatches) > 0 {
		m := s.Mismatches[0]
		return s, errwrap.New(ErrMismatch.Error()+" at tick "+itoa(m.Tick)+": recorded "+hex(m.Recorded, 16)+", re-simulated "+
			hex(m.Got, 16)+" ("+itoa(int64(len(s.Mismatches)))+" of "+itoa(int64(s.HashesChecked))+" hashes differ)", ErrMismatch)
	}
	return s, nil
}

// Team returns the players of team t, by slot.
func (s *Summary) Team(t int) []PlayerResult {
	var out []PlayerResult
	for _, p := range s.Players {
		if p.Team == t {
			out = append(out, p)
		}
	}
	return out
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
