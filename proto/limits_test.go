package proto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"webtron/sim"
)

// limitCase builds a message whose field under test has n elements (bytes of
// a string, entries of a list), every element alike.
type limitCase struct {
	name  string
	limit int
	build func(n int) Message
	want  string // the error at limit+1
}

func xs(n int) string { return strings.Repeat("x", n) }

func limitCases() []limitCase {
	evs := func(n int) []TickEvent {
		e := make([]TickEvent, n)
		for i := range e {
			e[i].Kind = sim.EvTurnLeft
		}
		return e
	}
	players := func(n int) []RosterPlayer { return make([]RosterPlayer, n) }
	return []limitCase{
		{"hello name", MaxNameLen, func(n int) Message { return &Hello{Name: xs(n)} },
			"proto: player name too long (25 > 24 bytes)"},
		{"hello room", MaxRoomLen, func(n int) Message { return &Hello{Room: xs(n)} },
			"proto: room name too long (33 > 32 bytes)"},
		{"hello token", MaxTokenLen, func(n int) Message { return &Hello{Token: []byte(xs(n))} },
			"proto: reconnect token too long (33 > 32 bytes)"},
		{"hello map", MaxMapLen, func(n int) Message { return &Hello{Map: xs(n)} },
			"proto: map too long (129 > 128 bytes)"},
		{"welcome token", MaxTokenLen, func(n int) Message { return &Welcome{TickRate: 60, Token: []byte(xs(n))} },
			"proto: reconnect token too long (33 > 32 bytes)"},
		{"welcome snapshot", MaxSnapshotLen, func(n int) Message {
			return &Welcome{TickRate: 60, History: History{Snapshot: []byte(xs(n))}}
		}, "proto: snapshot too long (1048577 > 1048576 bytes)"},
		{"welcome events", MaxHistoryEvents, func(n int) Message {
			return &Welcome{TickRate: 60, History: History{Events: evs(n)}}
		}, "proto: too many history events (4097 > 4096)"},
		{"welcome roster", MaxRoster, func(n int) Message {
			return &Welcome{TickRate: 60, Roster: Roster{Players: players(n)}}
		}, "proto: too many roster players (65 > 64)"},
		{"resync events", MaxHistoryEvents, func(n int) Message { return &Resync{History{Events: evs(n)}} },
			"proto: too many history events (4097 > 4096)"},
		{"propose events", MaxProposeEvents, func(n int) Message { return &Propose{Events: make([]Proposal, n)} },
			"proto: too many proposed events (33 > 32)"},
		{"accepted events", MaxAcceptedEvents, func(n int) Message { return &Accepted{Events: evs(n)} },
			"proto: too many accepted events (257 > 256)"},
		{"refused text", MaxTextLen, func(n int) Message { return &Refused{Text: xs(n)} },
			"proto: refusal text too long (201 > 200 bytes)"},
		{"heartbeat players", MaxRoster, func(n int) Message { return &Heartbeat{Players: make([]HeartbeatPlayer, n)} },
			"proto: too many heartbeat players (65 > 64)"},
		{"roster players", MaxRoster, func(n int) Message { return &Roster{Players: players(n)} },
			"proto: too many roster players (65 > 64)"},
		{"roster name", MaxNameLen, func(n int) Message { return &Roster{Players: []RosterPlayer{{Name: xs(n)}}} },
			"proto: player name too long (25 > 24 bytes)"},
		{"chat text", MaxChatLen, func(n int) Message { return &Chat{Text: xs(n)} },
			"proto: chat text too long (201 > 200 bytes)"},
		{"error text", MaxTextLen, func(n int) Message { return &Error{Text: xs(n)} },
			"proto: error text too long (201 > 200 bytes)"},
	}
}

// overEncode forges the encoding of c.build(c.limit+1), which Append refuses
// to produce, from the encodings of 1, 2 and limit elements (some lists may
// not be empty): the list's count is the first byte where those of 1 and 2
// differ.
func overEncode(t *testing.T, c limitCase) []byte {
	b1, _ := Marshal(c.build(1))
	b2, _ := Marshal(c.build(2))
	bn, err := Marshal(c.build(c.limit))
	if err != nil {
		t.Fatal(err)
	}
	p := 0
	for b1[p] == b2[p] {
		p++
	}
	elem := b2[p+1 : p+1+len(b2)-len(b1)]
	tail := bn[p+ulen(uint64(c.limit))+c.limit*len(elem):]
	out := binary.AppendUvarint(append([]byte(nil), bn[:p]...), uint64(c.limit+1))
	out = append(out, bytes.Repeat(elem, c.limit+1)...)
	return append(out, tail...)
}

func TestLimits(t *testing.T) {
	for _, c := range limitCases() {
		t.Run(c.name, func(t *testing.T) {
			at := c.build(c.limit)
			b, err := Marshal(at)
			if err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			if got, err := Decode(b); err != nil || !reflect.DeepEqual(got, at) {
				t.Fatalf("at the limit: Decode: %v", err)
			}
			_, err = Marshal(c.build(c.limit + 1))
			checkLimitErr(t, "Append", err, c.want)
			_, err = Decode(overEncode(t, c))
			checkLimitErr(t, "Decode", err, c.want)
		})
	}
}

func checkLimitErr(t *testing.T, op string, err error, want string) {
	t.Helper()
	var le *LimitError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &le) || err.Error() != want {
		t.Errorf("%s one over the limit: got %v, want %q", op, err, want)
	}
}

func TestLimitsCountBytes(t *testing.T) {
	name := strings.Repeat("é", MaxNameLen/2) // 2 bytes per rune
	if _, err := Marshal(&Hello{Name: name}); err != nil {
		t.Errorf("%d-byte name: %v", len(name), err)
	}
	if _, err := Marshal(&Hello{Name: name + "e"}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("%d-byte name: got %v", len(name)+1, err)
	}
}

func TestResendSpanLimit(t *testing.T) {
	ok := &ResendRequest{First: 10, Last: 10 + MaxResendSpan - 1}
	b, err := Marshal(ok)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Decode(b); err != nil || *m.(*ResendRequest) != *ok {
		t.Fatalf("Decode = %+v, %v", m, err)
	}
	want := "proto: too many resend broadcasts (257 > 256)"
	_, err = Marshal(&ResendRequest{First: 10, Last: 10 + MaxResendSpan})
	checkLimitErr(t, "Append", err, want)
	_, err = Decode([]byte{byte(TypeResendRequest), 10, 0x80, 0x02})
	checkLimitErr(t, "Decode", err, want)
}

func TestMaxSizeExact(t *testing.T) {
	for _, m := range maximal() {
		b, err := Marshal(m)
		if err != nil {
			t.Fatalf("%v: %v", m.Type(), err)
		}
		if len(b) != MaxSize(m.Type()) {
			t.Errorf("%v: maximal message is %d bytes, MaxSize %d", m.Type(), len(b), MaxSize(m.Type()))
		}
		if got, err := Decode(b); err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%v: maximal message does not round-trip: %v", m.Type(), err)
		}
	}
	if MaxSize(0) != 0 || MaxSize(typeEnd) != 0 {
		t.Error("MaxSize of an invalid type")
	}
}
