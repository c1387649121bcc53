//go:build !js

// webtron replay reads files: the command's WebAssembly build (for the
// simulation's checks in Node) leaves it out, as the replay package leaves
// out its file functions there.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"webtron/replay"
)

func init() {
	commands["replay"] = command{summary: "re-simulate a replay or desync file and check its hashes", run: runReplay}
}

// runReplay re-simulates a .wtr file from its start snapshot, checks every
// recorded hash and prints who played and who won. With --hash the final
// state hash in hex is the last line, for scripts that compare runs.
//
//	webtron replay ~/.local/share/webtron/replays/lobby/1717171717171-3.wtr
func runReplay(args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	hash := fs.Bool("hash", false, "print the final state hash in hex as the last line")
	quiet := fs.Bool("quiet", false, "print no summary (errors and --hash only)")
	// Flags may follow the file name: webtron replay FILE --hash.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(os.Stderr, "usage: webtron replay [--hash] [--quiet] FILE")
				fs.SetOutput(os.Stderr)
				fs.PrintDefaults()
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 1 {
		return fmt.Errorf("want one replay file, got %d", len(files))
	}
	f, err := replay.ReadFile(files[0])
	if err != nil {
		return err
	}
	sum, err := replay.Verify(f)
	if sum != nil && !*quiet {
		sum.Print(os.Stdout, f)
	}
	if err != nil {
		return err
	}
	if *hash {
		fmt.Printf("%016x\n", sum.FinalHash)
	}
	return nil
}
