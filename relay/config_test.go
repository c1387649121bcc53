package relay

import (
	"context"
	"flag"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // "" for valid
	}{
		{"zero directions", Config{To: "x:1"}, ""},
		{"jitter above delay", Config{To: "x:1", Up: Direction{Delay: 5 * ms, Jitter: 50 * ms}}, ""},
		{"full loss, long rto", Config{To: "x:1", Down: Direction{Loss: 1, RTO: time.Second}}, ""},
		{"no destination", Config{}, "relay: no forwarding address"},
		{"negative delay", Config{To: "x:1", Up: Direction{Delay: -ms}}, "relay: up delay -1ms is negative"},
		{"negative jitter", Config{To: "x:1", Down: Direction{Jitter: -ms}}, "relay: down jitter -1ms is negative"},
		{"loss above 1", Config{To: "x:1", Up: Direction{Loss: 1.5}}, "relay: up loss 1.5 is outside 0..1"},
		{"negative loss", Config{To: "x:1", Down: Direction{Loss: -0.1}}, "relay: down loss -0.1 is outside"},
		{"NaN loss", Config{To: "x:1", Up: Direction{Loss: math.NaN()}}, "relay: up loss NaN"},
		{"rto below Linux minimum", Config{To: "x:1", Up: Direction{RTO: 50 * ms}}, "relay: up rto 50ms is below the minimum 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if got := errString(err); !strings.HasPrefix(got, tt.wantErr) || (tt.wantErr == "") != (err == nil) {
				t.Errorf("got %q, want %q", got, tt.wantErr)
			}
			if err == nil {
				return
			}
			if r, err := Start(context.Background(), tt.cfg); err == nil {
				r.Close()
				t.Errorf("Start: got no error, want %q", tt.wantErr)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	sym := func(d Direction) Direction {
		if d.RTO == 0 {
			d.RTO = DefaultRTO
		}
		return d
	}
	tests := []struct {
		name     string
		args     string
		up, down Direction
		wantErr  string
	}{
		{"defaults", "--to h:1", sym(Direction{}), sym(Direction{}), ""},
		{"symmetric", "--to h:1 --delay 80ms --jitter 5ms --loss 1%",
			sym(Direction{Delay: 80 * ms, Jitter: 5 * ms, Loss: 0.01}), sym(Direction{Delay: 80 * ms, Jitter: 5 * ms, Loss: 0.01}), ""},
		{"bare number is percent", "--to h:1 --loss 0.5", sym(Direction{Loss: 0.005}), sym(Direction{Loss: 0.005}), ""},
		{"overrides", "--to h:1 --delay 30ms --loss 2% --up-delay 10ms --down-jitter 3ms --down-loss 0% --rto 1s",
			Direction{Delay: 10 * ms, Loss: 0.02, RTO: time.Second}, Direction{Delay: 30 * ms, Jitter: 3 * ms, RTO: time.Second}, ""},
		{"override order does not matter", "--up-delay 10ms --to h:1 --delay 30ms",
			sym(Direction{Delay: 10 * ms}), sym(Direction{Delay: 30 * ms}), ""},
		{"missing --to", "--delay 80ms", Direction{}, Direction{}, "relay: --to is required"},
		{"malformed delay", "--to h:1 --delay 80", Direction{}, Direction{}, `relay: invalid value "80" for flag -delay: want a duration`},
		{"negative up delay", "--to h:1 --up-delay -5ms", Direction{}, Direction{}, `relay: invalid value "-5ms" for flag -up-delay: duration must not be negative`},
		{"malformed jitter", "--to h:1 --down-jitter fast", Direction{}, Direction{}, `relay: invalid value "fast" for flag -down-jitter`},
		{"malformed loss", "--to h:1 --loss lots", Direction{}, Direction{}, `relay: invalid value "lots" for flag -loss: want a percentage`},
		{"loss above 100%", "--to h:1 --up-loss 150%", Direction{}, Direction{}, `relay: invalid value "150%" for flag -up-loss: 150% is outside 0..100%`},
		{"negative loss", "--to h:1 --down-loss -1%", Direction{}, Direction{}, `relay: invalid value "-1%" for flag -down-loss`},
		{"rto below minimum", "--to h:1 --rto 100ms", Direction{}, Direction{}, `relay: invalid value "100ms" for flag -rto: must be at least 200ms`},
		{"unknown flag", "--to h:1 --latency 5ms", Direction{}, Direction{}, "relay: flag provided but not defined: -latency"},
		{"stray argument", "--to h:1 80ms", Direction{}, Direction{}, `relay: unexpected argument "80ms"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("relay", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			cfg, err := ParseArgs(fs, strings.Fields(tt.args))
			if got := errString(err); !strings.HasPrefix(got, tt.wantErr) || (tt.wantErr == "") != (err == nil) {
				t.Fatalf("got error %q, want %q", got, tt.wantErr)
			}
			if err != nil {
				return
			}
			if cfg.Up != tt.up || cfg.Down != tt.down {
				t.Errorf("got up %+v down %+v, want up %+v down %+v", cfg.Up, cfg.Down, tt.up, tt.down)
			}
		})
	}
}

func TestParseArgsHelp(t *testing.T) {
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := ParseArgs(fs, []string{"-h"}); err != flag.ErrHelp {
		t.Errorf("got %v, want flag.ErrHelp", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The schedule is the relay's contract, checked here without a clock: times
// never go backwards, never come before arrival + delay - jitter, a held
// chunk waits out the RTO, and a seed repeats its run.
func TestScheduleIsOrderedAndRepeatable(t *testing.T) {
	d := Direction{Delay: 10 * ms, Jitter: 20 * ms, Loss: 0.3}
	run := func(seed uint64) (releases []time.Time, held []bool) {
		r := &Relay{cfg: Config{Seed: seed}}
		r.dirs.Store(&[2]Direction{d, d})
		p := &pipe{c: &conn{r: r, id: 1}, dir: up}
		p.rng = newPipeRand(seed, 1, up)
		arrival := epoch
		for i := range 2000 {
			arrival = arrival.Add(time.Duration(i%7) * ms / 2)
			before := p.held.Load()
			rel := p.releaseTime(arrival)
			wasHeld := p.held.Load() > before
			if len(releases) > 0 && rel.Before(releases[len(releases)-1]) {
				t.Fatalf("chunk %d: release went backwards", i)
			}
			if floor := arrival.Add(max(0, d.Delay-d.Jitter)); rel.Before(floor) {
				t.Fatalf("chunk %d: released %v after arrival, want >= %v", i, rel.Sub(arrival), d.Delay-d.Jitter)
			}
			if wasHeld && rel.Sub(arrival) < DefaultRTO {
				t.Fatalf("chunk %d: held, but released %v after arrival", i, rel.Sub(arrival))
			}
			releases, held = append(releases, rel), append(held, wasHeld)
		}
		return releases, held
	}
	a, heldA := run(42)
	b, _ := run(42)
	c, _ := run(43)
	nHeld := 0
	for i := range a {
		if !a[i].Equal(b[i]) {
			t.Fatalf("chunk %d: same seed, got releases %v and %v", i, a[i].Sub(epoch), b[i].Sub(epoch))
		}
		if heldA[i] {
			nHeld++
		}
	}
	if n := len(heldA); nHeld < n/5 || nHeld > n*2/5 {
		t.Errorf("got %d of %d chunks held at 30%% loss, want about %d", nHeld, n, n*3/10)
	}
	same := 0
	for i := range a {
		if a[i].Equal(c[i]) {
			same++
		}
	}
	if same == len(a) {
		t.Error("seeds 42 and 43 gave the same schedule")
	}
}
