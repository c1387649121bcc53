package replay

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"webtron/history"
)

// TestReadsVersion1 reads a file written by the version-1 writer (before
// issue 16): it re-simulates as it did then, and knows nothing measured.
func TestReadsVersion1(t *testing.T) {
	f, err := ReadFile("testdata/v1-round.wtr")
	if err != nil {
		t.Fatal(err)
	}
	r := &f.Record
	if f.Version != 1 || r.Decided || r.Winner != -1 || r.Bots != nil || r.Net != nil || r.Timing != nil {
		t.Fatalf("version %d, decided %v, winner %d, bots %v, %d net samples, %d timings",
			f.Version, r.Decided, r.Winner, r.Bots, len(r.Net), len(r.Timing))
	}
	s, err := Verify(f)
	if err != nil {
		t.Fatal(err)
	}
	if s.FinalHash != 0x86e9fafd7f897d36 || s.Winner != 3 || !s.Decided || s.Events != 385 {
		t.Fatalf("summary %+v", s)
	}
}

// measuredFile is a played round with every version-2 section filled.
func measuredFile(t testing.TB) *File {
	f := sampleFile(t)
	r := &f.Record
	r.Bots = make([]bool, 32)
	r.Bots[1], r.Bots[3] = true, true
	r.Net = []history.NetSample{
		{Tick: r.StartTick, Player: 0, Lead: 30 * time.Millisecond, Leniency: 12345 * time.Microsecond, OneWay: 30 * time.Millisecond, Jitter: 2 * time.Millisecond},
		{Tick: r.StartTick, Player: 2, Lead: 80 * time.Millisecond, OneWay: 80 * time.Millisecond},
		{Tick: r.StartTick + 500, Player: 2, Lead: 70 * time.Millisecond, Leniency: 10 * time.Millisecond, OneWay: 80500 * time.Microsecond},
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
