package bot

import "webtron/sim"

// Survival tallies how long each player's cycle stays alive in the rounds a
// headless game finishes, and who wins them: the measure of a bot's skill
// (`webtron sim --survival`, docs/performance.md). Call Observe after every
// Step. A round still being played when the game stops does not count.
type Survival struct {
	Rounds [sim.MaxPlayers]int   // finished rounds the player's cycle rode in
	Alive  [sim.MaxPlayers]int64 // ticks it was alive in them, summed
	Wins   [sim.MaxPlayers]int   // of them, those its team won

	playing bool
	round   [sim.MaxPlayers]int64 // ticks alive in the round being played
}

// Observe takes in the state just stepped.
func (v *Survival) Observe(s *sim.State) {
	ph, _ := s.Phase()
	if ph == sim.PhasePlay {
		if !v.playing {
			v.playing, v.round = true, [sim.MaxPlayers]int64{}
		}
		for p := range sim.MaxPlayers {
			if c := s.Cycle(p); c.Alive {
				v.round[p]++
			}
		}
		return
	}
	if !v.playing {
		return
	}
	// The step that ended play: its cycles are in their final places.
	v.playing = false
	w := s.Winner()
	for p := range sim.MaxPlayers {
		c := s.Cycle(p)
		if !c.InRound {
			continue
		}
		v.Rounds[p]++
		v.Alive[p] += v.round[p]
		if w >= 0 && int(c.Team) == w {
			v.Wins[p]++
		}
	}
}

// MeanLife returns player p's mean time alive per round, in milliseconds at
// rate ticks per second (0 before its first finished round).
func (v *Survival) MeanLife(p int, rate int64) int64 {
	if v.Rounds[p] == 0 {
		return 0
	}
	return v.Alive[p] * 1000 / rate / int64(v.Rounds[p])
}
