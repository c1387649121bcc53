package room

import (
	"fmt"
	"time"

	"webtron/history"
	"webtron/sim"
)

// botHorizon is how far past the present the bots decide. A room with bots
// sleeps until the first tick at which one of them acts, or until the
// horizon runs out: bots act a few times a second between them, so the room
// wakes 7-17 times a second instead of at every tick, and each wake-up costs
// the process more than a tick's work (docs/performance.md, CPU per room).
// It matches the heartbeat interval and the leads' recomputation: a longer
// one saves no more wake-ups (BenchmarkRoomMinute: 443 a minute at 200 and
// at 300 ms, 702 at 100 ms) and costs more work each time a human's input
// makes the bots decide again.
const botHorizon = 200 * time.Millisecond

// aheadSnapEvery spaces the snapshots of the bots' timeline: a snapshot is
// 6.8 KB (32 cycles), and one every tick over the half second the ring must
// cover would be 440 KB a room; going back then replays up to 3 ticks more.
const aheadSnapEvery = 4

// botAhead is the bots' own timeline, run up to botHorizon past the present,
// on which they decide their inputs for the coming ticks before those ticks
// are due. Each decision is held back until its tick is the present and then
// logged and broadcast at that tick, as if the bot had decided then: by then
// the room has seen every event it would have seen deciding then, since any
// event logged meanwhile at a tick before the decision's (a human's input, a
// join) withdraws the decisions after it, the timeline rolls back, and the
// bots decide those ticks again. Bots see what a human at the server would
// see, exactly as when they decided at every tick; only their own inner
// state (their randomness, their maps) may move on differently after such a
// redo, which nobody relies on: the log records what they did.
//
// It is a history.Timeline like every other rollback in the game (one engine,
// covered by its sync test): its log holds the room's events and the bots'
// pending decisions. It starts from the room's confirmed state, before which
// no event can land, and its snapshot ring spans the leniency and the
// horizon, so a change it cannot roll back to is a bug, and surfaces as one.
type botAhead struct {
	tl *history.Timeline // nil until bots first decide, and again once none are seated
	// pending holds the decisions for the ticks after released, in tick
	// order; they are in tl's log too.
	pending []history.TickEvent
	// released is the newest tick whose decisions are in the room's log;
	// decided the newest tick the bots decided for (pending covers
	// released+1..decided).
	released, decided int64
	// err is the first failure of the bots' timeline, which Room.Tick
	// returns: a room whose bots cannot go on is broken.
	err  error
	reqs []history.Request
	evs  []sim.Event
}

// logged mirrors an event the room logged (by anything but a release of the
// bots' own decisions, which the bots' log already holds) into the bots'
// timeline: it rolls back from te.Tick if it has stepped that tick, and the
// decisions made for the ticks after te.Tick are withdrawn, to be made again
// on the changed states (the state at te.Tick itself, on which the decisions
// at te.Tick were made, does not change).
func (a *botAhead) logged(te history.TickEvent) {
	if a.tl == nil || a.err != nil {
		return
	}
	if _, err := a.tl.Insert(te); err != nil {
		a.err = err // the bots' timeline has no confirmed state: cannot happen
		return
	}
	n := len(a.pending)
	for n > 0 && a.pending[n-1].Tick > te.Tick {
		n--
		a.tl.Remove(a.pending[n])
	}
	a.pending = a.pending[:n]
	a.decided = max(min(a.decided, te.Tick), a.released)
}

// replan withdraws every decision made ahead, to be made again from the
// next tick on: the seats the bots drive changed (an away human's pilot
// took its seat or gave it back), and a decision made without the new
// driver, or by the one gone, must not be released. The timeline starts
// again from the room's confirmed state, as when bots are first seated.
func (a *botAhead) replan() {
	a.tl, a.pending = nil, a.pending[:0]
}

// pilotSeq marks the sequence numbers of a pilot's events (Seq | pilotSeq):
// a client numbers its own proposals from 1, and takes an event of its
// player with the seq of a proposal it awaits for that proposal's answer
// (client.Session.accepted), so a pilot's events, which a client that came
// back receives while it already proposes, must never wear such a number.
const pilotSeq = 1 << 31

// startAhead starts the bots' timeline from the room's confirmed state and
// the room's log since: no event can land before the confirmed tick, so the
// timeline never needs to go back further than it holds.
func (r *Room) startAhead() error {
	a := &r.ahead
	conf := r.tl.Confirmed()
	s, err := sim.UnmarshalState(conf.AppendBinary(nil))
	if err != nil {
		return fmt.Errorf("room: the confirmed state does not decode: %w", err)
	}
	window := int64((r.cfg.MaxLenient+botHorizon)/r.dt) + 2*aheadSnapEvery
	tl, err := history.New(s, history.Options{Window: window, SnapshotEvery: aheadSnapEvery, HashEvery: 1 << 40})
	if err != nil {
		return err
	}
	for _, te := range r.tl.Log.From(s.Tick()) {
		tl.Insert(te) // at or after tl's present: nothing to roll back
	}
	a.tl, a.pending, a.decided = tl, a.pending[:0], a.released
	return nil
}

// planBots brings the bots' timeline to tick to (exclusive), rolling back
// first if the log changed under it, and lets the bots decide every tick
// after the last one they decided for, on the state before that tick.
func (r *Room) planBots(to int64) error {
	a := &r.ahead
	if a.err != nil {
		return a.err
	}
	if a.tl == nil {
		if a.err = r.startAhead(); a.err != nil {
			return a.err
		}
	}
	var err error
	if a.reqs, err = a.tl.Plan(to, a.reqs[:0]); err != nil {
		a.err = fmt.Errorf("room: the bots' timeline: %w", err)
		return a.err
	}
	for i, rq := range a.reqs {
		if rq.Kind == history.ReqAdvance && rq.Tick > a.decided {
			a.decide(r, rq.Tick)
		}
		if err := a.tl.Apply(a.reqs[i : i+1]); err != nil {
			a.err = fmt.Errorf("room: the bots' timeline: %w", err)
			return a.err
		}
	}
	return nil
}

// decide has the seated bots decide for tick on the bots' state before it.
func (a *botAhead) decide(r *Room, tick int64) {
	s := a.tl.State()
	a.evs = a.evs[:0]
	for _, m := range r.members {
		if m == nil || m.driver() == nil {
			continue
		}
		n := len(a.evs)
		a.evs = m.driver().Decide(s, a.evs)
		if m.pilot != nil {
			for i := n; i < len(a.evs); i++ {
				a.evs[i].Seq |= pilotSeq
			}
		}
	}
	for _, ev := range a.evs {
		te := history.TickEvent{Tick: tick, Ev: ev}
		a.pending = append(a.pending, te)
		a.tl.Insert(te) // at the tick about to be stepped: nothing to roll back
	}
	a.decided = tick
}

// botsDecide logs and broadcasts the bots' inputs for the present tick, just
// begun: bots sit at the server, with no latency and no leniency, and their
// events reach everyone as early as a human's with no latency would (the
// lag-o-meters' o = 0, L = 0 for bots holds).
func (r *Room) botsDecide() error {
	a := &r.ahead
	now := r.auth.Now()
	if a.err != nil {
		return a.err // from botsDue, which has no error to return
	}
	if !r.driven() {
		a.tl, a.pending, a.released = nil, a.pending[:0], now
		return nil // and the predicted present is not simulated at all
	}
	if err := r.planBots(now + 1); err != nil {
		return err
	}
	n := 0
	r.botEvs = r.botEvs[:0]
	for ; n < len(a.pending) && a.pending[n].Tick <= now; n++ {
		r.botEvs = append(r.botEvs, a.pending[n].Ev)
	}
	a.pending = append(a.pending[:0], a.pending[n:]...)
	a.released = now
	a.tl.Finalize(r.tl.Confirmed().Tick()) // the bots' log forgets what no rollback can reach
	if len(r.botEvs) > 0 {
		r.logServer(r.botEvs) // one broadcast for every bot of the tick
	}
	return nil
}

// botsDue returns the first tick the room must run for its bots: the tick of
// their next decision, or the end of what they have looked at, after letting
// them look botHorizon ahead. ok is false without bots, or when the bots'
// timeline failed (the next Tick returns why).
func (r *Room) botsDue() (tick int64, ok bool) {
	if !r.driven() {
		return 0, false
	}
	if r.planBots(r.auth.Now()+1+int64((botHorizon+r.dt-1)/r.dt)) != nil {
		return 0, false
	}
	a := &r.ahead
	if len(a.pending) > 0 {
		return a.pending[0].Tick, true
	}
	return a.tl.State().Tick(), true
}
