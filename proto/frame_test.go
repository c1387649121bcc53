package proto

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"webtron/sim"
)

// unframe splits framed data into its messages, failing the test on bad framing.
func unframe(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	EachFrame(b, func(msg []byte, err error) bool {
		if err != nil {
			t.Fatalf("EachFrame: %v", err)
		}
		out = append(out, msg)
		return true
	})
	return out
}

func TestPackerSortsAndFills(t *testing.T) {
	hb := must(Marshal(&Heartbeat{Tick: 1000, Time: 5, Seq: 3, Players: make([]HeartbeatPlayer, 8)}))
	ping := must(Marshal(&Ping{ID: 7, Time: 123}))
	roster := must(Marshal(&Roster{Rev: 1}))
	welcome := must(Marshal(&Welcome{TickRate: 120}))
	evs := make([]TickEvent, 250)
	for i := range evs {
		evs[i] = TickEvent{Tick: uint64(1000 + i), Event: sim.Event{Kind: sim.EvTurnLeft, Player: 1, Seq: uint32(i)}}
	}
	big := must(Marshal(&Accepted{Seq: 9, Events: evs}))
	if len(big) <= MaxDatagram {
		t.Fatalf("test needs an Accepted above MaxDatagram, got %d bytes", len(big))
	}
	in := [][]byte{hb, ping, roster, welcome, big}
	for i := range 40 { // enough small ones to need a second datagram
		in = append(in, must(Marshal(&Heartbeat{Tick: uint64(2000 + i), Time: 5, Seq: 3, Players: make([]HeartbeatPlayer, 8)})))
	}
	var p Packer
	for round := range 2 { // the second round reuses the storage
		p.Reset()
		for _, m := range in {
			p.Add(m)
		}
		var dgMsgs [][]byte
		for i, d := range p.Datagrams {
			if len(d) > MaxDatagram {
				t.Fatalf("round %d: datagram %d is %d bytes, over %d", round, i, len(d), MaxDatagram)
			}
			dgMsgs = append(dgMsgs, unframe(t, d)...)
		}
		if len(p.Datagrams) < 2 {
			t.Fatalf("round %d: %d datagrams, want the small messages to fill at least 2", round, len(p.Datagrams))
		}
		// A datagram is only cut when the next message would not fit.
		for i := 0; i+1 < len(p.Datagrams); i++ {
			first, _, _ := NextFrame(p.Datagrams[i+1])
			if len(p.Datagrams[i])+FrameSize(first) <= MaxDatagram {
				t.Errorf("round %d: datagram %d cut with room for the next message", round, i)
			}
		}
		want := append([][]byte{hb, ping}, in[5:]...)
		if len(dgMsgs) != len(want) {
			t.Fatalf("round %d: %d messages in datagrams, want %d", round, len(dgMsgs), len(want))
		}
		for i := range want {
			if !bytes.Equal(dgMsgs[i], want[i]) {
				t.Fatalf("round %d: datagram message %d differs", round, i)
			}
		}
		st := unframe(t, p.Stream)
		if len(st) != 3 || !bytes.Equal(st[0], roster) || !bytes.Equal(st[1], welcome) || !bytes.Equal(st[2], big) {
			t.Fatalf("round %d: stream holds %d messages, want roster, welcome, the large accepted", round, len(st))
		}
	}
}

func TestNextFrameRejects(t *testing.T) {
	for _, b := range [][]byte{
		{0x00},             // empty message
		{0x05, 1, 2},       // length past the end
		{0x80, 0x80},       // varint that does not end
		{0xff, 0xff, 0xff}, // same, and huge
	} {
		if _, _, err := NextFrame(b); !errors.Is(err, ErrFrame) {
			t.Errorf("NextFrame(% x) = %v, want ErrFrame", b, err)
		}
	}
	if m, rest, err := NextFrame(nil); m != nil || rest != nil || err != nil {
		t.Errorf("NextFrame(nil) = %v, %v, %v; want the end", m, rest, err)
	}
}

func FuzzNextFrame(f *testing.F) {
	f.Add(AppendFrame(AppendFrame(nil, []byte{3, 1, 2}), []byte{9}))
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			msg, rest, err := NextFrame(b)
			if err != nil {
				return
			}
			if len(rest) >= len(b) || len(msg) == 0 {
				t.Fatalf("no progress on % x", b)
			}
			b = rest
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestPackerSplitsCopies: a message added twice in a row (a proposal sent
// twice on a lossy link) goes in two datagrams, so that one lost packet
// does not lose both; the messages around it still share datagrams.
func TestPackerSplitsCopies(t *testing.T) {
	pong := must(Marshal(&Pong{ID: 1, Time: 5}))
	prop := must(Marshal(&Propose{Events: []Proposal{{Seq: 4, Tick: 900, Kind: sim.EvTurnLeft}}}))
	hash := must(Marshal(&HashReport{Tick: 840, Hash: 77}))
	var p Packer
	for _, m := range [][]byte{pong, prop, prop, hash} {
		p.Add(m)
	}
	var got [][][]byte
	for _, d := range p.Datagrams {
		got = append(got, unframe(t, d))
	}
	if len(got) != 2 || len(got[0]) != 2 || len(got[1]) != 2 ||
		!bytes.Equal(got[0][1], prop) || !bytes.Equal(got[1][0], prop) || !bytes.Equal(got[1][1], hash) {
		t.Fatalf("datagrams %v, want [pong prop] [prop hash]", got)
	}
}

// TestReadFrames: a framed stream yields its messages in order, then
// io.EOF; an empty frame is ErrFrame, a frame over the limit
// ErrFrameTooLarge before its body is read, a stream cut inside a body
// io.ErrUnexpectedEOF; put returning false stops the reading.
func TestReadFrames(t *testing.T) {
	read := func(data []byte, max, stopAfter int) (msgs []string, last error, unread int) {
		r := bytes.NewReader(data)
		ReadFrames(r, max, func(msg []byte, err error) bool {
			if err != nil {
				last = err
				return false
			}
			msgs = append(msgs, string(msg))
			return len(msgs) < stopAfter
		})
		return msgs, last, r.Len()
	}
	stream := AppendFrame(AppendFrame(nil, []byte("abc")), []byte("de"))
	if msgs, err, _ := read(stream, 3, 9); strings.Join(msgs, ",") != "abc,de" || err != io.EOF {
		t.Fatalf("got %q then %v, want abc, de then io.EOF", msgs, err)
	}
	if msgs, err, _ := read(stream, 3, 1); len(msgs) != 1 || err != nil {
		t.Fatalf("stopped after one: got %q then %v", msgs, err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", []byte{0}, ErrFrame},
		{"too large", AppendFrame(nil, bytes.Repeat([]byte("x"), 5000)), ErrFrameTooLarge},
		{"cut", AppendFrame(nil, []byte("abc"))[:3], io.ErrUnexpectedEOF},
	} {
		_, err, unread := read(tc.data, 3, 9)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if tc.want == ErrFrameTooLarge && unread == 0 {
			t.Errorf("%s: the whole body was read", tc.name)
		}
	}
}

// TestEachFrame: every message of a datagram in order, stopping when told
// to, and ErrFrame for framing that does not hold together.
func TestEachFrame(t *testing.T) {
	d := AppendFrame(AppendFrame(AppendFrame(nil, []byte("a")), []byte("bc")), []byte("d"))
	var got []string
	all := EachFrame(d, func(m []byte, err error) bool { got = append(got, string(m)); return len(got) < 2 })
	if all || strings.Join(got, ",") != "a,bc" {
		t.Fatalf("got %q (all %v), want a, bc and a stop after the second", got, all)
	}
	var last error
	if EachFrame(append(d, 5, 'x'), func(_ []byte, err error) bool { last = err; return true }) || !errors.Is(last, ErrFrame) {
		t.Fatalf("a length past the end: %v, want ErrFrame", last)
	}
}
