package bot

import (
	"testing"

	"webtron/sim"
)

// levels are the skills the tests compare, lowest first: the lobby's
// Practice levels.
var levels = []int{MinSkill, 30, 60, MaxSkill}

// skillGame plays one seeded game of len(skills) players for ticks ticks: a
// bot of skills[k] in seat k, or a rider (NewRider) where skills[k] is 0.
func skillGame(t testing.TB, cfg sim.Config, seed uint64, skills []int, ticks int) *Survival {
	t.Helper()
	s, err := sim.NewState(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Joins(len(skills)))
	bots := make([]*Bot, len(skills))
	for p, k := range skills {
		if k == 0 {
			bots[p] = NewRider(p)
		} else {
			bots[p] = NewSkill(p, seed*1000+uint64(p), k)
		}
	}
	var v Survival
	var buf [64]sim.Event
	evs := buf[:0]
	for range ticks {
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		s.Step(evs)
		evs = evs[:0]
		v.Observe(s)
	}
	return &v
}

// tally sums the survival of each skill over games.
type tally struct {
	rounds, wins map[int]int
	alive        map[int]int64
}

func (ta *tally) add(v *Survival, skills []int) {
	if ta.rounds == nil {
		ta.rounds, ta.wins, ta.alive = map[int]int{}, map[int]int{}, map[int]int64{}
	}
	for p, k := range skills {
		ta.rounds[k] += v.Rounds[p]
		ta.wins[k] += v.Wins[p]
		ta.alive[k] += v.Alive[p]
	}
}

// life is skill k's mean time alive per round, in centiseconds.
func (ta *tally) life(k int) int64 { return ta.alive[k] * 100 / 120 / int64(max(1, ta.rounds[k])) }

// TestSkillLevels plays seeded games in which every level rides, seats
// rotating from game to game: each level must outlive the one below, and
// the highest win more rounds than the lowest. Against a rider (NewRider),
// the lowest must lose more rounds than it wins (one who only turns at
// walls can beat it) and the highest win more than it loses.
func TestSkillLevels(t *testing.T) {
	cfg := sim.DefaultConfig()
	var mixed tally
	for seed := uint64(1); seed <= 8; seed++ {
		skills := make([]int, len(levels))
		for k := range skills {
			skills[k] = levels[(k+int(seed))%len(levels)]
		}
		mixed.add(skillGame(t, cfg, seed, skills, 20_000), skills)
	}
	for i, k := range levels {
		t.Logf("skill %3d: %d.%02d s a round, %d wins in %d rounds", k, mixed.life(k)/100, mixed.life(k)%100, mixed.wins[k], mixed.rounds[k])
		if j := levels[max(i-1, 0)]; i > 0 && mixed.life(k) <= mixed.life(j) {
			t.Errorf("skill %d lives %d cs a round, no longer than skill %d's %d", k, mixed.life(k), j, mixed.life(j))
		}
	}
	lo, hi := levels[0], levels[len(levels)-1]
	if mixed.wins[hi] <= mixed.wins[lo] {
		t.Errorf("skill %d won %d rounds, skill %d %d", hi, mixed.wins[hi], lo, mixed.wins[lo])
	}
	for _, k := range []int{lo, hi} {
		var duel tally
		for seed := uint64(1); seed <= 8; seed++ {
			pair := []int{k, 0}
			if seed%2 == 0 {
				pair = []int{0, k}
			}
			duel.add(skillGame(t, cfg, seed, pair, 12_000), pair)
		}
		t.Logf("skill %3d against a rider: %d wins, the rider %d", k, duel.wins[k], duel.wins[0])
		if k == lo && duel.wins[k] >= duel.wins[0] || k == hi && duel.wins[k] <= duel.wins[0] {
			t.Errorf("skill %d won %d rounds against a rider, the rider %d", k, duel.wins[k], duel.wins[0])
		}
	}
}
