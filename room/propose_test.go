package room

import (
	"reflect"
	"testing"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// TestResentProposalAnsweredAgain: on a datagram link a proposal or its
// answer may be lost, and the client proposes again with the same sequence
// number. The server never applies it twice, and answers as it did the first
// time: the broadcast that carried an accepted event (to the proposer only),
// the refusal of a refused one (docs/protocol.md section 6).
func TestResentProposalAnsweredAgain(t *testing.T) {
	r, tr := newTestRoom(t, Config{Seats: 2, Bots: 1})
	hello(t, r, 1, &proto.Hello{Name: "a"}, 0)
	hello(t, r, 2, &proto.Hello{Name: "b"}, 0)
	now := runUntil(t, r, 0, 10*time.Second, func() bool {
		ph, _ := r.Timeline().Confirmed().Phase()
		return ph == sim.PhasePlay && r.Timeline().Confirmed().Cycle(r.byConn[1]).Alive
	})
	propose := func(seq uint32, tick int64) {
		t.Helper()
		if e := r.Receive(1, &proto.Propose{Events: []proto.Proposal{{Seq: seq, Tick: uint64(tick), Kind: sim.EvBrakeOn}}}, now); e != nil {
			t.Fatal(e)
		}
	}
	tr.out = tr.out[:0]
	propose(1, r.Now())
	// The heartbeat may ride with it (TestHeartbeatRidesOnEvents).
	first := withoutHeartbeat(tr.to(1))
	if len(first) != 1 {
		t.Fatalf("first answer %v, want one Accepted broadcast", first)
	}
	acc, ok := first[0].(*proto.Accepted)
	if !ok || len(withoutHeartbeat(tr.to(2))) != 1 {
		t.Fatalf("first answer %v, want an Accepted broadcast to both", first)
	}
	logged := r.Timeline().Log.Len()
	events := r.Stats.Events

	// A lossy link's second copy, right behind the first: not answered.
	tr.out = tr.out[:0]
	propose(1, r.Now())
	if len(tr.to(1)) != 0 || len(tr.to(2)) != 0 {
		t.Fatalf("the second copy was answered: %v %v, want nothing", tr.to(1), tr.to(2))
	}

	tr.out = tr.out[:0]
	now += 2 * copyWindow
	propose(1, r.Now()+3) // resent, naming the tick it stands at now
	again := tr.to(1)
	if len(again) != 1 || !reflect.DeepEqual(again[0], acc) {
		t.Fatalf("answer to the resend %v, want the same broadcast %v", again, acc)
	}
	if len(tr.to(2)) != 0 {
		t.Fatalf("the other player got %v: the resend is answered to its proposer only", tr.to(2))
	}
	if r.Timeline().Log.Len() != logged || r.Stats.Events != events {
		t.Fatal("the resent proposal was applied twice")
	}

	tr.out = tr.out[:0]
	propose(2, r.Now()+1000) // too far ahead
	propose(2, r.Now()+1000)
	var refusals []proto.RefuseReason
	for _, m := range tr.to(1) {
		if rf, ok := m.(*proto.Refused); ok && rf.Seq == 2 {
			refusals = append(refusals, rf.Reason)
		}
	}
	if !reflect.DeepEqual(refusals, []proto.RefuseReason{proto.RefuseTooFarAhead, proto.RefuseTooFarAhead}) {
		t.Fatalf("refusals %v, want too far ahead twice", refusals)
	}

	tr.out = tr.out[:0]
	if e := r.Receive(1, &proto.Propose{Events: []proto.Proposal{{Seq: 1, Tick: uint64(r.Now()), Kind: sim.EvTurnLeft}}}, now); e != nil {
		t.Fatal(e)
	}
	if ms := tr.to(1); len(ms) != 1 || ms[0].(*proto.Refused).Reason != proto.RefuseDuplicate {
		t.Fatalf("sequence number reused for another event: %v, want a duplicate refusal", ms)
	}
}

// TestRefuseReasons: every reason the authority gives has its own text and
// its own code on the wire; a reason added to history without either, or
// without its line in the table here, fails.
func TestRefuseReasons(t *testing.T) {
	want := map[history.Reason]proto.RefuseReason{
		history.ReasonTooFarAhead:   proto.RefuseTooFarAhead,
		history.ReasonNotYourPlayer: proto.RefuseNotYourPlayer,
		history.ReasonNotAlive:      proto.RefuseNotAlive,
		history.ReasonDuplicate:     proto.RefuseDuplicate,
		history.ReasonInvalidKind:   proto.RefuseInvalidKind,
	}
	seen := map[proto.RefuseReason]history.Reason{}
	for r := history.Reason(1); r < history.NumReasons; r++ {
		if r.String() == history.ReasonNone.String() {
			t.Errorf("history reason %d has no text of its own (%q)", r, r)
		}
		got := refuseReason(r)
		if w, ok := want[r]; !ok || got != w || got == proto.RefuseOther {
			t.Errorf("history reason %d (%s) goes on the wire as %v; the table here says %v", r, r, got, w)
		}
		if o, dup := seen[got]; dup {
			t.Errorf("history reasons %s and %s share the wire code %v", o, r, got)
		}
		seen[got] = r
	}
	if len(want) != int(history.NumReasons)-1 {
		t.Errorf("history knows %d reasons, the table %d", history.NumReasons-1, len(want))
	}
	if refuseReason(history.ReasonNone) != proto.RefuseOther {
		t.Error("no reason must be RefuseOther")
	}
}
