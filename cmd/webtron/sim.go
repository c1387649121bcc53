package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"webtron/bot"
	"webtron/sim"
)

func init() {
	commands["sim"] = command{summary: "play a seeded game of bots headless and print the final hash", run: runSim}
}

// runSim plays --players bots for --ticks ticks from --seed and prints a short
// summary, then the final state hash in hex as the last line, which tests
// compare across platforms (native, GOAMD64 levels, WebAssembly).
func runSim(args []string) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	players := fs.Int("players", 8, "number of bot players (1..32)")
	ticks := fs.Int64("ticks", 12000, "ticks to simulate")
	seed := fs.Uint64("seed", 1, "random seed (spawns and bots)")
	tickRate := fs.Int64("tick-rate", 120, "ticks per second")
	quiet := fs.Bool("quiet", false, "print only the hash")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *players < 1 || *players > sim.MaxPlayers {
		return fmt.Errorf("--players must be 1..%d, got %d", sim.MaxPlayers, *players)
	}
	if *ticks < 0 {
		return errors.New("--ticks must not be negative")
	}
	cfg := sim.DefaultConfig()
	cfg.TickRate = *tickRate
	s, err := sim.NewState(cfg, *seed)
	if err != nil {
		return err
	}
	bots := make([]*bot.Bot, *players)
	var evs []sim.Event
	for p := range bots {
		bots[p] = bot.New(p, *seed+uint64(p))
		evs = append(evs, sim.Event{Kind: sim.EvJoin, Player: uint8(p)})
	}
	for t := int64(0); t < *ticks; t++ {
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		s.Step(evs)
		evs = evs[:0]
	}
	if !*quiet {
		round, match := s.Round()
		fmt.Fprintf(os.Stdout, "ticks %d  match %d  round %d  walls %d\n", s.Tick(), match, round, s.WallCount())
		for p := range bots {
			c := s.Cycle(p)
			fmt.Fprintf(os.Stdout, "player %2d  score %4d  kills %3d  deaths %3d\n", p, c.Score, c.Kills, c.Deaths)
		}
	}
	fmt.Fprintf(os.Stdout, "%016x\n", s.Hash())
	return nil
}
