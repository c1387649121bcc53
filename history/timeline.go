package history

import (
	"errors"
	"strconv"

	"webtron/internal/errwrap"
	"webtron/sim"
)

// Default sizes. A window of 2 s at 120 Hz covers the largest charity cap
// (250 ms), the largest lead and a jittery link with room to spare.
const (
	DefaultWindowMs      = 2000
	DefaultSnapshotEvery = 4  // ticks between saved snapshots: a rollback replays at most 3 extra ticks
	DefaultHashEvery     = 60 // ticks between recorded hashes (hash reports, replays)
)

// Options configures a Timeline. Zero fields take the defaults above.
type Options struct {
	Window        int64 // ticks of rollback the snapshot ring covers
	SnapshotEvery int64 // ticks between snapshots
	HashEvery     int64 // hashes are recorded at ticks that are multiples of this
	// Confirmed keeps a second state that only ever steps through final ticks:
	// the server needs it for joins, resyncs and replays. Clients can do without
	// (their confirmed hashes come from the hash ring).
	Confirmed bool
	// OnRound, with Confirmed, receives each round's complete record once the
	// next round has started on the confirmed state.
	OnRound func(RoundRecord)
	// Lazy, with Confirmed, simulates the predicted present only when State
	// is read: a server room without bots never needs it (the confirmed state
	// answers everything else), which halves its simulation work.
	Lazy bool
}

// Errors returned by the timeline.
var (
	ErrTooDeep = errors.New("history: rollback deeper than the snapshot window")
	ErrFinal   = errors.New("history: tick is already final")
	// ErrNoSnapshot is a load request for a tick of which no snapshot is
	// kept: a plan that was not made by Plan, or made before the ring moved on.
	ErrNoSnapshot = errors.New("history: no snapshot of the tick to load")
)

// RequestKind is one kind of work a rollback session asks for, after GGRS.
type RequestKind uint8

// Request kinds.
const (
	ReqLoad    RequestKind = iota + 1 // restore the snapshot saved at Tick
	ReqSave                           // save a snapshot of the state at Tick (before stepping Tick)
	ReqAdvance                        // step tick Tick with its logged events
)

// Request is one unit of work; a plan is a list of them.
type Request struct {
	Kind RequestKind
	Tick int64
}

// String returns "load 4", "advance 5": the form tests compare plans in.
func (r Request) String() string {
	return [...]string{"?", "load", "save", "advance"}[r.Kind] + " " + strconv.FormatInt(r.Tick, 10)
}

type ringSlot struct {
	snap sim.Snapshot
}

type hashSlot struct {
	tick int64
	hash uint64
}

// Timeline owns the predicted present (a sim.State at Present()), the snapshot
// ring to roll it back, the event log, and optionally the confirmed state.
type Timeline struct {
	opt  Options
	Log  Log
	pred *sim.State
	ring []ringSlot
	base sim.Snapshot // the starting state, which need not fall on a ring tick
	// dirty is the first tick whose events changed since it was simulated;
	// noDirty when none did.
	dirty  int64
	hashes []hashSlot

	conf      *sim.State
	confRound [2]int64 // (match, round) of conf at the last step
	roundTick int64    // tick of the confirmed round's start snapshot
	roundSnap []byte   // encoded confirmed state at roundTick
	roundHash []TickHash
	// roundDecided and roundWinner: the confirmed round reached PhaseOver,
	// and who had won then (the state's winner changes only then).
	roundDecided bool
	roundWinner  int
	confHash     []hashSlot // ring of confirmed hashes, for checking clients' reports

	evBuf   []sim.Event
	reqs    []Request
	now     int64 // the present asked for by Advance (ahead of pred when lazy)
	dropped int64 // the log holds no events before this tick
	// Rollbacks counts rollbacks and RolledBack the ticks replayed by them.
	Rollbacks, RolledBack int64
}

const noDirty = int64(1) << 62

// TickHash is the state hash at a tick (the state before that tick is stepped).
type TickHash struct {
	Tick int64
	Hash uint64
}

// New starts a timeline from state s (taken over: the caller must not use it
// again). The log may already hold events at ticks >= s.Tick().
func New(s *sim.State, opt Options) (*Timeline, error) {
	rate := s.Config().TickRate
	if opt.Window <= 0 {
		opt.Window = DefaultWindowMs * rate / 1000
	}
	if opt.SnapshotEvery <= 0 {
		opt.SnapshotEvery = DefaultSnapshotEvery
	}
	if opt.HashEvery <= 0 {
		opt.HashEvery = DefaultHashEvery
	}
	t := &Timeline{opt: opt, pred: s, dirty: noDirty}
	s.Save(&t.base)
	t.ring = make([]ringSlot, opt.Window/opt.SnapshotEvery+2)
	t.hashes = make([]hashSlot, opt.Window/opt.HashEvery+2)
	t.confHash = make([]hashSlot, 4*len(t.hashes))
	if opt.Confirmed {
		enc := s.AppendBinary(nil)
		c, err := sim.UnmarshalState(enc)
		if err != nil {
			return nil, err
		}
		t.conf = c
		m, r := c.Round()
		t.confRound = [2]int64{m, r}
		t.roundTick, t.roundSnap = c.Tick(), enc
	}
	return t, nil
}

// Present is the next tick the predicted state will step.
func (t *Timeline) Present() int64 { return max(t.now, t.pred.Tick()) }

// State is the predicted present. Read it; do not step it. A lazy timeline
// catches up first.
func (t *Timeline) State() *sim.State {
	if t.opt.Lazy && t.conf != nil {
		t.catchUp()
	}
	return t.pred
}

// catchUp brings a lazy timeline's predicted state to the present. It
// starts again from the confirmed state for one stated reason: the log no
// longer holds the events the predicted state would replay (nobody read it
// while the log moved on, as in a room without bots), and the confirmed
// state is the same history further on. Any other failure is a bug in the
// timeline, and panics with its reason (the server closes that room and
// dumps it) rather than being papered over by a silent restart.
func (t *Timeline) catchUp() {
	if t.pred.Tick() < t.dropped {
		st, err := sim.UnmarshalState(t.conf.AppendBinary(nil))
		if err != nil {
			panic("history: confirmed state does not decode: " + err.Error())
		}
		t.pred = st
		clear(t.ring)
		st.Save(&t.base)
		t.dirty = noDirty
	}
	var err error
	if t.reqs, err = t.Plan(t.now, t.reqs[:0]); err == nil {
		err = t.Apply(t.reqs)
	}
	if err != nil {
		panic("history: the predicted state cannot catch up: " + err.Error())
	}
}

// Confirmed is the confirmed state, or nil without Options.Confirmed.
func (t *Timeline) Confirmed() *sim.State { return t.conf }

// Insert logs an event. An event at a tick already simulated marks the
// timeline for rollback from that tick; the replay happens in the next
// Advance, once, however many events arrived in between.
func (t *Timeline) Insert(te TickEvent) (bool, error) {
	if t.conf != nil && te.Tick < t.conf.Tick() {
		return false, ErrFinal
	}
	if !t.Log.Insert(te) {
		return false, nil
	}
	t.touch(te.Tick)
	return true, nil
}

// Move moves an event to another tick (a client's own event that the server
// postponed), rolling back from the earlier of the two.
func (t *Timeline) Move(te TickEvent, tick int64) bool {
	if !t.Log.Remove(te) {
		return false
	}
	t.touch(te.Tick)
	te.Tick = tick
	t.Log.Insert(te)
	t.touch(tick)
	return true
}

// Remove takes an event out of the log (a client's own event that the server
// refused), rolling back from its tick.
func (t *Timeline) Remove(te TickEvent) bool {
	if !t.Log.Remove(te) {
		return false
	}
	t.touch(te.Tick)
	return true
}

func (t *Timeline) touch(tick int64) {
	if tick < t.pred.Tick() && tick < t.dirty {
		t.dirty = tick
	}
}

// Plan appends to reqs the work that brings the predicted state to target:
// if the log changed in the past, load the newest snapshot at or before the
// first changed tick, then save and advance tick by tick up to target.
func (t *Timeline) Plan(target int64, reqs []Request) ([]Request, error) {
	from := t.pred.Tick()
	if t.dirty < from {
		k := t.opt.SnapshotEvery
		s := t.dirty / k * k
		if sl := &t.ring[t.slot(s)]; !sl.snap.Valid() || sl.snap.Tick() != s {
			if t.base.Tick() > t.dirty || from-t.base.Tick() > t.opt.Window {
				return reqs, errwrap.Wrap(ErrTooDeep, "tick "+strconv.FormatInt(t.dirty, 10)+", present "+strconv.FormatInt(from, 10))
			}
			s = t.base.Tick() // back to where the timeline started
		}
		reqs = append(reqs, Request{ReqLoad, s})
		for tick := s; tick < from; tick++ {
			if tick%k == 0 && tick != s {
				reqs = append(reqs, Request{ReqSave, tick})
			}
			reqs = append(reqs, Request{ReqAdvance, tick})
		}
	}
	for tick := from; tick < target; tick++ {
		if tick%t.opt.SnapshotEvery == 0 {
			reqs = append(reqs, Request{ReqSave, tick})
		}
		reqs = append(reqs, Request{ReqAdvance, tick})
	}
	return reqs, nil
}

// Apply carries out a plan on the predicted state.
func (t *Timeline) Apply(reqs []Request) error {
	for _, r := range reqs {
		switch r.Kind {
		case ReqLoad:
			// The ring slot must hold the tick asked for (GGRS asserts the
			// same); the starting state serves for its own tick only. Loading
			// whatever the slot holds would replay from the wrong tick.
			sn := &t.ring[t.slot(r.Tick)].snap
			if !sn.Valid() || sn.Tick() != r.Tick {
				if !t.base.Valid() || t.base.Tick() != r.Tick {
					return errwrap.Wrap(ErrNoSnapshot, "tick "+strconv.FormatInt(r.Tick, 10))
				}
				sn = &t.base
			}
			replayed := t.pred.Tick() - r.Tick
			if err := t.pred.Restore(sn); err != nil {
				return err
			}
			t.Rollbacks++
			t.RolledBack += replayed
			t.dirty = noDirty
		case ReqSave:
			t.pred.Save(&t.ring[t.slot(r.Tick)].snap)
		case ReqAdvance:
			t.evBuf = t.Log.AppendAt(t.evBuf[:0], r.Tick)
			t.pred.Step(t.evBuf)
			if next := r.Tick + 1; next%t.opt.HashEvery == 0 {
				t.hashes[next/t.opt.HashEvery%int64(len(t.hashes))] = hashSlot{next, t.pred.Hash()}
			}
		}
	}
	return nil
}

// Advance rolls back if needed and steps the predicted state up to target. It
// returns how many ticks a rollback replayed (0 without one).
func (t *Timeline) Advance(target int64) (int64, error) {
	t.now = max(t.now, target)
	if t.opt.Lazy && t.conf != nil {
		return 0, nil // simulated when someone reads State
	}
	depth := int64(0)
	if t.dirty < t.pred.Tick() {
		depth = t.pred.Tick() - t.dirty
	}
	var err error
	t.reqs, err = t.Plan(target, t.reqs[:0])
	if err != nil {
		return 0, err
	}
	return depth, t.Apply(t.reqs)
}

func (t *Timeline) slot(tick int64) int {
	return int(tick / t.opt.SnapshotEvery % int64(len(t.ring)))
}

// PredictedHash returns the hash recorded at tick (a multiple of HashEvery
// within the window) by the predicted state. Once every input before tick is
// final, it is the confirmed hash: any event that could change it causes a
// replay through tick, which records it again. Until that replay has run (an
// event inserted but no Advance since) the recorded hash is stale, and it is
// not offered: a client that reports hashes between receiving and advancing
// would otherwise report a desync that is not one.
func (t *Timeline) PredictedHash(tick int64) (uint64, bool) {
	if tick%t.opt.HashEvery != 0 {
		return 0, false
	}
	h := t.hashes[tick/t.opt.HashEvery%int64(len(t.hashes))]
	return h.hash, h.tick == tick && tick <= t.pred.Tick() && tick <= t.dirty
}

// HashEvery returns the interval of recorded hashes.
func (t *Timeline) HashEvery() int64 { return t.opt.HashEvery }
