package proto

import "math"

// Ping asks the peer for a clock sample. Either side pings: the server
// measures each client's RTT itself (a client must not be able to claim a
// bigger ping than it has), and the client estimates the clock offset.
type Ping struct {
	ID   uint32 // matches the Pong to its Ping, whatever order they arrive in
	Time int64  // sender's clock at sending, µs
}

// Type returns TypePing.
func (*Ping) Type() Type { return TypePing }

func (m *Ping) encode(w *writer) {
	w.u32(m.ID)
	w.varint(m.Time)
}

func (m *Ping) decode(r *reader) {
	m.ID = r.u32("ping id")
	m.Time = r.varint("ping time")
}

// Pong answers a Ping. Echo lets the pinger compute the RTT from its own
// clock alone; Time and Tick are the responder's clock at replying, which the
// pinger compares with the midpoint of the RTT to estimate the offset.
//
// Held is how long the responder held the ping before it could answer (a
// browser's busy main thread): the pinger subtracts it from the round trip.
// Claiming more than it held only makes the responder's measured ping smaller,
// which costs it leniency, so the server can take the figure as given.
type Pong struct {
	ID   uint32 // the Ping's ID
	Echo int64  // the Ping's Time, unchanged
	Time int64  // responder's clock at the ping's arrival, µs
	Tick uint64 // responder's current tick (a client's shows its real lead)
	Held uint32 // µs between the ping's arrival and this answer
}

// Type returns TypePong.
func (*Pong) Type() Type { return TypePong }

func (m *Pong) encode(w *writer) {
	w.u32(m.ID)
	w.varint(m.Echo)
	w.varint(m.Time)
	w.uvarint(m.Tick)
	w.u32(m.Held)
}

func (m *Pong) decode(r *reader) {
	m.ID = r.u32("pong id")
	m.Echo = r.varint("pong echo")
	m.Time = r.varint("pong time")
	m.Tick = r.uvarint("pong tick")
	m.Held = r.u32("pong held")
}

// ResyncSeq in a ResendRequest asks for a Resync.
const ResyncSeq = math.MaxUint64

// NoMargin in HeartbeatPlayer.Margin means the player had no events since
// the previous heartbeat.
const NoMargin = math.MinInt32

// HeartbeatPlayer is the server's per-player clock news.
type HeartbeatPlayer struct {
	Player uint8
	// Final is the newest tick through which this player's inputs are final:
	// no event of theirs can land at or before it any more. Clients build the
	// confirmed state, desync hashes and lag-o-meters from it.
	Final uint64
	// Lead is the target lead L_i (µs) the server wants this player's client
	// to run ahead of the server clock. It is per player, not per recipient,
	// so that one encoding serves the whole room.
	Lead uint32
	// Margin (µs) is the least spare of this player's events decided since
	// the previous heartbeat: how early the earliest-cut one arrived relative
	// to its leniency; negative means late (postponed). NoMargin when the
	// player had no events. One value per heartbeat, so a client counts each
	// event once. A client raises its lead while its margin is negative and
	// lowers it while the margin stays wide.
	Margin int32
}

// Heartbeat is the server's periodic clock and finality broadcast.
type Heartbeat struct {
	Tick uint64 // server's current tick: a client keeps only the newest heartbeat
	Time int64  // server's clock at Tick, µs
	// Seq is the newest Accepted broadcast so far: it reveals a lost last
	// Accepted, which no later Accepted would reveal while the room is quiet.
	Seq     uint64
	Players []HeartbeatPlayer // at most MaxRoster
}

// Type returns TypeHeartbeat.
func (*Heartbeat) Type() Type { return TypeHeartbeat }

const minHeartbeatPlayer = 4 // player, final delta, lead, margin

func (m *Heartbeat) encode(w *writer) {
	w.uvarint(m.Tick)
	w.varint(m.Time)
	w.uvarint(m.Seq)
	w.count("heartbeat players", len(m.Players), MaxRoster)
	for _, p := range m.Players {
		w.u8(p.Player)
		w.varint(int64(p.Final - m.Tick)) // a few ticks behind Tick: one byte
		w.u32(p.Lead)
		w.i32(p.Margin)
	}
}

func (m *Heartbeat) decode(r *reader) {
	m.Tick = r.uvarint("heartbeat tick")
	m.Time = r.varint("heartbeat time")
	m.Seq = r.uvarint("heartbeat seq")
	n := r.count("heartbeat players", MaxRoster, minHeartbeatPlayer)
	if n == 0 {
		return
	}
	m.Players = make([]HeartbeatPlayer, n)
	for i := range m.Players {
		p := &m.Players[i]
		p.Player = r.u8("heartbeat player")
		p.Final = m.Tick + uint64(r.varint("heartbeat final tick"))
		p.Lead = r.u32("heartbeat lead")
		p.Margin = r.i32("heartbeat margin")
	}
}

// HashReport is a client's hash of its confirmed state at Tick (a tick up to
// which every player's inputs were final, so it cannot differ because of
// prediction). A mismatch with the server's makes the server send a Resync.
type HashReport struct {
	Tick uint64
	Hash uint64 // 8 bytes little-endian: uniformly random, a varint would grow it
}

// Type returns TypeHashReport.
func (*HashReport) Type() Type { return TypeHashReport }

func (m *HashReport) encode(w *writer) {
	w.uvarint(m.Tick)
	w.fixed64(m.Hash)
}

func (m *HashReport) decode(r *reader) {
	m.Tick = r.uvarint("hash tick")
	m.Hash = r.fixed64("hash")
}

// satInc is v+1 without wrapping, for reporting a range's length.
func satInc(v uint64) uint64 {
	if v == math.MaxUint64 {
		return v
	}
	return v + 1
}

// ResendRequest asks again for the Accepted broadcasts First..Last
// (inclusive) that a client found missing. Over WebSocket nothing is lost and
// clients never send it.
//
// A request with First = Last = ResyncSeq asks for a Resync instead: the
// client's history broke (a rollback deeper than it keeps).
type ResendRequest struct {
	First uint64
	Last  uint64 // First <= Last < First+MaxResendSpan
}

// Type returns TypeResendRequest.
func (*ResendRequest) Type() Type { return TypeResendRequest }

func (m *ResendRequest) encode(w *writer) {
	if m.Last < m.First {
		w.fail(invalidErr("resend range " + utoa(m.First) + ".." + utoa(m.Last) + " is backwards"))
		return
	}
	if d := m.Last - m.First; d >= MaxResendSpan {
		w.fail(tooMany("resend broadcasts", satInc(d), MaxResendSpan))
		return
	}
	w.uvarint(m.First)
	w.uvarint(m.Last - m.First)
}

func (m *ResendRequest) decode(r *reader) {
	m.First = r.uvarint("resend first")
	d := r.uvarint("resend span")
	if r.err != nil {
		return
	}
	if d >= MaxResendSpan {
		r.fail(tooMany("resend broadcasts", satInc(d), MaxResendSpan))
		return
	}
	if d > math.MaxUint64-m.First {
		r.invalid("resend range overflows")
		return
	}
	m.Last = m.First + d
}
