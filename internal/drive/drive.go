// Package drive plays a client.Session the way a person would, with a bot's
// hands: every frame the session advances, on each new tick the bot decides
// on the predicted present, and each key it wants goes down at a random
// moment within the next tick (people do not press in phase with ticks). It
// also keeps the perceived lag of every remote key press it receives.
//
// The lab (on a virtual clock), the headless players (real sockets, real
// time) and so the end-to-end tests all play through it; it touches neither a
// clock nor a socket: the host calls Frame and Press with its own times and
// schedules the presses on its own clock.
package drive

import (
	"time"

	"webtron/bot"
	"webtron/client"
	"webtron/history"
	"webtron/internal/xorshift"
	"webtron/sim"
)

// Options configures a Player.
type Options struct {
	// Seed picks the bot's personality and the timing of its key presses.
	Seed uint64
	// BrakeEvery, when > 0, adds brake taps at this mean interval: bots turn
	// only a few times a minute, and the taps give the lag measurements more
	// samples without changing the game much.
	BrakeEvery time.Duration
	// QueueLatency is the input-queue latency each press reports (a
	// browser's performance.now() minus event.timeStamp).
	QueueLatency time.Duration
	// TurnEvery, when its upper bound is > 0, steers by a script instead of
	// the bot: while the cycle lives it turns left and right alternately,
	// each turn after an interval drawn uniformly from [TurnEvery[0],
	// TurnEvery[1]]. A person's turn rate without a person's aim: the
	// same input can be sent to Armagetron's client (scripts/vs-armagetron.sh)
	// so that both games carry the same work.
	TurnEvery [2]time.Duration
}

// Press is a key the bot wants pressed After from the frame that asked.
type Press struct {
	Kind  sim.EventKind
	After time.Duration
}

// Player drives one session. It is not safe for concurrent use: a host with
// several goroutines holds its own lock around Frame, Press and Lags.
type Player struct {
	Sess *client.Session
	// Idle stops the bot (the session still runs): a spectator, a player
	// that only watches, or a lab run letting its last messages land.
	Idle bool

	opt     Options
	bot     *bot.Bot
	rng     xorshift.Rand
	decided int64
	next    int64 // the tick of the next scripted turn (TurnEvery); 0: none due yet
	left    bool  // the next scripted turn is to the left
	evs     []sim.Event
	lags    map[int][]time.Duration
}

// New drives sess. It takes sess.OnEvent to measure perceived lags.
func New(sess *client.Session, opt Options) *Player {
	p := &Player{Sess: sess, opt: opt, rng: xorshift.New(opt.Seed), decided: -1, lags: map[int][]time.Duration{}}
	sess.OnEvent = p.onEvent
	return p
}

// onEvent keeps the perceived lag of remote key presses only: server-made
// events (joins, spawns) sit at the server's present and would skew it.
func (p *Player) onEvent(ev history.TickEvent, lag time.Duration) {
	if ev.Ev.Kind.PlayerInput() {
		p.lags[int(ev.Ev.Player)] = append(p.lags[int(ev.Ev.Player)], lag)
	}
}

// Lags returns the measured perceived lags by remote player slot. The map is
// the Player's own: read it under the host's lock, do not keep it.
func (p *Player) Lags() map[int][]time.Duration { return p.lags }

// Frame runs one frame at local time now: the session's clock and
// simulation advance, and on a new tick the bot decides. It appends to out
// the presses to make, each at a random moment within the next tick, and
// returns it. The host sends the session's Outgoing messages afterwards.
func (p *Player) Frame(now time.Duration, out []Press) []Press {
	p.Sess.Update(now)
	s := p.Sess.State()
	you := p.Sess.You()
	if s == nil || you < 0 || p.Idle || s.Tick() == p.decided {
		return out
	}
	p.decided = s.Tick()
	dt := time.Second / time.Duration(s.Config().TickRate)
	if p.opt.TurnEvery[1] > 0 {
		p.evs = p.scripted(s, you, dt, p.evs[:0])
	} else {
		if p.bot == nil {
			p.bot = bot.New(you, p.opt.Seed)
		}
		p.evs = p.bot.Decide(s, p.evs[:0])
	}
	if c := s.Cycle(you); c.Alive && p.opt.BrakeEvery > 0 && p.rng.N(uint64(max(1, p.opt.BrakeEvery/dt))) == 0 {
		kind := sim.EvBrakeOn
		if c.Braking {
			kind = sim.EvBrakeOff
		}
		p.evs = append(p.evs, sim.Event{Kind: kind})
	}
	for _, ev := range p.evs {
		out = append(out, Press{Kind: ev.Kind, After: time.Duration(p.rng.N(uint64(dt)))})
	}
	return out
}

// scripted appends the scripted turn due at s's tick, if any (TurnEvery).
// A dead cycle presses nothing, and a new life starts a fresh interval.
func (p *Player) scripted(s *sim.State, you int, dt time.Duration, out []sim.Event) []sim.Event {
	if !s.Cycle(you).Alive {
		p.next = 0
		return out
	}
	if p.next == 0 || s.Tick() >= p.next {
		if p.next != 0 {
			kind := sim.EvTurnRight
			if p.left {
				kind = sim.EvTurnLeft
			}
			p.left = !p.left
			out = append(out, sim.Event{Kind: kind})
		}
		lo, hi := p.opt.TurnEvery[0], max(p.opt.TurnEvery[0], p.opt.TurnEvery[1])
		wait := lo + time.Duration(p.rng.N(uint64(hi-lo)+1))
		p.next = s.Tick() + max(1, int64(wait/dt))
	}
	return out
}

// Press presses a key at local time now (a Press's time has come).
func (p *Player) Press(now time.Duration, kind sim.EventKind) {
	p.Sess.Press(now, kind, p.opt.QueueLatency)
}
