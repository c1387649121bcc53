// Package client is Webtron's platform-neutral client: it speaks the wire
// protocol, keeps the clock leading the server's by the lead the server asks
// for, predicts the present with its own inputs applied at once, and rolls
// back when remote events (or its own postponed ones) arrive. The browser
// (WebAssembly), the headless bots and the lab all run this package; none of
// it touches a socket or a clock: messages and times are parameters.
package client

import (
	"errors"
	"time"

	"webtron/clock"
	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// Options configures a session.
type Options struct {
	Name, Room string
	Token      []byte // reconnect token from an earlier Welcome
	Spectate   bool
	// Map is the map a room this session opens plays (proto.Hello.Map): an
	// id of the server's /api/maps; empty for the server's default.
	Map string
	// MindReader turns on negative input delay (netcode.md section 4): a turn
	// is made at the moment its key went down (the measured input-queue
	// latency before the press reached the session), a brake is backdated by
	// half a tick plus that latency.
	MindReader bool
	// MaxBackdate bounds the backdating, in ticks (default 2): a turn's
	// instant goes back at most that far, a brake lands no earlier than
	// MaxBackdate-1 ticks before the present one.
	MaxBackdate int64
	// Confirmed keeps a second simulation that steps only through confirmed
	// ticks (every input final), for a debugging view or a replay of what
	// was certain; the predicted present never needs it.
	Confirmed bool
	// Ping is the client's ping interval for the clock offset (default
	// clock.ClientPingInterval).
	Ping time.Duration
}

// Session is one client's connection state. It is not safe for concurrent use.
type Session struct {
	opt     Options
	out     [][]byte
	tl      *history.Timeline
	you     int
	token   []byte
	rate    int64
	dt      time.Duration
	started bool

	offset   clock.OffsetEstimator
	dil      clock.Dilation
	feedback clock.LateFeedback
	simTime  time.Duration // the client's clock, in server time units plus lead
	lastNow  time.Duration
	rateNow  clock.Rate
	lead     time.Duration // target lead from the server
	extra    time.Duration // mind reader's added lead: a tick plus queue latency
	lastPing time.Duration
	// answers are the server's pings not yet answered: Update answers them,
	// right before the host sends what a frame queued, so that the pong's
	// Held is exact and the pong, the client's own ping and its hash
	// reports leave in one write.
	answers []heldPing
	pingID  uint32
	srvPing uint32 // the newest ping ID the server sent us (they count up by one)
	pings   [16]pingSent

	askedResync time.Duration
	// marginsFrom is when the heartbeats' margins count again after the
	// answer to a resent proposal (see lossShadow).
	marginsFrom time.Duration
	// lossyUntil is when the link stops counting as lossy: until then each
	// proposal goes twice (see lossyFor).
	lossyUntil time.Duration
	lastErr    time.Duration // clock minus its target at the last Update
	hello      []byte
	helloAt    time.Duration
	seq        uint32
	pending    map[uint32]*proposal // own events not yet acknowledged, by sequence number
	final      [sim.MaxPlayers]int64
	finalAll   int64           // every input before this tick is final
	bcast      uint64          // every broadcast before this one has arrived
	got        map[uint64]bool // broadcasts at or after bcast that arrived (datagrams reorder)
	asked      map[uint64]bool // the newest broadcast a resend request covered
	hbSeq      uint64          // broadcasts the newest heartbeat covers
	hbTick     uint64          // the newest heartbeat's tick
	hbSeen     bool            // a heartbeat has arrived
	nextHash   int64

	roster  proto.Roster
	lagRing [sim.MaxPlayers]lagRing
	stats   Stats
	// OnEvent, when set, sees every remote event as it arrives with its
	// measured perceived lag U: the lab collects them.
	OnEvent func(ev history.TickEvent, lag time.Duration)
	// OnChat, when set, receives chat lines (from is a player id, 255 for a spectator).
	OnChat func(from int, text string)
	// OnLocal, when set, sees each own event with its tick and the time the
	// key went down on the client's clock (before the input queue's delay).
	OnLocal func(ev sim.Event, tick int64, pressAt time.Duration)
}

// proposal is one of our own events the server has not answered yet.
type proposal struct {
	ev     sim.Event
	tick   int64         // where it stands in our history (moved when postponed)
	sentAt time.Duration // when it was last proposed
	resent bool          // proposed again: the first copy, or its answer, was lost
}

// entry is the proposal as the history logs it.
func (p *proposal) entry() history.TickEvent { return history.TickEvent{Tick: p.tick, Ev: p.ev} }

type pingSent struct {
	id uint32
	at time.Duration
}

// Stats counts what a session did.
type Stats struct {
	EventsSent, EventsReceived, Rollbacks, RolledBack, Postponed, Refused, Resyncs, BytesIn, BytesOut int64
	LastRollbackDepth                                                                                 int64
	ProtocolErrors                                                                                    int64
}

// ErrClosed is returned by Receive when the server closed the session with
// an Error message; it wraps the server's reason.
var ErrClosed = errors.New("client: closed by server")

// closedError is what fmt.Errorf("%w: %w", ErrClosed, m) made, without
// linking fmt into the wasm client: errors.Is finds ErrClosed and errors.As
// the *proto.Error with its close code.
type closedError struct{ m *proto.Error }

func (e *closedError) Error() string   { return ErrClosed.Error() + ": " + e.m.Error() }
func (e *closedError) Unwrap() []error { return []error{ErrClosed, e.m} }

// New makes a session; send Hello's message first.
func New(opt Options) *Session {
	if opt.MaxBackdate <= 0 {
		opt.MaxBackdate = 2
	}
	if opt.Ping <= 0 {
		opt.Ping = clock.ClientPingInterval
	}
	s := &Session{opt: opt, you: -1, token: opt.Token, pending: map[uint32]*proposal{}, got: map[uint64]bool{}, asked: map[uint64]bool{}, rateNow: clock.RateOne}
	// The margins only ever undo a raise: the server's leniency is whole
	// ticks, so on-time events show up to a tick of spare, which must not
	// pull the lead below the target the charity policy set.
	s.feedback.MaxLower = time.Nanosecond
	// A one-second window follows a changed route within the 2 s the lead
	// has to settle in, with four or five samples to choose the best from
	// in play (the client's ping rides with its answer to the server's,
	// every ServerPingInterval). In a quiet room the server pings once a
	// second, and the newest four samples count whatever their age.
	s.offset.Window = time.Second
	s.offset.Least = 4
	return s
}

// Hello returns the first message to send.
func (s *Session) Hello(now time.Duration) []byte {
	b, err := proto.Marshal(&proto.Hello{Name: s.opt.Name, Room: s.opt.Room, Token: s.token, Spectate: s.opt.Spectate, ClientTime: us(now), Map: s.opt.Map})
	if err != nil {
		// Only an over-long name, room or map can fail: fall back to defaults.
		b, _ = proto.Marshal(&proto.Hello{Name: "Player", Room: "lobby", Spectate: s.opt.Spectate, ClientTime: us(now)})
	}
	s.hello, s.helloAt = b, now
	return b
}

// maxAnswers bounds the server pings waiting for a frame.
const maxAnswers = 16

// answerWait is how long after the last Update a ping still waits for the
// next one; past it the host is not running frames and Receive answers.
const answerWait = 100 * time.Millisecond

// answerPing queues the answer to a server ping, saying how long it was held.
func (s *Session) answerPing(p heldPing, now time.Duration) {
	s.queue(&proto.Pong{ID: p.id, Echo: p.echo, Time: us(p.arrival), Tick: uint64(s.tl.Present()),
		Held: uint32(min(us(max(now-p.arrival, 0)), 1<<31))})
}

// heldPing is a server ping waiting for its answer.
type heldPing struct {
	id      uint32
	echo    int64
	arrival time.Duration
}

// Outgoing appends the messages waiting to be sent to out and forgets them.
func (s *Session) Outgoing(out [][]byte) [][]byte {
	out = append(out, s.out...)
	clear(s.out)
	s.out = s.out[:0]
	return out
}

func (s *Session) queue(m proto.Message) {
	b, err := proto.Marshal(m)
	if err != nil {
		s.stats.ProtocolErrors++
		return
	}
	s.stats.BytesOut += int64(len(b))
	s.out = append(s.out, b)
}

// Started reports whether the Welcome arrived.
func (s *Session) Started() bool { return s.started }

// You returns the player id, or -1 when spectating or before the Welcome.
func (s *Session) You() int { return s.you }

// Token returns the reconnect token the server issued.
func (s *Session) Token() []byte { return s.token }

// State returns the predicted present (nil before the Welcome).
func (s *Session) State() *sim.State {
	if s.tl == nil {
		return nil
	}
	return s.tl.State()
}

// Timeline returns the session's history (nil before the Welcome).
func (s *Session) Timeline() *history.Timeline { return s.tl }

// Stats returns the counters.
func (s *Session) Stats() Stats {
	st := s.stats
	if s.tl != nil {
		st.Rollbacks, st.RolledBack = s.tl.Rollbacks, s.tl.RolledBack
	}
	return st
}

// Clock returns the client's clock at local time now: its estimate of the
// server's time plus the lead it runs at (zero before the Welcome).
func (s *Session) Clock(now time.Duration) time.Duration {
	if !s.started {
		return 0
	}
	return s.clockAt(now)
}

// ConfirmedState returns the state at Confirmed() with every input final,
// or nil unless Options.Confirmed is set. Read it; do not step it.
func (s *Session) ConfirmedState() *sim.State {
	if s.tl == nil {
		return nil
	}
	return s.tl.Confirmed()
}

// Final returns the newest tick through which player p's inputs are final.
func (s *Session) Final(p int) int64 { return s.final[p] }

// Confirmed returns the tick before which every input is final.
func (s *Session) Confirmed() int64 { return s.finalAll }

func us(d time.Duration) int64 { return int64(d / time.Microsecond) }

func fromUs(v int64) time.Duration { return time.Duration(v) * time.Microsecond }

// Receive handles one message from the server.
func (s *Session) Receive(now time.Duration, msg []byte) error { return s.ReceiveAt(now, now, msg) }

// ReceiveAt handles one message that arrived at local time arrival and is
// handled at now (later, when the platform's thread was busy: a browser's
// MessageEvent.timeStamp is the arrival). Clock samples and measured lags use
// the arrival, and a pong tells the server how long its ping was held, so a
// busy page does not look like a slow network.
func (s *Session) ReceiveAt(arrival, now time.Duration, msg []byte) error {
	arrival = min(arrival, now)
	s.stats.BytesIn += int64(len(msg))
	m, err := proto.Decode(msg)
	if err != nil {
		s.stats.ProtocolErrors++
		return err
	}
	switch m := m.(type) {
	case *proto.Welcome:
		if s.started {
			return nil // a second answer to a repeated hello
		}
		return s.welcome(arrival, now, m)
	case *proto.Error:
		return &closedError{m} // errors.As finds the code
	}
	if !s.started {
		return nil // on a datagram link, news can overtake the welcome: it brings them again
	}
	switch m := m.(type) {
	case *proto.Ping:
		if s.srvPing != 0 && m.ID > s.srvPing+1 {
			s.sawLoss(now) // a ping (and the heartbeat it rode with) is missing
		}
		s.srvPing = max(s.srvPing, m.ID)
		switch {
		case now-s.lastNow > answerWait:
			// The host has stopped calling Update (a hidden page): answer
			// now, so that the server still hears from us.
			s.answerPing(heldPing{id: m.ID, echo: m.Time, arrival: arrival}, now)
		case len(s.answers) < maxAnswers: // more between two frames is a flood: answer some
			s.answers = append(s.answers, heldPing{id: m.ID, echo: m.Time, arrival: arrival})
		}
	case *proto.Pong:
		s.pong(arrival, m)
	case *proto.Accepted:
		if err := s.accepted(arrival, m); err != nil {
			s.stats.ProtocolErrors++
			return err
		}
	case *proto.Postponed:
		s.postponed(now, m)
	case *proto.Refused:
		s.refused(m)
	case *proto.Heartbeat:
		s.heartbeat(now, m)
	case *proto.Roster:
		if m.Rev >= s.roster.Rev {
			s.roster = *m
		}
	case *proto.Resync:
		s.stats.Resyncs++
		return s.load(m.History)
	case *proto.Chat:
		// The platform layer reads chat through OnChat.
		if s.OnChat != nil {
			s.OnChat(int(m.From), m.Text)
		}
	default:
		s.stats.ProtocolErrors++
		return errors.New("client: unexpected " + m.Type().String())
	}
	return nil
}
