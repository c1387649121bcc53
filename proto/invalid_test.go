package proto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"webtron/sim"
)

// maximal returns one message of each type with every list full, every
// string at its limit and every integer at its widest varint encoding.
func maximal() []Message {
	const half = uint64(1) << 63 // tick differences of 2^63 zigzag to 10 bytes
	evs := func(n int, first uint64) []TickEvent {
		e := make([]TickEvent, n)
		for i := range e {
			e[i] = ev(first+uint64(i)*half, sim.EvBrakeOff, math.MaxUint8, math.MaxUint32, math.MinInt32)
		}
		return e
	}
	hist := History{Tick: half, Seq: math.MaxUint64, Snapshot: make([]byte, MaxSnapshotLen),
		Events: evs(MaxHistoryEvents, 0)}
	ro := Roster{Rev: math.MaxUint64, Charity: Charity{Mode: 255, Value: math.MaxUint32}}
	for range MaxRoster {
		ro.Players = append(ro.Players, RosterPlayer{ID: 255, Name: xs(MaxNameLen), Bot: true, Spectator: true,
			Connected: true, Score: math.MinInt32, Latency: math.MaxUint32, Lead: math.MaxUint32, Leniency: math.MaxUint32})
	}
	hb := &Heartbeat{Tick: math.MaxUint64, Time: math.MinInt64, Seq: math.MaxUint64}
	for range MaxRoster {
		hb.Players = append(hb.Players, HeartbeatPlayer{Player: 255, Final: half - 1, Lead: math.MaxUint32, Margin: math.MinInt32})
	}
	props := make([]Proposal, MaxProposeEvents)
	for i := range props {
		props[i] = Proposal{Seq: math.MaxUint32, Tick: uint64(i+1) * half, Kind: 255, Arg: math.MinInt32}
	}
	token := []byte(xs(MaxTokenLen))
	return []Message{
		&Hello{Name: xs(MaxNameLen), Room: xs(MaxRoomLen), Token: token, Spectate: true, ClientTime: math.MinInt64, Map: xs(MaxMapLen)},
		&Welcome{Player: 255, Spectator: true, Token: token, TickRate: MaxTickRate, Tick: math.MaxUint64,
			ServerTime: math.MinInt64, ClientTime: math.MinInt64, History: hist, Roster: ro},
		&Ping{ID: math.MaxUint32, Time: math.MinInt64},
		&Pong{ID: math.MaxUint32, Echo: math.MinInt64, Time: math.MinInt64, Tick: math.MaxUint64, Held: math.MaxUint32},
		&Propose{Events: props},
		&Accepted{Seq: math.MaxUint64, Events: evs(MaxAcceptedEvents, half)},
		&Postponed{Seq: math.MaxUint32, Asked: half, Tick: math.MaxUint64},
		&Refused{Seq: math.MaxUint32, Reason: 255, Text: xs(MaxTextLen)},
		hb,
		&ro,
		&HashReport{Tick: math.MaxUint64, Hash: math.MaxUint64},
		&Resync{History: hist},
		&Chat{From: 255, Text: xs(MaxChatLen)},
		&Error{Code: 255, Text: xs(MaxTextLen)},
		&ResendRequest{First: math.MaxUint64 - MaxResendSpan + 1, Last: math.MaxUint64},
	}
}

func uv(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestDecodeInvalid(t *testing.T) {
	pad0 := cat(bytes.Repeat([]byte{0x80}, 9), []byte{0}) // zero as a padded 10-byte varint
	chat, _ := Marshal(&Chat{Text: "hi"})
	for _, c := range []struct {
		name string
		in   []byte
		want error
		text string // expected error text, when it matters
	}{
		{"empty", nil, ErrTruncated, "proto: message truncated (reading message type)"},
		{"type 0", []byte{0}, ErrUnknownType, "proto: unknown message type 0"},
		{"type end", []byte{byte(typeEnd), 0}, ErrUnknownType, ""},
		{"type 255", []byte{255}, ErrUnknownType, ""},
		{"hello v1", []byte{byte(TypeHello), 1, 0, 0, 0, 0, 0}, ErrVersion,
			"proto: unsupported protocol version 1 (this is version 2)"},
		{"welcome v0", []byte{byte(TypeWelcome), 0}, ErrVersion, ""},
		{"hello big version", cat([]byte{byte(TypeHello)}, uv(1<<40)), ErrVersion, ""},
		{"bad utf8", []byte{byte(TypeChat), 0, 2, 0xff, 0xfe}, ErrInvalid, "proto: invalid message: chat text is not valid UTF-8"},
		{"flag bits", []byte{byte(TypeHello), Version, 0, 0, 0, 4, 0}, ErrInvalid, ""},
		{"hello map flag without a map", []byte{byte(TypeHello), Version, 0, 0, 0, 2, 0, 0}, ErrInvalid, "proto: invalid message: hello map flag set without a map"},
		{"roster flag bits", []byte{byte(TypeRoster), 0, 0, 0, 1, 0, 0, 8, 0, 0, 0, 0}, ErrInvalid, ""},
		{"kind none", []byte{byte(TypeAccepted), 1, 1, 0, 0, 0, 0, 0}, ErrInvalid, ""},
		{"kind unknown", []byte{byte(TypeAccepted), 1, 1, 0, 200, 0, 0, 0}, ErrInvalid, ""},
		{"trailing", []byte{byte(TypePing), 1, 2, 0}, ErrInvalid, "proto: invalid message: 1 trailing bytes after ping message"},
		{"varint overflow", cat([]byte{byte(TypePing)}, bytes.Repeat([]byte{0xff}, 10), []byte{1}), ErrInvalid, ""},
		{"u32 range", cat([]byte{byte(TypePing)}, uv(1<<32), []byte{0}), ErrInvalid, "proto: invalid message: ping id out of range (4294967296)"},
		{"i32 range", cat([]byte{byte(TypeAccepted), 1, 1, 0, 1, 0, 0}, uv(1<<32)), ErrInvalid, ""},
		{"tick rate 0", []byte{byte(TypeWelcome), Version, 0, 0, 0, 0}, ErrInvalid, ""},
		{"tick rate 1001", cat([]byte{byte(TypeWelcome), Version, 0, 0, 0}, uv(1001)), ErrInvalid, ""},
		{"propose without events", []byte{byte(TypePropose), 0}, ErrInvalid, "proto: invalid message: propose without events"},
		{"postponed overflow", cat([]byte{byte(TypePostponed), 0}, uv(math.MaxUint64), uv(1)), ErrInvalid, ""},
		{"resend overflow", cat([]byte{byte(TypeResendRequest)}, uv(math.MaxUint64), uv(1)), ErrInvalid, ""},
		{"padded varints", cat([]byte{byte(TypePing)}, pad0, pad0), ErrTooLarge, "proto: ping message too long (21 > 16 bytes)"},
		{"trailing garbage", cat(chat, make([]byte, 1000)), ErrTooLarge, "proto: chat message too long (1005 > 204 bytes)"},
		{"count beyond input", []byte{byte(TypeAccepted), 1, 100, 0, 1, 0, 0, 0}, ErrTruncated, ""},
	} {
		m, err := Decode(c.in)
		if !errors.Is(err, c.want) || m != nil {
			t.Errorf("%s: Decode(% x) = %v, %v; want %v", c.name, c.in, m, err, c.want)
		} else if c.text != "" && err.Error() != c.text {
			t.Errorf("%s: error %q, want %q", c.name, err, c.text)
		}
	}
}

func TestAppendInvalid(t *testing.T) {
	for _, c := range []struct {
		m    Message
		want error
	}{
		{&Chat{Text: "\xff"}, ErrInvalid},
		{&Roster{Players: []RosterPlayer{{Name: "a\xc0"}}}, ErrInvalid},
		{&Accepted{Events: []TickEvent{{Tick: 1}}}, ErrInvalid},
		{&Resync{History{Events: []TickEvent{ev(1, sim.EventKind(200), 0, 0, 0)}}}, ErrInvalid},
		{&Welcome{TickRate: 0}, ErrInvalid},
		{&Propose{}, ErrInvalid},
		{&Welcome{TickRate: MaxTickRate + 1}, ErrInvalid},
		{&Postponed{Asked: 10, Tick: 9}, ErrInvalid},
		{&ResendRequest{First: 10, Last: 9}, ErrInvalid},
		{&ResendRequest{First: 0, Last: math.MaxUint64}, ErrTooLarge},
	} {
		if b, err := Marshal(c.m); !errors.Is(err, c.want) || b != nil {
			t.Errorf("Marshal(%+v) = % x, %v; want %v", c.m, b, err, c.want)
		}
	}
}
