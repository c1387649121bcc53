package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"webtron/clock"
)

// inGame reports whether the page shows the game (not the lobby) with a
// player of its own.
func inGame(t *testing.T, p *page) bool {
	t.Helper()
	shown, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.getElementById("lobby").hidden && !document.getElementById("game").hidden`))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return shown && p.state(t).You >= 0
}

// roomPlayers returns the humans /api/rooms lists in room, -1 when the room
// is not listed.
func roomPlayers(t *testing.T, addr, room string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/rooms")
	if err != nil {
		t.Fatalf("/api/rooms: %v", err)
	}
	defer resp.Body.Close()
	var rooms []struct {
		Name    string `json:"name"`
		Players int    `json:"players"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rooms); err != nil {
		t.Fatalf("/api/rooms: %v", err)
	}
	for _, r := range rooms {
		if r.Name == room {
			return r.Players
		}
	}
	return -1
}

// stayInGame checks every 100 ms for d that the page is still in the game,
// as one player: a second join from the same gesture took a second seat,
// and a few seconds later the second connection replaced the first and
// threw the page back to the lobby.
func stayInGame(t *testing.T, p *page, addr, room string, d time.Duration) {
	t.Helper()
	waitFor(t, "the page to join", 20*time.Second, func() bool { return inGame(t, p) })
	you := p.state(t).You
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if n := roomPlayers(t, addr, room); n != 1 {
			t.Fatalf("room %q has %d players, want the page's one", room, n)
		}
		if !inGame(t, p) {
			msg, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("lobby-msg").textContent`))
			t.Fatalf("the page left the game (lobby says %q)", msg)
		}
		if got := p.state(t).You; got != you {
			t.Fatalf("the page's player changed from %d to %d: it joined again", you, got)
		}
	}
}

// TestBrowserLobbyPlay is a newcomer's path: open the site, type a name,
// click Play (or press Enter in the name field), and stay in the game.
func TestBrowserLobbyPlay(t *testing.T) {
	browserTests(t)
	for _, how := range []string{"click", "enter"} {
		t.Run(how, func(t *testing.T) {
			addr := startServerWith(t, clock.AutoCharity, 3, 8)
			p := openPage(t, browser(t), "http://"+addr+"/") // a fresh profile: a newcomer
			name := fmt.Sprintf("Newcomer%s", how)
			submit := chromedp.Click(chromedp.ID("play"))
			if how == "enter" {
				submit = chromedp.SendKeys(chromedp.ID("name"), kb.Enter)
			}
			if err := chromedp.Do(p.ctx,
				chromedp.WaitVisible(chromedp.ID("name")),
				chromedp.SendKeys(chromedp.ID("name"), name),
				submit); err != nil {
				t.Fatal(err)
			}
			stayInGame(t, p, addr, "arena", 20*time.Second) // the lobby's default room
			p.mu.Lock()
			defer p.mu.Unlock()
			for _, e := range p.errs {
				t.Errorf("console: %s", e)
			}
		})
	}
}
