package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"webtron/clock"
	"webtron/lab"
)

func init() {
	commands["lab"] = command{summary: "run a server and headless clients on a virtual network and report perceived lags", run: runLab}
}

func runLab(args []string) error {
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	ping := fs.String("ping", "60,160", "round-trip time of each client in ms, comma-separated; client ids follow this order from 1")
	jitter := fs.String("jitter", "0ms", "extra random one-way delay per message, up to this (Go duration)")
	loss := fs.String("loss", "0%", "message loss per direction (percentage)")
	charity := fs.String("charity", "50ms", "ping charity: a duration, auto, or 0")
	cap := fs.String("charity-cap", "250ms", "largest charity auto may give")
	rule := fs.String("charity-rule", "ours", "ours or armagetron")
	mind := fs.String("mind-reader", "on", "negative input delay: on or off")
	queue := fs.String("input-queue-latency", "0ms", "simulated browser input-queue latency (Go duration)")
	duration := fs.String("duration", "120s", "game time to simulate (Go duration)")
	seed := fs.Uint64("seed", 1, "random seed")
	tickRate := fs.Int64("tick-rate", 120, "ticks per second")
	datagram := fs.Bool("datagram", false, "unreliable datagrams instead of a reliable stream")
	twice := fs.Bool("twice", false, "with --datagram, the server sends each Accepted twice (as its WebTransport link does on a lossy path)")
	bots := fs.Int("bots", 0, "server bots in the room besides the clients")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	placement := fs.Bool("placement", false, "instead: play each of the regions scenarios (docs/deploy.md) on every candidate server and print where clock.Policy.Place puts the room against the lab's best")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *placement {
		return runPlacement(*duration, *seed)
	}
	o := lab.Options{Seed: *seed, TickRate: *tickRate, Datagram: *datagram, Twice: *twice, Bots: *bots}
	var err error
	if o.Pings, err = lab.ParsePings(*ping); err != nil {
		return err
	}
	if o.Jitter, err = lab.ParseDuration("jitter", *jitter); err != nil {
		return err
	}
	if o.Loss, err = lab.ParseLoss(*loss); err != nil {
		return err
	}
	if o.Charity, err = clock.ParseCharity(*charity); err != nil {
		return fmt.Errorf("--charity: %w", err)
	}
	if o.CharityCap, err = lab.ParseDuration("charity-cap", *cap); err != nil {
		return err
	}
	if o.Rule, err = lab.ParseRule(*rule); err != nil {
		return err
	}
	if o.MindReader, err = lab.ParseOnOff("mind-reader", *mind); err != nil {
		return err
	}
	if o.QueueLatency, err = lab.ParseDuration("input-queue-latency", *queue); err != nil {
		return err
	}
	if o.Duration, err = lab.ParseDuration("duration", *duration); err != nil {
		return err
	}
	if o.Duration == 0 {
		return fmt.Errorf("--duration must be positive")
	}
	if *tickRate < 10 || *tickRate > 1000 {
		return fmt.Errorf("--tick-rate must be 10..1000")
	}
	start := time.Now()
	r, err := lab.Run(o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	r.Print(os.Stdout)
	fmt.Fprintf(os.Stdout, "(%.0fs of game time in %.2fs)\n", o.Duration.Seconds(), time.Since(start).Seconds())
	return nil
}

// runPlacement prints the placement table of docs/deploy.md.
func runPlacement(duration string, seed uint64) error {
	d, err := lab.ParseDuration("duration", duration)
	if err != nil {
		return err
	}
	var rs []lab.PlacementResult
	for _, sc := range lab.PlacementScenarios() {
		r, err := lab.MeasurePlacement(sc, d, seed)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	lab.PrintPlacement(os.Stdout, rs)
	return nil
}
