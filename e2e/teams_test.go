package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/clock"
	"webtron/headless"
	"webtron/server"
	"webtron/settings"
)

// sceneReport is window.webtron.scene(): what the renderer drew last frame.
type sceneReport struct {
	TeamMode bool  `json:"team_mode"`
	TeamMax  int   `json:"team_max"`
	Tick     int64 `json:"tick"`
	Players  []struct {
		ID         int     `json:"id"`
		Team       int     `json:"team"`
		Color      string  `json:"color"`
		WallHeight float64 `json:"wall_height"`
		DeathTick  int64   `json:"death_tick"`
	} `json:"players"`
	TeamScores []int `json:"team_scores"`
	Winner     int   `json:"winner"`
	Zone       struct {
		Open   bool    `json:"open"`
		X      float64 `json:"x"`
		Y      float64 `json:"y"`
		Radius float64 `json:"radius"`
		Drawn  bool    `json:"drawn"`
	} `json:"zone"`
	Explosions []struct {
		Owner  int     `json:"owner"`
		Radius float64 `json:"radius"`
		Age    float64 `json:"age"`
	} `json:"explosions"`
	ExplosionsDrawn int `json:"explosions_drawn"`
	Holes           []struct {
		Owner int     `json:"owner"`
		From  float64 `json:"from"`
		To    float64 `json:"to"`
	} `json:"holes"`
	NameTags  int `json:"name_tags"`
	LagMeters int `json:"lag_meters"`
	DrawCalls int `json:"draw_calls"`
}

func (p *page) scene(t *testing.T) sceneReport {
	t.Helper()
	js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.webtron.scene())`))
	if err != nil {
		t.Fatalf("reading window.webtron.scene(): %v", err)
	}
	var s sceneReport
	if js != "null" {
		if err := json.Unmarshal([]byte(js), &s); err != nil {
			t.Fatalf("scene %q: %v", js, err)
		}
	}
	return s
}

// startServerSettings runs the real server with the rules and knobs of a
// settings file, as `webtron serve --settings FILE` does.
func startServerSettings(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "teams.cfg")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := settings.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return startConfig(t, server.Config{Rules: &file.Sim, TickRate: file.Server.TickRate,
		Bots: int(file.Server.Bots), Seats: int(file.Server.Seats)})
}

// rival seats a headless human in room who never presses a key.
func rival(t *testing.T, addr, room string) {
	t.Helper()
	runHeadless(t, addr, headless.Options{Name: "rival", Room: room, Idle: true, Seed: 9})
}

// hue returns the hue (degrees) and saturation of a CSS colour "#rrggbb".
func hue(t *testing.T, css string) (h, s float64) {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(css, "#"), 16, 32)
	if err != nil || len(css) != 7 {
		t.Fatalf("colour %q is not #rrggbb", css)
	}
	r, g, b := float64(v>>16)/255, float64(v>>8&255)/255, float64(v&255)/255
	hi, lo := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if hi == lo {
		return 0, 0
	}
	switch hi {
	case r:
		h = math.Mod((g-b)/(hi-lo), 6)
	case g:
		h = (b-r)/(hi-lo) + 2
	default:
		h = (r-g)/(hi-lo) + 4
	}
	return math.Mod(h*60+360, 360), (hi - lo) / hi
}

func hueGap(a, b float64) float64 {
	d := math.Abs(a - b)
	return math.Min(d, 360-d)
}

// teamsSettings: teams of three whatever the number of humans, six seats
// filled with bots, and a win zone that opens two seconds into a round.
const teamsSettings = `# a team room
TEAM_MAX_PLAYERS 3
SP_TEAM_MAX_PLAYERS 3
WIN_ZONE_MIN_ROUND_TIME 2
WIN_ZONE_MIN_LAST_DEATH 0
BOTS 6
SEATS 6
`

// TestBrowserTeams: a server plays teams of three (a settings file). A
// human is already in room "teams"; a newcomer sees the room in the lobby
// as a team room with its two teams, clicks its Join button, and then sees
// the scoreboard grouped by team with the teams' scores, teammates drawn in
// one colour family (the own cycle a shade of its own), the two teams in
// different colours; the win zone opens and is drawn; the round's summary
// names the winning team and lists the teams' points.
func TestBrowserTeams(t *testing.T) {
	browserTests(t)
	addr := startServerSettings(t, teamsSettings)
	rival(t, addr, "teams")
	p := newcomer(t, addr, "Tron")

	// The lobby lists the room as a team room, with a chip per team.
	row := `#rooms tr[data-room="teams"]`
	var mode string
	waitFor(t, "the lobby to list the team room", 20*time.Second, func() bool {
		m, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(() => { const c = document.querySelector('`+row+` td.mode');
			return c ? c.textContent + "|" + c.querySelectorAll("span.team").length : ""; })()`))
		if err != nil {
			t.Fatal(err)
		}
		mode = m
		return strings.HasPrefix(m, "Teams 3v3") && strings.HasSuffix(m, "|2")
	})
	if !strings.Contains(mode, "Blue") || !strings.Contains(mode, "Gold") {
		t.Fatalf("lobby's mode cell %q: want the Blue and Gold teams", mode)
	}
	// On a phone the room list, team chips and all, still fits the screen.
	if err := chromedp.Do(p.ctx, screen(390, 844, true)); err != nil {
		t.Fatal(err)
	}
	shot(t, p, "teams-lobby-phone")
	wide, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(() => { const r = document.querySelector("#rooms table").getBoundingClientRect();
		return r.right > innerWidth + 0.5 || r.left < -0.5 ? r.left + ".." + r.right + " of " + innerWidth : ""; })()`))
	if err != nil || wide != "" {
		t.Fatalf("at 390x844 the room list spans %s (%v)", wide, err)
	}
	if err := chromedp.Do(p.ctx, screen(960, 600, false)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(p.ctx, chromedp.WaitVisible(chromedp.CSS(row+` button.join`)), chromedp.Click(chromedp.CSS(row+` button.join`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Tron to join the team room", 20*time.Second, func() bool { return inGame(t, p) })
	you := p.state(t).You

	// The scoreboard: two team rows, each above its members, with the
	// team's score; everyone present is listed under their team.
	type board struct {
		Teams   []struct{ Team, Name, Score string }
		Members []struct{ Team, Name, Color string }
	}
	var b board
	var sc sceneReport
	waitFor(t, "the scoreboard to group the six players in two teams", 20*time.Second, func() bool {
		js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify({
			teams: [...document.querySelectorAll("#scores tr.team")].map((r) => ({team: r.dataset.team, name: r.querySelector(".name").textContent, score: r.querySelector(".score").textContent})),
			members: [...document.querySelectorAll("#scores tr.member")].map((r) => ({team: r.dataset.team, name: r.querySelector(".name").textContent, color: r.querySelector(".swatch").style.background})),
		})`))
		if err != nil {
			t.Fatal(err)
		}
		b = board{}
		if err := json.Unmarshal([]byte(js), &b); err != nil {
			t.Fatal(err)
		}
		sc = p.scene(t)
		return len(b.Teams) == 2 && len(b.Members) == 6 && len(sc.Players) == 6
	})
	if !sc.TeamMode || sc.TeamMax != 3 {
		t.Fatalf("scene: team mode %v, max %d; want teams of 3", sc.TeamMode, sc.TeamMax)
	}
	for _, tm := range b.Teams {
		k, _ := strconv.Atoi(tm.Team)
		if want := fmt.Sprint(sc.TeamScores[k]); tm.Score != want || !strings.HasSuffix(tm.Name, " team") {
			t.Errorf("team row %+v, want score %s and a team's name", tm, want)
		}
	}
	// Members are listed under their own team's row.
	teamOf := map[int]int{}
	for _, pl := range sc.Players {
		teamOf[pl.ID] = pl.Team
	}
	size := map[int]int{}
	for _, pl := range sc.Players {
		size[pl.Team]++
	}
	if len(size) != 2 || size[sc.Players[0].Team] != 3 {
		t.Fatalf("teams of %v, want two of three", size)
	}
	// Colours: one family per team, the families apart, yours its own shade.
	teamHue := map[int]float64{}
	for _, pl := range sc.Players {
		h, s := hue(t, pl.Color)
		if s < 0.3 {
			t.Fatalf("player %d's colour %s is grey", pl.ID, pl.Color)
		}
		if th, ok := teamHue[pl.Team]; !ok {
			teamHue[pl.Team] = h
		} else if hueGap(th, h) > 12 {
			t.Errorf("player %d (%s) is %.0f° from its team's hue: teammates should share a colour family", pl.ID, pl.Color, hueGap(th, h))
		}
		if pl.ID != you && teamOf[pl.ID] == teamOf[you] {
			for _, me := range sc.Players {
				if me.ID == you && me.Color == pl.Color {
					t.Errorf("your colour %s is your teammate %d's too", me.Color, pl.ID)
				}
			}
		}
	}
	var hues []float64
	for _, h := range teamHue {
		hues = append(hues, h)
	}
	if len(hues) == 2 && hueGap(hues[0], hues[1]) < 40 {
		t.Errorf("the two teams' hues %.0f° and %.0f° are too close", hues[0], hues[1])
	}
	seen := map[string]bool{}
	for _, m := range b.Members {
		seen[m.Team] = true
	}
	if len(seen) != 2 {
		t.Errorf("member rows %+v: want them under both teams", b.Members)
	}

	// The win zone opens two seconds into play and is drawn.
	waitFor(t, "the win zone to open and be drawn", 60*time.Second, func() bool {
		sc = p.scene(t)
		return sc.Zone.Open && sc.Zone.Drawn && sc.Zone.Radius > 0
	})
	shot(t, p, "teams-zone")

	// The round ends: its summary names the winning team and the teams' points.
	// Meanwhile the kill feed names the dead in their team shades, and marks
	// a death on a teammate's wall as a team kill.
	type feedLine struct {
		Names    []string `json:"names"`
		Got      []string `json:"got"`
		Want     []string `json:"want"`
		Teams    []int    `json:"teams"`
		TeamKill bool     `json:"teamKill"`
	}
	feedJS := `JSON.stringify((() => {
		const sc = window.webtron.scene(), st = window.webtron.state();
		const norm = (c) => { const e = document.createElement("i"); e.style.color = c; return e.style.color; };
		const byName = new Map(st.players.map((p) => [p.name, p.id]));
		const of = new Map(sc.players.map((p) => [p.id, p]));
		return [...document.querySelectorAll("#killfeed .kill")].map((k) => {
			const who = [...k.querySelectorAll(".who")];
			const ps = who.map((w) => of.get(byName.get(w.textContent)));
			return {names: who.map((w) => w.textContent), got: who.map((w) => w.style.color), want: ps.map((p) => p ? norm(p.color) : ""),
				teams: ps.map((p) => p ? p.team : -1), teamKill: k.classList.contains("teamkill")};
		});
	})())`
	lines := 0
	var title string
	var teamRows int
	waitFor(t, "the round's summary", 90*time.Second, func() bool {
		js, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](feedJS))
		if err != nil {
			t.Fatal(err)
		}
		var feed []feedLine
		if err := json.Unmarshal([]byte(js), &feed); err != nil {
			t.Fatal(err)
		}
		for _, l := range feed {
			lines++
			for k := range l.Names {
				if l.Want[k] != "" && l.Got[k] != l.Want[k] {
					t.Fatalf("kill feed line %v: %s drawn in %s, its colour is %s", l.Names, l.Names[k], l.Got[k], l.Want[k])
				}
			}
			if l.TeamKill && (len(l.Teams) < 2 || l.Teams[0] != l.Teams[1]) {
				t.Fatalf("kill feed line %v marked a team kill across teams %v", l.Names, l.Teams)
			}
		}
		js, err = chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify([document.getElementById("summary").hidden ? "" : document.getElementById("summary-title").textContent,
			document.querySelectorAll("#summary tr.team").length])`))
		if err != nil {
			t.Fatal(err)
		}
		var v []any
		json.Unmarshal([]byte(js), &v)
		title, teamRows = v[0].(string), int(v[1].(float64))
		return title != ""
	})
	shot(t, p, "teams-summary")
	t.Logf("%d kill feed line readings checked", lines)
	sc = p.scene(t)
	if sc.Winner >= 0 && !strings.Contains(title, " team wins") || sc.Winner < 0 && !strings.Contains(title, "draw") || teamRows != 2 {
		t.Fatalf("summary %q with %d team rows (winner %d): want the winning team named and both teams' points", title, teamRows, sc.Winner)
	}
	noErrors(t, p)
}

// TestBrowserHoles: a player who rides straight into the rim explodes; the
// page draws the blast, and the trails' shader gets the hole it blew into
// the player's own trail (its last EXPLOSION_RADIUS before the rim, 4 m).
func TestBrowserHoles(t *testing.T) {
	browserTests(t)
	addr := startServer(t, clock.AutoCharity)
	p := playIn(t, browser(t), "http://"+addr, "holes", "Rinzler")
	you := p.state(t).You
	// The view from above (C), where the gap shows in the screenshot.
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent("c")); err != nil {
		t.Fatal(err)
	}
	drawn := false
	var sc sceneReport
	waitFor(t, "Rinzler to hit the rim and blow a hole in its trail", 60*time.Second, func() bool {
		sc = p.scene(t)
		drawn = drawn || sc.ExplosionsDrawn > 0
		for _, h := range sc.Holes {
			if h.Owner == you && h.To-h.From > 3 {
				return drawn
			}
		}
		return false
	})
	shot(t, p, "holes")
	for _, h := range sc.Holes {
		if h.Owner == you && (h.To-h.From > 4.01 || h.From <= 0) {
			t.Fatalf("hole %+v in your trail: want the last 4 m at most, past the start", h)
		}
	}
	noErrors(t, p)
}

// TestBrowserDeadWallsSink: a dead cycle's walls stand 8 s
// (WALLS_STAY_UP_DELAY), then sink from sight over half a second, as
// Armagetron draws them (gNetPlayerWall::RenderNormal, gWall.cpp line 1073:
// dt = 2 (t - death - delay), gone at dt 1); the bots ride on meanwhile
// (FINISH_TYPE 3).
func TestBrowserDeadWallsSink(t *testing.T) {
	browserTests(t)
	addr := startServerSettings(t, "SP_FINISH_TYPE 3\nFINISH_TYPE 3\nBOTS 3\n")
	p := playIn(t, browser(t), "http://"+addr, "sink", "Sinker")
	you := p.state(t).You
	waitFor(t, "the page to ride", 30*time.Second, func() bool { return riding(t, p) })
	waitFor(t, "the crash", 60*time.Second, func() bool { return !riding(t, p) })
	var standing, sinking, gone int
	waitFor(t, "the walls to sink from sight", 20*time.Second, func() bool {
		sc := p.scene(t)
		for _, pl := range sc.Players {
			if pl.ID != you {
				continue
			}
			age := float64(sc.Tick-pl.DeathTick) / 120
			switch h := pl.WallHeight; {
			case age < 7.95:
				if h != 1 {
					t.Fatalf("%.2f s after the death the walls are %.2f high, want standing", age, h)
				}
				standing++
			case age > 8.05 && age < 8.45:
				if h <= 0 || h >= 1 {
					t.Fatalf("%.2f s after the death the walls are %.2f high, want sinking", age, h)
				}
				sinking++
			case age > 8.55:
				if h != 0 {
					t.Fatalf("%.2f s after the death the walls are %.2f high, want gone", age, h)
				}
				gone++
			}
		}
		return gone > 0
	})
	if standing == 0 || sinking == 0 {
		t.Fatalf("samples: %d standing, %d sinking, %d gone: the test saw too little", standing, sinking, gone)
	}
	noErrors(t, p)
}
