package proto

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"webtron/sim"
)

func ev(tick uint64, kind sim.EventKind, player uint8, seq uint32, arg int32) TickEvent {
	return TickEvent{Tick: tick, Event: sim.Event{Kind: kind, Player: player, Seq: seq, Arg: arg}}
}

func sampleHistory() History {
	return History{
		Tick:     1200,
		Snapshot: []byte{0, 1, 2, 0xff, 0xfe},
		Seq:      41,
		Events: []TickEvent{
			ev(1201, sim.EvTurnLeft, 0, 7, 0),
			ev(1201, sim.EvTurnRight, 3, 2, 0),
			ev(1199, sim.EvBrakeOn, 1, 1, -5), // out of order still round-trips
			ev(1300, sim.EvRoundStart, 0, 0, 0),
		},
	}
}

func sampleRoster() Roster {
	return Roster{
		Rev:     9,
		Charity: Charity{Mode: CharityAuto, Value: 50_000},
		Players: []RosterPlayer{
			{ID: 0, Name: "Ada", Connected: true, Score: 12, Latency: 30_000, Lead: 30_000},
			{ID: 1, Name: "bot·ℤ", Bot: true, Connected: true, Score: -3},
			{ID: 7, Name: "watcher", Spectator: true, Latency: 80_000, Lead: 30_000, Leniency: 50_000},
		},
	}
}

// samples holds valid messages of every type, small and edge-valued; they
// are also the fuzzing seed corpus.
func samples() []Message {
	h, ro := sampleHistory(), sampleRoster()
	return []Message{
		&Hello{Name: "Ada", Room: "main", ClientTime: 123456789},
		&Hello{Name: "Grace", Room: "", Token: []byte{1, 2, 3}, Spectate: true, ClientTime: -1},
		&Hello{Name: "Lin", Room: "sumo", ClientTime: 7, Map: "Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml"},
		&Welcome{Player: 3, Token: []byte("tok"), TickRate: 60, Tick: 1234, ServerTime: 5e9,
			ClientTime: 123456789, History: h, Roster: ro},
		&Welcome{Spectator: true, TickRate: 1},
		&Ping{ID: 1, Time: 1_000_000},
		&Ping{ID: math.MaxUint32, Time: math.MinInt64},
		&Pong{ID: 1, Echo: 1_000_000, Time: 999_000, Tick: 77, Held: 1500},
		&Propose{Events: []Proposal{
			{Seq: 8, Tick: 1250, Kind: sim.EvTurnLeft},
			{Seq: 9, Tick: 1251, Kind: sim.EvBrakeOn, Arg: -1},
			{Seq: 10, Tick: 1251, Kind: sim.EventKind(200)}, // unknown kinds are the server's to refuse
		}},
		&Accepted{Seq: 42, Events: []TickEvent{ev(1250, sim.EvTurnLeft, 2, 8, 0), ev(1252, sim.EvLeave, 5, 1, 0)}},
		&Accepted{Seq: 1},
		&Postponed{Seq: 8, Asked: 1250, Tick: 1253},
		&Postponed{Seq: 0, Asked: math.MaxUint64, Tick: math.MaxUint64},
		&Refused{Seq: 9, Reason: RefuseNotAlive, Text: "you are dead"},
		&Refused{Seq: 10, Reason: RefuseReason(250)},
		&Heartbeat{Tick: 1300, Time: 21_666_666, Seq: 42, Players: []HeartbeatPlayer{
			{Player: 0, Final: 1296, Lead: 30_000, Margin: 4_000},
			{Player: 1, Final: 1301, Lead: 0, Margin: -2_500},
		}},
		&Heartbeat{},
		&ro,
		&Roster{Charity: Charity{Mode: CharityOff}},
		&HashReport{Tick: 1290, Hash: 0xdeadbeefcafef00d},
		&Resync{History: h},
		&Resync{History: History{Tick: 5}},
		&Chat{From: 2, Text: "gg 🏍"},
		&Chat{},
		&Error{Code: CloseRoomFull, Text: "room main is full (16 players)"},
		&Error{Code: CloseCode(99)},
		&ResendRequest{First: 40, Last: 42},
		&ResendRequest{First: math.MaxUint64 - MaxResendSpan + 1, Last: math.MaxUint64},
	}
}

func TestRoundTrip(t *testing.T) {
	seen := map[Type]bool{}
	for _, m := range samples() {
		seen[m.Type()] = true
		t.Run(m.Type().String(), func(t *testing.T) {
			b, err := Marshal(m)
			if err != nil {
				t.Fatalf("Marshal(%+v): %v", m, err)
			}
			if Type(b[0]) != m.Type() {
				t.Errorf("first byte %d, want type %d", b[0], m.Type())
			}
			if len(b) > MaxSize(m.Type()) {
				t.Errorf("encoded %d bytes > MaxSize %d", len(b), MaxSize(m.Type()))
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v\n% x", err, b)
			}
			if !reflect.DeepEqual(got, m) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
			}
		})
	}
	for ty := TypeHello; ty < typeEnd; ty++ {
		if !seen[ty] {
			t.Errorf("no sample of type %v", ty)
		}
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	prefix := []byte("head")
	b, err := Append(prefix, &Chat{From: 1, Text: "hi"})
	if err != nil || !bytes.HasPrefix(b, prefix) {
		t.Fatalf("Append = % x, %v", b, err)
	}
	if m, err := Decode(b[len(prefix):]); err != nil || m.(*Chat).Text != "hi" {
		t.Fatalf("Decode = %+v, %v", m, err)
	}
	// On error the caller's slice comes back as it was.
	b2, err := Append(prefix, &Chat{Text: string(make([]byte, MaxChatLen+1))})
	if err == nil || !bytes.Equal(b2, prefix) {
		t.Fatalf("Append over limit = % x, %v", b2, err)
	}
}

func TestDecodeCopies(t *testing.T) {
	b, _ := Marshal(&Hello{Name: "Ada", Token: []byte{9, 9}})
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if h := m.(*Hello); h.Name != "Ada" || !bytes.Equal(h.Token, []byte{9, 9}) {
		t.Fatalf("decoded message changed with its input buffer: %+v", h)
	}
}

func TestDirections(t *testing.T) {
	for ty := TypeHello; ty < typeEnd; ty++ {
		if !ty.FromClient() && !ty.FromServer() {
			t.Errorf("%v is sent by nobody", ty)
		}
	}
	if TypeHello.FromServer() || TypeAccepted.FromClient() || !TypePing.FromClient() || !TypePing.FromServer() {
		t.Error("wrong directions")
	}
	if Type(0).FromServer() || typeEnd.FromServer() || typeEnd.FromClient() {
		t.Error("invalid types have a direction")
	}
}

func TestErrorIsError(t *testing.T) {
	var err error = &Error{Code: CloseVersion, Text: "upgrade"}
	want := "proto: server closed the connection: version mismatch: upgrade"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err.Error(), want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CloseVersion {
		t.Error("errors.As failed")
	}
}
