package main

import (
	"flag"
	"fmt"
	"os"

	"webtron/settings"
	"webtron/sim"
)

func init() {
	commands["settings"] = command{summary: "print every setting with its default and meaning (a settings file)", run: runSettings}
}

// runSettings prints the settings `webtron serve --settings` reads, as a
// settings file: a comment with each one's meaning, then `NAME value`. With
// --settings FILE the values are FILE's (checked, warnings on stderr).
func runSettings(args []string) error {
	fs := flag.NewFlagSet("settings", flag.ContinueOnError)
	file := fs.String("settings", "", "show the values of this settings file instead of the defaults")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg, srv := sim.DefaultConfig(), settings.DefaultServer()
	if *file != "" {
		f, err := settings.Load(*file)
		if err != nil {
			return err
		}
		for _, w := range f.Warnings {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
		cfg, srv = f.Sim, f.Server
	}
	fmt.Println("# Webtron's settings, in Armagetron Advanced's format (docs/physics.md).")
	fmt.Println("# Names without SP_ apply while two humans or more are present, SP_ names otherwise.")
	return settings.Write(os.Stdout, settings.List(cfg, srv))
}
