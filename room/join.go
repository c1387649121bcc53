package room

import (
	"crypto/subtle"
	"strconv"
	"strings"
	"time"
	"unicode"

	"webtron/bot"
	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// join handles a connection's Hello (through Receive), which arrived at
// the server at time arrived. It returns a proto.Error when the connection
// must be closed (a name taken or not allowed, the room full, a bad token).
func (r *Room) join(c ConnID, h *proto.Hello, arrived, now time.Duration) *proto.Error {
	r.now = now
	// The Hello and the Welcome are the client's first clock sample. What
	// the server spent before answering (in a cluster: lease reads, a
	// takeover, retries while two nodes settle who hosts the room, seconds
	// at times) is no part of the round trip: the Welcome echoes the
	// Hello's time advanced by it, as a Pong reports a ping's hold. Counted
	// as round trip, it put the client's clock that far ahead of the room,
	// past its rollback window (issue 21: two resyncs after a 3.2 s join).
	clientTime := h.ClientTime + us(now-arrived)
	name := SanitizeName(h.Name)
	if p, ok := r.byConn[c]; ok { // a repeated hello (lost welcome on a datagram link)
		r.welcome(c, p, r.members[p].token, clientTime, now)
		return nil
	}
	if _, ok := r.specs[c]; ok {
		r.welcome(c, -1, nil, clientTime, now)
		return nil
	}
	if humans, _ := r.Humans(); r.cfg.Private && (h.Spectate || len(h.Token) == 0 && humans > 0) {
		return &proto.Error{Code: proto.CloseRoomFull, Text: ErrPrivate.Error()}
	}
	if h.Spectate || len(h.Token) == 0 { // a token brings back a player with its name
		var e *proto.Error
		if name, e = r.claimName(name, clean(h.Name, proto.MaxNameLen, "<>") == "", now); e != nil {
			return e
		}
	}
	if h.Spectate {
		r.specs[c] = &spectator{conn: c, name: name}
		r.welcome(c, -1, nil, clientTime, now)
		return nil
	}
	if len(h.Token) > 0 {
		sum := tokenSum(h.Token)
		for p, m := range r.members {
			if m != nil && m.bot == nil && subtle.ConstantTimeCompare(m.tokenSum[:], sum[:]) == 1 {
				m.token = h.Token // a rebuilt room knew only its sum
				if m.conn != 0 {
					delete(r.byConn, m.conn)
					r.tr.Close(m.conn, &proto.Error{Code: proto.CloseReplaced, Text: "reconnected elsewhere"})
					m.connected += now - m.since
				}
				m.conn, m.dropped, m.since = c, 0, now
				m.rtt.Reset() // the new route owes nothing to the old one
				r.byConn[c] = p
				r.auth.SetActive(p, true)
				if m.pilot != nil && m.backAt == 0 {
					m.backAt = now + handBack
				}
				r.welcome(c, p, m.token, clientTime, now)
				r.rosterDirty = true
				return nil
			}
		}
		return &proto.Error{Code: proto.CloseBadToken, Text: ErrToken.Error()}
	}
	p := r.freeSlot()
	if p < 0 {
		return &proto.Error{Code: proto.CloseRoomFull, Text: ErrRoomFull.Error()}
	}
	m := &member{conn: c, player: p, name: name, token: newToken(), origin: r.origins[c], since: now}
	m.tokenSum = tokenSum(m.token)
	m.machine = r.machineOf(m.origin)
	r.jn.seats = true
	delete(r.origins, c)
	r.members[p] = m
	r.rec.seat(p, name, false)
	r.byConn[c] = p
	// Welcome first, then the join as a broadcast: the newcomer receives it
	// after its snapshot like everyone else.
	r.welcome(c, p, m.token, clientTime, now)
	r.serverEvent(sim.Event{Kind: sim.EvJoin, Player: uint8(p), Arg: sim.JoinArg(true, m.machine)})
	if ph, _ := r.tl.State().Phase(); ph == sim.PhasePrepare {
		r.serverEvent(sim.Event{Kind: sim.EvSpawn, Player: uint8(p)})
	}
	r.auth.SetActive(p, true)
	r.fillBots()
	r.rosterDirty = true
	return nil
}

// botMark ends every bot's name; no human may wear it.
const botMark = "(bot)"

// claimName checks that name (sanitized) is free in the room: no player,
// bot, spectator or player expected back has it, compared without regard to
// case, and it does not pass for a bot's. A player who gave no name
// (unnamed) gets the first free of "Player", "Player 2", ... instead of a
// refusal; a refusal says who holds the name and when it frees up.
func (r *Room) claimName(name string, unnamed bool, now time.Duration) (string, *proto.Error) {
	if strings.Contains(strings.ToLower(strings.ReplaceAll(name, " ", "")), botMark) {
		return "", &proto.Error{Code: proto.CloseBadName, Text: "the " + botMark + " mark is for bots"}
	}
	for n := 2; ; n++ {
		held := r.nameHolder(name, now)
		if held == "" {
			return name, nil
		}
		if !unnamed {
			return "", &proto.Error{Code: proto.CloseNameTaken, Text: "the name " + name + " is taken: " + held}
		}
		name = defaultName + " " + strconv.Itoa(n)
	}
}

// nameHolder says who in the room goes by name already and when the name
// frees up, or returns "" when nobody does.
func (r *Room) nameHolder(name string, now time.Duration) string {
	for _, m := range r.members {
		switch {
		case m == nil || !strings.EqualFold(m.name, name):
		case m.bot != nil:
			return m.name + " is one of this room's bots"
		case m.conn == 0:
			left := (r.hold(m) - (now - m.dropped) + time.Second - 1) / time.Second
			return m.name + " is away from this room, and the name frees up in " + strconv.Itoa(int(max(left, 1))) + " s unless they come back"
		default:
			return m.name + " is playing in this room; the name frees up when they leave"
		}
	}
	for _, sp := range r.specs {
		if strings.EqualFold(sp.name, name) {
			return sp.name + " is watching this room; the name frees up when they leave"
		}
	}
	return ""
}

// freeSlot returns a player slot for a human: a free one among the seats, or
// -1. Bots beyond what the humans leave free are asked to leave at the next
// round (fillBots), so a human always has a seat while seats exceed humans.
func (r *Room) freeSlot() int {
	humans, _ := r.Humans()
	if humans >= r.cfg.Seats {
		return -1
	}
	for p, m := range r.members {
		if m == nil && !r.tl.State().Cycle(p).Present {
			return p
		}
	}
	return -1
}

// welcome sends the joining data: a confirmed snapshot, every event after it,
// and the roster.
func (r *Room) welcome(c ConnID, p int, token []byte, clientTime int64, now time.Duration) {
	tick, snap, evs := r.tl.JoinData()
	w := &proto.Welcome{
		Player: uint8(max(p, 0)), Spectator: p < 0, Token: token,
		TickRate: uint32(r.cfg.Sim.TickRate), Tick: uint64(r.auth.Now()),
		ServerTime: us(now - r.epoch), ClientTime: clientTime,
		History: r.history(tick, snap, evs),
		Roster:  r.roster(),
	}
	r.sendMsg(c, w)
}

func (r *Room) history(tick int64, snap []byte, evs []history.TickEvent) proto.History {
	h := proto.History{Tick: uint64(tick), Snapshot: snap, Seq: r.bcastSeq}
	for _, te := range evs {
		h.Events = append(h.Events, proto.TickEvent{Tick: uint64(te.Tick), Event: te.Ev})
	}
	return h
}

// Leave handles a dropped connection. A player keeps its cycle under the
// normal rules, driven by the server's bot, and its seat waits for the token
// (hold): Config.Reconnect for one who has ridden in a round. One who never
// rode has it held for as long as its connections lasted: a page that
// reloads in its first countdown, or whose worker reconnects after the
// page's thread stalled, gets its seat back; a hello and a hang-up hold
// nothing, and a seat held costs as much time connected, so the
// per-address bound on connections bounds what one address holds.
func (r *Room) Leave(c ConnID, now time.Duration) {
	defer r.journalSeats()
	r.now = now
	delete(r.origins, c)
	if _, ok := r.specs[c]; ok {
		delete(r.specs, c)
		r.rosterDirty = true
		return
	}
	p, ok := r.byConn[c]
	if !ok {
		return
	}
	delete(r.byConn, c)
	m := r.members[p]
	m.conn, m.dropped = 0, now
	m.connected += now - m.since
	r.auth.SetActive(p, false)
	r.rosterDirty = true
	if r.noteRiding(m); r.hold(m) <= 0 {
		r.free(p)
		return
	}
	r.takeSeat(m)
}

// hold is how long a dropped player's seat waits for its token (Leave).
func (r *Room) hold(m *member) time.Duration {
	if m.rode {
		return r.cfg.Reconnect
	}
	return min(m.connected, r.cfg.Reconnect)
}

// handBack is how long the pilot keeps driving the seat of a human who came
// back, unless the human presses a key first: the page shows that control
// returns (#back-cue) instead of dropping its player mid-ride at full speed.
const handBack = time.Second

// takeSeat has the bot drive the seat of a human who went away: its cycle
// does not ride on unattended. The pilot joins the bots' decisions ahead
// (botAhead) from the next tick on; the cycle, its score and its name stay
// the human's (docs/netcode.md, section 7).
func (r *Room) takeSeat(m *member) {
	m.backAt = 0
	if m.pilot == nil {
		m.pilot = r.newBot(m.player)
		r.ahead.replan()
	}
}

// giveBack returns a human's seat from its pilot: the pilot's decisions
// ahead are withdrawn, and the human's inputs drive the seat from now on.
func (r *Room) giveBack(m *member) {
	if m.pilot == nil {
		return
	}
	m.pilot, m.backAt = nil, 0
	r.ahead.replan()
}

// handBackDue gives the humans who came back their seats once their
// handBack has run out.
func (r *Room) handBackDue(now time.Duration) {
	for _, m := range r.members {
		if m != nil && m.pilot != nil && m.conn != 0 && now >= m.backAt {
			r.giveBack(m)
		}
	}
}

// newBot makes the bot that drives seat p, seeded by the room's seed and
// the seat.
func (r *Room) newBot(p int) *bot.Bot {
	return bot.NewSkill(p, r.cfg.Seed+uint64(p)*7919, r.cfg.BotSkill)
}

// noteRiding marks a member whose cycle is in a round in play, as far as
// the confirmed state knows.
func (r *Room) noteRiding(m *member) {
	s := r.tl.Confirmed()
	if ph, _ := s.Phase(); ph == sim.PhasePlay && s.Cycle(m.player).InRound {
		m.rode = true
	}
}

// free gives a human's seat up: its cycle leaves the round, a bot may take
// the seat.
func (r *Room) free(p int) {
	r.members[p] = nil
	r.jn.seats = true // before the event, to be journaled with it
	r.serverEvent(sim.Event{Kind: sim.EvLeave, Player: uint8(p)})
	r.forgetNet(p)
	r.rosterDirty = true
	r.fillBots()
}

// expire removes players whose reconnect grace ran out, and notes who is
// riding.
func (r *Room) expire(now time.Duration) {
	for p, m := range r.members {
		switch {
		case m == nil || m.bot != nil:
		case m.conn != 0:
			r.noteRiding(m)
		case now-m.dropped >= r.hold(m):
			r.free(p)
		}
	}
}

// fillBots keeps min(Bots, Seats-humans) bots seated. Extra bots leave only
// between rounds, so a human who joins mid-round takes a bot's seat at the
// next round, never mid-fight.
func (r *Room) fillBots() {
	humans, _ := r.Humans()
	want := min(r.cfg.Bots, r.cfg.Seats-humans)
	have := 0
	for _, m := range r.members {
		if m != nil && m.bot != nil && !m.leaving {
			have++
		}
	}
	for p := len(r.members) - 1; p >= 0 && have > want; p-- {
		if m := r.members[p]; m != nil && m.bot != nil && !m.leaving {
			m.leaving = true
			r.jn.seats = true
			have--
		}
	}
	for p := range r.members {
		if have >= want {
			break
		}
		if r.members[p] == nil && !r.tl.State().Cycle(p).Present {
			r.members[p] = &member{player: p, name: botName(p), bot: r.newBot(p)}
			r.rec.seat(p, botName(p), true)
			r.jn.seats = true
			r.serverEvent(sim.Event{Kind: sim.EvJoin, Player: uint8(p)})
			have++
			r.rosterDirty = true
		}
	}
}

// seatBots lets leaving bots go while no round is being fought.
func (r *Room) seatBots() {
	leaving := false
	for _, m := range r.members {
		leaving = leaving || m != nil && m.bot != nil && m.leaving
	}
	if !leaving {
		return
	}
	if ph, _ := r.tl.State().Phase(); ph == sim.PhasePlay {
		return
	}
	for p, m := range r.members {
		if m != nil && m.bot != nil && m.leaving {
			r.members[p] = nil
			r.jn.seats = true // before the event, to be journaled with it
			r.serverEvent(sim.Event{Kind: sim.EvLeave, Player: uint8(p)})
			r.rosterDirty = true
		}
	}
}

// botName names the bot in seat p. Names are unique in a room (the kill feed
// and the scoreboard go by name), so past the list a number tells them apart.
func botName(p int) string {
	names := [...]string{"Flynn", "Yori", "Ram", "Sark", "Clu", "Quorra", "Gem", "Rinzler", "Dumont", "Crom", "Chess", "Bit"}
	name := names[p%len(names)]
	if n := p / len(names); n > 0 {
		name += " " + strconv.Itoa(n+1)
	}
	return name + " (bot)"
}

// SanitizeName makes a display name safe to show: see clean; no angle
// brackets either, at most proto.MaxNameLen bytes, and never empty.
func SanitizeName(s string) string {
	if name := clean(s, proto.MaxNameLen, "<>"); name != "" {
		return name
	}
	return defaultName
}

// defaultName is the name of a player who gave none.
const defaultName = "Player"

// SanitizeChat makes a chat line safe to show (see clean), at most
// proto.MaxChatLen bytes; empty when nothing is left.
func SanitizeChat(s string) string { return clean(s, proto.MaxChatLen, "") }

// clean keeps the printable characters of s and the characters of drop
// aside, turns each run of white space into one space and trims it, and cuts
// the result to max bytes on a character boundary. Control characters go,
// and so do the format characters (Unicode Cf) that reorder or hide text,
// such as the bidirectional overrides U+202A..U+202E and U+2066..U+2069: a
// name or a line cannot flip what follows it in the roster or the chat.
func clean(s string, max int, drop string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case !unicode.IsPrint(r) || strings.ContainsRune(drop, r):
			continue
		}
		n := len(string(r))
		if space {
			n++
		}
		if b.Len()+n > max {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Origin tells the room where connection c comes from, before its Hello:
// its address as the server's per-address limits count it. Players who join
// from one origin are one machine to the simulation (sim.JoinArg): they are
// not enemies unless ALLOW_ENEMIES_SAME_IP, as Armagetron rules for players
// of one IP (ePlayerNetID::Enemies). "" for none.
func (r *Room) Origin(c ConnID, key string) {
	if key != "" {
		r.origins[c] = key
	}
}

// machineOf returns the machine number for players of origin: the one a
// seated player of that origin has, else the smallest number no seated
// player has; 0 for no origin.
func (r *Room) machineOf(origin string) uint8 {
	if origin == "" {
		return 0
	}
	var used [256]bool
	for _, m := range r.members {
		if m == nil || m.machine == 0 {
			continue
		}
		if m.origin == origin {
			return m.machine
		}
		used[m.machine] = true
	}
	for k := 1; k < len(used); k++ {
		if !used[k] {
			return uint8(k)
		}
	}
	return 0 // 255 machines seated: more than a room's seats
}
