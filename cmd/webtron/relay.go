package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"webtron/relay"
)

func init() {
	commands["relay"] = command{summary: "forward TCP (and UDP with --udp) with added delay, jitter and loss", run: runRelay}
}

// runRelay runs a relay until SIGINT or SIGTERM. The machines we test on have
// no netem, so this is how a game is played over an emulated slow link:
//
//	webtron relay --listen 127.0.0.1:9001 --to 127.0.0.1:8080 --delay 80ms --jitter 5ms --loss 1%
//	webtron relay --udp ...    # also UDP on port 9001 -> 8080: WebTransport through the relay
func runRelay(args []string) error {
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	// The flag package would print a parse error and then main would print
	// it again; keep its output for -h only.
	fs.SetOutput(io.Discard)
	cfg, err := relay.ParseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stderr)
		fmt.Fprintln(os.Stderr, "usage: webtron relay --to host:port [flags]")
		fs.PrintDefaults()
		return nil
	}
	if err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := relay.Start(ctx, cfg)
	if err != nil {
		return err
	}
	proto := "tcp"
	if cfg.UDP {
		proto = "tcp and udp"
	}
	fmt.Printf("relay listening on %s (%s), forwarding to %s\n", r.Addr(), proto, cfg.To)
	cfg.Logger.Info("relay: started", "listen", r.Addr(), "to", cfg.To,
		"up", describe(cfg.Up), "down", describe(cfg.Down), "seed", cfg.Seed, "udp", cfg.UDP)
	<-ctx.Done()
	cfg.Logger.Info("relay: stopping", "stats", fmt.Sprintf("%+v", r.Stats()))
	return r.Close()
}

func describe(d relay.Direction) string {
	return fmt.Sprintf("delay=%v jitter=%v loss=%g%% rto=%v", d.Delay, d.Jitter, d.Loss*100, d.RTO)
}
