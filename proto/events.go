package proto

import (
	"math"

	"webtron/sim"
)

// TickEvent is an accepted event with its final tick: the unit of history.
// The tick is outside sim.Event because the server may move an event to a
// later tick without changing it.
type TickEvent struct {
	Tick uint64
	sim.Event
}

// Smallest encodings of list elements, for reader.count's allocation bound.
const (
	minTickEvent = 5 // tick delta, kind, player, seq, arg: one byte each
	minProposal  = 4 // tick delta, seq, kind, arg
)

// encodeTickEvents writes a count then, per event, its tick as a zigzag
// difference from the previous one (the first from base), kind, player, seq
// and arg. Events are usually in tick order, so a delta is one byte; any
// order still round-trips, as differences wrap modulo 2^64.
func encodeTickEvents(w *writer, field string, base uint64, evs []TickEvent, max int) {
	w.count(field, len(evs), max)
	prev := base
	for _, e := range evs {
		if !e.Kind.Valid() {
			w.fail(invalidErr(field + ": invalid event kind " + utoa(uint64(e.Kind))))
			return
		}
		w.varint(int64(e.Tick - prev))
		prev = e.Tick
		w.u8(uint8(e.Kind))
		w.u8(e.Player)
		w.u32(e.Seq)
		w.i32(e.Arg)
	}
}

// decodeTickEvents rejects kinds the simulation does not know: these events
// carry the server's authority and must be applied, so an unknown one means
// the peers disagree on the protocol.
func decodeTickEvents(r *reader, field string, base uint64, max int) []TickEvent {
	n := r.count(field, max, minTickEvent)
	if n == 0 {
		return nil
	}
	evs := make([]TickEvent, n)
	prev := base
	for i := range evs {
		e := &evs[i]
		e.Tick = prev + uint64(r.varint("event tick"))
		prev = e.Tick
		e.Kind = sim.EventKind(r.u8("event kind"))
		e.Player = r.u8("event player")
		e.Seq = r.u32("event seq")
		e.Arg = r.i32("event arg")
		if r.err != nil {
			return nil
		}
		if !e.Kind.Valid() {
			r.invalid(field + ": invalid event kind " + utoa(uint64(e.Kind)))
			return nil
		}
	}
	return evs
}

// Proposal is one event a client proposes. The player is the connection's.
type Proposal struct {
	Seq  uint32 // the client's sequence number: the event's identity, and how acks find it
	Tick uint64 // the tick the client wants (its own clock, which leads the server's)
	// Kind is not checked against the simulation here: an unknown or
	// server-only kind is the server's to answer with Refused, so that one bad
	// event does not cost the whole message.
	Kind sim.EventKind
	Arg  int32
}

// Propose sends a client's events, at least one. A client resends an event
// (same Seq) until it learns its fate; the server never applies a Seq twice,
// and answers a resent one again (docs/protocol.md section 6), so resending
// is always safe.
type Propose struct {
	Events []Proposal // 1 to MaxProposeEvents
}

// Type returns TypePropose.
func (*Propose) Type() Type { return TypePropose }

func (m *Propose) encode(w *writer) {
	if len(m.Events) == 0 {
		w.fail(invalidErr("propose without events"))
	}
	w.count("proposed events", len(m.Events), MaxProposeEvents)
	prev := uint64(0)
	for _, p := range m.Events {
		w.varint(int64(p.Tick - prev))
		prev = p.Tick
		w.u32(p.Seq)
		w.u8(uint8(p.Kind))
		w.i32(p.Arg)
	}
}

func (m *Propose) decode(r *reader) {
	n := r.count("proposed events", MaxProposeEvents, minProposal)
	if n == 0 {
		if r.err == nil {
			r.invalid("propose without events")
		}
		return
	}
	m.Events = make([]Proposal, n)
	prev := uint64(0)
	for i := range m.Events {
		p := &m.Events[i]
		p.Tick = prev + uint64(r.varint("proposed tick"))
		prev = p.Tick
		p.Seq = r.u32("proposed seq")
		p.Kind = sim.EventKind(r.u8("proposed kind"))
		p.Arg = r.i32("proposed arg")
	}
}

// Accepted broadcasts accepted events with their final ticks to every client
// of the room. A client recognises its own events by Player and Seq: that is
// its acknowledgement, and tells it where the server put each one.
type Accepted struct {
	// Seq numbers the room's broadcasts 1, 2, 3...: a gap tells a client it
	// missed one (ResendRequest), a Seq already seen is a duplicate to drop.
	Seq    uint64
	Events []TickEvent // at most MaxAcceptedEvents
}

// Type returns TypeAccepted.
func (*Accepted) Type() Type { return TypeAccepted }

func (m *Accepted) encode(w *writer) {
	w.uvarint(m.Seq)
	encodeTickEvents(w, "accepted events", 0, m.Events, MaxAcceptedEvents)
}

func (m *Accepted) decode(r *reader) {
	m.Seq = r.uvarint("accepted seq")
	m.Events = decodeTickEvents(r, "accepted events", 0, MaxAcceptedEvents)
}

// Postponed tells the proposer that its event arrived later than its
// leniency allows and was accepted at a later tick. The same event also comes
// in an Accepted broadcast; this message only gets the news to its owner
// first, and lets it tune its lead.
type Postponed struct {
	Seq   uint32 // the proposal's sequence number
	Asked uint64 // the tick the client proposed
	Tick  uint64 // the final tick, never before Asked
}

// Type returns TypePostponed.
func (*Postponed) Type() Type { return TypePostponed }

func (m *Postponed) encode(w *writer) {
	if m.Tick < m.Asked {
		w.fail(invalidErr("postponed tick " + utoa(m.Tick) + " before asked tick " + utoa(m.Asked)))
		return
	}
	w.u32(m.Seq)
	w.uvarint(m.Asked)
	w.uvarint(m.Tick - m.Asked)
}

func (m *Postponed) decode(r *reader) {
	m.Seq = r.u32("postponed seq")
	m.Asked = r.uvarint("postponed asked tick")
	d := r.uvarint("postponed delay")
	if d > math.MaxUint64-m.Asked {
		r.invalid("postponed tick overflows")
		return
	}
	m.Tick = m.Asked + d
}
