package proto

import (
	"errors"
	"reflect"
	"testing"

	"webtron/sim"
)

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// re-encodes to something that decodes to the same message: the encoder and
// the decoder agree on every limit and every rule.
func FuzzDecode(f *testing.F) {
	for _, m := range samples() {
		b, err := Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, m := range maximal() {
		if m.Type() == TypeWelcome || m.Type() == TypeResync {
			continue // a megabyte seed would slow every fuzzing round
		}
		b, _ := Marshal(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			if m != nil {
				t.Fatalf("Decode returned both %+v and %v", m, err)
			}
			if !isSentinel(err) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if len(b) > MaxSize(m.Type()) {
			t.Fatalf("accepted %d bytes > MaxSize %d", len(b), MaxSize(m.Type()))
		}
		b2, err := Marshal(m)
		if err != nil {
			t.Fatalf("decoded %+v but cannot re-encode it: %v", m, err)
		}
		m2, err := Decode(b2)
		if err != nil {
			t.Fatalf("re-encoded %+v does not decode: %v", m, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed the message:\n got %+v\nwant %+v", m2, m)
		}
	})
}

func isSentinel(err error) bool {
	for _, s := range []error{ErrUnknownType, ErrVersion, ErrTruncated, ErrTooLarge, ErrInvalid} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// TestTruncated cuts valid encodings at every length: each prefix is
// ErrTruncated, because no message ends early (there are no optional
// trailing fields) and every count is checked against the bytes left.
func TestTruncated(t *testing.T) {
	msgs := samples()
	for _, m := range maximal() {
		if m.Type() != TypeWelcome && m.Type() != TypeResync {
			msgs = append(msgs, m) // the megabyte ones would take O(n²) here
		}
	}
	for _, m := range msgs {
		b, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(b) {
			got, err := Decode(b[:n:n])
			if !errors.Is(err, ErrTruncated) || got != nil {
				t.Fatalf("%v cut to %d of %d bytes: got %v, %v; want ErrTruncated", m.Type(), n, len(b), got, err)
			}
		}
	}
}

func benchAccepted() *Accepted {
	m := &Accepted{Seq: 1042}
	for i := range 8 {
		m.Events = append(m.Events, ev(36_000+uint64(i/3), sim.EvTurnLeft+sim.EventKind(i%4), uint8(i), 500+uint32(i), 0))
	}
	return m
}

func benchHeartbeat() *Heartbeat {
	m := &Heartbeat{Tick: 36_000, Time: 600_000_000, Seq: 1042}
	for i := range 8 {
		m.Players = append(m.Players, HeartbeatPlayer{Player: uint8(i), Final: 35_994 + uint64(i%3),
			Lead: 25_000 + 1000*uint32(i), Margin: int32(i-4) * 700})
	}
	return m
}

func benchRoundTrip(b *testing.B, m Message) {
	buf, err := Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		buf, err = Append(buf[:0], m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(buf)), "wire-bytes")
}

// BenchmarkAccepted8 encodes and decodes an Accepted batch of 8 events.
func BenchmarkAccepted8(b *testing.B) { benchRoundTrip(b, benchAccepted()) }

// BenchmarkHeartbeat8 encodes and decodes a Heartbeat of 8 players.
func BenchmarkHeartbeat8(b *testing.B) { benchRoundTrip(b, benchHeartbeat()) }
