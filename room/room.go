// Package room is one game room's server logic, free of any transport: it
// takes decoded messages from connections and the current time, and hands
// encoded messages to a send function. The server runs each Room on its own
// goroutine behind WebSockets; the lab runs it on a virtual network. Time is
// always a parameter.
package room

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"webtron/bot"
	"webtron/clock"
	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// ConnID names one connection to the room.
type ConnID uint64

// Transport is how a room reaches its connections: the server's WebSockets,
// the lab's virtual network. Neither method may block the room.
type Transport interface {
	// Send hands connection c an encoded message; the room never touches b
	// again, so the transport may keep it.
	Send(c ConnID, b []byte)
	// Close ends connection c, telling it why (the room has forgotten c
	// already; no Leave needs to follow). The room closes this way only a
	// connection other than the one whose message it is handling, which
	// gets its reason as Receive's result instead: a player that reconnects
	// elsewhere replaces its old connection (CloseReplaced).
	Close(c ConnID, why *proto.Error)
}

// Discard is the transport of a room nobody connects to: one that only
// plays its bots (tests, tools).
var Discard Transport = discard{}

type discard struct{}

func (discard) Send(ConnID, []byte)        {}
func (discard) Close(ConnID, *proto.Error) {}

// Config holds a room's settings. Zero fields take the defaults noted.
type Config struct {
	Sim        sim.Config
	Seed       uint64
	Policy     clock.Policy
	Bots       int           // bots that fill empty seats (0: none)
	BotSkill   int           // their skill, bot.MinSkill..bot.MaxSkill, Armagetron's AI_IQ (0: bot.DefaultSkill; clamped)
	Seats      int           // cycles in a round, humans plus bots (default 8, at most sim.MaxPlayers)
	MaxLead    time.Duration // how far ahead of the server a client may schedule (default 1 s)
	MaxLenient time.Duration // leniency never exceeds this (default: the policy cap plus 50 ms)
	Ping       time.Duration // how often leads and leniencies are recomputed (default clock.ServerPingInterval); the pings themselves ride on heartbeats
	Heartbeat  time.Duration // heartbeat interval while players press keys (default DefaultHeartbeat)
	// QuietHeartbeat is the heartbeat interval while no player's input
	// arrives (default DefaultQuietHeartbeat): fewer, fuller packets when
	// nothing changes (docs/performance.md, bandwidth).
	QuietHeartbeat time.Duration
	Reconnect      time.Duration // how long a dropped player keeps its cycle and token (default 30 s)
	ChatEvery      time.Duration // minimum spacing of one client's chat lines (default 500 ms)
	// Private makes a room for one player (the lobby's Practice): it
	// refuses spectators, and a player without a reconnect token while
	// another human holds a seat (connected, or expected back).
	Private bool
	// Map names the map Sim plays (the server's id for it, in its /api/maps);
	// the room only keeps it in its journal (Meta), so that a room resumed
	// elsewhere lists the same map. The map itself is in Sim, and so in
	// every snapshot.
	Map string
	// Clock reads the time as the room's messages leave (the server's
	// clock): a ping's send time and a pong's hold are stamped with it, not
	// with the time Tick was given, which a wake-up that first runs the ticks
	// it slept through can leave behind by a millisecond. Nil: Tick's time
	// (the lab's virtual clock, tests).
	Clock func() time.Duration
	// OnRound receives every finished round's record (replays).
	OnRound func(rec history.RoundRecord, names []string)
	// OnDesync receives the reproduction of a desync: the joining data a
	// resync sent, plus the tick and the two hashes.
	OnDesync func(d Desync)
	// Journal, when set, receives the room's history as it is made, and
	// finality waits for it (journal.go); EpochWall is the wall-clock time
	// of tick 0 it records (Unix nanoseconds).
	Journal   Journal
	EpochWall int64
}

// Desync describes a client whose confirmed hash differed from the server's.
type Desync struct {
	Player       int
	Tick         int64
	Client, Want uint64
	SnapTick     int64
	Snapshot     []byte
	Events       []history.TickEvent
}

func (c *Config) defaults() {
	if c.Sim.TickRate == 0 {
		c.Sim = sim.DefaultConfig()
	}
	if c.Seats <= 0 {
		c.Seats = 8
	}
	c.Seats = min(c.Seats, sim.MaxPlayers)
	c.Bots = min(max(c.Bots, 0), c.Seats)
	if c.BotSkill == 0 {
		c.BotSkill = bot.DefaultSkill
	}
	c.BotSkill = min(max(c.BotSkill, bot.MinSkill), bot.MaxSkill)
	if c.MaxLead <= 0 {
		c.MaxLead = time.Second
	}
	if c.Policy.Cap <= 0 {
		c.Policy.Cap = clock.DefaultCharityCap
	}
	if c.MaxLenient <= 0 {
		c.MaxLenient = c.Policy.Cap + 50*time.Millisecond
	}
	if c.Ping <= 0 {
		c.Ping = clock.ServerPingInterval
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.QuietHeartbeat <= 0 {
		c.QuietHeartbeat = max(DefaultQuietHeartbeat, c.Heartbeat)
	}
	if c.Reconnect <= 0 {
		c.Reconnect = 30 * time.Second
	}
	if c.ChatEvery <= 0 {
		c.ChatEvery = 500 * time.Millisecond
	}
}

// DefaultHeartbeat is the heartbeat interval. Five a second: finality a
// little later than at ten, a third of a player's downstream bandwidth saved
// in an 8-player room (docs/performance.md).
const DefaultHeartbeat = 200 * time.Millisecond

// DefaultQuietHeartbeat is the heartbeat interval while no player presses a
// key. Each heartbeat costs a packet each way and the acknowledgements of
// both (four packets; over QUIC, whose datagrams never carry an
// acknowledgement, always four), so a quiet room sends one a second
// instead of five: finality and the server's pings (which ride on
// heartbeats) are less urgent then, and the first key pressed brings the
// faster rate back for the next heartbeat (docs/performance.md, bandwidth).
const DefaultQuietHeartbeat = time.Second

// Errors that close a connection; each becomes a proto.Error with a reason.
var (
	ErrRoomFull = errors.New("room: no free seat")
	ErrToken    = errors.New("room: unknown or expired reconnect token")
	ErrPrivate  = errors.New("room: a practice room is its one player's: start your own from the lobby")
)

// member is one player slot's server-side bookkeeping, human or bot.
type member struct {
	conn      ConnID // 0 when none (bot, or dropped)
	player    int
	name      string
	bot       *bot.Bot
	leaving   bool // bot giving its seat up at the next round
	token     []byte
	tokenSum  [32]byte      // SHA-256 of token: all a rebuilt room knows of it (Restore) until it comes back
	dropped   time.Duration // when the connection dropped (conn == 0 for a human)
	since     time.Duration // when its present connection opened
	connected time.Duration // how long its connections before the present one lasted (Room.hold)
	rode      bool          // has been in a round in play: the seat is held Config.Reconnect for a reconnect
	rtt       clock.RTTFilter
	smooth    clock.Smoother
	floor     clock.LeadFloor
	lead      time.Duration
	lenient   time.Duration
	pings     [16]pingSent
	pingID    uint32
	chat      chatLimit
	spare     time.Duration // least spare of this member's events since the last heartbeat
	decided   bool          // whether it had any
	lastProp  time.Duration
	propCount int
	ahead     aheadFilter                // how far its clock runs ahead of the server's, from its pongs
	carried   [history.SeqMemory]carried // by sequence number

	latency     time.Duration // ping-rubber latency last put in the history (sim.EvLatency)
	latencySent bool

	// pilot is the bot that drives a human's seat while the human is away
	// (its connection dropped, within the reconnect grace) and for a moment
	// after it comes back, until backAt or its first key (docs/netcode.md,
	// section 7); nil while the human drives.
	pilot  *bot.Bot
	backAt time.Duration // when a human who came back takes its seat from the pilot (0: not yet back)

	// machine is the number the simulation knows the player's origin by
	// (sim.JoinArg): players of one machine are not enemies.
	machine uint8
	origin  string
}

// driver returns the bot that decides the seat's inputs: a bot's own, or
// the pilot of a human who is away; nil while a human drives.
func (m *member) driver() *bot.Bot {
	if m.bot != nil {
		return m.bot
	}
	return m.pilot
}

type pingSent struct {
	id uint32
	at time.Duration
}

// spectator is a connection without a cycle.
type spectator struct {
	conn ConnID
	name string
	chat chatLimit
}

// Room is one room. It is not safe for concurrent use: one goroutine owns it.
type Room struct {
	Name string
	cfg  Config
	tr   Transport

	epoch time.Duration // time of tick 0
	dt    time.Duration
	auth  *history.Authority
	tl    *history.Timeline

	members [sim.MaxPlayers]*member
	byConn  map[ConnID]int    // conn -> player slot
	origins map[ConnID]string // conn -> where it comes from (Origin), until it joins or leaves
	specs   map[ConnID]*spectator

	bcastSeq    uint64           // next broadcast sequence number
	recent      [512]recentBcast // recent Accepted broadcasts, for resend requests
	lastHB      time.Duration
	lastPolicy  time.Duration
	rttMoved    bool // an RTT estimate changed since the last applyPolicy
	rosterRev   uint64
	rosterDirty bool
	lastRoster  time.Duration

	ahead  botAhead      // the bots' decisions, made ahead of their ticks
	botEvs []sim.Event   // scratch for the bots' events of a tick
	pongs  []heldPong    // answers to pings, sent with the next heartbeat
	now    time.Duration // the time of the call being handled
	rec    recorder
	jn     journal
	buf    []byte
	Stats  Stats
}

// heldPong is the answer to a ping, held until the next heartbeat so that
// both go to the client in one write (one wake-up of its connection) rather
// than two: under load the server's cost is mostly the number of socket
// writes. The pong says how long it was held, and the client takes that out
// of the round trip.
type heldPong struct {
	c       ConnID
	pong    proto.Pong
	arrived time.Duration
}

// maxPongHold bounds the hold for a room configured with slow heartbeats:
// the client's ping table must still know the ping when its answer comes.
// A quiet room's heartbeats are within it.
const maxPongHold = 1100 * time.Millisecond

type recentBcast struct {
	seq uint64
	msg []byte
}

// Stats are counters the server exports as metrics and the lab reports.
type Stats struct {
	Events, Postponed, Refused, Duplicates, Desyncs int64
	Resent                                          int64   // broadcasts sent again on a client's request (lost datagrams)
	RollbackTicks                                   []int64 // server rollback depth per accepted late event, drained by the owner
	BytesOut, BytesIn                               int64
	// JournalDegraded counts the Ticks whose finality did not wait for the
	// journal, which was behind by more than maxHold or had a gap.
	JournalDegraded int64
}

// New makes a room whose tick 0 starts at now, reaching its connections
// through tr.
func New(name string, cfg Config, now time.Duration, tr Transport) (*Room, error) {
	cfg.defaults()
	s, err := sim.NewState(cfg.Sim, cfg.Seed)
	if err != nil {
		return nil, err
	}
	r, err := newRoom(name, cfg, now, now, tr, s)
	if err != nil {
		return nil, err
	}
	r.journalBase() // the journal starts with the room's first state
	r.fillBots()
	r.journalSeats()
	return r, nil
}

// newRoom makes a room from state s (taken over), tick 0 at epoch, at time
// now; cfg has its defaults.
func newRoom(name string, cfg Config, epoch, now time.Duration, tr Transport, s *sim.State) (*Room, error) {
	r := &Room{Name: name, cfg: cfg, tr: tr, epoch: epoch, now: now, byConn: map[ConnID]int{}, specs: map[ConnID]*spectator{}, origins: map[ConnID]string{}}
	r.dt = time.Second / time.Duration(cfg.Sim.TickRate)
	var err error
	r.tl, err = history.New(s, history.Options{Confirmed: true, OnRound: r.onRound, Lazy: true,
		Window: int64((cfg.MaxLenient + cfg.MaxLead + time.Second) / r.dt)})
	if err != nil {
		return nil, err
	}
	r.auth = history.NewAuthority(r.tl, int64(cfg.MaxLead/r.dt))
	r.jn.j, r.jn.round = cfg.Journal, -1 // the first base entry starts a round's history
	return r, nil
}

// State returns the room's predicted present.
func (r *Room) State() *sim.State { return r.tl.State() }

// Timeline returns the room's history (read only: lab and tests inspect it).
func (r *Room) Timeline() *history.Timeline { return r.tl }

// Now returns the server's present tick.
func (r *Room) Now() int64 { return r.auth.Now() }

// NextTick returns the time (on the clock Tick is given) at which the next
// tick is due. The host sleeps until then rather than on a ticker of its own,
// whose phase would be wherever the host's goroutine happened to start.
func (r *Room) NextTick() time.Duration { return r.epoch + time.Duration(r.auth.Now()+1)*r.dt }

// NextDue returns the time by which the room must run Tick again of its own
// accord, with no message in between: the next heartbeat, lead
// recomputation, roster or held pong, a human's taking its seat back from
// its pilot, or the next tick at which a bot (or a pilot) acts.
// Between those a tick changes nothing anyone sees, so the room may sleep and
// run the ticks in between then. To know when a bot acts, the bots decide
// ahead (botAhead), which is why NextDue is not a plain query. A message that
// comes meanwhile must find the room caught up (Tick first), and so it judges
// every input against the tick it arrives in, as if the room ran every tick.
func (r *Room) NextDue() time.Duration {
	next := r.NextTick()
	due := min(r.lastHB+r.heartbeatEvery(), r.lastPolicy+r.cfg.Ping)
	if r.rttMoved {
		due = next
	}
	if r.rosterDirty {
		due = min(due, r.lastRoster+rosterEvery)
	}
	if len(r.pongs) > 0 {
		due = min(due, r.pongs[0].arrived+maxPongHold)
	}
	for _, m := range r.members {
		if m != nil && m.pilot != nil && m.conn != 0 {
			due = min(due, m.backAt) // a human who came back takes its seat
		}
	}
	if tick, ok := r.botsDue(); ok {
		due = min(due, r.epoch+time.Duration(tick)*r.dt)
	}
	// The first tick at or after due: Tick acts on the ticks it runs.
	if due <= next {
		return next
	}
	return next + (due-next+r.dt-1)/r.dt*r.dt
}

// TickDuration returns the length of one tick.
func (r *Room) TickDuration() time.Duration { return r.dt }

// Humans returns the number of human players (connected or within their
// reconnect grace) and spectators.
func (r *Room) Humans() (players, spectators int) {
	for _, m := range r.members {
		if m != nil && m.bot == nil {
			players++
		}
	}
	return players, len(r.specs)
}

// BotSkill returns the skill of the room's bots (Config.BotSkill).
func (r *Room) BotSkill() int { return r.cfg.BotSkill }

// Bots returns the number of bots seated.
func (r *Room) Bots() int {
	n := 0
	for _, m := range r.members {
		if m != nil && m.bot != nil {
			n++
		}
	}
	return n
}

// driven reports whether the server decides any seat's inputs: a bot's, or
// an away human's (its pilot).
func (r *Room) driven() bool {
	for _, m := range r.members {
		if m != nil && m.driver() != nil {
			return true
		}
	}
	return false
}

// Empty reports whether no human is connected or expected back: the server
// reclaims such rooms.
func (r *Room) Empty() bool {
	p, s := r.Humans()
	return p == 0 && s == 0
}

// onRound completes a round's record with what the room knows beyond the
// history (names, bots, network figures, event timings) and hands it on.
func (r *Room) onRound(rec history.RoundRecord) {
	names := r.cut(&rec)
	if r.cfg.OnRound != nil {
		r.cfg.OnRound(rec, names)
	}
}

// Close hands the round in progress to OnRound (a server shutting down
// writes its replay).
func (r *Room) Close() {
	if r.cfg.OnRound != nil {
		rec := r.tl.Round()
		if rec.EndTick > rec.StartTick {
			r.onRound(rec)
		}
	}
}

func newToken() []byte {
	b := make([]byte, 16)
	rand.Read(b)
	return b
}

// encode marshals m into a fresh slice (the transport may hold it).
func encode(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("room: encoding our own %v: %v", m.Type(), err))
	}
	return b
}

func (r *Room) sendMsg(c ConnID, m proto.Message) {
	b := encode(m)
	r.Stats.BytesOut += int64(len(b))
	r.tr.Send(c, b)
}

// broadcast sends one encoding to every connection.
func (r *Room) broadcast(m proto.Message) { r.sendAll(encode(m)) }

// sendAll sends one encoded message to every connection of the room.
func (r *Room) sendAll(b []byte) {
	for _, mb := range r.members {
		if mb != nil && mb.conn != 0 {
			r.Stats.BytesOut += int64(len(b))
			r.tr.Send(mb.conn, b)
		}
	}
	for c := range r.specs {
		r.Stats.BytesOut += int64(len(b))
		r.tr.Send(c, b)
	}
}

func us(d time.Duration) int64 { return int64(d / time.Microsecond) }
