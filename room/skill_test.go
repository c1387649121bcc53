package room

import (
	"testing"
	"time"

	"webtron/bot"
	"webtron/proto"
)

// botSkills returns the skills of the bots seated in r.
func botSkills(r *Room) []int {
	var out []int
	for _, m := range r.members {
		if m != nil && m.bot != nil {
			out = append(out, m.bot.Skill())
		}
	}
	return out
}

// TestBotSkill: a room's bots play at its Config.BotSkill, those seated at
// the start and those seated again when a human leaves; a room that sets
// none has full-skill bots, and a skill out of the scale is clamped to it.
func TestBotSkill(t *testing.T) {
	for _, c := range []struct{ set, want int }{{30, 30}, {0, bot.DefaultSkill}, {bot.MinSkill, bot.MinSkill}, {-5, bot.MinSkill}, {500, bot.MaxSkill}} {
		r, _ := newTestRoom(t, Config{Bots: 3, Seats: 3, BotSkill: c.set})
		check := func(when string, n int) {
			t.Helper()
			got := botSkills(r)
			if len(got) != n {
				t.Fatalf("skill %d, %s: %d bots seated, want %d", c.set, when, len(got), n)
			}
			for _, k := range got {
				if k != c.want {
					t.Errorf("skill %d, %s: a bot of skill %d, want %d", c.set, when, k, c.want)
				}
			}
			if r.BotSkill() != c.want {
				t.Errorf("skill %d: the room says %d, want %d", c.set, r.BotSkill(), c.want)
			}
		}
		check("at the start", 3)
		hello(t, r, 1, &proto.Hello{Name: "Ann"}, 0)
		now := runUntil(t, r, 0, 30*time.Second, func() bool { return r.Bots() == 2 })
		check("beside a human", 2)
		r.Leave(1, now)
		runUntil(t, r, now, now+30*time.Second, func() bool { return r.Bots() == 3 })
		check("once the human left", 3)
	}
}
