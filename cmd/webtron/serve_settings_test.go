//go:build !js

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webtron/internal/aamaptest"
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

// TestServeMapFile checks MAP_FILE: a settings file's (a resource path under
// Armagetron's included maps, with its settings applied over the file's), a
// map beside the settings file, --map-file winning over both, and a missing
// or bad map refusing to start with the reason.
func TestServeMapFile(t *testing.T) {
	aamaptest.Paths(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.cfg")
	os.WriteFile(file, []byte("WIN_ZONE_EXPANSION 2\nMAP_FILE Z-Man/fortress/for_old_clients-0.1.0.aamap.xml\n"), 0o644)
	cfg, opt, err := parseServe([]string{"--settings", file})
	if err != nil {
		t.Fatal(err)
	}
	// for_old_clients sets WIN_ZONE_EXPANSION 0 and has two spawn points.
	if m := cfg.Rules.Map; m == nil || len(m.Spawns) != 2 || len(m.Zones) != 2 || cfg.Rules.WinZoneExpansion != 0 {
		t.Fatalf("map %+v, WIN_ZONE_EXPANSION %d", cfg.Rules.Map, cfg.Rules.WinZoneExpansion)
	}
	if !strings.Contains(strings.Join(opt.warnings, "\n"), "TEAMS_MIN") {
		t.Errorf("warnings %q: want the map's TEAMS_MIN named", opt.warnings)
	}
	own := filepath.Join(dir, "tri.aamap.xml")
	os.WriteFile(own, []byte(`<Resource type="aamap" name="tri" version="1"><Map version="2"><World><Field>
<Spawn x="100" y="50" xdir="0" ydir="1"/>
<Wall><Point x="0" y="0"/><Point x="300" y="0"/><Point x="0" y="300"/><Point x="0" y="0"/></Wall>
</Field></World></Map></Resource>`), 0o644)
	os.WriteFile(file, []byte("MAP_FILE tri.aamap.xml\n"), 0o644)
	if cfg, _, err = parseServe([]string{"--settings", file}); err != nil || len(cfg.Rules.Map.Walls) != 3 {
		t.Fatalf("a map beside the settings file: %v", err)
	}
	cfg, _, err = parseServe([]string{"--settings", file, "--map-file", "Anonymous/polygon/regular/diamond-1.0.2.aamap.xml"})
	if err != nil || len(cfg.Rules.Map.Spawns) != 12 {
		t.Fatalf("--map-file wins: %v", err)
	}
	if cfg, _, err = parseServe([]string{"--map-file", own}); err != nil || len(cfg.Rules.Map.Walls) != 3 {
		t.Fatalf("--map-file without --settings: %v", err)
	}
	if _, _, err := parseServe([]string{"--map-file", "nowhere.aamap.xml"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing map: %v", err)
	}
	os.WriteFile(own, []byte(`<Resource type="aamap"><Map version="2"><World><Field></Field></World></Map></Resource>`), 0o644)
	if _, _, err := parseServe([]string{"--map-file", own}); err == nil || !strings.Contains(err.Error(), "no Spawn") {
		t.Errorf("bad map: %v", err)
	}
}
