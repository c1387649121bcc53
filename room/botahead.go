package room

import (
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

// noChange is botAhead.dirty when no logged event changed under it.
const noChange = int64(1) << 62

// aheadSnapEvery spaces the snapshots of the bots' state: a snapshot is
// 6.8 KB (32 cycles), and one every tick over the half second the ring must
// cover would be 440 KB a room; going back then replays up to 3 ticks more.
const aheadSnapEvery = 4

// botAhead is the bots' own copy of the simulation, run up to botHorizon
// past the present, on which they decide their inputs for the coming ticks
// before those ticks are due. Each decision is held back until its tick is
// the present and then logged and broadcast at that tick, as if the bot had
// decided then: by then the room has seen every event it would have seen
// deciding then, since any event logged meanwhile at a tick before the
// decision's (a human's input, a join) throws the decisions after it away and
// the bots decide those ticks again. Bots see what a human at the server
// would see, exactly as when they decided at every tick; only their own
// inner state (their randomness, their maps) may move on differently after
// such a redo, which nobody relies on: the log records what they did.
type botAhead struct {
	s *sim.State // nil until bots first decide, and again once none are seated
	// ring holds s as it was before stepping each tick k that is a multiple
	// of aheadSnapEvery, at ring[k/aheadSnapEvery%len]: a change at tick t
	// restores the newest at or before t. It reaches back to the oldest
	// tick a player's input may still land at (MaxLenient).
	ring []sim.Snapshot
	// queue holds the decisions for the ticks after released, in tick order.
	queue []history.TickEvent
	// released is the newest tick whose decisions are in the log; decided
	// the newest tick the bots decided for (queue covers released+1..decided).
	released, decided int64
	// dirty is the first tick whose logged events changed after s stepped it.
	dirty int64
	evs   []sim.Event
}

// touch notes that the log's events at tick changed (by anything but a
// release of the bots' own decisions): the bots' state is wrong from there
// on if it has stepped that tick.
func (a *botAhead) touch(tick int64) {
	if a.s != nil && tick < a.s.Tick() && tick < a.dirty {
		a.dirty = tick
	}
}

// resetAhead starts the bots' state afresh from the room's present: when the ring
// no longer holds the tick a change needs, or when bots are seated again.
func (r *Room) resetAhead() {
	a := &r.ahead
	s, err := sim.UnmarshalState(r.tl.State().AppendBinary(nil))
	if err != nil {
		panic("room: the room's own state does not decode: " + err.Error())
	}
	a.s = s
	if a.ring == nil {
		a.ring = make([]sim.Snapshot, int64((r.cfg.MaxLenient+botHorizon)/r.dt)/aheadSnapEvery+2)
	}
	clear(a.ring)
	a.queue = a.queue[:0]
	a.decided = a.released
	a.dirty = noChange
}

// planBots lets the bots decide up to tick to (exclusive), first going back
// to where the log changed under their state, if it did.
func (r *Room) planBots(to int64) {
	a := &r.ahead
	if a.s == nil {
		r.resetAhead()
	}
	if a.dirty < a.s.Tick() {
		back := a.dirty
		from := back / aheadSnapEvery * aheadSnapEvery
		sn := &a.ring[from/aheadSnapEvery%int64(len(a.ring))]
		if !sn.Valid() || sn.Tick() != from || a.s.Restore(sn) != nil {
			r.resetAhead()
		} else {
			a.dirty = noChange
			n := len(a.queue)
			for n > 0 && a.queue[n-1].Tick > back {
				n--
			}
			// Decisions up to back stand (a change at back alters the
			// states after it): the ticks from `from` replay them.
			a.queue = a.queue[:n]
			a.decided = max(min(a.decided, back), a.released)
		}
	}
	for a.s.Tick() < to {
		k := a.s.Tick()
		if k%aheadSnapEvery == 0 {
			a.s.Save(&a.ring[k/aheadSnapEvery%int64(len(a.ring))])
		}
		a.evs = r.tl.Log.AppendAt(a.evs[:0], k)
		if k <= a.decided {
			for _, te := range a.queue {
				if te.Tick == k {
					a.evs = append(a.evs, te.Ev)
				}
			}
		} else {
			n := len(a.evs)
			for _, m := range r.members {
				if m != nil && m.bot != nil {
					a.evs = m.bot.Decide(a.s, a.evs)
				}
			}
			for _, ev := range a.evs[n:] {
				a.queue = append(a.queue, history.TickEvent{Tick: k, Ev: ev})
			}
			a.decided = k
		}
		a.s.Step(a.evs)
	}
}

// botsDecide logs and broadcasts the bots' inputs for the present tick, just
// begun: bots sit at the server, with no latency and no leniency, and their
// events reach everyone as early as a human's with no latency would (the
// lag-o-meters' o = 0, L = 0 for bots holds).
func (r *Room) botsDecide() {
	a := &r.ahead
	now := r.auth.Now()
	if r.Bots() == 0 {
		a.s, a.ring, a.queue, a.released = nil, nil, a.queue[:0], now
		return // and the predicted present is not simulated at all
	}
	r.planBots(now + 1)
	n := 0
	r.botEvs = r.botEvs[:0]
	for ; n < len(a.queue) && a.queue[n].Tick <= now; n++ {
		r.botEvs = append(r.botEvs, a.queue[n].Ev)
	}
	a.queue = append(a.queue[:0], a.queue[n:]...)
	a.released = now
	if len(r.botEvs) > 0 {
		r.logServer(r.botEvs) // one broadcast for every bot of the tick
	}
}

// botsDue returns the first tick the room must run for its bots: the tick of
// their next decision, or the end of what they have looked at, after letting
// them look botHorizon ahead. ok is false without bots.
func (r *Room) botsDue() (tick int64, ok bool) {
	if r.Bots() == 0 {
		return 0, false
	}
	r.planBots(r.auth.Now() + 1 + int64((botHorizon+r.dt-1)/r.dt))
	a := &r.ahead
	if len(a.queue) > 0 {
		return a.queue[0].Tick, true
	}
	return a.s.Tick(), true
}
