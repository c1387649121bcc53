package room

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// memJournal keeps a room's entries, encoded and decoded as the cluster
// would, and acknowledges them when told (ack) or at once (auto).
type memJournal struct {
	t       *testing.T
	entries []*Entry
	acked   uint64
	auto    bool
	full    bool // refuse entries, as a full queue does
}

func (j *memJournal) Append(e *Entry) (uint64, bool) {
	if j.full {
		return 0, false
	}
	d, err := DecodeEntry(e.AppendRecord(nil))
	if err != nil {
		j.t.Fatal(err)
	}
	j.entries = append(j.entries, d)
	if j.auto {
		j.acked = uint64(len(j.entries))
	}
	return uint64(len(j.entries)), true
}

func (j *memJournal) Durable() uint64 { return j.acked }

// fromLastBase returns the entries from the last base entry on.
func (j *memJournal) fromLastBase() []*Entry {
	for i := len(j.entries) - 1; i >= 0; i-- {
		if j.entries[i].Kind == EntryBase {
			return j.entries[i:]
		}
	}
	return nil
}

// journalEvents lists the events of the entries from the last base on, as
// Restore would put them in the log.
func journaled(es []*Entry) map[history.TickEvent]bool {
	m := map[history.TickEvent]bool{}
	for _, e := range es {
		for _, te := range e.Events {
			if te.Tick >= es[0].Tick {
				m[te] = true
			}
		}
	}
	return m
}

// TestJournalHoldsFinality: a room with a journal declares no tick final
// that the journal has not made durable: the heartbeats' finals stay
// before the first event not yet acknowledged (and the present of the
// newest entry that is), and move on once it is. Without the hold, a node
// killed right after a heartbeat would take with it events its clients hold
// final.
func TestJournalHoldsFinality(t *testing.T) {
	j := &memJournal{t: t}
	r, tr := newTestRoom(t, Config{Bots: 3, Journal: j})
	hello(t, r, 1, &proto.Hello{Name: "ann"}, 0)
	if !j.entries[0].RoundStart || j.entries[0].Meta == nil {
		t.Fatalf("first entry %+v, want the room's base", j.entries[0])
	}
	p := int(welcomeOf(t, tr, 1).Player)
	// What the heartbeats say is final (and the confirmed state's tick).
	finals := func() int64 { return r.auth.Final(p) }
	now := time.Duration(0)
	for now < 500*time.Millisecond {
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	if f := finals(); f >= 0 || r.tl.Confirmed().Tick() > 0 {
		t.Fatalf("final tick %d declared (confirmed state at %d) with nothing durable", f, r.tl.Confirmed().Tick())
	}
	// Everything so far acknowledged: finality catches up (the bots' joins
	// and the marks of the present are durable).
	j.acked = uint64(len(j.entries))
	firstUnacked := uint64(len(j.entries) + 1)
	for now < 2*time.Second {
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	f := finals()
	if f < 0 {
		t.Fatal("no tick final once the journal acknowledged")
	}
	var earliest int64 = 1 << 62
	for _, e := range j.entries[firstUnacked-1:] {
		for _, te := range e.Events {
			earliest = min(earliest, te.Tick)
		}
	}
	if f >= earliest {
		t.Fatalf("final tick %d at or past %d, an event not yet durable", f, earliest)
	}
	if got := r.tl.Confirmed().Tick(); got > earliest {
		t.Fatalf("the confirmed state stepped tick %d past %d, an event not yet durable", got, earliest)
	}
	// A journal that stalls past maxHold no longer holds the round.
	for now < 2*time.Second+maxHold+500*time.Millisecond {
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	if r.Stats.JournalDegraded == 0 || finals() <= f {
		t.Fatalf("finality held %v by a stalled journal (final %d, degraded %d)", maxHold, finals(), r.Stats.JournalDegraded)
	}
}

// TestJournalRecordsEveryEvent: every event the room logs is in its
// journal, in the order broadcast, with its tick; a full journal queue
// leaves a gap, after which the room writes a base entry that holds what
// the gap lost.
func TestJournalRecordsEveryEvent(t *testing.T) {
	j := &memJournal{t: t, auto: true}
	r, _ := newTestRoom(t, Config{Bots: 4, Journal: j})
	hello(t, r, 1, &proto.Hello{Name: "ann"}, 0)
	now := runUntil(t, r, 0, time.Minute, func() bool { ph, _ := r.tl.Confirmed().Phase(); return ph == sim.PhasePlay })
	now = runUntil(t, r, now, time.Minute, func() bool { return r.tl.Confirmed().Tick() > 120*8 })
	check := func(what string) {
		t.Helper()
		es := j.fromLastBase()
		got := journaled(es)
		for _, te := range r.tl.Log.From(es[0].Tick) {
			if te.Tick < r.auth.Now() && !got[te] {
				t.Fatalf("%s: event %+v logged at tick %d is not in the journal", what, te.Ev, te.Tick)
			}
		}
	}
	check("in play")
	j.full = true
	for range 60 {
		now = r.NextTick()
		r.Tick(now)
	}
	j.full = false
	n := len(j.entries)
	r.Tick(r.NextTick())
	if j.entries[n].Kind != EntryBase {
		t.Fatalf("after a gap the journal goes on with a %v entry, want a base", j.entries[n].Kind)
	}
	runUntil(t, r, now, time.Minute, func() bool { return r.tl.Confirmed().Tick() > 120*12 })
	check("after a gap")
}

// TestRestoreCarriesTheRoundOn: a room rebuilt from its journal on another
// node is the same round: the same history up to the journal's present,
// the same cycles, walls and scores; the human's seat waits for her token
// (driven by a pilot meanwhile), and bots keep theirs.
func TestRestoreCarriesTheRoundOn(t *testing.T) {
	j := &memJournal{t: t, auto: true}
	cfg := Config{Bots: 3, Seed: 7, Journal: j}
	a, tr := newTestRoom(t, cfg)
	hello(t, a, 1, &proto.Hello{Name: "ann"}, 0)
	w := welcomeOf(t, tr, 1)
	now := runUntil(t, a, 0, time.Minute, func() bool {
		s := a.tl.Confirmed()
		ph, _ := s.Phase()
		return ph == sim.PhasePlay && s.Tick() > 120*15
	})
	es := j.fromLastBase()
	last := es[len(es)-1].Now
	if es[0].Meta == nil || es[0].Meta.Seed != 7 {
		t.Fatalf("base entry meta %+v", es[0].Meta)
	}
	// The node dies: another rebuilds the room a second later.
	later := now + time.Second
	j2 := &memJournal{t: t, auto: true}
	cfg2 := cfg
	cfg2.Journal = j2
	tr2 := &testTransport{t: t}
	b, err := Restore("test", cfg2, 0, later, tr2, es)
	if err != nil {
		t.Fatal(err)
	}
	// The same history through the journal's present.
	for _, te := range a.tl.Log.From(es[0].Tick) {
		if te.Tick >= last {
			break
		}
		found := false
		for _, u := range b.tl.Log.From(te.Tick) {
			if u.Tick != te.Tick {
				break
			}
			found = found || u == te
		}
		if !found && te.Tick >= b.tl.Confirmed().Tick() {
			t.Fatalf("event %+v at %d missing from the rebuilt room", te.Ev, te.Tick)
		}
	}
	compared := 0
	for tick := (es[0].Tick/60 + 1) * 60; tick < last-60; tick += 60 {
		ha, oka := a.tl.ConfirmedHash(tick)
		hb, okb := b.tl.ConfirmedHash(tick)
		if oka && okb {
			compared++
			if ha != hb {
				t.Fatalf("tick %d: hash %x here, %x in the rebuilt room", tick, ha, hb)
			}
		}
	}
	if compared == 0 {
		t.Fatal("no confirmed hash to compare")
	}
	if b.Now() != int64(later/b.dt) {
		t.Fatalf("rebuilt room at tick %d, want the present %d", b.Now(), int64(later/b.dt))
	}
	if j2.entries[0].Kind != EntryBase {
		t.Fatalf("the rebuilt room's journal starts with %v, want a base", j2.entries[0].Kind)
	}
	p := int(w.Player)
	if m := b.members[p]; m == nil || m.name != "ann" || m.pilot == nil || m.conn != 0 {
		t.Fatalf("ann's seat in the rebuilt room: %+v", b.members[p])
	}
	if !b.tl.State().Cycle(p).Present {
		t.Fatal("ann's cycle is gone from the rebuilt room")
	}
	for q, m := range a.members {
		if m != nil && m.bot != nil && (b.members[q] == nil || b.members[q].bot == nil) {
			t.Fatalf("bot seat %d not kept", q)
		}
	}
	// Ann comes back with her token: her seat, her cycle.
	hello(t, b, 9, &proto.Hello{Name: "ann", Token: w.Token}, later+10*time.Millisecond)
	w2 := welcomeOf(t, tr2, 9)
	if int(w2.Player) != p || !bytes.Equal(w2.Token, w.Token) {
		t.Fatalf("ann back in seat %d with token %x, want seat %d and her token", w2.Player, w2.Token, p)
	}
	// A stranger's token does not take a seat.
	if e := b.Receive(10, &proto.Hello{Name: "eve", Token: bytes.Repeat([]byte{1}, 16)}, later+20*time.Millisecond); e == nil || e.Code != proto.CloseBadToken {
		t.Fatalf("a wrong token: %v", e)
	}
}

// TestCheckpointForHandover: Checkpoint writes a base entry at once, from
// which Restore rebuilds the room: the node a room is handed to reads and
// replays from there, not from the round's start.
func TestCheckpointForHandover(t *testing.T) {
	j := &memJournal{t: t, auto: true}
	r, tr := newTestRoom(t, Config{Bots: 3, Journal: j})
	hello(t, r, 1, &proto.Hello{Name: "ann"}, 0)
	w := welcomeOf(t, tr, 1)
	now := runUntil(t, r, 0, time.Minute, func() bool { return r.tl.Confirmed().Tick() > 120*5 })
	n := len(j.entries)
	r.Checkpoint()
	if len(j.entries) != n+1 || j.entries[n].Kind != EntryBase || j.entries[n].RoundStart {
		t.Fatalf("after Checkpoint: %d entries (was %d), last %+v", len(j.entries), n, j.entries[len(j.entries)-1])
	}
	es := j.fromLastBase()
	if len(es) != 1 || es[0].Tick < r.tl.Confirmed().Tick()-120 {
		t.Fatalf("the rebuild starts at tick %d with %d entries; confirmed %d", es[0].Tick, len(es), r.tl.Confirmed().Tick())
	}
	b, err := Restore("test", Config{Bots: 3}, 0, now, &testTransport{t: t}, es)
	if err != nil {
		t.Fatal(err)
	}
	if m := b.members[int(w.Player)]; m == nil || m.name != "ann" {
		t.Fatalf("ann's seat after the checkpoint's rebuild: %+v", m)
	}
}

// TestRestoreRefusesOtherRules: a journal written under other rules
// (sim.RulesVersion, or none recorded) does not rebuild the room: its
// round replayed under these would not be the round its players saw.
func TestRestoreRefusesOtherRules(t *testing.T) {
	j := &memJournal{t: t, auto: true}
	cfg := Config{Bots: 3, Seed: 7, Journal: j}
	a, _ := newTestRoom(t, cfg)
	hello(t, a, 1, &proto.Hello{Name: "ann"}, 0)
	now := runUntil(t, a, 0, time.Minute, func() bool { return a.tl.Confirmed().Tick() > 120*2 })
	es := j.fromLastBase()
	if es[0].Meta.Rules != sim.RulesVersion {
		t.Fatalf("the base entry says rules %d, want %d", es[0].Meta.Rules, sim.RulesVersion)
	}
	cfg.Journal = &memJournal{t: t, auto: true}
	for _, rules := range []int{sim.RulesVersion - 1, sim.RulesVersion + 1, 0} {
		es[0].Meta.Rules = rules
		if _, err := Restore("test", cfg, 0, now, &testTransport{t: t}, es); !errors.Is(err, ErrRules) {
			t.Fatalf("a journal of rules %d (these %d): %v, want ErrRules", rules, sim.RulesVersion, err)
		}
	}
	es[0].Meta.Rules = sim.RulesVersion
	if _, err := Restore("test", cfg, 0, now, &testTransport{t: t}, es); err != nil {
		t.Fatalf("a journal of these rules: %v", err)
	}
}

// TestSeatDurableWithItsEvent: a seat is in the journal as soon as the
// event that makes or ends it is. The Welcome hands the token over at once
// and the join's event may be confirmed as soon as it is durable; a node
// killed after that but before the seats entry was durable left a history
// with the player's cycle in the round and no seat for it: the room rebuilt
// from it refused the token (the player came back in another seat, issue
// 26) and the cycle rode on with nobody, not even a pilot, at its controls.
// A leave the other way round left a seat held for a cycle gone.
func TestSeatDurableWithItsEvent(t *testing.T) {
	j := &memJournal{t: t, auto: true}
	cfg := Config{Bots: 2, Seed: 5, Journal: j}
	a, tr := newTestRoom(t, cfg)
	hello(t, a, 1, &proto.Hello{Name: "ann"}, 0)
	now := runUntil(t, a, 0, time.Minute, func() bool {
		ph, _ := a.tl.Confirmed().Phase()
		return ph == sim.PhasePlay && a.tl.Confirmed().Tick() > 120*6
	})
	// rebuilt is the room another node rebuilds when this one dies once the
	// record carrying ev (logged since entry n) is durable: the stream holds
	// it and what came before it, nothing after. Every cycle in its round
	// has its seat held, and every seat held has its cycle.
	rebuilt := func(n int, ev sim.Event, at time.Duration) (*Room, *testTransport) {
		t.Helper()
		for range 3 { // whatever the next ticks owe the journal
			if err := a.Tick(a.NextTick()); err != nil {
				t.Fatal(err)
			}
		}
		k := -1
		for i := n; i < len(j.entries) && k < 0; i++ {
			for _, te := range j.entries[i].Events {
				if te.Ev == ev {
					k = i
				}
			}
		}
		if k < 0 {
			t.Fatalf("%+v is not in the journal", ev)
		}
		var es []*Entry
		for i := k; i >= 0 && es == nil; i-- {
			if j.entries[i].Kind == EntryBase {
				es = j.entries[i : k+1]
			}
		}
		c := cfg
		c.Journal = &memJournal{t: t, auto: true}
		tr := &testTransport{t: t}
		b, err := Restore("test", c, 0, at, tr, es)
		if err != nil {
			t.Fatal(err)
		}
		for q, m := range b.members {
			if in := b.tl.State().Cycle(q).Present; in != (m != nil) {
				t.Errorf("after %+v the rebuilt room has cycle %d in the round %v, its seat held %v", ev, q, in, m != nil)
			}
		}
		return b, tr
	}

	// Bob joins mid-round.
	n := len(j.entries)
	now += time.Millisecond
	hello(t, a, 2, &proto.Hello{Name: "bob"}, now)
	w := welcomeOf(t, tr, 2)
	p := int(w.Player)
	later := now + time.Second
	b, tr2 := rebuilt(n, sim.Event{Kind: sim.EvJoin, Player: uint8(p), Arg: sim.JoinArg(true, 0)}, later)
	if e := b.Receive(9, &proto.Hello{Name: "bob", Token: w.Token}, later+10*time.Millisecond); e != nil {
		t.Fatalf("bob back with his token: %v, want his seat %d", e, p)
	}
	if w2 := welcomeOf(t, tr2, 9); int(w2.Player) != p {
		t.Fatalf("bob back in seat %d, want his own, %d", w2.Player, p)
	}

	// Cal joins and hangs up at once: a seat held for nothing, given up.
	n = len(j.entries)
	now = a.NextTick() + time.Millisecond
	hello(t, a, 3, &proto.Hello{Name: "cal"}, now)
	q := int(welcomeOf(t, tr, 3).Player)
	a.Leave(3, now)
	if a.members[q] != nil {
		t.Fatalf("cal's seat %d still held after a hello and a hang-up", q)
	}
	rebuilt(n, sim.Event{Kind: sim.EvLeave, Player: uint8(q)}, now+time.Second)
}
