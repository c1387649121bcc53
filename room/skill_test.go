package room

import (
	"testing"
	"time"

	"webtron/bot"
	"webtron/proto"
	"webtron/sim"
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

// TestPrivateRoom: a private room (Practice) seats its first player and
// lets it back with its token, and refuses spectators and any other player
// while it holds its seat; once it has left for good, the seat is free
// again (a page whose token expired before it rode comes back).
func TestPrivateRoom(t *testing.T) {
	r, tr := newTestRoom(t, Config{Bots: 3, Seats: 8, BotSkill: 1, Private: true, Reconnect: time.Second})
	refused := func(c ConnID, h *proto.Hello, now time.Duration) {
		t.Helper()
		if e := r.Receive(c, h, now); e == nil || e.Code != proto.CloseRoomFull {
			t.Fatalf("%+v joined a private room with its player in it: %v", h, e)
		}
	}
	refused(9, &proto.Hello{Name: "Watcher", Spectate: true}, 0)
	hello(t, r, 1, &proto.Hello{Name: "Ann"}, 0)
	var token []byte
	ann := -1
	for _, m := range tr.to(1) {
		if w, ok := m.(*proto.Welcome); ok {
			token, ann = w.Token, int(w.Player)
		}
	}
	refused(2, &proto.Hello{Name: "Bob"}, 0)
	refused(3, &proto.Hello{Name: "Cy", Spectate: true}, 0)
	now := runUntil(t, r, 0, 30*time.Second, func() bool {
		ph, _ := r.State().Phase()
		return ph == sim.PhasePlay && r.Timeline().Confirmed().Cycle(ann).InRound
	})
	r.Leave(1, now)
	refused(4, &proto.Hello{Name: "Bob"}, now) // Ann is expected back
	hello(t, r, 5, &proto.Hello{Name: "Ann", Token: token}, now)
	if humans, specs := r.Humans(); humans != 1 || specs != 0 {
		t.Fatalf("%d players and %d spectators, want Ann alone", humans, specs)
	}
	r.Leave(5, now)
	now = runUntil(t, r, now, now+30*time.Second, func() bool { return r.Empty() })
	hello(t, r, 6, &proto.Hello{Name: "Ann"}, now)
}
