// Package bot is a lightcycle AI. It only reads a *sim.State and produces the
// events a human player would send (turns and brake), so the same bot fills
// empty seats on the server, drives headless clients in load tests, and plays
// seeded games in `webtron sim` whose final hash is a golden value.
//
// That last use makes the bot part of a deterministic computation, checked both
// natively and under WebAssembly, so it follows the simulation's rules: integers
// only, no map iteration, no time, no goroutines, no package-level mutable
// state; its randomness is its own seeded generator.
//
// Cost is kept low by keeping, per bot, a coarse map of the walls (updated from
// what changed since the last tick) and looking hard only when a decision is
// due: near a wall, or every few tenths of a second for tactics.
//
// A bot has a skill, on the scale of Armagetron's AI_IQ setting (1..100):
// Armagetron picks, for a wanted IQ, the AI character whose abilities sum
// nearest to it (gAIBase.cpp, config/aiplayers.cfg), abilities such as its
// reaction speed, viewing range, emergency reaction, wall tracing, close
// combat and the detection of closed areas. Here the same abilities are
// weakened together from the full-skill bot: see persona.dull.
package bot

import "webtron/sim"

// Bot is one computer player. Use one Bot per player and call Decide once per
// tick, before the state is stepped.
type Bot struct {
	id  int
	seq uint32
	rng uint64
	p   persona
	w   world

	skill int        // MinSkill..MaxSkill
	rider bool       // a scripted rider (NewRider), not an AI
	st    *sim.State // the state the map follows; another one means starting over
	rate  int64      // ticks per second
	delay int64      // turn delay in ticks (the longer of the two sides')
	think int64      // ticks between two looks at the state: 1, or more below full skill
	dirs  [][2]int64 // the map's directions (sim.AxisVector) when its Axes is not 4, else nil

	gap      int64 // distance to the wall ahead when last measured exactly
	gapOwner int   // who laid that wall
	gapOdo   int64 // odometer at that measurement
	gapDir   uint8 // heading at that measurement
	gapEpoch int64 // map epoch of that measurement (a new one: rollback or new round)
	seen     int64 // the map's gap ahead at that measurement, or far
	nextRay  int64 // tick by which to measure again
	nextLook int64 // tick of the next tactical look
	hold     int64 // no new decision at the wall before this tick

	want     bool  // a turn was sent and has not shown yet (it may be postponed)
	wantDir  uint8 // the heading it leads to
	wantTill int64 // give up waiting at this tick (the event may have been refused)
	sent     int64 // tick at which the turn could have been applied at the earliest
	lag      int64 // ticks the last turn took beyond that: the event's delay
	tight    bool  // short of room: brake to turn in less space
	pedal    int64 // no new brake event before this tick (it may be postponed)
	epoch    int64 // map epoch the fields above belong to
}

// The skill scale, Armagetron's AI_IQ: a room's bots play at one skill.
const (
	MinSkill = 1   // thinks three times a second, looks half as far, never attacks
	MaxSkill = 100 // the full bot: every ability as drawn
	// DefaultSkill is the skill of New's bots and of a room that sets
	// none: the full bot, as Armagetron's multiplayer AI_IQ is 100.
	DefaultSkill = MaxSkill
)

// New returns a bot of DefaultSkill for player slot player. The seed picks
// its personality and drives its randomness, so the same seeds replay the
// same games.
func New(player int, seed uint64) *Bot { return NewSkill(player, seed, DefaultSkill) }

// NewSkill is New at a skill, MinSkill..MaxSkill (clamped into it, as
// Armagetron clamps AI_IQ). The same seed draws the same personality at
// every skill; the skill then weakens it.
func NewSkill(player int, seed uint64, skill int) *Bot {
	b := &Bot{id: player, rng: seed ^ 0x6a09e667f3bcc909, skill: min(max(skill, MinSkill), MaxSkill)}
	b.p = newPersona(b)
	b.p.dull(int64(b.skill))
	return b
}

// Skill returns the bot's skill, MinSkill..MaxSkill (0 for a rider).
func (b *Bot) Skill() int { return b.skill }

// Decide appends to out the events this bot's player sends at the state's
// current tick, usually none, and returns the extended slice. It acts only
// while its cycle is alive in a round being played. It never allocates once its
// buffers have grown, and never modifies the state.
func (b *Bot) Decide(s *sim.State, out []sim.Event) []sim.Event {
	if b.id < 0 || b.id >= sim.MaxPlayers {
		return out
	}
	if ph, _ := s.Phase(); ph != sim.PhasePlay {
		return out
	}
	me := s.Cycle(b.id)
	if !me.Alive {
		return out
	}
	if b.rider {
		return b.ride(s, &me, out)
	}
	if b.st != s {
		b.attach(s)
	}
	if (s.Tick()+int64(b.id))%b.think != 0 {
		// Between its looks a slow bot sees nothing new. The looks fall on
		// fixed ticks, so that a bot deciding a tick again after a rollback
		// looks when it looked before.
		return out
	}
	other, same := s.TurnDelay() // rules may change from round to round
	b.delay = max(other, same)
	b.w.sync(s, &me, b.p.react)
	return b.drive(s, &me, out)
}

func (b *Bot) attach(s *sim.State) {
	b.st = s
	b.rate = s.Config().TickRate
	b.think = max(1, b.p.thinkMs*b.rate/1000)
	b.dirs = nil
	if n := s.Axes(); n != 4 {
		b.dirs = make([][2]int64, n)
		for k := range b.dirs {
			b.dirs[k][0], b.dirs[k][1] = sim.AxisVector(n, k)
		}
	}
	b.w.attach(s)
	b.nextRay, b.gapEpoch, b.epoch = 0, -1, -1
}

// event appends one of this player's events with the next sequence number:
// the server orders a player's events within a tick by it.
func (b *Bot) event(out []sim.Event, k sim.EventKind) []sim.Event {
	b.seq++
	return append(out, sim.Event{Kind: k, Player: uint8(b.id), Seq: b.seq})
}

// turn sends a turn (+1 left, -1 right) and remembers to wait until it shows.
func (b *Bot) turn(out []sim.Event, me *sim.Cycle, t int8, tick int64) []sim.Event {
	b.want = true
	b.wantDir = b.turned(me.Dir, t)
	b.wantTill = tick + 2*b.delay + 2*b.lag + 120
	b.sent = max(tick, me.LastTurn()+b.delay)
	b.nextRay, b.nextLook = tick, tick+b.p.period/2
	if t > 0 {
		return b.event(out, sim.EvTurnLeft)
	}
	return b.event(out, sim.EvTurnRight)
}

// turned returns the heading a turn t (+1 left, -1 right) leads to from dir:
// the next of four axes, or of the map's (sim.State.Turned).
func (b *Bot) turned(dir uint8, t int8) uint8 {
	n := 4
	if b.dirs != nil {
		n = len(b.dirs)
	}
	return sim.TurnedOn(n, dir, int(t))
}

// forward returns the point d micrometres from (x, y) along dir, on four
// axes or the map's.
func (b *Bot) forward(x, y int64, dir uint8, d int64) (int64, int64) {
	if b.dirs == nil {
		return forward(x, y, dir, d)
	}
	u := &b.dirs[int(dir)%len(b.dirs)]
	return x + d*u[0]/sim.AxisScale, y + d*u[1]/sim.AxisScale
}

// Play steps s for ticks ticks, letting every bot decide before each step. It
// is the loop of headless games (`webtron sim`, tests, load generators). The
// bots' players must have joined already: step the state once with their
// EvJoin events before calling Play.
func Play(s *sim.State, bots []*Bot, ticks int) {
	var buf [64]sim.Event // on the stack: a tick rarely has more events
	evs := buf[:0]
	for t := 0; t < ticks; t++ {
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		s.Step(evs)
		evs = evs[:0]
	}
}

// Joins returns the EvJoin events that seat players 0..n-1, to be given to
// the first Step before Play.
func Joins(n int) []sim.Event {
	evs := make([]sim.Event, 0, n)
	for p := 0; p < n && p < sim.MaxPlayers; p++ {
		evs = append(evs, sim.Event{Kind: sim.EvJoin, Player: uint8(p)})
	}
	return evs
}

// rand returns the next number of the bot's own SplitMix64 sequence.
func (b *Bot) rand() uint64 {
	b.rng += 0x9e3779b97f4a7c15
	z := b.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// between returns a number in lo..hi inclusive.
func (b *Bot) between(lo, hi int64) int64 {
	return lo + int64(b.rand()%uint64(hi-lo+1))
}
