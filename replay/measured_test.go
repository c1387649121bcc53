package replay

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"testing"
	"time"

	"webtron/history"
)

// TestReadsVersion1 reads a file written by the version-1 writer (before
// issue 16). Re-simulating it needs the simulation rules it was recorded
// under, which may since have changed: that is TestVersion1Verifies's part.
func TestReadsVersion1(t *testing.T) {
	f, err := ReadFile("testdata/v1-round.wtr")
	if err != nil {
		t.Fatal(err)
	}
	r := &f.Record
	if f.Version != 1 || f.Kind != KindRound || f.Room != "lobby" || f.Round != 3 || r.StartTick != 1 || r.EndTick != 24880 ||
		len(r.Events) != 385 || len(r.Hashes) != 415 || len(f.Names) != 4 || f.Names[3] != "Sark (bot)" {
		t.Fatalf("version %d %v room %q round %d ticks %d..%d, %d events, %d hashes, names %q",
			f.Version, f.Kind, f.Room, f.Round, r.StartTick, r.EndTick, len(r.Events), len(r.Hashes), f.Names)
	}
	if r.Decided || r.Winner != -1 || r.Bots != nil || r.Net != nil || r.Timing != nil {
		t.Fatalf("decided %v, winner %d, bots %v, %d net samples, %d timings: a version-1 file knows none",
			r.Decided, r.Winner, r.Bots, len(r.Net), len(r.Timing))
	}
}

// asVersion1 rewrites a file as the version-1 writer wrote it: the same
// sections without the version-2 ones.
func asVersion1(t *testing.T, b []byte) []byte {
	return rewrite(t, b, append([]byte(Magic), 1, 0, 0, 0, 0), func(tag byte) bool { return tag < tagResult }, nil)
}

// rewrite returns the file b as another writer would have written it: the
// given header, the sections keep accepts, then what tail appends (if not
// nil), its length and checksum fixed.
func rewrite(t *testing.T, b, header []byte, keep func(tag byte) bool, tail func([]byte) []byte) []byte {
	t.Helper()
	out := append([]byte(nil), header...)
	r := reader{b: b[headerLen : len(b)-4]}
	for len(r.b) > 0 {
		tag := r.u8("tag")
		payload := r.bytes("section", r.uvarint("length"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if keep(tag) {
			out = appendSection(out, tag, payload)
		}
	}
	if tail != nil {
		out = tail(out)
	}
	binary.LittleEndian.PutUint32(out[len(Magic)+1:], uint32(len(out)+4))
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// TestVersion1Verifies: a version-1 file of a round played now re-simulates,
// and Verify works out the result the file does not state.
func TestVersion1Verifies(t *testing.T) {
	f := sampleFile(t)
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Unmarshal(asVersion1(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if g.Version != 1 || g.Record.Timing != nil || g.Record.Decided {
		t.Fatalf("version %d, %d timings, decided %v", g.Version, len(g.Record.Timing), g.Record.Decided)
	}
	s, err := Verify(g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Decided != f.Record.Decided || s.Winner != f.Record.Winner {
		t.Fatalf("re-simulated decided %v winner %d, the room recorded %v %d", s.Decided, s.Winner, f.Record.Decided, f.Record.Winner)
	}
}

// measuredFile is a played round with every version-2 section filled.
func measuredFile(t testing.TB) *File {
	f := sampleFile(t)
	r := &f.Record
	r.Bots = make([]bool, 32)
	r.Bots[1], r.Bots[3] = true, true
	r.Net = []history.NetSample{
		{Tick: r.StartTick, Player: 0, Lead: 30 * time.Millisecond, Leniency: 12345 * time.Microsecond, OneWay: 30 * time.Millisecond, Jitter: 2 * time.Millisecond, Ahead: -1500 * time.Microsecond},
		{Tick: r.StartTick, Player: 2, Lead: 80 * time.Millisecond, OneWay: 80 * time.Millisecond},
		{Tick: r.StartTick + 500, Player: 2, Lead: 70 * time.Millisecond, Leniency: 10 * time.Millisecond, OneWay: 80500 * time.Microsecond, Ahead: 74 * time.Millisecond},
	}
	return f
}

func TestMeasuredRoundTrip(t *testing.T) {
	f := measuredFile(t)
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := stored(f); !reflect.DeepEqual(*g, want) {
		t.Fatalf("round trip differs:\n got bots %v net %v decided %v winner %d\nwant bots %v net %v decided %v winner %d",
			g.Record.Bots, g.Record.Net, g.Record.Decided, g.Record.Winner, want.Record.Bots, want.Record.Net, want.Record.Decided, want.Record.Winner)
	}
	if _, err := Verify(g); err != nil {
		t.Fatal(err)
	}
}

// TestResultMustMatch: the winner a file states (which the list of replays
// shows without re-simulating) is checked against the re-simulation.
func TestResultMustMatch(t *testing.T) {
	f := measuredFile(t)
	if !f.Record.Decided {
		t.Fatal("the sample round was not decided")
	}
	for _, c := range []struct {
		decided bool
		winner  int
	}{{true, (f.Record.Winner + 1) % 4}, {false, -1}} {
		f.Record.Decided, f.Record.Winner = c.decided, c.winner
		b, err := Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(g); !errors.Is(err, ErrMismatch) {
			t.Errorf("decided %v, winner %d: %v", c.decided, c.winner, err)
		}
	}
}

// TestMeasuredRefused: what the reader would refuse is not written.
func TestMeasuredRefused(t *testing.T) {
	for name, spoil := range map[string]func(r *history.RoundRecord){
		"timings short":        func(r *history.RoundRecord) { r.Timing = r.Timing[1:] },
		"asked after its tick": func(r *history.RoundRecord) { r.Timing[0].Asked = r.Events[0].Tick + 1 },
		"broadcast before accepted": func(r *history.RoundRecord) {
			r.Timing[0].Broadcast = r.Timing[0].Accepted - time.Millisecond
		},
		"sample out of order": func(r *history.RoundRecord) { r.Net[1].Tick = r.StartTick - 1 },
		"sample player":       func(r *history.RoundRecord) { r.Net[0].Player = 40 },
		"negative latency":    func(r *history.RoundRecord) { r.Net[0].OneWay = -time.Millisecond },
		"winner":              func(r *history.RoundRecord) { r.Winner = 32 },
	} {
		f := measuredFile(t)
		spoil(&f.Record)
		if _, err := Marshal(f); err == nil {
			t.Errorf("%s: written", name)
		}
	}
}
