package playback

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"
	"time"

	"webtron/clock"
	"webtron/history"
	"webtron/internal/errwrap"
	"webtron/sim"
)

// ErrNoSight is returned for a player whose view cannot be reconstructed: a
// bot (it sees the server's present), or a file without the server's
// measurements (format version 1).
var ErrNoSight = errors.New("playback: no record of what this player saw")

// Sight is the round as one player saw it: at each of her present ticks,
// her predicted state, built from the events that had reached her by then,
// with the corrections (rollbacks) when late news arrived. It runs the
// client's own machinery on what the server recorded: a history.Timeline
// (prediction and rollback) fed with each event at the moment it reached
// her, and her clock as clock.Dilation moved it toward the lead the server
// asked for (docs/replays.md has the model and how close it comes to what a
// real client showed).
//
// The moment she showed tick t is taken as when her clock read t and a half
// ticks; an event reached her one one-way latency (half the windowed
// minimum round trip, plus half the measured jitter) after the server
// broadcast it, and her own events went into her history when she pressed,
// one latency before they reached the server.
type Sight struct {
	p    *Player
	who  int
	from int64 // first tick of her view: when the server first measured her

	net    []history.NetSample // hers, in tick order
	extra  time.Duration       // her clock's lead beyond the server's target (mind reader)
	offs   []time.Duration     // her clock minus server time at each server tick from p.start
	arr    []arrival           // by time of arrival
	sufMin []int64             // sufMin[i]: the earliest tick arr[i:] touch
	window int64

	tl   *history.Timeline
	t    int64 // her present tick shown
	next int   // arr[:next] have arrived
	// LastRollback is the depth in ticks of the rollback the last Step or
	// short Seek caused (late news replayed), 0 when none.
	LastRollback int64

	m model
}

// model holds the reconstruction's choices; the zero value is the one used,
// the others are there for the accuracy measurement to compare
// (sight_test.go).
type model struct {
	noJitter bool // messages take the one-way latency alone, not plus half the jitter
	// pongClock takes her clock from what her pongs showed of it
	// (NetSample.Ahead) instead of running it toward the lead the server
	// asked for plus the extra her own events show: on the lab's and the
	// real network's measurements it came out a little less close.
	pongClock bool
}

// arrival is one piece of news reaching the player: an event going into her
// history at te.Tick, or (to >= 0) her own event moving from te.Tick to the
// tick the server postponed it to.
type arrival struct {
	at time.Duration
	te history.TickEvent
	to int64
}

func (a *arrival) earliest() int64 {
	if a.to >= 0 {
		return min(a.te.Tick, a.to)
	}
	return a.te.Tick
}

// HasSight reports whether Sight can reconstruct what player who saw: the
// file holds the server's measurements of that player.
func (p *Player) HasSight(who int) bool {
	if p.rec.Timing == nil {
		return false
	}
	for _, n := range p.rec.Net {
		if int(n.Player) == who {
			return true
		}
	}
	return false
}

// Sight returns the reconstruction of what player who saw. It needs the
// server's measurements of that player (format version 2, a human).
func (p *Player) Sight(who int) (*Sight, error) {
	return newSight(p, who, model{})
}

func newSight(p *Player, who int, m model) (*Sight, error) {
	if who < 0 || who >= sim.MaxPlayers {
		return nil, errwrap.Wrap(ErrNoSight, "player "+itoa(int64(who)))
	}
	s := &Sight{p: p, who: who, t: -1, m: m}
	for _, n := range p.rec.Net {
		if int(n.Player) == who {
			s.net = append(s.net, n)
		}
	}
	if len(s.net) == 0 || p.rec.Timing == nil {
		return nil, errwrap.Wrap(ErrNoSight, "player "+itoa(int64(who)))
	}
	s.from = max(s.net[0].Tick, p.start)
	if s.m.pongClock {
		s.measuredClock()
	} else {
		s.estimateExtra()
		s.modelClock()
	}
	s.arrivals()
	return s, nil
}

// sample returns her figures in force at server time at.
func (s *Sight) sample(at time.Duration) *history.NetSample {
	tick := int64(at / s.p.dt)
	i := sort.Search(len(s.net), func(i int) bool { return s.net[i].Tick > tick })
	return &s.net[max(i-1, 0)]
}

// delay is how long a message took between the server and her at time at.
func (s *Sight) delay(at time.Duration) time.Duration {
	n := s.sample(at)
	if s.m.noJitter {
		return n.OneWay
	}
	return n.OneWay + n.Jitter/2
}

// own reports whether event i is one she proposed.
func (s *Sight) own(i int) bool {
	ev := s.p.rec.Events[i].Ev
	return int(ev.Player) == s.who && ev.Kind >= sim.EvTurnLeft && ev.Kind <= sim.EvBrakeOff
}

// estimateExtra measures how far her clock ran ahead of the lead the server
// asked for, from her own events: she asked for the tick her clock was at
// when she pressed (the mind reader centres it), one latency before the
// proposal reached the server. The median ignores the odd late one; with
// fewer than three, her pongs' figures serve instead.
func (s *Sight) estimateExtra() {
	var d []time.Duration
	for i, tm := range s.p.rec.Timing {
		if s.own(i) {
			// Dated with the one-way latency alone: with the jitter term
			// too the clock came out 9 ms fast on jittery links.
			up := s.sample(tm.Arrived).OneWay
			d = append(d, time.Duration(tm.Asked)*s.p.dt-(tm.Arrived-up)-s.sample(tm.Arrived).Lead)
		}
	}
	if len(d) < 3 { // too few: what her pongs showed beyond the lead
		for _, n := range s.net {
			d = append(d, n.Ahead-n.Lead)
		}
	}
	slices.Sort(d)
	s.extra = d[len(d)/2]
}

// modelClock runs her clock over the round as client.Session does: it moves
// toward server time plus the lead (and extra) by time dilation, jumping only
// when far off. It starts settled.
func (s *Sight) modelClock() {
	p := s.p
	dt := p.dt
	n := p.end - p.start + 1
	s.offs = make([]time.Duration, n)
	var dil clock.Dilation
	rate := clock.RateOne
	first := time.Duration(p.start) * dt
	clk := first + s.sample(first).Lead + s.extra
	for k := range n {
		now := time.Duration(p.start+k) * dt
		if k > 0 {
			clk += rate.Scale(dt)
		}
		target := now + s.sample(now).Lead + s.extra
		var jump bool
		rate, jump = dil.Correct(clk - target)
		if jump {
			clk = target
		}
		s.offs[k] = clk - now
	}
}

// measuredClock takes her clock from what her pongs showed of it (the
// pongClock variant).
func (s *Sight) measuredClock() {
	p := s.p
	s.offs = make([]time.Duration, p.end-p.start+1)
	for k := range s.offs {
		s.offs[k] = s.sample(time.Duration(p.start+int64(k)) * p.dt).Ahead
	}
}

// offset is her clock minus server time at server time at.
func (s *Sight) offset(at time.Duration) time.Duration {
	k := int64(at/s.p.dt) - s.p.start
	return s.offs[min(max(k, 0), int64(len(s.offs)-1))]
}

// presentAt is her present tick at server time at.
func (s *Sight) presentAt(at time.Duration) int64 {
	return int64((at + s.offset(at)) / s.p.dt)
}

// momentOf is the server time at which her clock read tick t and a half.
func (s *Sight) momentOf(t int64) time.Duration {
	want := time.Duration(t)*s.p.dt + s.p.dt/2
	at := want - s.offset(want)
	return want - s.offset(at) // the offset moves slowly: twice is exact enough
}

// arrivals lists when each event reached her, in that order.
func (s *Sight) arrivals() {
	rec := s.p.rec
	s.arr = make([]arrival, 0, len(rec.Events)+8)
	for i, te := range rec.Events {
		tm := rec.Timing[i]
		if !s.own(i) {
			s.arr = append(s.arr, arrival{at: tm.Broadcast + s.delay(tm.Broadcast), te: te, to: -1})
			continue
		}
		asked := history.TickEvent{Tick: tm.Asked, Ev: te.Ev}
		s.arr = append(s.arr, arrival{at: tm.Arrived - s.delay(tm.Arrived), te: asked, to: -1})
		if tm.Asked != te.Tick { // postponed: she hears of it with the server's answer
			s.arr = append(s.arr, arrival{at: tm.Accepted + s.delay(tm.Accepted), te: asked, to: te.Tick})
		}
	}
	slices.SortStableFunc(s.arr, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
	s.sufMin = make([]int64, len(s.arr)+1)
	s.sufMin[len(s.arr)] = s.p.end + 1
	s.window = history.DefaultWindowMs * s.p.rate / 1000
	for i := len(s.arr) - 1; i >= 0; i-- {
		a := &s.arr[i]
		s.sufMin[i] = min(s.sufMin[i+1], a.earliest())
		s.window = max(s.window, s.presentAt(a.at)-a.earliest()+2*history.DefaultSnapshotEvery)
	}
}

// SeekTick shows her view at tick t: short forward moves step (with the
// rollbacks she saw), anything else rebuilds her history from the last tick
// everything before which had reached her.
func (s *Sight) SeekTick(t int64) error {
	if t < s.from || t > s.p.end {
		s.tl = nil // before she was measured: the overhead view stands in
		s.t = t
		return nil
	}
	if s.tl != nil && t >= s.t && t-s.t <= s.p.rate {
		s.LastRollback = 0
		for s.t < t {
			if err := s.step(); err != nil {
				return err
			}
		}
		return nil
	}
	return s.rebuild(t)
}

// Step shows her next tick.
func (s *Sight) Step() error {
	s.LastRollback = 0
	if s.tl == nil {
		return s.SeekTick(s.t + 1)
	}
	return s.step()
}

func (s *Sight) rebuild(t int64) error {
	at := s.momentOf(t)
	i := sort.Search(len(s.arr), func(i int) bool { return s.arr[i].at > at })
	base := max(min(t, s.sufMin[i]), s.p.start)
	st, err := s.p.StateAt(base)
	if err != nil {
		return err
	}
	tl, err := history.New(st, history.Options{Window: s.window})
	if err != nil {
		return err
	}
	// Where each event she knew of stood in her history at that moment;
	// whatever stood before base is already in the state.
	placed := make([]history.TickEvent, 0, i)
	where := map[history.TickEvent]int{}
	for _, a := range s.arr[:i] {
		if a.to < 0 {
			where[a.te] = len(placed)
			placed = append(placed, a.te)
		} else if k, ok := where[a.te]; ok {
			placed[k].Tick = a.to
		}
	}
	for _, te := range placed {
		if te.Tick >= base {
			tl.Insert(te)
		}
	}
	if _, err := tl.Advance(t); err != nil {
		return err
	}
	s.tl, s.t, s.next, s.LastRollback = tl, t, i, 0
	return nil
}

// step moves her view one tick on: the news that reached her meanwhile goes
// into her history, and the timeline rolls back if it lands in her past.
func (s *Sight) step() error {
	t := s.t + 1
	at := s.momentOf(t)
	for ; s.next < len(s.arr) && s.arr[s.next].at <= at; s.next++ {
		a := &s.arr[s.next]
		if a.to < 0 {
			s.tl.Insert(a.te)
		} else {
			s.tl.Move(a.te, a.to)
		}
	}
	depth, err := s.tl.Advance(t)
	if err != nil { // deeper than the window: start again from the record
		return s.rebuild(t)
	}
	s.t = t
	s.LastRollback = max(s.LastRollback, depth)
	return nil
}

// From returns the first tick her view exists (before it, State is nil).
func (s *Sight) From() int64 { return s.from }

// State returns her predicted state at her present tick, or nil before
// From. Read it; do not step it.
func (s *Sight) State() *sim.State {
	if s.tl == nil {
		return nil
	}
	return s.tl.State()
}

// Drift returns, for each cycle in the round at the shown tick, how far from
// its true position (in truth, a state at the same tick) she saw it, in
// micrometres; -1 where either has no such cycle.
func (s *Sight) Drift(truth *sim.State, out []int64) []int64 {
	mine := s.State()
	for i := range sim.MaxPlayers {
		d := int64(-1)
		if mine != nil && truth != nil && mine.Tick() == truth.Tick() {
			a, b := mine.Cycle(i), truth.Cycle(i)
			if a.InRound && b.InRound {
				d = int64(math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)))
			}
		}
		out = append(out, d)
	}
	return out
}
