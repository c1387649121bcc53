//go:build !js

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"webtron/headless"
)

func init() {
	commands["bots"] = command{summary: "connect headless bot players to a server (load test)", run: runBots}
}

// runBots plays --count headless players against a running server for
// --duration and prints what they saw. It fails on any desync, protocol
// error, failed connection or drop, so it doubles as a smoke test:
//
//	webtron bots --url ws://127.0.0.1:8080 --count 16 --rooms 2 --duration 30s
//	webtron bots --url ws://127.0.0.1:8080 --count 4 --room shared --prefix a-   # several processes meet
//	webtron bots --url ws://127.0.0.1:8080 --count 12 --rooms 3 --churn 40s --duration 30m   # people come and go (scripts/soak.sh)
//
// The load test (1,000 players in 125 rooms of 8; the server's tick
// lateness, CPU and memory come from its /metrics, --pprof profiles it):
//
//	go run ./cmd/webtron serve --addr 127.0.0.1:8099 --bots 0 --max-rooms 200 --max-conns-per-addr 0 --rooms-per-addr 0 --pprof 127.0.0.1:6099 &
//	go run ./cmd/webtron bots --url ws://127.0.0.1:8099 --count 1000 --rooms 125 --duration 60s --json
//	curl -s 127.0.0.1:8099/metrics | grep -E 'webtron_tick_lateness|process_(cpu|resident)'
func runBots(args []string) error {
	fs := flag.NewFlagSet("bots", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := headless.SwarmOptions{}
	fs.StringVar(&o.URL, "url", "ws://127.0.0.1:8080", "server WebSocket URL (the /ws path is added when missing)")
	fs.IntVar(&o.Count, "count", 8, "players")
	fs.IntVar(&o.Rooms, "rooms", 1, "rooms to spread the players over (bots-1..bots-R)")
	fs.StringVar(&o.Room, "room", "", "put every player in this one room instead")
	fs.StringVar(&o.Map, "map", "", "the map of the rooms the players open (an id of the server's /api/maps; default: the server's)")
	fs.StringVar(&o.Prefix, "prefix", "bot-", "player name prefix (names are PREFIX1..PREFIXN)")
	fs.DurationVar(&o.Duration, "duration", 30*time.Second, "how long to play once connected")
	fs.DurationVar(&o.Frame, "frame", time.Second/240, "client frame interval")
	fs.DurationVar(&o.BrakeEvery, "brake-every", 300*time.Millisecond, "mean interval of extra brake taps (0: none)")
	fs.BoolVar(&o.MindReader, "mind-reader", false, "negative input delay")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the bots and their timing")
	fs.IntVar(&o.Parallel, "parallel", 16, "connections opened at once")
	fs.StringVar(&o.Transport, "transport", headless.WebTransport, "webtransport (falls back to the websocket within 1 s, as the browser does) or websocket")
	fs.BoolVar(&o.Idle, "idle", false, "the players never press a key (a quiet room, for bandwidth measurements)")
	turnEvery := fs.String("turn-every", "", "turn by a script instead of the bot: left and right alternately, every MIN-MAX (e.g. 400ms-1.2s) or every D, while alive (scripts/vs-armagetron.sh)")
	churn := fs.Duration("churn", 0, "players come and go: each stays this long on average, is away up to as long, and comes back with its reconnect token or as a newcomer (0: everyone stays for --duration)")
	origin := fs.String("origin", "", "Origin header to send (default: none, as a non-browser client)")
	rejoin := fs.String("rejoin", "", "comma-separated server URLs (a cluster's nodes): a player whose connection drops, or whom the server tells to rejoin, comes back by itself through them in turn with its reconnect token, as a page does")
	asJSON := fs.Bool("json", false, "print the report as JSON (pairs as in the lab's report)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process to the file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "usage: webtron bots [flags]")
			fs.SetOutput(os.Stderr)
			fs.PrintDefaults()
			return nil
		}
		return err
	}
	o.Rejoin = splitList(*rejoin)
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.Count < 1:
		return fmt.Errorf("--count %d: need at least one player", o.Count)
	case o.Rooms < 1:
		return fmt.Errorf("--rooms %d: need at least one room", o.Rooms)
	case o.Duration <= 0:
		return fmt.Errorf("--duration %v: must be positive", o.Duration)
	case *churn < 0:
		return fmt.Errorf("--churn %v: must not be negative", *churn)
	case o.Transport != headless.WebTransport && o.Transport != headless.WebSocket:
		return fmt.Errorf("--transport %q: want webtransport or websocket", o.Transport)
	case !strings.HasPrefix(o.URL, "ws://") && !strings.HasPrefix(o.URL, "wss://"):
		return fmt.Errorf("--url %q: want ws://host:port or wss://host:port", o.URL)
	}
	if *turnEvery != "" {
		var err error
		if o.TurnEvery, err = parseInterval(*turnEvery); err != nil {
			return fmt.Errorf("--turn-every %q: %w", *turnEvery, err)
		}
	}
	if *origin != "" {
		o.Header = map[string][]string{"Origin": {*origin}}
	}
	o.Progress = func(format string, a ...any) { fmt.Fprintf(os.Stderr, "bots: "+format+"\n", a...) }
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *churn > 0 {
		r, err := headless.Churn(ctx, headless.ChurnOptions{SwarmOptions: o, Session: *churn})
		if err != nil {
			return err
		}
		if err := printReport(r, r.Print, *asJSON); err != nil {
			return err
		}
		return r.Check()
	}
	r, err := headless.Swarm(ctx, o)
	if err != nil {
		return err
	}
	if err := printReport(r, r.Print, *asJSON); err != nil {
		return err
	}
	return r.Check()
}

// printReport writes r as indented JSON, or as its text.
func printReport(r any, text func(io.Writer), asJSON bool) error {
	if !asJSON {
		text(os.Stdout)
		return nil
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// parseInterval reads "D" or "MIN-MAX" (Go durations, 0 < MIN <= MAX).
func parseInterval(s string) ([2]time.Duration, error) {
	lo, hi, found := strings.Cut(s, "-")
	if !found {
		hi = lo
	}
	a, err := time.ParseDuration(lo)
	if err != nil {
		return [2]time.Duration{}, err
	}
	b, err := time.ParseDuration(hi)
	if err != nil {
		return [2]time.Duration{}, err
	}
	if a <= 0 || b < a {
		return [2]time.Duration{}, errors.New("want 0 < MIN <= MAX")
	}
	return [2]time.Duration{a, b}, nil
}
