package e2e

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"webtron/clock"
	"webtron/server"
	"webtron/web"
)

// startPracticeServer runs the real server with three bots a room (of the
// full skill in public rooms) and returns it with its address: the test
// looks at its rooms, private ones included, as only the process can.
func startPracticeServer(t *testing.T) (*server.Server, string) {
	t.Helper()
	s, err := server.New(server.Config{Bots: 3, Seats: 8, BotSkill: 100, Policy: clock.Policy{Charity: clock.AutoCharity},
		Web: web.Handler(), DataDir: dataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, ln)
	return s, ln.Addr().String()
}

// practiceRoom returns the room the page's URL names.
func practiceRoom(t *testing.T, p *page) string {
	t.Helper()
	u, err := url.Parse("http://x" + pathname(t, p))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("room")
}

// aboveFold reports whether the element with id is on screen without
// scrolling the lobby.
func aboveFold(t *testing.T, p *page, id string) bool {
	t.Helper()
	ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		`(() => { const r = document.getElementById(%q).getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })()`, id)))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// sticksOut names the lobby form's fields and buttons that reach past the
// form's content box, and the lobby's panels that reach past the screen's
// width; "" when everything fits.
func sticksOut(t *testing.T, p *page) string {
	t.Helper()
	out, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(() => {
  const form = document.getElementById("lobby-form"), cs = getComputedStyle(form), f = form.getBoundingClientRect();
  const left = f.left + form.clientLeft + parseFloat(cs.paddingLeft), right = left + form.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const out = [];
  for (const e of form.querySelectorAll("input:not([type=radio]), select, button, label, .levels")) {
    if (e.getClientRects().length === 0) continue;
    const r = e.getBoundingClientRect();
    if (r.left < left - 0.5 || r.right > right + 0.5) out.push("#" + (e.id || e.textContent.trim().slice(0, 20)) + " " + Math.round(r.left) + ".." + Math.round(r.right) + " in the form's " + Math.round(left) + ".." + Math.round(right));
  }
  for (const e of document.querySelectorAll("#lobby .panel")) {
    const r = e.getBoundingClientRect();
    if (r.left < -0.5 || r.right > innerWidth + 0.5) out.push("a panel " + Math.round(r.left) + ".." + Math.round(r.right) + " of " + innerWidth);
  }
  return out.join("; ");
})()`))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBrowserPractice: a newcomer picks a Practice level and starts
// Practice, at the lowest level with the keyboard (Space on the level, then
// Enter) and then at the highest with taps: the page rides in a room of its
// own that the lobby does not list, against bots of exactly that skill; another page that opens the room's URL is sent back to
// the lobby; the lobby remembers the level last chosen. At 1280x720 and
// 390x844 the Practice row is on screen without scrolling, and How to play
// still is; every field and button of the lobby's form is inside the form;
// in the room, the status line says Practice, not the room's random name,
// and so does Recent rounds once a round of it is over.
func TestBrowserPractice(t *testing.T) {
	browserTests(t)
	s, addr := startPracticeServer(t)
	b := browser(t)
	for _, c := range []struct {
		level string
		skill int
		w, h  int64
		phone bool
	}{{"Novice", 1, 1280, 720, false}, {"Hard", 100, 390, 844, true}} {
		t.Run(c.level, func(t *testing.T) {
			p := openPage(t, b, "http://"+addr+"/", screen(c.w, c.h, c.phone))
			waitFor(t, "the lobby", 10*time.Second, func() bool { return showsLobby(t, p) })
			for _, id := range []string{"practice", fmt.Sprintf("practice-skill-%d", c.skill), "howto"} {
				target := id
				if strings.HasPrefix(id, "practice-skill-") {
					target = "practice-skill" // the radio itself is hidden under its label
				}
				if !aboveFold(t, p, target) {
					shot(t, p, fmt.Sprintf("practice-lobby-%dx%d", c.w, c.h))
					t.Errorf("#%s is not on screen without scrolling at %dx%d", target, c.w, c.h)
				}
			}
			if out := sticksOut(t, p); out != "" {
				shot(t, p, fmt.Sprintf("practice-lobby-%dx%d-fit", c.w, c.h))
				t.Errorf("at %dx%d the lobby does not fit: %s", c.w, c.h, out)
			}
			name := "Rookie" + c.level
			pick := []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS(fmt.Sprintf(`label[for="practice-skill-%d"]`, c.skill))),
				chromedp.Click(chromedp.ID("practice"))}
			if !c.phone {
				// With the keyboard: Space checks the level, and Enter on it
				// starts Practice (the form's Enter joined the public room).
				radio := fmt.Sprintf("#practice-skill-%d", c.skill)
				pick = []chromedp.Action[chromedp.Void]{chromedp.Focus(chromedp.CSS(radio)), chromedp.KeyEvent(" "), chromedp.KeyEvent(kb.Enter)}
			}
			if err := chromedp.Do(p.ctx, append([]chromedp.Action[chromedp.Void]{retype("name", name)}, pick...)...); err != nil {
				t.Fatal(err)
			}
			waitFor(t, name+" to ride in a practice room", 20*time.Second, func() bool { return inGame(t, p) })
			room := practiceRoom(t, p)
			if !strings.HasPrefix(room, "practice-") {
				t.Fatalf("the page joined %q, not a practice room", room)
			}
			var info server.RoomInfo
			waitFor(t, "the room's population", 10*time.Second, func() bool {
				for _, r := range s.Rooms() {
					if r.Name == room {
						info = r
					}
				}
				return info.Players == 1 && info.Bots > 0
			})
			if !info.Private || info.BotSkill != c.skill || info.Spectators != 0 {
				t.Fatalf("room %q: private %v, bots' skill %d, %d spectators; want private, skill %d, none", room, info.Private, info.BotSkill, info.Spectators, c.skill)
			}
			if n := roomPlayers(t, addr, room); n != -1 {
				t.Fatalf("/api/rooms lists the practice room (%d players)", n)
			}
			// The status line names the room as the player knows it, not by
			// the 20 random characters of its name (on a phone they took
			// the line's whole width).
			var status string
			waitFor(t, "the status line", 5*time.Second, func() bool { status = p.text(t, "#status"); return status != "" })
			if !strings.HasPrefix(status, "Practice vs bots · ") || strings.Contains(status, room) {
				t.Errorf("the status line says %q in practice room %s", status, room)
			}
			st := p.state(t)
			bots := 0
			for _, pl := range st.Players {
				if strings.HasSuffix(pl.Name, "(bot)") {
					bots++
				} else if pl.ID != st.You {
					t.Errorf("another human, %q, rides in the practice room", pl.Name)
				}
			}
			if bots != info.Bots {
				t.Errorf("the page sees %d bots, the server seats %d", bots, info.Bots)
			}
			// Whoever has the room's URL is not let in.
			q := url.Values{"room": {room}, "name": {"Intruder"}}
			other := openPage(t, b, "http://"+addr+"/?"+q.Encode())
			waitFor(t, "the intruder to be sent back to the lobby", 20*time.Second, func() bool { return showsLobby(t, other) })
			if msg := lobbyMessage(other); !strings.Contains(msg, "practice") {
				t.Errorf("the intruder's lobby says %q", msg)
			}
			if n := roomPlayers(t, addr, room); n != -1 {
				t.Fatalf("/api/rooms lists the practice room after the intruder (%d players)", n)
			}
			if !inGame(t, p) {
				t.Fatalf("the practice page left the game (lobby says %q)", lobbyMessage(p))
			}
			noErrors(t, p)
			// The next visit's lobby has the level just played checked.
			again := openPage(t, b, "http://"+addr+"/")
			waitFor(t, "the lobby", 10*time.Second, func() bool { return showsLobby(t, again) })
			checked, err := chromedp.Run(again.ctx, chromedp.Evaluate[string](`document.querySelector('input[name="practice-skill"]:checked').value`))
			if err != nil || checked != fmt.Sprint(c.skill) {
				t.Errorf("the lobby's Practice level is %q (%v), want the %d just chosen", checked, err, c.skill)
			}
			// Once a round of it is over, Recent rounds lists it as Practice,
			// not by the room's random name (the page rides straight into
			// the rim, which ends its round).
			if c.level == "Novice" {
				row := fmt.Sprintf(`Array.from(document.querySelectorAll("#replays tr")).find((tr) => tr.textContent.includes(%q))`, name)
				waitFor(t, "the practice round in Recent rounds", 60*time.Second, func() bool { return text(t, again, `String(!!`+row+`)`) == "true" })
				if cell := text(t, again, row+`.querySelector(".rname").textContent`); cell != "Practice" {
					t.Errorf("Recent rounds lists the practice round in room %q", cell)
				}
			}
			again.close()
			p.close()
		})
	}
}
