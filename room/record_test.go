package room

import (
	"slices"
	"testing"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// recordedRound plays a room of two bots and one human, "alice", whose link
// has a 60 ms round trip. Alice answers the room's pings, turns now and then
// (one turn asked for a tick long past, so that it is postponed), drops her
// connection 4 s into the first round she plays, and does not come back:
// her seat is freed mid-round. It returns the first record in which alice
// took part, and her slot.
// aliceAhead is how far alice's clock runs ahead of the server's.
const aliceAhead = 40 * time.Millisecond

func recordedRound(t *testing.T) (rec history.RoundRecord, names []string, alice int, room *Room) {
	t.Helper()
	const rtt = 60 * time.Millisecond
	type pending struct {
		at time.Duration
		m  proto.Message
	}
	var inbox []pending // messages on their way to the room
	var now time.Duration
	var records []history.RoundRecord
	var nameSets [][]string
	tr := &testTransport{t: t}
	r, err := New("rec", Config{Seed: 3, Bots: 2, Seats: 3, Reconnect: time.Second,
		OnRound: func(rec history.RoundRecord, names []string) {
			records = append(records, rec)
			nameSets = append(nameSets, names)
		}}, 0, tr)
	if err != nil {
		t.Fatal(err)
	}
	// Alice answers each ping halfway through the round trip, by a clock
	// aliceAhead ahead of the server's, after holding it a while (which the
	// pong states in whole microseconds, so the measured round trips differ
	// by fractions of one).
	answer := func() {
		for _, s := range tr.out {
			if p, ok := s.m.(*proto.Ping); ok && s.c == 1 {
				hold := time.Duration(p.ID%7)*time.Millisecond + time.Duration(p.ID%5)*123*time.Nanosecond
				tick := (now + rtt/2 + hold + aliceAhead) / (time.Second / 120)
				inbox = append(inbox, pending{now + rtt + hold, &proto.Pong{ID: p.ID, Echo: p.Time, Tick: uint64(tick),
					Held: uint32(hold / time.Microsecond)}})
			}
		}
		tr.out = tr.out[:0]
	}
	hello(t, r, 1, &proto.Hello{Name: "alice"}, 0)
	alice = r.byConn[1]
	connected, left := true, time.Duration(0)
	seq := uint32(0)
	checked := 0
	for k := 0; now < 5*time.Minute; k++ {
		now = r.NextTick()
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
		answer()
		for len(inbox) > 0 && inbox[0].at <= now && connected {
			if e := r.ReceiveAt(1, inbox[0].m, inbox[0].at, now); e != nil {
				t.Fatal(e.Text)
			}
			inbox = inbox[1:]
		}
		c := r.tl.Confirmed().Cycle(alice)
		if connected && c.Alive && k%50 == 0 {
			seq++
			asked := r.Now() + 3
			if seq == 3 {
				asked = r.Now() - 20 // far beyond any leniency: postponed
			}
			r.ReceiveAt(1, &proto.Propose{Events: []proto.Proposal{{Seq: seq, Tick: uint64(asked), Kind: sim.EvBrakeOn}}}, now-rtt/4, now)
			answer() // a heartbeat may have ridden with its broadcast
		}
		if connected && seq >= 6 {
			r.Leave(1, now)
			connected, left = false, now
		}
		for ; checked < len(records); checked++ {
			rec := records[checked]
			if st, _ := sim.UnmarshalState(rec.Start); st != nil && st.Cycle(alice).InRound && left > 0 && left < time.Duration(rec.EndTick)*r.TickDuration() {
				return rec, nameSets[checked], alice, r
			}
		}
	}
	t.Fatalf("no record with alice in it after %v (%d records)", now, len(records))
	return
}

// TestRecordKeepsLeaverName: a player who left before the round ended keeps
// her name in the round's record (before, `webtron replay` showed an empty
// name), and the bots are marked as such.
func TestRecordKeepsLeaverName(t *testing.T) {
	rec, names, alice, r := recordedRound(t)
	if r.members[alice] != nil {
		t.Fatal("alice still holds her seat: the test did not make her leave")
	}
	if names[alice] != "alice" {
		t.Errorf("name of the seat alice left: %q", names[alice])
	}
	left := false
	for _, te := range rec.Events {
		left = left || te.Ev.Kind == sim.EvLeave && int(te.Ev.Player) == alice
	}
	if !left {
		t.Error("alice's leave is not in the record")
	}
	for p, bot := range rec.Bots {
		if want := names[p] != "" && p != alice; bot != want {
			t.Errorf("slot %d (%q): bot %v", p, names[p], bot)
		}
	}
}

// TestRecordTimings: every event of the record has its timing, in order; a
// proposal is stamped when it arrived and was accepted, a postponed one keeps
// the tick it asked for, and server events are stamped within a tick of
// their tick's due time.
func TestRecordTimings(t *testing.T) {
	rec, _, alice, r := recordedRound(t)
	if len(rec.Timing) != len(rec.Events) {
		t.Fatalf("%d timings for %d events", len(rec.Timing), len(rec.Events))
	}
	dt := r.TickDuration()
	own, postponed := 0, 0
	for i, te := range rec.Events {
		tm := rec.Timing[i]
		due := time.Duration(te.Tick) * dt
		if tm.Arrived > tm.Accepted || tm.Accepted > tm.Broadcast {
			t.Errorf("event %d: arrived %v, accepted %v, broadcast %v", i, tm.Arrived, tm.Accepted, tm.Broadcast)
		}
		if int(te.Ev.Player) == alice && te.Ev.Kind == sim.EvBrakeOn {
			own++
			if tm.Accepted-tm.Arrived != 60*time.Millisecond/4 {
				t.Errorf("alice's event %d: accepted %v after it arrived, want 15ms", i, tm.Accepted-tm.Arrived)
			}
			if tm.Asked < te.Tick {
				postponed++
			} else if tm.Asked != te.Tick {
				t.Errorf("alice's event %d at tick %d asked for %d", i, te.Tick, tm.Asked)
			}
			continue
		}
		if tm.Asked != te.Tick || tm.Accepted < due-dt || tm.Accepted > due+dt {
			t.Errorf("server event %d at tick %d (due %v): %+v", i, te.Tick, due, tm)
		}
	}
	if own == 0 || postponed != 1 {
		t.Errorf("alice: %d events, %d postponed (want 1)", own, postponed)
	}
	for te := range r.rec.timing {
		if te.Tick < rec.EndTick {
			t.Fatalf("the room still keeps the timing of an event at %d, before the record's end %d", te.Tick, rec.EndTick)
		}
	}
}

// TestRecordNet: alice's figures are in the record, in tick order, as the
// room measured and published them. (A record starting after her first
// measurement starts with her figures: TestSplitNet.)
func TestRecordNet(t *testing.T) {
	rec, _, alice, _ := recordedRound(t)
	// Her figures hold still (a steady link, a steady clock): a sample when
	// they settle, not one per measurement (five a second).
	if len(rec.Net) == 0 || len(rec.Net) > 3 {
		t.Fatalf("%d net samples in %d ticks: %+v", len(rec.Net), rec.EndTick-rec.StartTick, rec.Net)
	}
	prev := rec.StartTick
	for _, s := range rec.Net {
		if s.Tick < prev || s.Tick >= rec.EndTick {
			t.Fatalf("sample at %d out of order or outside [%d, %d)", s.Tick, rec.StartTick, rec.EndTick)
		}
		prev = s.Tick
		if int(s.Player) != alice {
			t.Fatalf("a sample for player %d, who is a bot", s.Player)
		}
		if (s.OneWay-30*time.Millisecond).Abs() > time.Microsecond || s.Lead <= 0 || (s.Ahead-aliceAhead).Abs() > time.Second/240 {
			t.Errorf("sample %+v: want a one-way latency of 30ms, a lead, and a clock %v ahead", s, aliceAhead)
		}
	}
}

// TestSplitNet: a record starts with the figures of everyone measured before
// it, and the next record starts with those still measured at its start.
func TestSplitNet(t *testing.T) {
	r := &Room{}
	s := func(tick int64, p uint8, lead time.Duration) history.NetSample {
		return history.NetSample{Tick: tick, Player: p, Lead: lead}
	}
	r.rec.net = []history.NetSample{s(10, 0, 1), s(50, 1, 2), s(100, 2, 3), s(120, 0, 4), s(150, 1, 5), s(200, 0, 6), s(230, 1, 7)}
	r.rec.has[0], r.rec.has[1] = true, true // player 2 has left
	round, next := r.splitNet(100, 200)
	want := []history.NetSample{s(100, 0, 1), s(100, 1, 2), s(100, 2, 3), s(120, 0, 4), s(150, 1, 5)}
	wantNext := []history.NetSample{s(200, 0, 4), s(200, 1, 5), s(200, 0, 6), s(230, 1, 7)}
	if !slices.Equal(round, want) || !slices.Equal(next, wantNext) {
		t.Fatalf("round %v\n want %v\nnext %v\n want %v", round, want, next, wantNext)
	}
}
