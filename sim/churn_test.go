package sim

import (
	"bytes"
	"testing"
)

// churn is a seeded stream of what a room's players do: humans and bots
// joining and leaving at random (so rounds switch between the single-player
// and the multiplayer set, whose arenas differ), spawning into a countdown,
// reporting latency, turning and braking. Unlike randomEvents it keeps the
// room's own discipline: a join names a free slot, a leave a taken one.
type churn struct {
	rng  uint64
	seq  uint32
	here [MaxPlayers]bool
	max  int // slots in use: 0..max-1
}

func (g *churn) next() uint64 {
	g.rng = splitmix(g.rng)
	return g.rng
}

func (g *churn) tick(s *State, out []Event) []Event {
	v := g.next()
	if v%97 == 0 { // someone joins or leaves now and then
		p := int(v>>8) % g.max
		e := Event{Player: uint8(p), Kind: EvLeave}
		if !g.here[p] {
			e.Kind = EvJoin
			if v>>16%3 != 0 {
				e.Arg = JoinHuman
			}
		}
		g.here[p] = e.Kind == EvJoin
		out = append(out, e)
	}
	if ph, _ := s.Phase(); ph == PhasePrepare && v>>24%50 == 0 {
		for p := 0; p < g.max; p++ {
			if g.here[p] && !s.c.Cycles[p].InRound {
				out = append(out, Event{Player: uint8(p), Kind: EvSpawn})
			}
		}
	}
	for p := 0; p < g.max; p++ {
		if !g.here[p] {
			continue
		}
		w := g.next()
		if w%30 != 0 {
			continue
		}
		g.seq++
		e := Event{Player: uint8(p), Seq: g.seq}
		switch k := w >> 8 % 100; {
		case k < 42:
			e.Kind = EvTurnLeft
		case k < 84:
			e.Kind = EvTurnRight
		case k < 90:
			e.Kind = EvBrakeOn
		case k < 96:
			e.Kind = EvBrakeOff
		default:
			e.Kind, e.Arg = EvLatency, int32(w>>16%300_000)
		}
		out = append(out, e)
	}
	return out
}

// churnConfig returns rules that make rounds short (a small, fast arena, a
// short countdown and pause) so a test sees thousands of them, varied by
// seed: the sets differ in arena size, speed, teams, game and finish type,
// trail length and match limits.
func churnConfig(seed uint64) Config {
	c := DefaultConfig()
	c.PrepareMs, c.RoundOverMs = 200+int64(seed%3)*150, 100+int64(seed%2)*200
	c.ArenaSize = 120 * Meter
	c.SP.SizeFactor, c.MP.SizeFactor = -int64(seed%4), int64(seed%3)
	c.SP.SpeedFactor, c.MP.SpeedFactor = 2, int64(seed%5)
	c.MP.TeamMaxPlayers = 1 + int64(seed%4)
	c.SP.GameType, c.MP.GameType = int64(seed%2), int64(seed/2%2)
	c.SP.FinishType, c.MP.FinishType = int64(seed%4), int64(seed/4%4)
	c.MP.WallsLength = []int64{-Meter, 40 * Meter, 200 * Meter}[seed%3]
	c.SP.WallsStayUpDelayMs = []int64{-1, 0, 8000}[seed/3%3]
	c.SP.LimitRounds, c.MP.LimitRounds = 2+int64(seed%3), 3
	c.MP.LimitScore = 20
	c.MP.WinZoneMinRoundTimeMs, c.MP.WinZoneMinLastDeathMs = 3000, 1000
	return c
}

// TestChurnEncodeRoundTrip plays seeded games with humans and bots joining
// and leaving at random and the sets switching with them, and encodes and
// decodes every state: the decoded state must hash and re-encode the same,
// and now and then it must step on exactly as the original. A joining player
// and every resync start from such a decoded state (the server's confirmed
// state), so a state that does not decode takes a room down (issue 21: a
// departed player's cycle kept the multiplayer arena's coordinates into a
// smaller single-player round).
func TestChurnEncodeRoundTrip(t *testing.T) {
	seeds, ticks := 24, 28_000
	if testing.Short() {
		seeds, ticks = 3, 8_000
	}
	rounds, switches := int64(0), 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		cfg := churnConfig(seed)
		s, err := NewState(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		g := &churn{rng: seed, max: 2 + int(seed%7)}
		var evs []Event
		var enc []byte
		lastSet, lastRound, lastMatch := -1, int64(0), int64(0)
		var shadow *State                    // a decoded copy stepping beside s for a while
		var base, teamBase [MaxPlayers]int64 // scores when the round began: RoundScore and TeamRound count from them
		var here [MaxPlayers]bool
		for tick := 0; tick < ticks; tick++ {
			evs = g.tick(s, evs[:0])
			s.Step(evs)
			if shadow != nil {
				if shadow.Step(evs); shadow.Hash() != s.Hash() {
					t.Fatalf("seed %d tick %d: a state decoded at tick %d parted from the original", seed, s.Tick(), tick/501*501+1)
				}
			}
			enc = s.AppendBinary(enc[:0])
			d, err := UnmarshalState(enc)
			if err != nil {
				t.Fatalf("seed %d tick %d: the state does not decode: %v", seed, s.Tick(), err)
			}
			if d.Hash() != s.Hash() {
				t.Fatalf("seed %d tick %d: decoded hash %x, want %x", seed, s.Tick(), d.Hash(), s.Hash())
			}
			if !bytes.Equal(d.AppendBinary(nil), enc) {
				t.Fatalf("seed %d tick %d: re-encoding differs", seed, s.Tick())
			}
			switch tick % 501 {
			case 0:
				shadow = d
			case 240:
				shadow = nil
			}
			if set := int(s.c.Set); set != lastSet {
				switches++
				lastSet = set
			}
			if r, m := s.Round(); r != lastRound || m != lastMatch {
				rounds++
				lastRound, lastMatch = r, m
				for i := range base {
					base[i], teamBase[i] = s.c.Cycles[i].Score, s.c.TeamScore[i]
				}
			}
			for i := range s.c.Cycles {
				c := &s.c.Cycles[i]
				if c.Present && !here[i] {
					base[i] = 0 // a join starts from nothing
				}
				here[i] = c.Present
				if c.Present && c.Score-base[i] != c.RoundScore {
					t.Fatalf("seed %d tick %d: player %d made %d points this round by its score, RoundScore says %d", seed, s.Tick(), i, c.Score-base[i], c.RoundScore)
				}
				if got := s.c.TeamScore[i] - teamBase[i]; got != s.c.TeamRound[i] {
					t.Fatalf("seed %d tick %d: team %d made %d points this round by its score, TeamRound says %d", seed, s.Tick(), i, got, s.c.TeamRound[i])
				}
			}
		}
	}
	if rounds < int64(seeds*ticks/1000) || switches < seeds*4 {
		t.Fatalf("%d rounds and %d switches of set in %d games: the test should cross many of both", rounds, switches, seeds)
	}
	t.Logf("%d games, %d rounds, %d switches of set", seeds, rounds, switches)
}
