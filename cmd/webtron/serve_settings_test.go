//go:build !js

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webtron/sim"
)

// TestServeSettings: --settings applies a settings file's rules and knobs;
// flags given explicitly win over its knobs; a bad file is an error naming
// the line.
func TestServeSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.cfg")
	os.WriteFile(file, []byte("CYCLE_SPEED 40\nBOTS 1\nSEATS 4\nAI_IQ 30\nNO_SUCH_THING 3\n"), 0o644)
	cfg, opt, err := parseServe([]string{"--settings", file})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Rules == nil || cfg.Rules.BaseSpeed != 40*sim.Meter || cfg.Bots != 1 || cfg.Seats != 4 || cfg.BotSkill != 30 {
		t.Fatalf("rules %+v, bots %d, seats %d, skill %d", cfg.Rules, cfg.Bots, cfg.Seats, cfg.BotSkill)
	}
	if len(opt.warnings) != 1 || !strings.Contains(opt.warnings[0], "NO_SUCH_THING") {
		t.Fatalf("warnings %q", opt.warnings)
	}
	cfg, _, err = parseServe([]string{"--settings", file, "--bots", "2", "--bot-skill", "60"})
	if err != nil || cfg.Bots != 2 || cfg.Seats != 4 || cfg.BotSkill != 60 {
		t.Fatalf("--bots 2 --bot-skill 60 with the file: bots %d seats %d skill %d, %v", cfg.Bots, cfg.Seats, cfg.BotSkill, err)
	}
	os.WriteFile(file, []byte("# ok\nCYCLE_SPEED fast\n"), 0o644)
	if _, _, err := parseServe([]string{"--settings", file}); err == nil || !strings.Contains(err.Error(), "s.cfg:2") {
		t.Fatalf("bad value: %v, want an error naming line 2", err)
	}
}
