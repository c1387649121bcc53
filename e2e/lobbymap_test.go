package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/internal/aamaptest"
	"webtron/server"
)

// TestBrowserLobbyMap: whoever opens a room picks its map in the lobby's
// Map choice (#map, typed into as a person picks from a list); the page
// plays it (the 40-gon's 40 rim pieces drawn) and the room list says so. A
// second player, whose choice is sumo_4x4, types the open room's name: the
// lobby says the room keeps its map, and Play joins it as it is.
func TestBrowserLobbyMap(t *testing.T) {
	browserTests(t)
	aamaptest.Paths(t)
	const fortyGon = "Anonymous/polygon/regular/40-gon-0.2.aamap.xml"
	addr := startConfig(t, server.Config{Bots: 2, Seats: 4, Maps: aamaptest.Stock})
	mapWalls := func(p *page) int {
		n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](`window.webtron.scene() ? window.webtron.scene().map_walls : -1`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// pick types into the Map choice until it shows want's option.
	pick := func(p *page, keys, want string) {
		t.Helper()
		waitFor(t, "the lobby's maps", 10*time.Second, func() bool {
			n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#map option").length`))
			return err == nil && n == len(aamaptest.Stock)+1
		})
		if err := chromedp.Do(p.ctx, chromedp.SendKeys(chromedp.ID("map"), keys)); err != nil {
			t.Fatal(err)
		}
		if got, err := chromedp.Run(p.ctx, chromedp.Value(chromedp.ID("map"))); err != nil || !strings.HasPrefix(got, want) {
			t.Fatalf("typing %q into the Map choice chose %q (%v), want %s", keys, got, err, want)
		}
	}

	a := newcomer(t, addr, "Mapper")
	if err := chromedp.Do(a.ctx, retype("room", "polygon")); err != nil {
		t.Fatal(err)
	}
	pick(a, "40", fortyGon)
	if err := chromedp.Do(a.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Mapper in a room drawn on the 40-gon", 30*time.Second, func() bool { return inGame(t, a) && mapWalls(a) == 40 })
	resp, err := http.Get("http://" + addr + "/api/rooms")
	if err != nil {
		t.Fatal(err)
	}
	var rooms []server.RoomInfo
	json.NewDecoder(resp.Body).Decode(&rooms)
	resp.Body.Close()
	if len(rooms) != 1 || rooms[0].Name != "polygon" || rooms[0].Map != fortyGon {
		t.Fatalf("/api/rooms: %+v, want polygon on the 40-gon", rooms)
	}

	b := newcomer(t, addr, "Second")
	pick(b, "sumo_4", "Z-Man/fortress/sumo_4x4")
	waitFor(t, "the room list to show polygon's map", 10*time.Second, func() bool {
		s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('#rooms tr[data-room="polygon"] .map')?.textContent ?? ""`))
		return err == nil && s == "40-gon"
	})
	if err := chromedp.Do(b.ctx, retype("room", "polygon")); err != nil {
		t.Fatal(err)
	}
	note, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("map").disabled ? document.getElementById("map-note").textContent : ""`))
	if err != nil || !strings.Contains(note, "on 40-gon") {
		t.Fatalf("the lobby's note on an open room: %q (%v), want the Map choice off and the room's map named", note, err)
	}
	shot(t, b, "lobby-map-choice")
	if err := chromedp.Do(b.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Second in polygon, on the 40-gon", 30*time.Second, func() bool { return inGame(t, b) && mapWalls(b) == 40 })
	search, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.search`))
	if q, _ := url.ParseQuery(strings.TrimPrefix(search, "?")); err != nil || !strings.HasPrefix(q.Get("map"), "Z-Man/fortress/sumo_4x4") {
		t.Fatalf("Second's join asked for %q (%v), want sumo_4x4: the room's own map must win", search, err)
	}
	shot(t, b, "lobby-map-40-gon")
	noErrors(t, a)
	noErrors(t, b)
}
