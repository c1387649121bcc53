package room

import (
	"fmt"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// Limits on what one connection may send.
const (
	maxProposalsPerSecond = 60 // far above a human's key rate; a bot presses a few per second
)

// Receive handles one decoded message from connection c, the first of which
// must be its Hello (this is the one place a Hello is handled). A non-nil
// result means the connection must close with that reason (the room is
// full, the token unknown, the protocol broken); the room has already
// forgotten it, and carries on.
func (r *Room) Receive(c ConnID, msg proto.Message, now time.Duration) *proto.Error {
	return r.ReceiveAt(c, msg, now, now)
}

// ReceiveAt is Receive for a message that arrived at time arrived and is
// handled only now, as the server does with pings, pongs, hash reports and
// chat: they wait for the room's next tick instead of waking it. A ping's
// answer then says when the ping arrived and how long it was held (the
// client takes the hold out of its round trip), a pong is timed at its
// arrival, and a Hello's Welcome takes out the time the server spent on the
// join (a cluster's lease work), so the clocks and the charity see no hold
// at all.
func (r *Room) ReceiveAt(c ConnID, msg proto.Message, arrived, now time.Duration) *proto.Error {
	defer r.journalSeats()
	arrived = min(arrived, now)
	r.now = now
	p, isPlayer := r.byConn[c]
	_, isSpec := r.specs[c]
	if h, ok := msg.(*proto.Hello); ok {
		return r.join(c, h, arrived, now)
	}
	if !isPlayer && !isSpec {
		return &proto.Error{Code: proto.CloseProtocol, Text: "message before hello"}
	}
	switch m := msg.(type) {
	case *proto.Ping:
		if len(r.pongs) >= maxHeldPongs {
			r.sendPongs(r.sendTime()) // spectators' pings are not a room's memory
		}
		r.pongs = append(r.pongs, heldPong{c: c, arrived: arrived,
			pong: proto.Pong{ID: m.ID, Echo: m.Time, Time: us(arrived - r.epoch)}})
	case *proto.Pong:
		if isPlayer {
			r.pong(r.members[p], m, arrived)
		}
	case *proto.Propose:
		if !isPlayer {
			return &proto.Error{Code: proto.CloseProtocol, Text: "spectators cannot propose events"}
		}
		seq0 := r.bcastSeq
		r.propose(r.members[p], m, arrived, now)
		r.rideHeartbeat(seq0)
	case *proto.HashReport:
		if isPlayer {
			r.checkHash(c, p, m)
		}
	case *proto.Chat:
		r.chat(c, p, isPlayer, m, now)
	case *proto.ResendRequest:
		r.resend(c, m)
	default:
		return &proto.Error{Code: proto.CloseProtocol, Text: fmt.Sprintf("%v is not a client message", msg.Type())}
	}
	return nil
}

// maxHeldPongs bounds the answers held at once (connections are rate-limited,
// so this is only reached by a room full of spectators).
const maxHeldPongs = 1024

// sendPongs sends the held answers to pings, each saying how long it was
// held, to the connections still in the room.
func (r *Room) sendPongs(now time.Duration) {
	for i := range r.pongs {
		h := &r.pongs[i]
		if _, ok := r.byConn[h.c]; !ok {
			if _, ok := r.specs[h.c]; !ok {
				continue // left meanwhile
			}
		}
		h.pong.Tick = uint64(r.auth.Now())
		h.pong.Held = uint32(min(us(now-h.arrived), 1<<31))
		r.sendMsg(h.c, &h.pong)
	}
	clear(r.pongs)
	r.pongs = r.pongs[:0]
}

// pong records an RTT sample measured on the server's own clock: the send
// time is looked up by ping id, never taken from the echo the client returns.
func (r *Room) pong(m *member, pong *proto.Pong, now time.Duration) {
	for i := range m.pings {
		if s := m.pings[i]; s.id == pong.ID && s.at != 0 {
			// What the client held the ping for (a busy page) is not network:
			// it can only make its own ping, and leniency, smaller.
			rtt := now - s.at
			before := m.rtt.RTT()
			m.rtt.Add(now, max(rtt-min(time.Duration(pong.Held)*time.Microsecond, rtt), 0))
			r.noteClock(m, s.at, pong, now)
			r.rttMoved = r.rttMoved || m.rtt.RTT() != before
			m.pings[i].at = 0
			return
		}
	}
}

func (r *Room) propose(m *member, msg *proto.Propose, arrived, now time.Duration) {
	r.giveBack(m) // a key from a human who came back takes the seat from its pilot at once
	if now-m.lastProp >= time.Second {
		m.lastProp, m.propCount = now, 0
	}
	acc := &proto.Accepted{}
	for _, pr := range msg.Events {
		m.propCount++
		if m.propCount > maxProposalsPerSecond {
			r.Stats.Refused++
			r.sendMsg(m.conn, &proto.Refused{Seq: pr.Seq, Reason: proto.RefuseRateLimited, Text: "too many events"})
			continue
		}
		ev := sim.Event{Kind: pr.Kind, Player: uint8(m.player), Seq: pr.Seq, Arg: pr.Arg}
		tick := int64(min(pr.Tick, 1<<62))
		d := r.auth.Propose(m.player, ev, tick)
		switch {
		case d.Again:
			r.Stats.Duplicates++ // a resent proposal: the first copy counts
			r.answerAgain(m, pr, d, now)
			continue
		case d.Status == history.Refused:
			if d.Reason == history.ReasonDuplicate {
				r.Stats.Duplicates++
			} else {
				r.Stats.Refused++
			}
			r.sendMsg(m.conn, &proto.Refused{Seq: pr.Seq, Reason: refuseReason(d.Reason), Text: d.Reason.String()})
			continue
		case d.Status == history.Postponed:
			r.Stats.Postponed++
			r.sendMsg(m.conn, &proto.Postponed{Seq: pr.Seq, Asked: pr.Tick, Tick: uint64(d.Tick)})
		}
		r.Stats.Events++
		if spare := time.Duration(-d.Late) * r.dt; !m.decided || spare < m.spare {
			m.spare, m.decided = spare, true
		}
		if depth := r.auth.Now() - d.Tick; depth > 0 {
			r.Stats.RollbackTicks = append(r.Stats.RollbackTicks, depth)
		}
		r.noteEvent(history.TickEvent{Tick: d.Tick, Ev: ev}, tick, arrived)
		r.ahead.logged(history.TickEvent{Tick: d.Tick, Ev: ev})
		// Every event of this message goes out in the next broadcast.
		m.carried[pr.Seq%history.SeqMemory] = carried{seq: pr.Seq, bcast: r.bcastSeq, at: now, ok: true}
		acc.Events = append(acc.Events, proto.TickEvent{Tick: uint64(d.Tick), Event: ev})
	}
	if len(acc.Events) > 0 {
		r.broadcastEvents(acc)
	}
}

// refuseReason is the wire's code for the authority's reason for a refusal
// (TestRefuseReasons checks that every reason has its own).
func refuseReason(r history.Reason) proto.RefuseReason {
	switch r {
	case history.ReasonTooFarAhead:
		return proto.RefuseTooFarAhead
	case history.ReasonNotYourPlayer:
		return proto.RefuseNotYourPlayer
	case history.ReasonNotAlive:
		return proto.RefuseNotAlive
	case history.ReasonDuplicate:
		return proto.RefuseDuplicate
	case history.ReasonInvalidKind:
		return proto.RefuseInvalidKind
	}
	return proto.RefuseOther
}

// carried records which broadcast carried one of a member's accepted
// events, so that a resent proposal can be answered with it.
type carried struct {
	seq   uint32
	bcast uint64
	at    time.Duration // when it was accepted
	ok    bool
}

// copyWindow separates a proposal's second copy from a resend: a client on
// a lossy link sends each proposal twice at once, and the copy arrives
// within a few milliseconds of the first; a resend waits at least two round
// trips plus 100 ms for an answer (client.resendProposals).
const copyWindow = 100 * time.Millisecond

// answerAgain answers a resent proposal as the first one was answered: its
// refusal again, or the broadcast that carried it (to the proposer only; on
// a datagram link either was lost). A broadcast no longer kept is covered by
// a resync, as for a resend request. A second copy that comes right behind
// the first (copyWindow) is not answered: the broadcast left moments ago,
// and if it is lost the gap in the broadcasts' seq brings it again.
func (r *Room) answerAgain(m *member, pr proto.Proposal, d history.Decision, now time.Duration) {
	if d.Status == history.Refused {
		r.sendMsg(m.conn, &proto.Refused{Seq: pr.Seq, Reason: refuseReason(d.Reason), Text: d.Reason.String()})
		return
	}
	c := m.carried[pr.Seq%history.SeqMemory]
	if c.ok && c.seq == pr.Seq && now-c.at < copyWindow {
		return
	}
	if rb := r.recent[c.bcast%uint64(len(r.recent))]; c.ok && c.seq == pr.Seq && rb.seq == c.bcast && rb.msg != nil {
		r.Stats.BytesOut += int64(len(rb.msg))
		r.tr.Send(m.conn, rb.msg)
		return
	}
	r.resync(m.conn)
}

// broadcastEvents numbers and sends an Accepted batch at once, and keeps it
// for clients that ask for it again.
func (r *Room) broadcastEvents(acc *proto.Accepted) {
	acc.Seq = r.bcastSeq
	r.bcastSeq++
	b := encode(acc)
	r.recent[acc.Seq%uint64(len(r.recent))] = recentBcast{seq: acc.Seq, msg: b}
	r.sendAll(b)
	r.noteBroadcast(acc)
	if r.jn.j != nil {
		evs := make([]history.TickEvent, len(acc.Events))
		for i, e := range acc.Events {
			evs[i] = history.TickEvent{Tick: int64(e.Tick), Ev: e.Event}
		}
		r.journalEvents(evs)
	}
}

// resend answers a client that missed broadcasts (datagram transports); what
// is no longer kept is covered by a resync.
func (r *Room) resend(c ConnID, m *proto.ResendRequest) {
	if m.First == proto.ResyncSeq {
		r.resync(c)
		return
	}
	for s := m.First; s <= m.Last && s < r.bcastSeq; s++ {
		rb := r.recent[s%uint64(len(r.recent))]
		if rb.seq != s || rb.msg == nil {
			r.resync(c)
			return
		}
		r.tr.Send(c, rb.msg)
		r.Stats.Resent++
	}
}

func (r *Room) resync(c ConnID) {
	tick, snap, evs := r.tl.JoinData()
	r.sendMsg(c, &proto.Resync{History: r.history(tick, snap, evs)})
}

// checkHash compares a client's confirmed hash with the server's; on a
// mismatch the client gets a resync and the owner a reproduction.
func (r *Room) checkHash(c ConnID, p int, m *proto.HashReport) {
	want, ok := r.tl.ConfirmedHash(int64(m.Tick))
	if !ok || want == m.Hash {
		return
	}
	r.Stats.Desyncs++
	tick, snap, evs := r.tl.JoinData()
	if r.cfg.OnDesync != nil {
		r.cfg.OnDesync(Desync{Player: p, Tick: int64(m.Tick), Client: m.Hash, Want: want, SnapTick: tick, Snapshot: snap, Events: evs})
	}
	r.sendMsg(c, &proto.Resync{History: r.history(tick, snap, evs)})
}

// chat broadcasts a line, cleaned like a name (no control or
// direction-changing characters), at most one per Config.ChatEvery from each
// sender, player or spectator alike; a line over the limit is dropped
// silently (its sender sees it missing).
func (r *Room) chat(c ConnID, p int, isPlayer bool, m *proto.Chat, now time.Duration) {
	from := uint8(255)
	var lim *chatLimit
	if isPlayer {
		lim, from = &r.members[p].chat, uint8(p)
	} else {
		lim = &r.specs[c].chat
	}
	if !lim.allow(now, r.cfg.ChatEvery) {
		return
	}
	if text := SanitizeChat(m.Text); text != "" {
		r.broadcast(&proto.Chat{From: from, Text: text})
	}
}

// chatLimit spaces one sender's chat lines.
type chatLimit struct {
	last time.Duration
	any  bool // last is set: a first line within ChatEvery of the room's start is not a flood
}

func (l *chatLimit) allow(now, every time.Duration) bool {
	if l.any && now-l.last < every {
		return false
	}
	l.last, l.any = now, true
	return true
}
