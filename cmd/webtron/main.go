// Command webtron is the one binary of the game: the server (serve, the default),
// and the tools around it (sim, and the ones later issues add).
package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand. Each lives in its own file and registers itself in
// commands, so adding one never touches another's code.
type command struct {
	summary string
	run     func(args []string) error
}

// commands is filled by init functions in this package's files.
var commands = map[string]command{}

func main() {
	args := os.Args[1:]
	name := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage()
		return
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "webtron: unknown command %q\n", name)
		usage()
		os.Exit(2)
	}
	if err := cmd.run(args); err != nil {
		fmt.Fprintf(os.Stderr, "webtron %s: %v\n", name, err)
		os.Exit(1)
	}
}

func usage() {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(os.Stderr, "usage: webtron [command] [flags]  (default command: serve)")
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", n, commands[n].summary)
	}
}
