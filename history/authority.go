package history

import "webtron/sim"

// Status is the server's decision on a proposed event.
type Status uint8

// Decisions.
const (
	Accepted  Status = iota + 1 // lands at the tick asked for
	Postponed                   // lands later than asked: it came too late for the proposer's leniency
	Refused                     // does not land; Reason says why
)

// Reason explains a refusal. The values match proto.RefuseReason.
type Reason uint8

// Reasons for refusing an event.
const (
	ReasonNone          Reason = iota
	ReasonTooFarAhead          // tick beyond now + MaxLead
	ReasonNotYourPlayer        // the event names another player
	ReasonNotAlive             // the player is dead or not in the round
	ReasonDuplicate            // this sequence number was seen already
	ReasonRateLimited          // set by the transport layer, never here
	ReasonInvalidKind          // not an event a client may propose
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
	case ReasonRateLimited:
		return "rate limited"
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
}

// seqWindow remembers which of the last 64 sequence numbers it has seen, so a
// duplicate is refused even when datagrams arrive out of order.
type seqWindow struct {
	top  uint32
	bits uint64 // bit i: top-i seen
}

func (w *seqWindow) seen(seq uint32) bool {
	if seq > w.top {
		return false
	}
	d := w.top - seq
	return d >= 64 || w.bits&(1<<d) != 0 // too old counts as seen: it cannot be checked
}

func (w *seqWindow) mark(seq uint32) {
	if seq > w.top {
		shift := seq - w.top
		if shift >= 64 {
			w.bits = 0
		} else {
			w.bits <<= shift
		}
		w.top = seq
	}
	w.bits |= 1 << (w.top - seq)
}

// Authority is the server's side of the history: it decides where each
// proposed event lands, logs it in the timeline, and tracks finality.
type Authority struct {
	TL      *Timeline
	MaxLead int64 // ticks ahead of now a client may schedule an event

	lenient [sim.MaxPlayers]int64 // ticks
	floor   [sim.MaxPlayers]int64 // earliest tick still open to the player's events; never decreases
	active  [sim.MaxPlayers]bool  // player slot in use (finality waits for it)
	seqs    [sim.MaxPlayers]seqWindow
}

// NewAuthority wraps a timeline that keeps a confirmed state.
func NewAuthority(tl *Timeline, maxLead int64) *Authority {
	return &Authority{TL: tl, MaxLead: maxLead}
}

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
	a.seqs[p] = seqWindow{}
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
// Advance if the tick is in the past); the caller broadcasts them.
func (a *Authority) Propose(from int, ev sim.Event, tick int64) Decision {
	switch {
	case int(ev.Player) != from:
		return Decision{Status: Refused, Reason: ReasonNotYourPlayer}
	case a.seqs[from].seen(ev.Seq):
		return Decision{Status: Refused, Reason: ReasonDuplicate}
	}
	// From here on the sequence number is used up, whatever the answer: a
	// resent copy of a refused proposal is a duplicate, not a second refusal.
	a.seqs[from].mark(ev.Seq)
	switch {
	case ev.Kind < sim.EvTurnLeft || ev.Kind > sim.EvBrakeOff:
		return Decision{Status: Refused, Reason: ReasonInvalidKind}
	case tick > a.Now()+a.MaxLead:
		return Decision{Status: Refused, Reason: ReasonTooFarAhead}
	case !a.playing(from):
		return Decision{Status: Refused, Reason: ReasonNotAlive}
	}
	early := a.earliest(from)
	d := Decision{Status: Accepted, Tick: tick, Late: early - tick}
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
func (a *Authority) Final(p int) int64 { return a.earliest(p) - 1 }

// Tick simulates up to tick now (exclusive), rolling back first if late
// events arrived, then advances each player's floor and finalizes every tick
// that no active player can still reach. It returns the rollback depth.
func (a *Authority) Tick(now int64) (int64, error) {
	depth, err := a.TL.Advance(now)
	if err != nil {
		return depth, &wrapError{"history: server timeline: " + err.Error(), err}
	}
	final := now
	for p := range a.floor {
		a.floor[p] = a.earliest(p)
		if a.active[p] {
			final = min(final, a.floor[p])
		}
	}
	a.TL.Finalize(final)
	return depth, nil
}
