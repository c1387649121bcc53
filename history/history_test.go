package history

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"webtron/internal/xorshift"
	"webtron/sim"
)

// mustInsert logs te and fails the test if the timeline refuses it: a test
// that dropped the error would go on with a history it did not mean.
func mustInsert(t testing.TB, tl *Timeline, te TickEvent) {
	t.Helper()
	if _, err := tl.Insert(te); err != nil {
		t.Fatalf("insert %+v: %v", te, err)
	}
}

func newTL(t testing.TB, opt Options) *Timeline {
	t.Helper()
	s, err := sim.NewState(sim.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := New(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestLogOrderAndDuplicates(t *testing.T) {
	var l Log
	in := []TickEvent{
		{5, sim.Event{Kind: sim.EvTurnLeft, Player: 2, Seq: 1}},
		{3, sim.Event{Kind: sim.EvTurnRight, Player: 1, Seq: 9}},
		{5, sim.Event{Kind: sim.EvTurnLeft, Player: 1, Seq: 4}},
		{5, sim.Event{Kind: sim.EvTurnLeft, Player: 1, Seq: 3}},
	}
	for _, te := range in {
		if !l.Insert(te) {
			t.Fatalf("insert %v: refused", te)
		}
	}
	if l.Insert(in[0]) {
		t.Fatal("duplicate accepted")
	}
	got := l.AppendAt(nil, 5)
	want := []sim.Event{in[3].Ev, in[2].Ev, in[0].Ev}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tick 5: got %v, want %v", got, want)
	}
	if !l.Remove(in[2]) || l.Remove(in[2]) {
		t.Fatal("remove: want true then false")
	}
	l.DropBefore(5)
	if l.Len() != 2 || len(l.From(0)) != 2 || len(l.Range(0, 5)) != 0 {
		t.Fatalf("after DropBefore(5): %d events", l.Len())
	}
}

// TestRequestSequence asserts the exact work of a rollback, as GGRS's tests do.
func TestRequestSequence(t *testing.T) {
	tl := newTL(t, Options{SnapshotEvery: 4})
	reqs, err := tl.Plan(6, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "[save 0 advance 0 advance 1 advance 2 advance 3 save 4 advance 4 advance 5]"
	if got := fmt.Sprint(reqs); got != want {
		t.Fatalf("first plan:\n got %s\nwant %s", got, want)
	}
	if err := tl.Apply(reqs); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, tl, TickEvent{5, sim.Event{Kind: sim.EvJoin, Player: 3}})
	mustInsert(t, tl, TickEvent{6, sim.Event{Kind: sim.EvJoin, Player: 4}}) // not simulated yet: no rollback
	if reqs, err = tl.Plan(9, nil); err != nil {
		t.Fatal(err)
	}
	want = "[load 4 advance 4 advance 5 advance 6 advance 7 save 8 advance 8]"
	if got := fmt.Sprint(reqs); got != want {
		t.Fatalf("rollback plan:\n got %s\nwant %s", got, want)
	}
	if err := tl.Apply(reqs); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, tl, TickEvent{2, sim.Event{Kind: sim.EvJoin, Player: 5}})
	if reqs, err = tl.Plan(9, nil); err != nil {
		t.Fatal(err)
	}
	want = "[load 0 advance 0 advance 1 advance 2 advance 3 save 4 advance 4 advance 5 advance 6 advance 7 save 8 advance 8]"
	if got := fmt.Sprint(reqs); got != want {
		t.Fatalf("deeper rollback plan:\n got %s\nwant %s", got, want)
	}
}

func TestRollbackTooDeep(t *testing.T) {
	tl := newTL(t, Options{Window: 40, SnapshotEvery: 4})
	if _, err := tl.Advance(500); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, tl, TickEvent{10, sim.Event{Kind: sim.EvJoin, Player: 1}})
	if _, err := tl.Advance(501); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("rollback of 490 ticks with a 40-tick window: got %v, want ErrTooDeep", err)
	}
}

// TestRolledBackCountsTicks: RolledBack adds the ticks a rollback replays,
// from the snapshot it loads to where the predicted state stood.
func TestRolledBackCountsTicks(t *testing.T) {
	tl := newTL(t, Options{SnapshotEvery: 4})
	if _, err := tl.Advance(100); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, tl, TickEvent{90, sim.Event{Kind: sim.EvJoin, Player: 1}})
	if _, err := tl.Advance(101); err != nil {
		t.Fatal(err)
	}
	if tl.Rollbacks != 1 || tl.RolledBack != 100-88 {
		t.Fatalf("%d rollbacks of %d ticks, want 1 of 12 (from the snapshot at 88 to 100)", tl.Rollbacks, tl.RolledBack)
	}
}

// TestCatchUpSurfacesErrors: a lazy timeline that cannot roll back where its
// log changed (its snapshots lost: a bug) panics with the reason instead of
// starting again silently from the confirmed state.
func TestCatchUpSurfacesErrors(t *testing.T) {
	tl := newTL(t, Options{Confirmed: true, Lazy: true, Window: 40, SnapshotEvery: 4})
	for now := int64(1); now <= 200; now++ {
		if _, err := tl.Advance(now); err != nil {
			t.Fatal(err)
		}
		tl.Finalize(now - 10)
	}
	tl.State() // simulated to 200
	mustInsert(t, tl, TickEvent{195, sim.Event{Kind: sim.EvJoin, Player: 1}})
	clear(tl.ring)
	tl.base = sim.Snapshot{}
	defer func() {
		v := recover()
		if s, ok := v.(string); !ok || !strings.Contains(s, "cannot catch up") {
			t.Fatalf("recovered %v, want the timeline's panic", v)
		}
	}()
	tl.State()
	t.Fatal("a timeline that lost its snapshots caught up")
}

// gen makes a seeded stream of player inputs for n players.
type gen struct {
	rng xorshift.Rand
	n   int
	seq [sim.MaxPlayers]uint32
}

func newGen(seed uint64, n int) *gen { return &gen{rng: xorshift.New(seed), n: n} }

func (g *gen) events(tick int64, out []TickEvent) []TickEvent {
	if tick == 0 {
		for p := 0; p < g.n; p++ {
			out = append(out, TickEvent{0, sim.Event{Kind: sim.EvJoin, Player: uint8(p)}})
		}
		return out
	}
	for p := 0; p < g.n; p++ {
		if v := g.rng.Uint64(); v%30 == 0 {
			g.seq[p]++
			out = append(out, TickEvent{tick, sim.Event{Kind: sim.EvTurnLeft + sim.EventKind(v>>8%4), Player: uint8(p), Seq: g.seq[p]}})
		}
	}
	return out
}

// TestLateEventsMatchOnTime inserts every event a random 0..40 ticks after its
// tick has been simulated; after the rollbacks the state must equal one that
// had every event on time.
func TestLateEventsMatchOnTime(t *testing.T) {
	ref := newTL(t, Options{})
	late := newTL(t, Options{})
	g := newGen(77, 8)
	type pending struct {
		te TickEvent
		at int64
	}
	var queue []pending
	var r uint64 = 5
	for tick := int64(0); tick < 5000; tick++ {
		for _, te := range g.events(tick, nil) {
			mustInsert(t, ref, te)
			r = r*6364136223846793005 + 1442695040888963407
			queue = append(queue, pending{te, tick + int64(r>>33%41)})
		}
		keep := queue[:0]
		for _, p := range queue {
			if p.at <= tick {
				mustInsert(t, late, p.te)
			} else {
				keep = append(keep, p)
			}
		}
		queue = keep
		if _, err := ref.Advance(tick + 1); err != nil {
			t.Fatal(err)
		}
		if _, err := late.Advance(tick + 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range queue {
		mustInsert(t, late, p.te)
	}
	if _, err := late.Advance(5000); err != nil {
		t.Fatal(err)
	}
	if ref.State().Hash() != late.State().Hash() {
		t.Fatal("hash with late events differs from on-time hash")
	}
	if late.Rollbacks == 0 {
		t.Fatal("no rollbacks happened: the test is not testing anything")
	}
	t.Logf("%d rollbacks, %d ticks replayed", late.Rollbacks, late.RolledBack)
}

func TestAuthority(t *testing.T) {
	tl := newTL(t, Options{Confirmed: true})
	a := NewAuthority(tl, 60)
	for p := 0; p < 3; p++ {
		a.Server(sim.Event{Kind: sim.EvJoin, Player: uint8(p)})
		a.SetActive(p, true)
	}
	a.SetLeniency(1, 10)
	// Run into the round's play phase.
	for now := int64(1); now < 600; now++ {
		if _, err := a.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	now := a.Now()
	turn := func(p int, seq uint32) sim.Event {
		return sim.Event{Kind: sim.EvTurnLeft, Player: uint8(p), Seq: seq}
	}
	cases := []struct {
		name       string
		from       int
		ev         sim.Event
		tick       int64
		wantStatus Status
		wantTick   int64
		wantReason Reason
		wantAgain  bool
	}{
		{"on time", 0, turn(0, 1), now, Accepted, now, 0, false},
		{"future", 0, turn(0, 2), now + 30, Accepted, now + 30, 0, false},
		{"too far ahead", 0, turn(0, 3), now + 61, Refused, 0, ReasonTooFarAhead, false},
		{"no leniency: postponed to now", 0, turn(0, 4), now - 3, Postponed, now, 0, false},
		{"within leniency", 1, turn(1, 1), now - 10, Accepted, now - 10, 0, false},
		{"beyond leniency", 1, turn(1, 2), now - 11, Postponed, now - 10, 0, false},
		// A resend (the proposal or its answer was lost) gets the first
		// answer again, whatever tick it names now; nothing is logged twice.
		{"resent: answered again", 1, turn(1, 2), now, Postponed, now - 10, 0, true},
		{"resent refusal: answered again", 0, turn(0, 3), now, Refused, 0, ReasonTooFarAhead, true},
		{"seq reused for another event", 1, sim.Event{Kind: sim.EvBrakeOn, Player: 1, Seq: 2}, now, Refused, 0, ReasonDuplicate, false},
		{"another player's", 2, turn(1, 9), now, Refused, 0, ReasonNotYourPlayer, false},
		{"server kind", 2, sim.Event{Kind: sim.EvRoundStart, Player: 2, Seq: 5}, now, Refused, 0, ReasonInvalidKind, false},
		{"join is not a proposal", 2, sim.Event{Kind: sim.EvJoin, Player: 2, Seq: 6}, now, Refused, 0, ReasonInvalidKind, false},
		{"not in the round", 7, turn(7, 1), now, Refused, 0, ReasonNotAlive, false},
		{"jump ahead", 2, turn(2, 6+SeqMemory), now, Accepted, now, 0, false},
		{"too old to tell", 2, turn(2, 6), now, Refused, 0, ReasonDuplicate, false},
		{"reordered, not resent", 2, turn(2, 7), now, Accepted, now, 0, false},
	}
	logged := tl.Log.Len()
	for _, c := range cases {
		d := a.Propose(c.from, c.ev, c.tick)
		if d.Status != c.wantStatus || d.Tick != c.wantTick || d.Reason != c.wantReason || d.Again != c.wantAgain {
			t.Errorf("%s: got %+v, want status %d tick %d reason %v again %v", c.name, d, c.wantStatus, c.wantTick, c.wantReason, c.wantAgain)
		}
	}
	if got := tl.Log.Len() - logged; got != 7 {
		t.Errorf("%d events logged, want 7 (each accepted or postponed proposal once)", got)
	}
	if got, want := a.Final(1), now-11; got != want {
		t.Errorf("final tick of player 1: got %d, want %d", got, want)
	}
}

// TestPostponedTurnKeepsItsInstant: a turn postponed moves by whole ticks
// and keeps the instant within its tick that it was pressed at (its Arg):
// the decision names only the tick, and the proposer, which holds the
// event as it proposed it, needs no more to agree with the log.
func TestPostponedTurnKeepsItsInstant(t *testing.T) {
	tl := newTL(t, Options{Confirmed: true})
	a := NewAuthority(tl, 60)
	a.Server(sim.Event{Kind: sim.EvJoin, Player: 0})
	a.SetActive(0, true)
	for now := int64(1); now < 600; now++ {
		if _, err := a.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	now := a.Now()
	ev := sim.Event{Kind: sim.EvTurnRight, Player: 0, Seq: 1, Arg: 200}
	if d := a.Propose(0, ev, now-2); d.Status != Postponed || d.Tick != now {
		t.Fatalf("decision %+v, want postponed to %d", d, now)
	}
	if evs := tl.Log.AppendAt(nil, now); len(evs) != 1 || evs[0] != ev {
		t.Fatalf("logged at %d: %v, want %+v", now, evs, ev)
	}
}

// TestJoinDataCatchesUp checks that a newcomer built from JoinData reaches the
// server's hash.
func TestJoinDataCatchesUp(t *testing.T) {
	tl := newTL(t, Options{Confirmed: true})
	a := NewAuthority(tl, 60)
	g := newGen(9, 6)
	var rounds []RoundRecord
	tl.opt.OnRound = func(r RoundRecord) { rounds = append(rounds, r) }
	for now := int64(0); now < 8000; now++ {
		for _, te := range g.events(now, nil) {
			a.Server(te.Ev)
		}
		if _, err := a.Tick(now + 1); err != nil {
			t.Fatal(err)
		}
	}
	tick, state, evs := tl.JoinData()
	s, err := sim.UnmarshalState(state)
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, te := range evs {
		mustInsert(t, j, te)
	}
	if _, err := j.Advance(tl.Present()); err != nil {
		t.Fatal(err)
	}
	if j.State().Hash() != tl.State().Hash() {
		t.Fatalf("joiner from tick %d: hash differs from the server's present", tick)
	}
	if len(rounds) < 2 {
		t.Fatalf("only %d round records", len(rounds))
	}
	// Each round record replays to its recorded hashes and outcome.
	decided := 0
	for _, r := range rounds {
		s, err := sim.UnmarshalState(r.Start)
		if err != nil {
			t.Fatal(err)
		}
		var buf []sim.Event
		i := 0
		gotDecided, gotWinner := false, -1
		for _, h := range r.Hashes {
			for s.Tick() < h.Tick {
				buf = buf[:0]
				for ; i < len(r.Events) && r.Events[i].Tick == s.Tick(); i++ {
					buf = append(buf, r.Events[i].Ev)
				}
				before, _ := s.Phase()
				s.Step(buf)
				if ph, _ := s.Phase(); ph == sim.PhaseOver && before != sim.PhaseOver && !gotDecided {
					gotDecided, gotWinner = true, s.Winner()
				}
			}
			if s.Hash() != h.Hash {
				t.Fatalf("round from %d: hash at %d differs", r.StartTick, h.Tick)
			}
		}
		if r.Decided != gotDecided || r.Winner != gotWinner {
			t.Errorf("round from %d: recorded decided %v winner %d, replayed %v %d", r.StartTick, r.Decided, r.Winner, gotDecided, gotWinner)
		}
		if r.Decided {
			decided++
		}
	}
	if decided == 0 {
		t.Error("no round record was decided")
	}
}

// BenchmarkServerLateEvent accepts an event 30 ticks late in an 8-player room
// and rolls back and replays to the present, as the server does.
func BenchmarkServerLateEvent(b *testing.B) {
	tl := newTL(b, Options{Confirmed: true})
	a := NewAuthority(tl, 60)
	for p := 0; p < 8; p++ {
		a.Server(sim.Event{Kind: sim.EvJoin, Player: uint8(p)})
		a.SetActive(p, true)
		a.SetLeniency(p, 40)
	}
	now := int64(1)
	for ; now < 700; now++ {
		if _, err := a.Tick(now); err != nil {
			b.Fatal(err)
		}
	}
	seq := uint32(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seq++
		p := i % 8
		a.Propose(p, sim.Event{Kind: sim.EvBrakeOn + sim.EventKind(i%2), Player: uint8(p), Seq: seq}, a.Now()-30)
		if _, err := tl.Advance(a.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLazyTimeline: a lazy timeline does not simulate the predicted present
// until it is read, and then shows the same state as an eager one, also after
// its log was pruned past it (it starts again from the confirmed state).
func TestLazyTimeline(t *testing.T) {
	eager := newTL(t, Options{Confirmed: true})
	lazy := newTL(t, Options{Confirmed: true, Lazy: true})
	g := newGen(5, 6)
	for now := int64(0); now < 6000; now++ {
		for _, te := range g.events(now, nil) {
			mustInsert(t, eager, te)
			mustInsert(t, lazy, te)
		}
		if _, err := eager.Advance(now + 1); err != nil {
			t.Fatal(err)
		}
		if _, err := lazy.Advance(now + 1); err != nil {
			t.Fatal(err)
		}
		eager.Finalize(now - 20)
		lazy.Finalize(now - 20)
		if now == 100 || now == 5999 {
			if lazy.Present() != eager.Present() {
				t.Fatalf("tick %d: present %d, want %d", now, lazy.Present(), eager.Present())
			}
			if lazy.State().Hash() != eager.State().Hash() {
				t.Fatalf("tick %d: lazy state differs from eager", now)
			}
		}
		if now == 50 && lazy.pred.Tick() != 0 {
			t.Fatalf("the lazy timeline simulated %d ticks nobody read", lazy.pred.Tick())
		}
	}
	if lazy.Confirmed().Hash() != eager.Confirmed().Hash() {
		t.Fatal("confirmed states differ")
	}
}
