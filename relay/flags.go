package relay

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseArgs defines the relay's flags on fs, parses args and returns the
// configuration they describe, validated. It lives here rather than in the
// command so that the flag rules are tested with the package:
//
//	--listen, --to                 addresses
//	--delay, --jitter, --loss      both directions
//	--up-delay, --up-jitter, --up-loss      client->server, overriding the above
//	--down-delay, --down-jitter, --down-loss server->client, overriding the above
//	--rto                          retransmission timeout of a lost chunk (>= 200ms)
//	--seed                         jitter and loss random source
//	--udp                          also relay UDP on the same port (loss drops datagrams)
//
// Durations are Go durations ("80ms"); loss is a percentage ("1%", "0.5%", or
// a bare "1" meaning 1%). Errors name the flag. With -h it returns
// flag.ErrHelp, after fs has printed its usage.
func ParseArgs(fs *flag.FlagSet, args []string) (Config, error) {
	cfg := Config{}
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:9001", "`address` to listen on")
	fs.StringVar(&cfg.To, "to", "", "`address` to forward connections to (required)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the jitter and loss random source")
	fs.BoolVar(&cfg.UDP, "udp", false, "also relay UDP datagrams on the same port number (QUIC, WebTransport); loss drops a datagram")
	both := dirFlags{rto: durationFlag{d: DefaultRTO, min: MinRTO}}
	both.define(fs, "", "both directions")
	upf, downf := dirFlags{}, dirFlags{}
	upf.define(fs, "up-", "client->server, overrides the symmetric flag")
	downf.define(fs, "down-", "server->client, overrides the symmetric flag")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, err
		}
		return Config{}, fmt.Errorf("relay: %w", err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("relay: unexpected argument %q", fs.Arg(0))
	}
	if cfg.To == "" {
		return Config{}, errors.New("relay: --to is required")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	pick := func(prefix string, own dirFlags) Direction {
		d := Direction{Delay: both.delay.d, Jitter: both.jitter.d, Loss: both.loss.p, RTO: both.rto.d}
		if set[prefix+"delay"] {
			d.Delay = own.delay.d
		}
		if set[prefix+"jitter"] {
			d.Jitter = own.jitter.d
		}
		if set[prefix+"loss"] {
			d.Loss = own.loss.p
		}
		return d
	}
	cfg.Up, cfg.Down = pick("up-", upf), pick("down-", downf)
	return cfg, cfg.Validate()
}

// dirFlags are the flags of one direction, or of both when prefix is empty.
type dirFlags struct {
	delay, jitter, rto durationFlag
	loss               lossFlag
}

func (f *dirFlags) define(fs *flag.FlagSet, prefix, what string) {
	fs.Var(&f.delay, prefix+"delay", "one-way `delay`, "+what)
	fs.Var(&f.jitter, prefix+"jitter", "`jitter` (uniform ±, never reorders bytes), "+what)
	fs.Var(&f.loss, prefix+"loss", "chance a chunk is held back by --rto, as a `percent`age, "+what)
	if prefix == "" {
		fs.Var(&f.rto, "rto", "retransmission `timeout` of a lost chunk, at least 200ms")
	}
}

// durationFlag is a Go duration that must not be negative nor below min.
// flag.Duration would accept "-80ms" and report bad input as "parse error".
type durationFlag struct{ d, min time.Duration }

func (f *durationFlag) String() string { return f.d.String() }

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("want a duration like 80ms or 1.5s")
	case d < 0:
		return fmt.Errorf("duration must not be negative")
	case d < f.min:
		return fmt.Errorf("must be at least %v", f.min)
	}
	f.d = d
	return nil
}

// lossFlag is a percentage held as a probability 0..1.
type lossFlag struct{ p float64 }

func (f *lossFlag) String() string { return strconv.FormatFloat(f.p*100, 'g', -1, 64) + "%" }

func (f *lossFlag) Set(s string) error {
	p, err := parseLoss(s)
	if err != nil {
		return err
	}
	f.p = p
	return nil
}

// parseLoss reads "1%", "0.5%" or a bare "1" (also percent: nobody means a
// 100% loss by "1") into a probability.
func parseLoss(s string) (float64, error) {
	num := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	pct, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(pct) || math.IsInf(pct, 0) {
		return 0, fmt.Errorf("want a percentage like 1%% or 0.5%%")
	}
	if pct < 0 || pct > 100 {
		return 0, fmt.Errorf("%v%% is outside 0..100%%", pct)
	}
	return pct / 100, nil
}
