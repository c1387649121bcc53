//go:build !js

package replay

import (
	"fmt"
	"io"
	"time"

	"webtron/sim"
)

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
		team := ""
		if s.TeamMax > 1 && p.Team != sim.NoTeam {
			team = fmt.Sprintf("  team %d", p.Team+1)
		}
		fmt.Fprintf(w, "  player %2d  %-26q score %4d (%+d)  kills %3d  deaths %3d  %s%s\n",
			p.Slot, p.Name, p.Score, p.RoundScore, p.Kills, p.Deaths, state, team)
	}
	switch {
	case !s.Decided:
		fmt.Fprintln(w, "winner: none (the record ends before the round was decided)")
	case s.Winner < 0:
		fmt.Fprintln(w, "winner: none (draw)")
	case s.TeamMax <= 1:
		fmt.Fprintf(w, "winner: player %d %q\n", s.Winner, s.name(s.Winner))
	default:
		// A team won: Armagetron's numbers (team 1 is Cycle.Team 0) and its members.
		fmt.Fprintf(w, "winner: team %d:", s.Winner+1)
		for _, p := range s.Team(s.Winner) {
			fmt.Fprintf(w, " player %d %q", p.Slot, p.Name)
		}
		fmt.Fprintln(w)
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
