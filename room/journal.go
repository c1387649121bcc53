package room

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"webtron/history"
	"webtron/sim"
)

// A room's journal is its history written as it is made, so that another
// node can carry the round on if this one dies (issue 26; docs/netcode.md,
// section 8). The room hands every entry to Config.Journal without waiting
// (the server writes them to the cluster on a goroutine of its own) and
// learns, by Journal.Durable, which have been made durable:
//
//   - a base entry: a snapshot of the confirmed state and every event logged
//     at or after its tick, the seats and what the room was made with; one
//     at the room's start, one at each round's start, one every
//     checkpointEvery and one after a gap (an entry the journal could not
//     take);
//   - an events entry for every batch of accepted events, with their ticks,
//     in the order they were broadcast;
//   - a seats entry whenever a seat changes hands, carrying the join or
//     leave that does it when there is one (see journalEvents);
//   - a mark whenever the present moved and nothing else was written: it
//     says that nothing happened before it that the journal does not hold.
//
// Every entry says the room's present tick when it was made. Events are
// broadcast at once, before they are durable; what waits is finality: the
// room declares no tick final (Authority.SetHold) at or after the first
// tick that is not yet durable, which is the earliest tick of an event not
// yet acknowledged, or the present of the newest entry acknowledged. So
// nothing a client ever saw confirmed is missing from the journal, and a
// room rebuilt from it (Restore) only adds events at ticks no client holds
// final.

// Journal is where a room writes its entries.
type Journal interface {
	// Append hands e over without blocking and returns its number (1, 2,
	// ... in the order taken), or false when it could not take it (a full
	// queue): the room then writes a base entry as soon as it can.
	Append(e *Entry) (uint64, bool)
	// Durable returns the number of the newest entry that would survive
	// this node; every entry before it would too.
	Durable() uint64
}

// EntryKind is what a journal entry holds.
type EntryKind uint8

// Entry kinds.
const (
	EntryBase EntryKind = iota + 1
	EntryEvents
	EntrySeats
	EntryMark
)

// Entry is one record of a room's journal. Its JSON form is what the
// cluster stores.
type Entry struct {
	Kind EntryKind `json:"k"`
	Now  int64     `json:"now"` // the room's present tick when it was made
	// A base entry's snapshot: the confirmed state at Tick, encoded; and
	// RoundStart when the tick starts a round (the journal may forget what
	// came before it).
	Tick       int64  `json:"tick,omitempty"`
	State      []byte `json:"state,omitempty"`
	RoundStart bool   `json:"round,omitempty"`
	Meta       *Meta  `json:"meta,omitempty"` // base entries
	// Events: a base entry's events at or after Tick, or an events entry's
	// batch, in the order logged.
	Events []history.TickEvent `json:"-"`
	Seats  []Seat              `json:"seats,omitempty"` // base and seats entries: every seat held
}

// Meta is what a room was made with, beyond its state.
type Meta struct {
	Name     string `json:"name"`
	Seed     uint64 `json:"seed"`
	Private  bool   `json:"private,omitempty"`
	BotSkill int    `json:"bot_skill"`
	Map      string `json:"map,omitempty"` // Config.Map: the map's id, for the room list (the map is in the state)
	// Rules is the sim.RulesVersion the round is played under: a round
	// goes on only under the same rules (Restore refuses others, ErrRules).
	// 0 in journals written before it was recorded.
	Rules int `json:"rules,omitempty"`
	// Epoch is when the room's tick 0 was, as Unix nanoseconds on the
	// writing node's clock (Config.EpochWall): a room rebuilt on another
	// node runs on at the same ticks.
	Epoch int64 `json:"epoch"`
}

// Seat is one held seat of a journal entry. A human's reconnect token is
// kept only as its SHA-256: what the journal holds lets nobody take a seat.
type Seat struct {
	Player   int    `json:"p"`
	Name     string `json:"name"`
	Bot      bool   `json:"bot,omitempty"`
	Leaving  bool   `json:"leaving,omitempty"`
	TokenSum []byte `json:"token,omitempty"`
	Machine  uint8  `json:"machine,omitempty"`
	Origin   string `json:"origin,omitempty"`
}

// entryJSON carries Events compactly: five numbers an event.
type entryJSON struct {
	*Entry
	Evs []int64 `json:"evs,omitempty"`
}

// AppendRecord appends e's encoding to dst (the cluster's record).
func (e *Entry) AppendRecord(dst []byte) []byte {
	j := entryJSON{Entry: e, Evs: make([]int64, 0, 5*len(e.Events))}
	for _, te := range e.Events {
		j.Evs = append(j.Evs, te.Tick, int64(te.Ev.Kind), int64(te.Ev.Player), int64(te.Ev.Seq), int64(te.Ev.Arg))
	}
	b, err := json.Marshal(j)
	if err != nil {
		panic("room: encoding a journal entry: " + err.Error())
	}
	return append(dst, b...)
}

// DecodeEntry reads an entry AppendRecord wrote.
func DecodeEntry(b []byte) (*Entry, error) {
	e := &Entry{}
	j := entryJSON{Entry: e}
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("room: journal entry: %w", err)
	}
	if len(j.Evs)%5 != 0 || e.Kind < EntryBase || e.Kind > EntryMark {
		return nil, errors.New("room: journal entry: malformed")
	}
	for i := 0; i < len(j.Evs); i += 5 {
		v := j.Evs[i : i+5]
		e.Events = append(e.Events, history.TickEvent{Tick: v[0], Ev: sim.Event{Kind: sim.EventKind(v[1]), Player: uint8(v[2]), Seq: uint32(v[3]), Arg: int32(v[4])}})
	}
	return e, nil
}

// checkpointEvery spaces the base entries within a round: a room rebuilt
// from its journal replays at most this much from the last one.
const checkpointEvery = 10 * time.Second

// maxHold bounds how long finality waits for the journal: a cluster that
// cannot write (its stream electing a leader, for seconds) must not freeze
// every room's rounds. Past it the room plays on with finality unheld
// (Stats.JournalDegraded counts the ticks) until the journal catches up.
const maxHold = time.Second

// journal is the room's side of its Journal.
type journal struct {
	j       Journal
	pending []pendingEntry // taken, not yet durable, in order
	durable int64          // the present of the newest durable entry
	gap     bool           // an entry was not taken: a base entry is owed
	last    int64          // the present of the newest entry taken
	base    time.Duration  // when the newest base entry was taken
	round   int64          // tick of the newest round start written
	seats   bool           // seats changed since the last seats or base entry
}

type pendingEntry struct {
	n     uint64
	now   int64
	first int64 // its earliest event's tick (noHold without events)
	at    time.Duration
}

// holdFinality sets the authority's hold from what the journal has made
// durable (see the comment at the top).
func (r *Room) holdFinality() {
	jn := &r.jn
	if jn.j == nil {
		return
	}
	d := jn.j.Durable()
	k := 0
	for ; k < len(jn.pending) && jn.pending[k].n <= d; k++ {
		jn.durable = jn.pending[k].now
	}
	jn.pending = append(jn.pending[:0], jn.pending[k:]...)
	if jn.gap || len(jn.pending) > 0 && r.now-jn.pending[0].at > maxHold {
		r.auth.SetHold(history.NoHold)
		r.Stats.JournalDegraded++
		return
	}
	hold := jn.durable
	for _, p := range jn.pending {
		hold = min(hold, p.first)
	}
	r.auth.SetHold(hold)
}

// write hands e to the journal, stamped with the present.
func (r *Room) write(e *Entry) {
	jn := &r.jn
	if jn.j == nil {
		return
	}
	e.Now = r.auth.Now()
	first := history.NoHold
	for _, te := range e.Events {
		first = min(first, te.Tick)
	}
	n, ok := jn.j.Append(e)
	if !ok {
		jn.gap = true
		return
	}
	jn.last = e.Now
	jn.pending = append(jn.pending, pendingEntry{n: n, now: e.Now, first: first, at: r.now})
}

// journalEvents writes a broadcast batch of accepted events. A batch that
// goes with a change of seats (a join or a leave: the seat changes first)
// is written as the seats entry, in one record: a seat and the event that
// makes it are durable together. Written apart, a node that died between
// the two left a history with a joined player's cycle in the round, its
// join maybe confirmed, and no seat for it: the room rebuilt from it
// refused the token the Welcome had given (the player came back in another
// seat) and the cycle rode on with nobody at its controls.
func (r *Room) journalEvents(acc []history.TickEvent) {
	jn := &r.jn
	switch {
	case jn.j == nil || jn.gap:
	case jn.seats:
		r.write(&Entry{Kind: EntrySeats, Events: acc, Seats: r.seatList()})
		jn.seats = jn.gap
	default:
		r.write(&Entry{Kind: EntryEvents, Events: acc})
	}
}

// journalTick writes what a Tick owes the journal: a base entry at a
// round's start, after a gap or every checkpointEvery; the seats when they
// changed; a mark when the present moved and nothing else said so.
func (r *Room) journalTick() {
	jn := &r.jn
	if jn.j == nil {
		return
	}
	if tick, _ := r.tl.RoundStart(); tick != jn.round || jn.gap || r.now-jn.base >= checkpointEvery {
		r.journalBase()
	}
	r.journalSeats()
	if !jn.gap && r.auth.Now() > jn.last {
		r.write(&Entry{Kind: EntryMark})
	}
}

// journalBase writes a base entry: the round's start snapshot when a round
// started since the last one, else the confirmed state now.
func (r *Room) journalBase() {
	jn := &r.jn
	tick, snap := r.tl.RoundStart()
	e := &Entry{Kind: EntryBase, Tick: tick, State: snap, RoundStart: tick != jn.round, Seats: r.seatList(),
		Meta: &Meta{Name: r.Name, Seed: r.cfg.Seed, Private: r.cfg.Private, BotSkill: r.cfg.BotSkill, Map: r.cfg.Map, Epoch: r.cfg.EpochWall, Rules: sim.RulesVersion}}
	if !e.RoundStart {
		e.Tick, e.State, _ = r.tl.JoinData()
	}
	e.Events = append([]history.TickEvent(nil), r.tl.Log.From(e.Tick)...)
	jn.gap = false
	r.write(e)
	if !jn.gap {
		jn.base, jn.round, jn.seats = r.now, tick, false
	}
}

// Checkpoint writes a base entry now (with the seats), so that the node
// that carries the room on next (a handover) rebuilds it from here rather
// than from the last checkpoint or the round's start: less to read, less to
// replay. Without a journal it does nothing.
func (r *Room) Checkpoint() {
	if r.jn.j != nil {
		r.journalBase()
	}
}

// journalSeats writes the seats when they changed.
func (r *Room) journalSeats() {
	jn := &r.jn
	if jn.j != nil && jn.seats && !jn.gap {
		r.write(&Entry{Kind: EntrySeats, Seats: r.seatList()})
		jn.seats = jn.gap
	}
}

// seatList lists the held seats for the journal.
func (r *Room) seatList() []Seat {
	var out []Seat
	for p, m := range r.members {
		if m == nil {
			continue
		}
		s := Seat{Player: p, Name: m.name, Bot: m.bot != nil, Leaving: m.leaving, Machine: m.machine, Origin: m.origin}
		if m.bot == nil {
			s.TokenSum = m.tokenSum[:]
		}
		out = append(out, s)
	}
	return out
}

// tokenSum is what the journal keeps of a reconnect token.
func tokenSum(token []byte) [sha256.Size]byte { return sha256.Sum256(token) }

// ErrJournal is wrapped by Restore's refusals of a journal.
var ErrJournal = errors.New("room: journal cannot rebuild the room")

// ErrRules is Restore's refusal of a journal written under other rules
// than this build's (sim.RulesVersion; or none recorded, before it was).
var ErrRules = errors.New("room: journal written under other rules")

// Restore rebuilds a room from its journal (entries from a base entry on,
// in order, as the cluster recovered them), with tick 0 at epoch on the
// clock now is read on, and brings it to now: the state at the base entry,
// every event since, and the seats. The humans are away (their connections
// were to the node that died): each keeps its cycle, driven by a pilot,
// until it comes back with its reconnect token within Config.Reconnect.
// No event lands before the journal's last present: the ticks since then
// are the new room's to decide.
func Restore(name string, cfg Config, epoch, now time.Duration, tr Transport, entries []*Entry) (*Room, error) {
	cfg.defaults()
	if len(entries) == 0 || entries[0].Kind != EntryBase {
		return nil, fmt.Errorf("%w: it does not start with a base entry", ErrJournal)
	}
	base := entries[0]
	if base.Meta == nil || base.Meta.Rules != sim.RulesVersion {
		var rules int
		if base.Meta != nil {
			rules = base.Meta.Rules
		}
		return nil, fmt.Errorf("%w: rules %d, this build's %d", ErrRules, rules, sim.RulesVersion)
	}
	s, err := sim.UnmarshalState(base.State)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJournal, err)
	}
	if s.Tick() != base.Tick || s.Config().TickRate != cfg.Sim.TickRate {
		return nil, fmt.Errorf("%w: base snapshot at tick %d (rate %d), entry says %d (rate %d here)", ErrJournal, s.Tick(), s.Config().TickRate, base.Tick, cfg.Sim.TickRate)
	}
	r, err := newRoom(name, cfg, epoch, now, tr, s)
	if err != nil {
		return nil, err
	}
	last, seats := base.Now, base.Seats
	for _, e := range entries {
		for _, te := range e.Events {
			if te.Tick >= base.Tick {
				if _, err := r.tl.Insert(te); err != nil {
					return nil, fmt.Errorf("%w: event at tick %d: %v", ErrJournal, te.Tick, err)
				}
			}
		}
		if e.Kind == EntrySeats || e.Kind == EntryBase {
			seats = e.Seats
		}
		last = max(last, e.Now)
	}
	for r.auth.Now() < last {
		if _, err := r.auth.Tick(r.auth.Now() + 1); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrJournal, err)
		}
	}
	for _, st := range seats {
		if st.Player < 0 || st.Player >= sim.MaxPlayers {
			return nil, fmt.Errorf("%w: seat %d", ErrJournal, st.Player)
		}
		m := &member{player: st.Player, name: st.Name, machine: st.Machine, origin: st.Origin, leaving: st.Leaving}
		if st.Bot {
			m.bot = r.newBot(st.Player)
		} else {
			copy(m.tokenSum[:], st.TokenSum)
			m.dropped, m.rode = now, true
			m.pilot = r.newBot(st.Player)
		}
		r.members[st.Player] = m
		r.rec.seat(st.Player, st.Name, st.Bot)
	}
	r.ahead.replan()
	r.now = now
	// The rebuilt room's journal goes on from a base entry of its own: the
	// round's start again, or a checkpoint when the journal had one only.
	if !base.RoundStart {
		r.jn.round, _ = r.tl.RoundStart()
	}
	r.journalBase()
	return r, r.Tick(now)
}
