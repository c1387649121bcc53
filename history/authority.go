package history

import (
	"webtron/internal/errwrap"
	"webtron/sim"
)

// Status is the server's decision on a proposed event.
type Status uint8

// Decisions.
const (
	Accepted  Status = iota + 1 // lands at the tick asked for
	Postponed                   // lands later than asked: it came too late for the proposer's leniency (a turn keeps its instant within the tick: see decide)
	Refused                     // does not land; Reason says why
)

// Reason explains a refusal. The wire has its own codes
// (proto.RefuseReason); the room translates, and its tests pin the table.
type Reason uint8

// Reasons for refusing an event.
const (
	ReasonNone          Reason = iota
	ReasonTooFarAhead          // tick beyond now + MaxLead
	ReasonNotYourPlayer        // the event names another player
	ReasonNotAlive             // the player is dead or not in the round
	ReasonDuplicate            // this sequence number was seen already
	ReasonInvalidKind          // not an event a client may propose
	// NumReasons is one past the last reason, so that tests can go through
	// them all: each needs its String and its wire code.
	NumReasons
)

// String returns the reason as the text a refusal carries.
func (r Reason) String() string {
	switch r {
	case ReasonTooFarAhead:
		return "too far ahead"
	case ReasonNotYourPlayer:
		return "not your player"
	case ReasonNotAlive:
		return "not alive in this round"
	case ReasonDuplicate:
		return "duplicate sequence number"
	case ReasonInvalidKind:
		return "not a player event"
	}
	return "none"
}

// Decision is the answer to one proposal.
type Decision struct {
	Status Status
	Tick   int64 // final tick when accepted or postponed
	Reason Reason
	Late   int64 // ticks the proposal came after the earliest tick allowed (>0 postponed), or negative spare
	// Again marks the answer to a resent proposal (same sequence number,
	// same event) that was decided before: the first decision, repeated,
	// and nothing logged. On a datagram link the proposal or its answer was
	// lost; the proposer gets that answer again.
	Again bool
}

// SeqMemory is how many of a player's most recent sequence numbers the
// authority remembers the fate of. A resent proposal older than that is
// refused as a duplicate: its fate can no longer be told.
const SeqMemory = 64

// seqLog remembers the fate of a player's recent proposals by sequence
// number, so that a resent one is answered again rather than decided again.
type seqLog struct {
	top  uint32 // highest sequence number seen
	any  bool
	ring [SeqMemory]seqEntry
}

type seqEntry struct {
	seq  uint32
	used bool
	kind sim.EventKind
	arg  int32
	d    Decision
}

// find returns the entry of seq when it is remembered; old reports a seq too
// far below the newest to tell.
func (l *seqLog) find(seq uint32) (e *seqEntry, old bool) {
	if !l.any || seq > l.top {
		return nil, false
	}
	if l.top-seq >= SeqMemory {
		return nil, true
	}
	if e := &l.ring[seq%SeqMemory]; e.used && e.seq == seq {
		return e, false
	}
	return nil, false // within the window and never seen: reordered, not resent
}

func (l *seqLog) record(ev sim.Event, d Decision) {
	if !l.any || ev.Seq > l.top {
		l.top, l.any = ev.Seq, true
	}
	l.ring[ev.Seq%SeqMemory] = seqEntry{seq: ev.Seq, used: true, kind: ev.Kind, arg: ev.Arg, d: d}
}

// Authority is the server's side of the history: it decides where each
// proposed event lands, logs it in the timeline, and tracks finality.
type Authority struct {
	TL      *Timeline
	MaxLead int64 // ticks ahead of now a client may schedule an event

	lenient [sim.MaxPlayers]int64 // ticks
	floor   [sim.MaxPlayers]int64 // earliest tick still open to the player's events; never decreases
	active  [sim.MaxPlayers]bool  // player slot in use (finality waits for it)
	seqs    [sim.MaxPlayers]seqLog
	hold    int64 // finality stays before this tick (SetHold)
}

// NewAuthority wraps a timeline that keeps a confirmed state.
func NewAuthority(tl *Timeline, maxLead int64) *Authority {
	return &Authority{TL: tl, MaxLead: maxLead, hold: noDirty}
}

// SetHold keeps finality before tick: no tick at or after it is declared
// final (Final) or stepped by the confirmed state, whatever the players'
// floors allow. A room whose history is replicated holds finality at what
// is durable, so that nothing a client saw confirmed can be lost with the
// node (docs/netcode.md, section 8). It never moves finality back: ticks
// already final stay so. NoHold lifts it.
func (a *Authority) SetHold(tick int64) { a.hold = tick }

// NoHold is the hold of an authority whose finality waits for nothing but
// its players (SetHold).
const NoHold = noDirty

// Now is the server's present tick: the next one it will simulate.
func (a *Authority) Now() int64 { return a.TL.Present() }

// SetActive marks a player slot as held by a client whose events count for
// finality; inactive slots (bots, empty) have no leniency.
func (a *Authority) SetActive(p int, on bool) {
	a.active[p] = on
	if !on {
		a.lenient[p] = 0
	}
	a.floor[p] = max(a.floor[p], a.Now())
	a.seqs[p] = seqLog{}
}

// SetLeniency sets how many ticks in the past the player's events may land.
// Raising it never reopens ticks already declared final for that player.
func (a *Authority) SetLeniency(p int, ticks int64) { a.lenient[p] = max(0, ticks) }

// Leniency returns the player's leniency in ticks.
func (a *Authority) Leniency(p int) int64 { return a.lenient[p] }

// earliest is the first tick still open to p's events.
func (a *Authority) earliest(p int) int64 {
	return max(a.Now()-a.lenient[p], a.floor[p])
}

// Propose decides on an event that player `from` proposes for tick. Accepted
// and postponed events are logged (the timeline rolls back on its next
// Advance if the tick is in the past); the caller broadcasts them. A
// sequence number is decided once: proposed again with the same event (a
// resend), it gets its first decision again (Decision.Again); with another
// event, or too old to tell, it is refused as a duplicate.
func (a *Authority) Propose(from int, ev sim.Event, tick int64) Decision {
	if int(ev.Player) != from {
		return Decision{Status: Refused, Reason: ReasonNotYourPlayer}
	}
	switch e, old := a.seqs[from].find(ev.Seq); {
	case old:
		return Decision{Status: Refused, Reason: ReasonDuplicate}
	case e != nil && (e.kind != ev.Kind || e.arg != ev.Arg):
		return Decision{Status: Refused, Reason: ReasonDuplicate}
	case e != nil:
		d := e.d
		d.Again, d.Late = true, 0
		return d
	}
	d := a.decide(from, ev, tick)
	a.seqs[from].record(ev, d)
	return d
}

// decide answers a proposal seen for the first time.
func (a *Authority) decide(from int, ev sim.Event, tick int64) Decision {
	switch {
	case !ev.Kind.PlayerInput():
		return Decision{Status: Refused, Reason: ReasonInvalidKind}
	case tick > a.Now()+a.MaxLead:
		return Decision{Status: Refused, Reason: ReasonTooFarAhead}
	case !a.playing(from):
		return Decision{Status: Refused, Reason: ReasonNotAlive}
	}
	early := a.earliest(from)
	d := Decision{Status: Accepted, Tick: tick, Late: early - tick}
	// A postponed event moves by whole ticks and is otherwise as proposed:
	// a turn keeps the instant within its tick that it carries (Arg), so
	// that the answer, which names the tick only, is all the proposer needs
	// to agree with the log. It is then made up to a tick later than the
	// earliest instant allowed (the start of that tick).
	if tick < early {
		d.Status, d.Tick = Postponed, early
	}
	if _, err := a.TL.Insert(TickEvent{d.Tick, ev}); err != nil {
		// Cannot happen while floors stay above the confirmed tick; refuse
		// rather than corrupt the history.
		return Decision{Status: Refused, Reason: ReasonNotAlive}
	}
	return d
}

// playing reports whether p may still act: alive in the confirmed state, or
// the round there is not in play (the event may be for the next round's
// countdown, where turns queue). A player that died in the confirmed state
// stays dead for the rest of that round, so this never refuses a live one.
func (a *Authority) playing(p int) bool {
	c := a.TL.Confirmed()
	ph, _ := c.Phase()
	cy := c.Cycle(p)
	if ph == sim.PhasePlay || ph == sim.PhasePrepare {
		return cy.Alive
	}
	return cy.Present
}

// Server logs an event made by the server itself (join, leave, spawn, round
// start, and bots' inputs) at the present tick and returns that tick.
func (a *Authority) Server(ev sim.Event) int64 {
	now := a.Now()
	a.TL.Insert(TickEvent{now, ev})
	return now
}

// Final returns the newest tick through which player p's inputs are final.
func (a *Authority) Final(p int) int64 {
	return max(min(a.earliest(p), a.hold), a.TL.Confirmed().Tick()) - 1
}

// Tick simulates up to tick now (exclusive), rolling back first if late
// events arrived, then advances each player's floor and finalizes every tick
// that no active player can still reach. It returns the rollback depth.
func (a *Authority) Tick(now int64) (int64, error) {
	depth, err := a.TL.Advance(now)
	if err != nil {
		return depth, errwrap.New("history: server timeline: "+err.Error(), err)
	}
	final := min(now, a.hold)
	for p := range a.floor {
		a.floor[p] = a.earliest(p)
		if a.active[p] {
			final = min(final, a.floor[p])
		}
	}
	a.TL.Finalize(final)
	return depth, nil
}
