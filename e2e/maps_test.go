package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/aamap"
	"webtron/internal/aamaptest"
	"webtron/server"
	"webtron/sim"
)

// TestBrowserMap plays Z-Man's sumo_4x4 (a fortress map: the square with
// sixteen spawn points and four fortress zones on each of four spots) and
// checks what the page draws: a rim of the map's four wall pieces, and each
// zone the simulation keeps (FORTRESS_MAX_PER_TEAM 1: one per team, the
// others gone) drawn in 3D, with its owner; the screenshot shows the
// minimap's circles too. The bots ride for each other's fortresses: one is
// conquered (drawn so), and the kill feed tells whose fell.
func TestBrowserMap(t *testing.T) {
	browserTests(t)
	aamaptest.Paths(t)
	m, err := aamap.Load(filepath.Join(aamaptest.Dir, "Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := sim.DefaultConfig()
	if _, err := m.Apply(&rules); err != nil {
		t.Fatal(err)
	}
	addr := startConfig(t, server.Config{Rules: &rules, Bots: 4, Seats: 4})
	p := openPage(t, browser(t), "http://"+addr+"/?room=maps&spectate=1&name=watcher")
	type zone struct {
		Effect, State, Owner int
		Conquered, Radius    float64
		Drawn                bool
	}
	var scene struct {
		Tick     int64  `json:"tick"`
		MapWalls int    `json:"map_walls"`
		Zones    []zone `json:"map_zones"`
	}
	waitFor(t, "the map's rim and zones drawn in play", 60*time.Second, func() bool {
		js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron.scene())`))
		if err != nil || js == "null" {
			return false
		}
		if err := json.Unmarshal([]byte(js), &scene); err != nil {
			t.Fatal(err)
		}
		owned := 0
		for _, z := range scene.Zones {
			if z.Owner >= 0 && z.State == sim.ZoneOpen && z.Drawn {
				owned++
			}
		}
		return scene.MapWalls == 4 && len(scene.Zones) == 16 && owned >= 2
	})
	for k, z := range scene.Zones {
		if z.Effect != sim.ZoneFortress || z.Drawn != (z.State != sim.ZoneGone && z.Radius > 0) {
			t.Errorf("zone %d: %+v: a fortress, drawn while it is not gone", k, z)
		}
	}
	shot(t, p, "map-sumo-4x4")
	// Bots ride for the enemies' fortresses: a conquest shows (the minimap's
	// arc and percentage, the zone's glow) before the round ends by one.
	waitFor(t, "a fortress being conquered", 60*time.Second, func() bool {
		js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron.scene())`))
		if err != nil || js == "null" || json.Unmarshal([]byte(js), &scene) != nil {
			return false
		}
		for _, z := range scene.Zones {
			if z.Conquered > 0 && z.State == sim.ZoneOpen {
				return true
			}
		}
		return false
	})
	shot(t, p, "map-sumo-4x4-conquest")
	// The conquest makes news: the kill feed says whose fortress fell.
	waitFor(t, "the kill feed to tell of a fortress that fell", 60*time.Second, func() bool {
		s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("killfeed").textContent`))
		return err == nil && strings.Contains(s, "'s fortress fell")
	})
}
