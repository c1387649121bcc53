// Package playback plays a replay file back for people: the browser runs it
// (compiled to WebAssembly) to show a round again with seeking, tick-by-tick
// stepping, the kill feed and scores, and the round as any one player saw it
// (Sight). It depends on the file format and the simulation only, never on
// the server (issue 16; docs/replays.md describes the design and the API the
// page drives).
//
// Loading is incremental so that the first frame shows at once: Open parses
// and checks the file, and Load simulates the round from its start snapshot
// a budget of ticks at a time, checking every recorded hash, saving a cheap
// snapshot every second and an encoded keyframe every few seconds. Seeking
// then costs at most one restore or one decode plus a few seconds of ticks.
package playback

import (
	"errors"
	"sort"
	"strconv"
	"time"

	"webtron/history"
	"webtron/internal/errwrap"
	"webtron/replay"
	"webtron/sim"
)

// Options tunes the player; zero fields take the defaults noted.
type Options struct {
	// SnapEvery is the interval of snapshots, in ticks (one second): a
	// backward seek restores one and steps at most this many ticks.
	SnapEvery int64
	// KeyEvery is the interval of keyframes, in ticks (five seconds): a
	// forward seek past the walls the shown state still has decodes one and
	// steps at most this many ticks.
	KeyEvery int64
}

// Errors; each is wrapped with detail.
var (
	// ErrDamaged marks a file whose re-simulation does not reproduce a
	// recorded hash (or its stated result): the page must not play it on.
	ErrDamaged = errors.New("playback: replay damaged")
	// ErrRange is returned for a tick outside the round.
	ErrRange = errors.New("playback: tick outside the replay")
)

// Kill is one entry of the kill feed: Victim's cycle stopped at Tick.
type Kill struct {
	Tick   int64
	Victim int
	// Killer is who is credited (the simulation's Cycle.Killer), -1 none.
	Killer int
	Cause  sim.DeathCause // rim, wall, own wall, collision, or left the room
}

// Player plays one replay. It is not safe for concurrent use.
type Player struct {
	file       *replay.File
	rec        *history.RoundRecord
	rate       int64
	dt         time.Duration
	start, end int64
	// last is the last tick shown: the round's final state. A round's record
	// ends (EndTick) after the tick that started the next round, whose
	// empty arena is no way to end a replay (issue 22); only the load pass
	// steps there, to check the record's last hash.
	last int64
	opt  Options

	evTicks []int64     // tick of each event, sorted
	evs     []sim.Event // parallel to evTicks

	// The load pass: scan steps from the start through the round, never
	// restored, so it keeps every wall.
	scan    *sim.State
	snaps   []sim.Snapshot // snaps[i] at start + i*SnapEvery
	keys    [][]byte       // keys[i] encoded at start + i*KeyEvery
	kills   []Kill
	decided int64 // tick the round was decided at, -1 not (yet)
	winner  int
	damaged error

	// The state shown (overhead): cur, restored and stepped on demand.
	cur *sim.State
	buf []sim.Event

	sight  *Sight // the view shown, nil for the overhead view
	sights [sim.MaxPlayers]*Sight
}

// Open parses and checks a replay file's bytes and readies the player at the
// round's first tick. Nothing is simulated yet: call Load.
func Open(b []byte, opt Options) (*Player, error) {
	f, err := replay.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return New(f, opt)
}

// New readies a player for a decoded file.
func New(f *replay.File, opt Options) (*Player, error) {
	rec := &f.Record
	st, err := sim.UnmarshalState(rec.Start)
	if err != nil {
		return nil, f.Explain(errwrap.Wrap(replay.ErrCorrupt, "start snapshot: "+err.Error()))
	}
	if st.Tick() != rec.StartTick || rec.EndTick-rec.StartTick > replay.MaxTicks {
		return nil, errwrap.Wrap(replay.ErrCorrupt, "start snapshot at tick "+itoa(st.Tick())+" for a round of ticks "+itoa(rec.StartTick)+".."+itoa(rec.EndTick))
	}
	p := &Player{file: f, rec: rec, rate: st.Config().TickRate, start: rec.StartTick, end: rec.EndTick, opt: opt,
		last: max(rec.EndTick-1, rec.StartTick), scan: st, decided: -1, winner: -1}
	p.dt = time.Second / time.Duration(p.rate)
	if p.opt.SnapEvery <= 0 {
		p.opt.SnapEvery = p.rate
	}
	if p.opt.KeyEvery <= 0 {
		p.opt.KeyEvery = 5 * p.rate
	}
	p.evTicks = make([]int64, len(rec.Events))
	p.evs = make([]sim.Event, len(rec.Events))
	for i, te := range rec.Events {
		p.evTicks[i], p.evs[i] = te.Tick, te.Ev
	}
	p.cur, err = sim.UnmarshalState(rec.Start)
	if err != nil {
		return nil, err
	}
	p.save()
	return p, nil
}

// File returns the replay being played.
func (p *Player) File() *replay.File { return p.file }

// TickRate returns the simulation's ticks per second.
func (p *Player) TickRate() int64 { return p.rate }

// Range returns the first and last tick that can be shown.
func (p *Player) Range() (start, end int64) { return p.start, p.last }

// Tick returns the tick shown.
func (p *Player) Tick() int64 { return p.cur.Tick() }

// Loaded returns the tick the load pass has reached: seeking beyond it loads
// up to there first.
func (p *Player) Loaded() int64 { return p.scan.Tick() }

// Damaged returns nil, or the first recorded hash the re-simulation did not
// reproduce (wrapping ErrDamaged).
func (p *Player) Damaged() error { return p.file.Explain(p.damaged) }

// Kills returns the kill feed of the part loaded so far, in tick order. The
// slice is shared: do not modify it.
func (p *Player) Kills() []Kill { return p.kills }

// Decided returns the tick the round was decided at and its winner (-1 for a
// draw), once the load pass has reached it.
func (p *Player) Decided() (tick int64, winner int, ok bool) {
	return p.decided, p.winner, p.decided >= 0
}

// State returns the round as it stood at Tick() (the overhead view). Read
// it; do not step it.
func (p *Player) State() *sim.State { return p.cur }

// events returns the events of one tick.
func (p *Player) events(tick int64) []sim.Event {
	i := sort.Search(len(p.evTicks), func(i int) bool { return p.evTicks[i] >= tick })
	j := i
	for j < len(p.evTicks) && p.evTicks[j] == tick {
		j++
	}
	return p.evs[i:j]
}

// hash returns the hash recorded at tick, if any.
func (p *Player) hash(tick int64) (uint64, bool) {
	h := p.rec.Hashes
	i := sort.Search(len(h), func(i int) bool { return h[i].Tick >= tick })
	if i < len(h) && h[i].Tick == tick {
		return h[i].Hash, true
	}
	return 0, false
}

// step advances s by one tick of the recorded history and checks the hash
// recorded after it: a mismatch marks the file damaged.
func (p *Player) step(s *sim.State) {
	s.Step(p.events(s.Tick()))
	if want, ok := p.hash(s.Tick()); ok && p.damaged == nil {
		if got := s.Hash(); got != want {
			p.damaged = errwrap.Wrap(ErrDamaged, "at tick "+itoa(s.Tick())+" the re-simulation gives "+hex16(got)+", the file recorded "+hex16(want))
		}
	}
}

// save records the snapshot and keyframe due at the scan's tick.
func (p *Player) save() {
	off := p.scan.Tick() - p.start
	if off%p.opt.SnapEvery == 0 {
		var sn sim.Snapshot
		p.scan.Save(&sn)
		p.snaps = append(p.snaps, sn)
	}
	if off%p.opt.KeyEvery == 0 {
		p.keys = append(p.keys, p.scan.AppendBinary(nil))
	}
}

// Load runs the load pass for at most budget ticks and reports whether the
// whole round is loaded. The page calls it between frames until it is.
func (p *Player) Load(budget int64) bool {
	for ; budget > 0 && p.scan.Tick() < p.end; budget-- {
		p.scanTick()
	}
	done := p.scan.Tick() == p.end
	if decided := p.decided >= 0; done && p.damaged == nil && p.file.Version >= 2 && decided != p.rec.Decided {
		p.damaged = errwrap.Wrap(ErrDamaged, "the file says the round was decided: "+strconv.FormatBool(p.rec.Decided)+", the re-simulation: "+strconv.FormatBool(decided))
	}
	return done
}

// LoadAll runs the whole load pass.
func (p *Player) LoadAll() { p.Load(p.end - p.scan.Tick()) }

func (p *Player) scanTick() {
	s := p.scan
	var alive [sim.MaxPlayers]bool
	for i := range alive {
		alive[i] = s.Cycle(i).Alive
	}
	before, _ := s.Phase()
	p.step(s)
	tick := s.Tick() - 1 // the tick just stepped
	for i := range alive {
		if c := s.Cycle(i); alive[i] && !c.Alive {
			k := Kill{Tick: tick, Victim: i, Killer: int(c.Killer), Cause: c.Cause}
			p.kills = append(p.kills, k)
		}
	}
	if ph, _ := s.Phase(); ph == sim.PhaseOver && before != sim.PhaseOver && p.decided < 0 {
		p.decided, p.winner = tick, s.Winner()
		if p.file.Version >= 2 && p.damaged == nil && p.rec.Decided && p.rec.Winner != p.winner {
			p.damaged = errwrap.Wrap(ErrDamaged, "the file says player "+itoa(int64(p.rec.Winner))+" won, the re-simulation "+itoa(int64(p.winner)))
		}
	}
	p.save()
}

// SeekTick shows tick (between the ends of Range): it loads up to there if
// needed, then restores the nearest snapshot or keyframe and steps.
func (p *Player) SeekTick(tick int64) error {
	if tick < p.start || tick > p.last {
		return errwrap.Wrap(ErrRange, itoa(tick)+" not in "+itoa(p.start)+".."+itoa(p.last))
	}
	if tick > p.scan.Tick() {
		p.Load(tick - p.scan.Tick())
	}
	var err error
	if p.cur, err = p.moveTo(p.cur, tick); err != nil {
		return err
	}
	if p.sight != nil {
		return p.sight.SeekTick(tick)
	}
	return nil
}

// Step moves n ticks (backward when negative), within the round.
func (p *Player) Step(n int64) error {
	t := min(max(p.Tick()+n, p.start), p.last)
	if n == 1 && t == p.Tick()+1 && p.sight != nil { // her view steps with its rollbacks
		if t > p.scan.Tick() {
			p.Load(t - p.scan.Tick())
		}
		var err error
		if p.cur, err = p.moveTo(p.cur, t); err != nil {
			return err
		}
		return p.sight.Step()
	}
	return p.SeekTick(t)
}

// moveTo brings s to tick (loaded already) along the recorded history:
// forward by stepping when that is short, backward by restoring a snapshot,
// far forward from a keyframe (a restored state no longer has the walls a
// later snapshot needs). It returns s, or the state that replaced it.
func (p *Player) moveTo(s *sim.State, tick int64) (*sim.State, error) {
	from := s.Tick()
	switch {
	case tick >= from && tick-from <= p.opt.SnapEvery:
	case tick < from:
		if err := s.Restore(&p.snaps[(tick-p.start)/p.opt.SnapEvery]); err != nil {
			return p.StateAt(tick)
		}
	case p.start+(tick-p.start)/p.opt.KeyEvery*p.opt.KeyEvery > from:
		return p.StateAt(tick)
	}
	for s.Tick() < tick {
		p.step(s)
	}
	return s, nil
}

// keyState decodes the keyframe at or before tick into a new state.
func (p *Player) keyState(tick int64) (*sim.State, error) {
	k := (tick - p.start) / p.opt.KeyEvery
	st, err := sim.UnmarshalState(p.keys[k])
	if err != nil {
		return nil, errwrap.New("playback: keyframe "+itoa(k)+": "+err.Error(), err)
	}
	return st, nil
}

// StateAt returns a new state of the round at tick (loaded already), for
// callers that step it their own way (Sight).
func (p *Player) StateAt(tick int64) (*sim.State, error) {
	if tick < p.start || tick > p.scan.Tick() {
		return nil, errwrap.Wrap(ErrRange, itoa(tick)+" not in "+itoa(p.start)+".."+itoa(p.scan.Tick())+" (loaded)")
	}
	st, err := p.keyState(tick)
	if err != nil {
		return nil, err
	}
	for st.Tick() < tick {
		p.step(st)
	}
	return st, nil
}

// SetView shows the round as player who saw it (Sight), or from above
// (the recorded truth) for -1.
func (p *Player) SetView(who int) error {
	if who < 0 {
		p.sight = nil
		return nil
	}
	if who >= sim.MaxPlayers {
		return errwrap.Wrap(ErrNoSight, "player "+itoa(int64(who)))
	}
	s := p.sights[who]
	if s == nil {
		var err error
		if s, err = p.Sight(who); err != nil {
			return err
		}
		p.sights[who] = s
	}
	if err := s.SeekTick(p.Tick()); err != nil {
		return err
	}
	p.sight = s
	return nil
}

// View returns the player whose view is shown, -1 for the overhead view.
func (p *Player) View() int {
	if p.sight == nil {
		return -1
	}
	return p.sight.who
}

// ViewSight returns the Sight shown, nil for the overhead view.
func (p *Player) ViewSight() *Sight { return p.sight }

// ViewState returns the state to draw: the shown player's predicted state,
// or the recorded truth (overhead, or before that player's view begins).
func (p *Player) ViewState() *sim.State {
	if p.sight != nil {
		if st := p.sight.State(); st != nil {
			return st
		}
	}
	return p.cur
}
