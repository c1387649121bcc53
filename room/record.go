package room

import (
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// recorder keeps, for the round being recorded, what the server knows beyond
// the history: who held each seat, each human's network figures, and when
// each event was received, accepted and broadcast. A replay viewer needs it
// to show the round as each player saw it (issue 16). It holds only the
// record in progress and what is already logged for the next one: each cut
// hands the round's part to the record and forgets it.
type recorder struct {
	names  [sim.MaxPlayers]string // first holder of each seat during the record
	bots   [sim.MaxPlayers]bool
	timing map[history.TickEvent]history.EventTiming
	net    []history.NetSample // tick order
	last   [sim.MaxPlayers]history.NetSample
	has    [sim.MaxPlayers]bool // last holds a sample
}

// Thresholds below which a changed figure is not worth a sample: a replay
// places events to a fraction of a tick (8.3 ms at 120 Hz), the leniency
// moves by nanoseconds with the measured latency, the windowed minimum by
// small steps on a jittery link, and the clock lead from pongs by a couple
// of milliseconds of rounding (each pong states whole ticks).
const (
	netStep       = 500 * time.Microsecond // lead, leniency, one-way latency
	netJitterStep = time.Millisecond
	netAheadStep  = 2 * time.Millisecond
)

// noteClock takes a pong's news of the client's clock: it says the client's
// present tick when it answered, which happened somewhere between the ping's
// sending (plus the time the client held it) and the pong's arrival. The
// middle of that window is right to within half the difference of the two
// directions' delays, as the client's own offset estimate is.
func (r *Room) noteClock(m *member, sent time.Duration, pong *proto.Pong, arrived time.Duration) {
	held := min(time.Duration(pong.Held)*time.Microsecond, arrived-sent)
	from := sent + held
	mid := from + (arrived-from)/2 - r.epoch
	// Its present tick k means its clock was in [k, k+1) ticks: the middle.
	clk := time.Duration(min(pong.Tick, 1<<40))*r.dt + r.dt/2
	m.ahead.add(clk-mid, arrived-from)
}

// aheadFilter estimates how far a client's clock runs ahead of the server's
// from its recent pongs: the mean over those whose window (the round trip
// less the time the client held the ping) was within a couple of
// milliseconds of the narrowest, which jitter and queues have delayed
// least. Each is off by up to half a tick (the client states whole ticks),
// so several are averaged.
type aheadFilter struct {
	v [8]struct{ ahead, width time.Duration }
	n int
}

// aheadSlack is how much wider than the narrowest a window may be and still
// count.
const aheadSlack = 2 * time.Millisecond

func (f *aheadFilter) add(ahead, width time.Duration) {
	f.v[f.n%len(f.v)].ahead, f.v[f.n%len(f.v)].width = ahead, width
	f.n++
}

// estimate returns the clock's lead over the server's, and false before the
// first pong.
func (f *aheadFilter) estimate() (time.Duration, bool) {
	k := min(f.n, len(f.v))
	if k == 0 {
		return 0, false
	}
	narrowest := f.v[0].width
	for _, s := range f.v[:k] {
		narrowest = min(narrowest, s.width)
	}
	var sum time.Duration
	n := 0
	for _, s := range f.v[:k] {
		if s.width <= narrowest+aheadSlack {
			sum += s.ahead
			n++
		}
	}
	return sum / time.Duration(n), true
}

// seat notes that player p's seat is held by name (a human or a bot).
func (rc *recorder) seat(p int, name string, bot bool) {
	if rc.names[p] == "" {
		rc.names[p], rc.bots[p] = name, bot
	}
}

// sinceEpoch is the room's clock as a replay stores it: time since tick 0.
func (r *Room) sinceEpoch() time.Duration { return r.now - r.epoch }

// noteEvent records when an event the room just logged at te.Tick reached
// the server and was decided on; asked is the tick its proposer asked for.
func (r *Room) noteEvent(te history.TickEvent, asked int64, arrived time.Duration) {
	if r.rec.timing == nil {
		r.rec.timing = map[history.TickEvent]history.EventTiming{}
	}
	at := r.sinceEpoch()
	r.rec.timing[te] = history.EventTiming{Asked: asked, Arrived: min(arrived-r.epoch, at), Accepted: at, Broadcast: at}
}

// noteBroadcast records when a batch of accepted events left for the clients.
func (r *Room) noteBroadcast(acc *proto.Accepted) {
	at := r.sinceEpoch()
	for _, e := range acc.Events {
		te := history.TickEvent{Tick: int64(e.Tick), Ev: e.Event}
		if t, ok := r.rec.timing[te]; ok {
			t.Broadcast = at
			r.rec.timing[te] = t
		}
	}
}

// noteNet records a human player's figures when one of them changed enough
// to matter.
func (r *Room) noteNet(p int, m *member, oneWay, jitter time.Duration) {
	rc := &r.rec
	l := &rc.last[p]
	ahead, _ := m.ahead.estimate()
	if rc.has[p] && (l.Lead-m.lead).Abs() < netStep && (l.Leniency-m.lenient).Abs() < netStep &&
		(l.OneWay-oneWay).Abs() < netStep && (l.Jitter-jitter).Abs() < netJitterStep && (l.Ahead-ahead).Abs() < netAheadStep {
		return
	}
	s := history.NetSample{Tick: r.auth.Now(), Player: uint8(p), Lead: m.lead, Leniency: m.lenient, OneWay: oneWay, Jitter: jitter, Ahead: ahead}
	rc.last[p], rc.has[p] = s, true
	rc.net = append(rc.net, s)
}

// forgetNet drops a player's figures: the seat's next holder starts afresh.
func (r *Room) forgetNet(p int) { r.rec.has[p] = false }

// cut completes rec with what the recorder knows of ticks before its end, and
// keeps only what belongs to later ticks. It returns each seat's name.
func (r *Room) cut(rec *history.RoundRecord) []string {
	rc := &r.rec
	names := make([]string, sim.MaxPlayers)
	rec.Bots = make([]bool, sim.MaxPlayers)
	for p, m := range r.members {
		names[p], rec.Bots[p] = rc.names[p], rc.bots[p]
		if names[p] == "" && m != nil {
			names[p], rec.Bots[p] = m.name, m.bot != nil
		}
	}
	rec.Timing = make([]history.EventTiming, len(rec.Events))
	for i, te := range rec.Events {
		t, ok := rc.timing[te]
		if !ok { // logged before the recorder knew of it: its nominal time
			at := time.Duration(te.Tick) * r.dt
			t = history.EventTiming{Asked: te.Tick, Arrived: at, Accepted: at, Broadcast: at}
		}
		rec.Timing[i] = t
	}
	for te := range rc.timing {
		if te.Tick < rec.EndTick {
			delete(rc.timing, te)
		}
	}
	rec.Net, rc.net = r.splitNet(rec.StartTick, rec.EndTick)

	conf := r.tl.Confirmed() // at rec.EndTick: who is still seated there
	for p, m := range r.members {
		switch {
		case m != nil:
			rc.names[p], rc.bots[p] = m.name, m.bot != nil
		case !conf.Cycle(p).Present:
			rc.names[p], rc.bots[p] = "", false
		}
	}
	return names
}

// splitNet returns the samples of [start, end), each player's figures at
// start first, and what the next record keeps: the samples from end on,
// after everyone's figures at end.
func (r *Room) splitNet(start, end int64) (round, next []history.NetSample) {
	var at [sim.MaxPlayers]history.NetSample
	var has [sim.MaxPlayers]bool
	carry := func(out []history.NetSample, tick int64) []history.NetSample {
		for p := range at {
			if has[p] {
				s := at[p]
				s.Tick = tick
				out = append(out, s)
			}
		}
		return out
	}
	i := 0
	for ; i < len(r.rec.net) && r.rec.net[i].Tick <= start; i++ {
		s := r.rec.net[i]
		at[s.Player], has[s.Player] = s, true
	}
	round = carry(nil, start)
	for ; i < len(r.rec.net) && r.rec.net[i].Tick < end; i++ {
		s := r.rec.net[i]
		round = append(round, s)
		at[s.Player], has[s.Player] = s, true
	}
	for p := range has {
		has[p] = has[p] && r.rec.has[p] // gone players are not carried on
	}
	next = carry(make([]history.NetSample, 0, len(r.rec.net)-i+len(at)), end)
	next = append(next, r.rec.net[i:]...)
	return round, next
}
