package server

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"webtron/cluster"
	"webtron/history"
	"webtron/proto"
	"webtron/room"
	"webtron/sim"
)

// inbound is one thing for a room goroutine to handle: a join (Hello), a
// message, a leave, or a function to run on the room (tests, inspection).
type inbound struct {
	c     *conn
	msg   proto.Message
	at    time.Duration // when the reader received msg (server clock)
	leave bool
	fn    func(*room.Room)
}

// deferrable reports the messages that wait for the room's next tick rather
// than wake it: each wake-up puts the room goroutine behind whatever else is
// runnable, and a room that wakes only for its ticks and for proposals
// leaves the cores to the other rooms' ticks (docs/performance.md, server
// under load). A ping's answer reports the time it was held, and a
// pong is timed at its arrival, so the clocks lose nothing; a hash report
// can wait. Proposals, joins, leaves, chat lines (people read them as they
// come) and resend requests still wake the room at once.
func deferrable(t proto.Type) bool {
	switch t {
	case proto.TypePing, proto.TypePong, proto.TypeHashReport:
		return true
	}
	return false
}

// laterCap bounds the messages waiting for a tick; a reader that finds it
// full waits, which holds back only its own client.
const laterCap = 256

// counts is a room's population, published after each tick for /api/rooms
// and the gauges without touching the room from another goroutine.
type counts struct {
	players, bots, spectators int32
	teams                     cluster.RoomTeams // shared by successive counts while it does not change: read only
}

// roomHost is the goroutine that owns one room.Room.
type roomHost struct {
	srv   *Server
	name  string
	room  *room.Room
	inbox chan inbound  // messages that wake the room
	later chan inbound  // messages handled at the next tick (deferrable)
	stop  chan struct{} // closed by Shutdown
	done  chan struct{} // closed when the goroutine has returned

	// Set at creation: a Practice room (/api/practice) is private, left
	// out of the lobby, and its bots have the skill it was asked for.
	private bool
	skill   int
	// The map the room plays (its /api/maps id and name), for the room list.
	mapID, mapName string

	// Guarded by srv.mu: connections attached (including joins in flight);
	// reclaimed marks a host removed from srv.rooms.
	refs      int
	reclaimed bool

	pop      atomic.Pointer[counts]
	conns    map[room.ConnID]*conn // owned by the goroutine
	dropped  []*conn               // closed during a room call; Leave follows it
	touched  []*conn               // connections with messages pending in this iteration
	rounds   int64
	last     room.Stats
	empty    time.Duration // when the room became empty, or -1
	lastIdle time.Duration
	lastDump time.Duration // newest desync dump: one per dumpEvery at most
	wakeAt   time.Duration // when the timer is due: the tick the room sleeps until

	// The room's labelled counters, looked up once rather than every tick.
	accepted, postponed, refused, resent prometheus.Counter

	// In a cluster: the room's journal writer (journal.go), and whether
	// the room moved to another node (its journal is theirs now).
	hist  *cluster.History
	moved bool
	epoch time.Duration   // the room's tick 0 on the server's clock
	props []time.Duration // arrivals of the proposals handled since the last send
	held  []heldOut       // output held until durable (Config.WriteAhead), oldest first
}

// teams describes the room's teams from its confirmed state, as the roster
// shows scores (the predicted present of a room without bots is simulated
// only when read: reading it at every wake-up would double the room's
// simulation); it allocates only when they changed since the last tick.
func (h *roomHost) teams() cluster.RoomTeams {
	s := h.room.Timeline().Confirmed()
	set, _ := s.Rules()
	var byTeam [sim.MaxPlayers]cluster.TeamInfo
	for i := range sim.MaxPlayers {
		c := s.Cycle(i)
		if !c.Present || c.Team == sim.NoTeam {
			continue
		}
		t := &byTeam[c.Team]
		if c.Human {
			t.Players++
		} else {
			t.Bots++
		}
	}
	prev := h.pop.Load().teams
	mode := "ffa"
	if set.TeamMaxPlayers > 1 {
		mode = "teams"
	}
	size, n := 0, 0
	for t := range byTeam {
		byTeam[t].Team, byTeam[t].Score = t, s.TeamScore(t)
		if k := byTeam[t].Players + byTeam[t].Bots; k > 0 {
			size = max(size, k)
			n++
		}
	}
	if mode == "ffa" {
		n = 0
	}
	same := prev.Mode == mode && prev.TeamMaxPlayers == int(set.TeamMaxPlayers) && prev.TeamSize == size && len(prev.Teams) == n
	k := 0
	for t := range byTeam {
		if n > 0 && byTeam[t].Players+byTeam[t].Bots > 0 {
			same = same && prev.Teams[k] == byTeam[t]
			k++
		}
	}
	if same {
		return prev
	}
	out := cluster.RoomTeams{Mode: mode, TeamMaxPlayers: int(set.TeamMaxPlayers), TeamSize: size, Teams: make([]cluster.TeamInfo, 0, n)}
	for t := range byTeam {
		if n > 0 && byTeam[t].Players+byTeam[t].Bots > 0 {
			out.Teams = append(out.Teams, byTeam[t])
		}
	}
	return out
}

// dumpEvery spaces a room's desync dumps: a client that keeps diverging
// would otherwise write one every hash report.
const dumpEvery = 10 * time.Second

// newRoomHost makes room name's host: a public room, or with practice > 0
// a private one for one player against bots of that skill (at least one),
// playing map mp.
func newRoomHost(s *Server, name string, seed uint64, practice int, mp *roomMap) (*roomHost, error) {
	h, cfg := s.hostFor(name, seed, practice)
	cfg.Sim, cfg.Map, h.mapID, h.mapName = mp.rules, mp.info.ID, mp.info.ID, mp.info.Name
	h.epoch = s.now()
	s.openJournal(h, &cfg, cluster.Chain{})
	r, err := room.New(name, cfg, h.epoch, h)
	if err != nil {
		h.closeJournal()
		return nil, err
	}
	h.room = r
	return h, nil
}

// restoreRoomHost makes the host of room name rebuilt from its journal
// (entries from a base entry on, as the cluster recovered them), whose
// history goes on from chain: the round another node was playing carries
// on here at the present tick (room.Restore).
func restoreRoomHost(s *Server, name string, entries []*room.Entry, chain cluster.Chain) (*roomHost, error) {
	meta := entries[0].Meta
	if meta == nil || meta.Name != name {
		return nil, fmt.Errorf("%w: its base entry names no room, or another", room.ErrJournal)
	}
	h, cfg := s.hostFor(name, meta.Seed, 0)
	cfg.Private, cfg.BotSkill, h.private, h.skill = meta.Private, meta.BotSkill, meta.Private, meta.BotSkill
	// The map itself is in the journal's snapshot, with the rest of the
	// rules; its id names it in the room list (a journal of before maps
	// per room has none: the default).
	cfg.Map, h.mapID = meta.Map, cmp.Or(meta.Map, s.maps[0].info.ID)
	h.mapName = s.mapName(h.mapID)
	now := s.now()
	h.epoch = now - time.Duration(time.Now().UnixNano()-meta.Epoch)
	s.openJournal(h, &cfg, chain)
	r, err := room.Restore(name, cfg, h.epoch, now, h, entries)
	if err != nil {
		h.moved = true // what the history holds stays for another try
		h.closeJournal()
		return nil, err
	}
	h.room = r
	h.publish()
	return h, nil
}

// hostFor makes a room host and its room's configuration, before the room.
func (s *Server) hostFor(name string, seed uint64, practice int) (*roomHost, room.Config) {
	h := &roomHost{srv: s, name: name, inbox: make(chan inbound, 1024), later: make(chan inbound, laterCap), stop: make(chan struct{}),
		done: make(chan struct{}), conns: map[room.ConnID]*conn{}, empty: -1, private: practice > 0}
	h.pop.Store(&counts{})
	m := s.metrics
	h.accepted, h.postponed, h.refused = m.events.WithLabelValues("accepted"), m.events.WithLabelValues("postponed"), m.events.WithLabelValues("refused")
	h.resent = m.datagrams.WithLabelValues("resent")
	cfg := s.roomConfig(seed)
	if h.private {
		cfg.Private, cfg.BotSkill, cfg.Bots = true, practice, max(cfg.Bots, 1)
	}
	h.skill = cfg.BotSkill
	cfg.OnRound = h.onRound
	cfg.OnDesync = h.onDesync
	return h, cfg
}

// Send is the room's transport (room.Transport). Messages wait until the
// end of the room's current iteration (a tick, or one inbound message) and
// then go to the writer as one batch, which it writes in one system call: a
// tick's heartbeat, ping and roster cost one write instead of three.
func (h *roomHost) Send(id room.ConnID, b []byte) {
	c := h.conns[id]
	if c == nil {
		return
	}
	if len(c.pend) == 0 {
		h.touched = append(h.touched, c)
	}
	c.pend = append(c.pend, b)
}

// Close ends a connection the room let go of (room.Transport): its writer
// sends the Error itself, after what is queued.
func (h *roomHost) Close(id room.ConnID, why *proto.Error) {
	if c := h.conns[id]; c != nil {
		c.close(errorReason(why))
		h.dropped = append(h.dropped, c)
	}
}

// flush hands each connection its batch of this iteration; never blocks.
// Under Config.WriteAhead the batches wait (hold) while the journal has
// records not yet durable, and everything after them waits behind them.
func (h *roomHost) flush() {
	if h.hold() {
		return
	}
	for _, c := range h.touched {
		if batch := c.pend; len(batch) > 0 {
			c.pend = nil
			if !c.enqueue(batch) {
				h.dropped = append(h.dropped, c)
			}
		}
	}
	clear(h.touched)
	h.touched = h.touched[:0]
}

// run is the room's goroutine. It never waits on a client: input comes
// through the inbox, output goes to non-blocking queues.
func (h *roomHost) run() {
	defer close(h.done)
	defer h.closeJournal()
	defer h.recoverCrash()
	t := time.NewTimer(h.untilWake())
	defer t.Stop()
	lost, acked := h.lostJournal(), h.ackedJournal()
	for {
		select {
		case <-lost:
			lost = nil
			go h.srv.evict(h.name, reasonMoved)
		case <-acked:
			h.settle(h.srv.now())
		case <-t.C:
			h.drainLater()
			if !h.tick(true) {
				return
			}
			t.Reset(h.untilWake())
		case in := <-h.inbox:
			// A room sleeps over ticks: it first catches up with the
			// present, so that a proposal is judged against the tick it
			// arrives in, as if the room had woken for every tick.
			if h.room.NextTick() <= h.srv.now() && !h.tick(false) {
				return
			}
			h.drain(in)
		case <-h.stop:
			h.shutdown()
			return
		}
	}
}

// untilWake is how long the room may sleep: until room.NextDue (its next
// heartbeat, lead recomputation, roster or held pong, or the next tick at
// which a bot acts, the bots deciding ahead), at most maxQuietSleep, which
// bounds how long a pong or a hash report waits; in phase with the tick
// times the room measures its lateness against. Each wake-up of a goroutine
// costs the process more CPU than a tick of an 8-player room
// (docs/performance.md, CPU per room), so a room with a player and 7 bots
// wakes 7-17 times a second instead of 120, a room without bots about 9
// times (TestRoomSleepsBetweenDues). Urgent messages wake the room whenever
// they come, and it first runs the ticks due by then.
func (h *roomHost) untilWake() time.Duration {
	now := h.srv.now()
	next := h.room.NextTick()
	if due := h.room.NextDue(); due > next {
		dt := h.room.TickDuration()
		next = min(due, next+(max(now+maxQuietSleep-next, 0))/dt*dt)
	}
	h.wakeAt = next
	return max(next-now, 0)
}

// maxQuietSleep bounds a room's sleep: the messages that wait for the room's
// next wake-up (deferrable) wait at most that long. It matches the heartbeat
// interval, so that a room where players press keys wakes for its heartbeats
// and nothing else.
const maxQuietSleep = 200 * time.Millisecond

// drain handles in and whatever else has arrived, then sends: under load
// the answers to several messages share one write per client.
func (h *roomHost) drain(in inbound) {
	h.handle(in)
	for range maxDrain {
		select {
		case in = <-h.inbox:
			h.handle(in)
		default:
			h.drainLater()
			h.settle(h.srv.now())
			h.publishJoins()
			h.timeProposals()
			return
		}
	}
	h.drainLater()
	h.settle(h.srv.now())
	h.publishJoins()
	h.timeProposals()
}

// timeProposals measures, for the proposals just handled, the time from
// their arrival to their answers' hand-over to the connections' writers
// (MetricProposalBroadcast).
func (h *roomHost) timeProposals() {
	if len(h.props) == 0 {
		return
	}
	now := h.srv.now()
	for _, at := range h.props {
		h.srv.metrics.proposalBroadcast.Observe((now - at).Seconds())
	}
	h.props = h.props[:0]
}

// publish stores the room's population for /api/rooms and the gauges,
// read there without touching the room from another goroutine.
func (h *roomHost) publish() {
	players, specs := h.room.Humans()
	h.pop.Store(&counts{players: int32(players), bots: int32(h.room.Bots()), spectators: int32(specs), teams: h.teams()})
}

// publishJoins publishes the population after messages that changed who is
// in the room (a join, a leave), rather than at the room's next tick: the
// room may sleep up to maxQuietSleep, and a lobby would list a room its
// newcomer is already playing in as empty meanwhile.
func (h *roomHost) publishJoins() {
	was := h.pop.Load()
	if players, specs := h.room.Humans(); int32(players) != was.players || int32(specs) != was.spectators {
		h.publish()
	}
}

// drainLater handles the deferred messages that have arrived, after the
// urgent ones: a connection's Hello goes by the inbox, and its deferrable
// messages only once it has joined (conn.joined), so they never overtake it.
func (h *roomHost) drainLater() {
	for {
		select {
		case in := <-h.later:
			if h.conns[in.c.id] == in.c { // not left meanwhile
				h.handle(in)
			}
		default:
			return
		}
	}
}

// maxDrain bounds the inbound messages handled before the room's output goes
// out (and the ticker gets its turn).
const maxDrain = 64

// handle handles one inbound message; the caller settles afterwards.
func (h *roomHost) handle(in inbound) {
	now := h.srv.now()
	switch {
	case in.fn != nil:
		in.fn(h.room)
	case in.leave:
		if _, ok := h.conns[in.c.id]; ok {
			delete(h.conns, in.c.id)
			h.room.Leave(in.c.id, now)
		}
	case in.c.closing():
		// Closed while the message waited (slow reader, replaced): the leave follows.
	default:
		// A connection's first message is its Hello (the reader sees to
		// it): from then on the room may send to it.
		h.conns[in.c.id] = in.c
		if in.msg.Type() == proto.TypeHello && in.c.addr.IsValid() {
			h.room.Origin(in.c.id, in.c.addr.String())
		}
		if in.msg.Type() == proto.TypePropose && in.at > 0 {
			h.props = append(h.props, in.at)
		}
		if e := h.room.ReceiveAt(in.c.id, in.msg, arrival(in.at, now), now); e != nil {
			in.c.close(errorReason(e))
			h.dropped = append(h.dropped, in.c)
		} else if in.msg.Type() == proto.TypeHello {
			in.c.joined.Store(true)
		}
	}
}

// arrival is when a message arrived: its reader's stamp, or now for one
// that has none (tests deliver messages directly). The room caps it at now.
func arrival(at, now time.Duration) time.Duration {
	if at <= 0 {
		return now
	}
	return at
}

// settle sends the iteration's messages and lets the room forget the
// connections dropped meanwhile.
func (h *roomHost) settle(now time.Duration) {
	h.flush()
	for len(h.dropped) > 0 {
		c := h.dropped[0]
		h.dropped = h.dropped[1:]
		if _, ok := h.conns[c.id]; ok {
			delete(h.conns, c.id)
			h.room.Leave(c.id, now)
		}
	}
	h.dropped = h.dropped[:0]
}

// tick advances the room, records its numbers, closes silent connections and
// reclaims the room once it has been empty long enough. It returns false
// when the room is gone. woke says the room's timer called it, whose
// lateness it measures: the tick the room slept until, not the first of the
// ticks it ran (those before it were never meant to run on time).
func (h *roomHost) tick(woke bool) bool {
	m := h.srv.metrics
	start := time.Now()
	now := h.srv.now()
	before := h.room.Now()
	if err := h.room.Tick(now); err != nil {
		// The room's history cannot go on (room.Tick says why): a room
		// that carried on would tell its players a story it cannot keep.
		h.crash("tick failed: "+err.Error(), nil)
		return false
	}
	m.tickDuration.Observe(time.Since(start).Seconds())
	if woke && h.room.Now() > before {
		m.tickLateness.Observe(max(now-h.wakeAt, 0).Seconds())
	}
	st := &h.room.Stats
	for _, d := range st.RollbackTicks {
		m.rollback.Observe(float64(d))
	}
	st.RollbackTicks = st.RollbackTicks[:0]
	add := func(c prometheus.Counter, n, was int64) {
		if n != was {
			c.Add(float64(n - was))
		}
	}
	add(h.accepted, st.Events, h.last.Events)
	add(h.postponed, st.Postponed, h.last.Postponed)
	add(h.refused, st.Refused, h.last.Refused)
	add(m.desyncs, st.Desyncs, h.last.Desyncs)
	add(h.resent, st.Resent, h.last.Resent)
	h.last = *st
	h.settle(now)

	h.publish()
	if now-h.lastIdle >= time.Second {
		h.lastIdle = now
		h.closeIdle(now)
	}
	switch {
	case !h.room.Empty():
		h.empty = -1
	case h.empty < 0:
		h.empty = now
	case now-h.empty >= h.srv.cfg.EmptyRoomTTL && h.srv.reclaim(h):
		h.room.Close()
		h.srv.log.Info("server: room closed", "room", h.name, "reason", "empty")
		return false
	}
	return true
}

// closeIdle drops connections that have sent nothing for too long: the room
// pings every client, so a live one answers several times a second.
func (h *roomHost) closeIdle(now time.Duration) {
	for _, c := range h.conns {
		if now-time.Duration(c.lastRecv.Load()) >= h.srv.cfg.IdleTimeout {
			c.close(reasonIdle)
			h.dropped = append(h.dropped, c)
		}
	}
	h.settle(now)
}

// shutdown closes every connection and writes the round in progress.
func (h *roomHost) shutdown() {
	for _, c := range h.conns {
		c.close(reasonShutdown)
	}
	if !h.moved { // a room that moved writes its round where it ends
		h.room.Close()
	}
}

func (h *roomHost) onRound(rec history.RoundRecord, names []string) {
	// The record before the first round starts holds only joins.
	if rec.EndTick-rec.StartTick < h.srv.cfg.TickRate {
		return
	}
	m := h.srv.metrics
	m.rounds.Inc()
	h.rounds++
	if humanRode(rec) {
		h.srv.replays.round(h.name, h.rounds, rec, names)
	}
}

func (h *roomHost) onDesync(d room.Desync) {
	h.srv.log.Warn("server: desync", "room", h.name, "player", d.Player, "tick", d.Tick,
		"client", d.Client, "server", d.Want)
	now := h.srv.now()
	if h.lastDump != 0 && now-h.lastDump < dumpEvery {
		return
	}
	h.lastDump = now
	// The round in progress from its start reproduces the server's hash at
	// the reported tick; the resync snapshot alone starts after it.
	rec := h.room.Timeline().Round()
	if d.Tick < rec.StartTick || d.Tick > rec.EndTick {
		rec = history.RoundRecord{StartTick: d.SnapTick, EndTick: d.SnapTick, Start: d.Snapshot}
	}
	h.srv.replays.desync(h.name, rec, h.names(), d)
}

// names lists the room's players by id, for a dump.
func (h *roomHost) names() []string {
	names := make([]string, 0, 32)
	for _, p := range h.room.RosterNow().Players {
		if !p.Spectator && int(p.ID) < 32 {
			for len(names) <= int(p.ID) {
				names = append(names, "")
			}
			names[p.ID] = p.Name
		}
	}
	return names
}

// recoverCrash ends a room whose goroutine panicked, and only that room: a
// bug in one room's logic (issue 21: a join that met a state its own check
// refused) must not take down the process and every other room with it. The
// room's state is not trusted after a panic, so it is not resumed: the room
// leaves the server (the next join of its name opens it afresh), its players
// are told why and their pages rejoin by themselves, and the panic is logged
// with its stack, counted (webtron_room_panics_total) and dumped with the
// round in progress for `webtron replay`.
func (h *roomHost) recoverCrash() {
	if v := recover(); v != nil {
		h.crash(fmt.Sprint(v), debug.Stack())
	}
}

// crash closes a room that cannot go on, for cause (a panic, with its stack,
// or an error its Tick returned): see recoverCrash.
func (h *roomHost) crash(cause string, stack []byte) {
	s := h.srv
	s.metrics.roomPanics.Inc()
	s.mu.Lock()
	if !h.reclaimed && s.rooms[h.name] == h {
		delete(s.rooms, h.name)
		h.reclaimed = true
		s.roomsChanged()
	}
	s.mu.Unlock()
	s.log.Error("server: room crashed", "room", h.name, "cause", cause, "dump", h.crashDump(), "stack", string(stack))
	for _, c := range h.conns {
		c.close(reasonCrashed)
	}
	for _, c := range h.dropped {
		c.close(reasonCrashed)
	}
	// Connections whose messages wait in the queues joined a room that is
	// gone: tell them too, rather than leave them to find out by silence.
	for {
		select {
		case in := <-h.inbox:
			if in.c != nil {
				in.c.close(reasonCrashed)
			}
		case in := <-h.later:
			in.c.close(reasonCrashed)
		default:
			return
		}
	}
}

// crashDump queues the round in progress of a crashed room as a replay file
// and returns its path, or why there is none: the state that panicked may be
// broken enough to panic again, which must not stop the rest of the cleanup.
func (h *roomHost) crashDump() (path string) {
	defer func() {
		if v := recover(); v != nil {
			path = "none: " + fmt.Sprint(v)
		}
	}()
	if h.srv.replays.dir == "" {
		return "none: no --data directory"
	}
	return h.srv.replays.crash(h.name, h.room.Timeline().Round(), h.names())
}
