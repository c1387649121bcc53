package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"webtron/clock"
)

// inGame reports whether the page shows the game (not the lobby) with a
// player of its own.
func inGame(t *testing.T, p *page) bool {
	t.Helper()
	return showsGame(t, p) && p.state(t).You >= 0
}

// showsGame reports whether the page shows the game screen, not the lobby.
func showsGame(t *testing.T, p *page) bool {
	t.Helper()
	shown, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.getElementById("lobby").hidden && !document.getElementById("game").hidden`))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return shown
}

// showsLobby reports whether the page shows the lobby and nothing of the game.
func showsLobby(t *testing.T, p *page) bool {
	t.Helper()
	shown, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`!document.getElementById("lobby").hidden && document.getElementById("game").hidden`))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return shown
}

// population is a room's entry in /api/rooms.
type population struct {
	Name       string `json:"name"`
	Players    int    `json:"players"`
	Spectators int    `json:"spectators"`
}

// roomPop returns room's population from /api/rooms; Players is -1 when the
// room is not listed.
func roomPop(t *testing.T, addr, room string) population {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/rooms")
	if err != nil {
		t.Fatalf("/api/rooms: %v", err)
	}
	defer resp.Body.Close()
	var rooms []population
	if err := json.NewDecoder(resp.Body).Decode(&rooms); err != nil {
		t.Fatalf("/api/rooms: %v", err)
	}
	for _, r := range rooms {
		if r.Name == room {
			return r
		}
	}
	return population{Name: room, Players: -1}
}

// roomPlayers returns the humans /api/rooms lists in room, -1 when the room
// is not listed.
func roomPlayers(t *testing.T, addr, room string) int {
	t.Helper()
	return roomPop(t, addr, room).Players
}

// stayInGame checks every 100 ms for d that the page is still in the game,
// as one player: a second join from the same gesture took a second seat,
// and a few seconds later the second connection replaced the first and
// threw the page back to the lobby. It returns the page's player id.
func stayInGame(t *testing.T, p *page, addr, room string, d time.Duration) int {
	t.Helper()
	return stayInGameWith(t, p, addr, room, 1, d)
}

// stayInGameWith is stayInGame in a room that has humans players, the page's
// included.
func stayInGameWith(t *testing.T, p *page, addr, room string, humans int, d time.Duration) int {
	t.Helper()
	waitFor(t, "the page to join", 20*time.Second, func() bool { return inGame(t, p) })
	you := p.state(t).You
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if n := roomPlayers(t, addr, room); n != humans {
			t.Fatalf("room %q has %d players, want %d", room, n, humans)
		}
		if !inGame(t, p) {
			t.Fatalf("the page left the game (lobby says %q)", lobbyMessage(p))
		}
		if got := p.state(t).You; got != you {
			t.Fatalf("the page's player changed from %d to %d: it joined again", you, got)
		}
	}
	return you
}

func lobbyMessage(p *page) string {
	msg, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("lobby-msg").textContent`))
	return msg
}

// pathname is the page's location path and query.
func pathname(t *testing.T, p *page) string {
	t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newcomer opens the site in a fresh browser profile and types a name, as a
// person who has never played does.
func newcomer(t *testing.T, addr, name string) *page {
	t.Helper()
	p := openPage(t, browser(t), "http://"+addr+"/")
	if err := chromedp.Do(p.ctx,
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), name)); err != nil {
		t.Fatal(err)
	}
	return p
}

// retype clicks into a lobby field, selects what it holds and types text
// over it, as a person replaces a remembered name or the default room.
func retype(id, text string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		return chromedp.Void{}, chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.ID(id)),
			chromedp.Click(chromedp.ID(id)),
			chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
			chromedp.SendKeys(chromedp.ID(id), text))
	}
}

// playIn opens the site at base in browser bctx (after the setup actions,
// such as a phone's emulation), types name and room in the lobby and clicks
// Play: how every browser test enters a room.
func playIn(t *testing.T, bctx context.Context, base, room, name string, setup ...chromedp.Action[chromedp.Void]) *page {
	t.Helper()
	p := openPage(t, bctx, base+"/", setup...)
	if err := chromedp.Do(p.ctx, retype("name", name), retype("room", room), chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, name+" to join "+room, 20*time.Second, func() bool { return inGame(t, p) })
	return p
}

// noErrors fails the test for every console error and exception the page had.
func noErrors(t *testing.T, p *page) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		t.Errorf("console: %s", e)
	}
}

// historyStep is the browser's Back (-1) or Forward (+1) button: a move in
// the tab's session history, as the toolbar makes it. chromedp's
// NavigateBack waits for a page load, which a same-document entry (the
// lobby's pushState) never fires.
func historyStep(delta int64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		res, err := cdp.Call(ctx, t, cdppage.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return chromedp.Void{}, err
		}
		i := res.CurrentIndex + delta
		if i < 0 || i >= int64(len(res.Entries)) {
			return chromedp.Void{}, fmt.Errorf("no history entry at %d of %d", i, len(res.Entries))
		}
		_, err = cdp.Call(ctx, t, cdppage.NavigateToHistoryEntry, cdppage.NavigateToHistoryEntryParams{EntryID: res.Entries[i].ID})
		return chromedp.Void{}, err
	}
}

// TestBrowserLobbyPlay is a newcomer's path: open the site, type a name,
// click Play (or press Enter in the name field, or in the room field), and
// stay in the game.
func TestBrowserLobbyPlay(t *testing.T) {
	browserTests(t)
	for _, how := range []string{"click", "enter", "enter-in-room"} {
		t.Run(how, func(t *testing.T) {
			addr := startServerWith(t, clock.AutoCharity, 3, 8)
			p := newcomer(t, addr, "Newcomer"+strings.ReplaceAll(how, "-", ""))
			var submit chromedp.Action[chromedp.Void]
			switch how {
			case "click":
				submit = chromedp.Click(chromedp.ID("play"))
			case "enter":
				submit = chromedp.SendKeys(chromedp.ID("name"), kb.Enter)
			case "enter-in-room":
				submit = chromedp.SendKeys(chromedp.ID("room"), kb.Enter)
			}
			if err := chromedp.Do(p.ctx, submit); err != nil {
				t.Fatal(err)
			}
			stayInGame(t, p, addr, "arena", 20*time.Second) // the lobby's default room
			noErrors(t, p)
		})
	}
}

// TestBrowserLobbyNoName: a newcomer who types no name plays under the name
// the empty field showed (its placeholder said "Flynn", a bot's name, and
// the page made up another); the page's title names the room, then the
// lobby.
func TestBrowserLobbyNoName(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 1, 8)
	p := newcomer(t, addr, "")
	shown := text(t, p, `document.getElementById("name").placeholder`)
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to join", 20*time.Second, func() bool { return inGame(t, p) })
	var name string
	waitFor(t, "the page's player", 10*time.Second, func() bool {
		s := p.state(t)
		for _, pl := range s.Players {
			if pl.ID == s.You {
				name = pl.Name
			}
		}
		return name != ""
	})
	if name != shown {
		t.Errorf("the empty name field showed %q; the page plays as %q", shown, name)
	}
	// The tab (and the history's entries) name the room, then the lobby.
	if got := text(t, p, `document.title`); got != "arena · Webtron" {
		t.Errorf("in the room the page's title is %q, want \"arena · Webtron\"", got)
	}
	if !clickOn(t, p, "leave") {
		t.Fatal("the Lobby button is not on screen")
	}
	waitFor(t, "the lobby", 5*time.Second, func() bool { return showsLobby(t, p) })
	if got := text(t, p, `document.title`); got != "Webtron" {
		t.Errorf("in the lobby the page's title is %q, want \"Webtron\"", got)
	}
	noErrors(t, p)
}

// TestBrowserLobbyJoinFromList: a room someone else opened shows in the
// lobby's list; its Join button, labelled with the room's name, enters
// that room, once.
func TestBrowserLobbyJoinFromList(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	watch(t, addr, "den") // opens the room
	p := newcomer(t, addr, "Lister")
	join := `#rooms tr[data-room="den"] button.join`
	if err := chromedp.Do(p.ctx, chromedp.WaitVisible(chromedp.CSS(join))); err != nil {
		t.Fatal(err)
	}
	if label := text(t, p, fmt.Sprintf(`document.querySelector(%q).getAttribute("aria-label") || ""`, join)); label != "Join den" {
		t.Errorf("den's Join button is labelled %q, want \"Join den\"", label)
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(join))); err != nil {
		t.Fatal(err)
	}
	stayInGame(t, p, addr, "den", 8*time.Second)
	if got := roomPlayers(t, addr, "arena"); got != -1 {
		t.Errorf("the default room arena exists with %d players: the page joined it too", got)
	}
	noErrors(t, p)
}

// TestBrowserLobbySpectate: Spectate enters the room as a watcher, once, and
// takes no seat; on a phone, a watcher is not shown the brake pad.
func TestBrowserLobbySpectate(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	p := newcomer(t, addr, "Watcher")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("spectate"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to watch", 20*time.Second, func() bool { return showsGame(t, p) && p.state(t).Tick > 0 })
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if pop := roomPop(t, addr, "arena"); pop.Players != 0 || pop.Spectators != 1 {
			t.Fatalf("arena has %d players and %d spectators, want the page as its one spectator", pop.Players, pop.Spectators)
		}
		if s := p.state(t); s.You != -1 || !showsGame(t, p) {
			t.Fatalf("the page shows the game: %v, player %d, want a spectator in the game", showsGame(t, p), s.You)
		}
	}
	noErrors(t, p)
	// On a phone a spectator has no cycle to brake: no brake pad.
	q := openPage(t, browser(t), "http://"+addr+"/", screen(390, 844, true))
	if err := chromedp.Do(q.ctx, retype("name", "Pocketwatch"), chromedp.Tap(chromedp.ID("spectate"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the phone to watch", 20*time.Second, func() bool { return showsGame(t, q) && q.state(t).Tick > 0 })
	if visible(t, q, "#brakepad") {
		shot(t, q, "spectate-phone")
		t.Error("a spectator's phone shows the brake pad")
	}
	noErrors(t, q)
}

// TestBrowserLobbyBackAndIn: a player who has ridden and goes Back to lobby,
// then Play again, resumes the same player (the seat waits for its token; a
// player who never rode has it held only as long as it was connected); so
// do the browser's Back button (to the lobby) and Forward (into the room
// again).
func TestBrowserLobbyBackAndIn(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	p := newcomer(t, addr, "Boomerang")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	you := stayInGame(t, p, addr, "arena", 2*time.Second)
	waitFor(t, "the page to ride", 30*time.Second, func() bool { return p.state(t).Phase == 2 && riding(t, p) })

	// The game's own button.
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("leave"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the lobby", 5*time.Second, func() bool { return showsLobby(t, p) })
	if got := pathname(t, p); got != "/" {
		t.Errorf("in the lobby the address is %q, want /", got)
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	if again := stayInGame(t, p, addr, "arena", 2*time.Second); again != you {
		t.Errorf("back in after Lobby: player %d, was %d", again, you)
	}

	// The browser's buttons.
	if err := chromedp.Do(p.ctx, historyStep(-1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Back to show the lobby", 5*time.Second, func() bool { return showsLobby(t, p) })
	if got := pathname(t, p); got != "/" {
		t.Errorf("after Back the address is %q, want /", got)
	}
	if err := chromedp.Do(p.ctx, historyStep(+1)); err != nil {
		t.Fatal(err)
	}
	if again := stayInGame(t, p, addr, "arena", 2*time.Second); again != you {
		t.Errorf("back in after Forward: player %d, was %d", again, you)
	}
	noErrors(t, p)
}

// TestBrowserLobbyReload: a reload in the middle of a round comes back into
// the same room as the same player (the tab's reconnect token).
func TestBrowserLobbyReload(t *testing.T) {
	browserTests(t)
	addr := startServerWith(t, clock.AutoCharity, 3, 8)
	p := newcomer(t, addr, "Reloader")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	you := stayInGame(t, p, addr, "arena", time.Second)
	waitFor(t, "a round to be under way", 60*time.Second, func() bool {
		s := p.state(t)
		alive := 0
		for _, pl := range s.Players {
			if pl.Alive {
				alive++
			}
		}
		return alive >= 2
	})
	before := pathname(t, p)
	if err := chromedp.Do(p.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if again := stayInGame(t, p, addr, "arena", 5*time.Second); again != you {
		t.Errorf("after the reload: player %d, was %d", again, you)
	}
	if got := pathname(t, p); got != before {
		t.Errorf("after the reload the address is %q, was %q", got, before)
	}
	noErrors(t, p)
}
