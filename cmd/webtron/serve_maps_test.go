//go:build !js

package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webtron/internal/aamaptest"
	"webtron/server"
	"webtron/sim"
)

// TestServeMaps: --maps (WEBTRON_MAPS) lists the stock maps a new room may
// play: all of them by default, none, or the ones named; the maps play over
// the rules before MAP_FILE's, and GET /api/maps lists the default
// (--map-file) first, once.
func TestServeMaps(t *testing.T) {
	aamaptest.Paths(t)
	const sumo = "Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml"
	cfg, _, err := parseServe(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := slices.Sorted(slices.Values(aamaptest.Stock)); !slices.Equal(cfg.Maps, want) {
		t.Fatalf("--maps all: %q, want %q", cfg.Maps, want)
	}
	if cfg, _, err = parseServe([]string{"--maps", "none"}); err != nil || cfg.Maps != nil {
		t.Fatalf("--maps none: %q, %v", cfg.Maps, err)
	}
	t.Setenv("WEBTRON_MAPS", " a/b.aamap.xml, c.aamap.xml ")
	if cfg, _, err = parseServe(nil); err != nil || !slices.Equal(cfg.Maps, []string{"a/b.aamap.xml", "c.aamap.xml"}) {
		t.Fatalf("WEBTRON_MAPS a list: %q, %v", cfg.Maps, err)
	}
	if _, err := server.New(cfg); err == nil || !strings.Contains(err.Error(), "a/b.aamap.xml") {
		t.Fatalf("a map that is not there: %v, want an error naming it", err)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "s.cfg")
	os.WriteFile(file, []byte("WIN_ZONE_EXPANSION 2\n"), 0o644)
	cfg, _, err = parseServe([]string{"--settings", file, "--map-file", sumo, "--maps", "all", "--data", ""})
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.MapRules; r == nil || r.Map != nil || r.WinZoneExpansion != 2*sim.Unit {
		t.Fatalf("the rules the maps play over: %+v, want the settings file's without a map", r)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/maps", nil))
	var maps []server.MapInfo
	if err := json.NewDecoder(rec.Body).Decode(&maps); err != nil {
		t.Fatal(err)
	}
	if len(maps) != len(aamaptest.Stock) || maps[0].ID != sumo || !maps[0].Default || maps[0].Name != "sumo_4x4" {
		t.Fatalf("/api/maps: %+v, want sumo_4x4 first as the default, then the other nine", maps)
	}
}
