package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webtron/internal/aamaptest"
)

// TestScenarioRunner runs `webtron sim --events FILE --players 2 --bots 0
// --json` and checks its contract: field names and values. Two humans play
// the multiplayer rules, so the duel opens on the square map's first two
// spawn points, (255, 50) north and (245, 450) south. Player 0 presses left,
// left, right, right on consecutive ticks: Armagetron buffers all four and
// runs them CYCLE_DELAY (12 ticks) apart, which leaves it heading north.
// Player 1 turns right, west, into the rim: a suicide, credited to nobody,
// and player 0 wins a second later.
func TestScenarioRunner(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "e.jsonl")
	os.WriteFile(events, []byte(`{"tick": 600, "player": 0, "kind": "left"}
{"tick": 601, "player": 0, "kind": "left"}

{"tick": 602, "player": 0, "kind": "right"}
{"tick": 603, "player": 0, "kind": "right"}
{"tick": 600, "player": 1, "kind": "right"}
`), 0o644)
	var out bytes.Buffer
	if err := simTo(&out, []string{"--events", events, "--players", "2", "--bots", "0", "--json", "--ticks", "1900"}); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 3 || raw["ticks"] != 1900.0 || raw["winner"] != 0.0 {
		t.Fatalf("top level %v, want ticks 1900, winner 0, players", raw)
	}
	players := raw["players"].([]any)
	p0, p1 := players[0].(map[string]any), players[1].(map[string]any)
	for _, k := range []string{"id", "x", "y", "dir", "speed", "alive", "score", "turns", "death"} {
		if _, ok := p0[k]; !ok || len(p0) != 9 {
			t.Fatalf("player keys %v", p0)
		}
	}
	turns := p0["turns"].([]any)
	if len(turns) != 4 {
		t.Fatalf("player 0 turns %v, want 4", turns)
	}
	for k, want := range []float64{600, 612, 624, 636} {
		if tr := turns[k].(map[string]any); tr["tick"] != want {
			t.Fatalf("turn %d at %v, want tick %v", k, tr["tick"], want)
		}
	}
	if tr := turns[0].(map[string]any); tr["x"] != 255.0 {
		t.Fatalf("first turn at x %v, want 255 (the spawn point's line)", tr["x"])
	}
	if p0["id"] != 0.0 || p0["alive"] != true || p0["death"] != nil || p0["score"] != 10.0 || p0["dir"] != "north" {
		t.Fatalf("player 0: %v", p0)
	}
	if s := p0["speed"].(float64); s < 29.9 || s > 30 {
		t.Fatalf("player 0's speed %v m/s, want about 30", s)
	}
	death, _ := p1["death"].(map[string]any)
	if p1["id"] != 1.0 || p1["alive"] != false || death == nil || death["cause"] != "rim" || death["killer"] != -1.0 || death["x"] != 0.0 || p1["score"] != -4.0 || p1["dir"] != "west" {
		t.Fatalf("player 1: %v", p1)
	}
	if tick := death["tick"].(float64); tick < 1000 || tick > 1900-120 {
		t.Fatalf("player 1 died at tick %v", tick)
	}
}

func TestScenarioRunnerErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, want string }{
		{`{"tick": 1, "player": 0, "kind": "jump"}`, "e.jsonl:1: kind \"jump\""},
		{"\n{\"tick\": 1, \"player\": 3, \"kind\": \"left\"}", "e.jsonl:2: player 3 is not a scripted player"},
		{`{"tick": 1, "kind": "left"}`, "e.jsonl:1: want"},
		{`{"tick": -1, "player": 0, "kind": "left"}`, "negative"},
		{`not json`, "e.jsonl:1:"},
		{`{"tick": 1, "player": 0, "kind": "brake_on", "at": 0.5}`, "e.jsonl:1: at is for turns"},
		{`{"tick": 1, "player": 0, "kind": "left", "at": 1}`, "e.jsonl:1: at 1 is not an instant within the tick"},
		{`{"tick": 1, "player": 0, "kind": "left", "at": -0.25}`, "not an instant"},
	} {
		events := filepath.Join(dir, "e.jsonl")
		os.WriteFile(events, []byte(c.file), 0o644)
		err := simTo(&bytes.Buffer{}, []string{"--events", events, "--players", "2", "--json", "--ticks", "10"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.file, err, c.want)
		}
	}
}

// TestSimSkill: --skill seats bots of a skill, one for all or one each, and
// riders; --survival prints each player's rounds, time alive and wins; a
// skill outside 1..100 or a list of the wrong length is an error.
func TestSimSkill(t *testing.T) {
	var out strings.Builder
	if err := simTo(&out, []string{"--players", "3", "--skill", "1,rider,100", "--ticks", "12000", "--seed", "2", "--survival"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for p, who := range []string{"skill 1", "rider", "skill 100"} {
		if !strings.HasPrefix(lines[p], fmt.Sprintf("survival player %2d  %s ", p, who)) || !strings.Contains(lines[p], "rounds") {
			t.Errorf("line %d %q, want player %d's survival as %s", p, lines[p], p, who)
		}
	}
	hash := func(args ...string) string {
		var b strings.Builder
		if err := simTo(&b, append([]string{"--players", "2", "--ticks", "3000", "--quiet"}, args...)); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if hash() != hash("--skill", "100") || hash() == hash("--skill", "20") {
		t.Errorf("--skill 100 must play the default game, --skill 20 another")
	}
	for _, args := range [][]string{{"--skill", "0"}, {"--skill", "101"}, {"--players", "3", "--skill", "5,6"}, {"--survival", "--quiet"}} {
		if err := simTo(io.Discard, args); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestScenarioOnMap scripts a fortress round on Z-Man's for_old_clients
// (--map-file): player 1 brakes at the start, so player 0, riding north
// from its own zone, reaches player 1's zone first; an attacker alone
// conquers it in 2.5 s (.5 - .1 a second), and with FORTRESS_SURVIVE_WIN
// the conqueror, whose zone stands, wins the round, both still riding.
func TestScenarioOnMap(t *testing.T) {
	aamaptest.Paths(t)
	dir := t.TempDir()
	events := filepath.Join(dir, "e.jsonl")
	os.WriteFile(events, []byte(`{"tick": 480, "player": 1, "kind": "brake_on"}
{"tick": 600, "player": 1, "kind": "brake_off"}
`), 0o644)
	var out bytes.Buffer
	err := simTo(&out, []string{"--events", events, "--players", "2", "--bots", "0", "--json", "--ticks", "3000",
		"--map-file", "Z-Man/fortress/for_old_clients-0.1.0.aamap.xml"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Winner  int `json:"winner"`
		Players []struct {
			Alive bool    `json:"alive"`
			Y     float64 `json:"y"`
		} `json:"players"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Winner != 0 || !res.Players[0].Alive || !res.Players[1].Alive {
		t.Fatalf("winner %d, players %+v; want player 0 to win by conquest, both alive", res.Winner, res.Players)
	}
}

// TestScenarioTurnInstant: a scripted turn's "at" is the instant within its
// tick it is pressed at; the corner lies where the cycle was then (half a
// tick's travel on at 0.5), and the outcome's turns say the instant; an
// instant that rounds to the next tick's start turns there.
func TestScenarioTurnInstant(t *testing.T) {
	dir := t.TempDir()
	corner := func(at string) (float64, float64, int64) {
		t.Helper()
		events := filepath.Join(dir, "e.jsonl")
		os.WriteFile(events, []byte(`{"tick": 600, "player": 0, "kind": "left"`+at+`}`), 0o644)
		var out bytes.Buffer
		if err := simTo(&out, []string{"--events", events, "--players", "2", "--bots", "0", "--json", "--ticks", "700"}); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Players []struct {
				Speed float64
				Turns []struct {
					Tick  int64
					At, Y float64
				}
			}
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Players[0].Turns) != 1 {
			t.Fatalf("%s: %v %s", at, err, out.String())
		}
		tr := r.Players[0].Turns[0]
		return tr.Y, tr.At, tr.Tick
	}
	y0, _, _ := corner("")
	y, at, tick := corner(`, "at": 0.5`)
	// Player 0 rides north at about 30 m/s: 0.125 m in half a tick.
	if at != 0.5 || tick != 600 || y-y0 < 0.12 || y-y0 > 0.13 {
		t.Errorf("at 0.5: turn at %d + %v, corner %.6f m, %.6f m past the one at 0: want 600 + 0.5, about 0.125 m", tick, at, y, y-y0)
	}
	if _, at, tick := corner(`, "at": 0.999`); tick != 601 || at != 0 {
		t.Errorf("at 0.999: turn at %d + %v, want 601 + 0", tick, at)
	}
}

// TestScenarioEightAxes: on inaktek (Axes 8) a scripted left turn of a
// cycle spawned heading south goes 45 degrees, to the south-east, and the
// outcome names the direction so; the leg after it is diagonal.
func TestScenarioEightAxes(t *testing.T) {
	aamaptest.Paths(t)
	events := filepath.Join(t.TempDir(), "e.jsonl")
	os.WriteFile(events, []byte(`{"tick": 600, "player": 0, "kind": "left"}`), 0o644)
	var out bytes.Buffer
	if err := simTo(&out, []string{"--events", events, "--players", "2", "--bots", "0", "--json", "--ticks", "800",
		"--map-file", "Your_mom/clever/inaktek-0.7.2.aamap.xml"}); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Players []struct {
			X, Y  float64
			Dir   string
			Turns []struct{ X, Y float64 }
		} `json:"players"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	p := res.Players[0]
	if p.Dir != "south-east" || len(p.Turns) != 1 || res.Players[1].Dir != "north" {
		t.Fatalf("player 0 %+v, player 1 heading %q; want one turn to the south-east, player 1 north", p, res.Players[1].Dir)
	}
	if dx, dy := p.X-p.Turns[0].X, p.Turns[0].Y-p.Y; dx < 1 || dx-dy > 1e-5 || dy-dx > 1e-5 {
		t.Fatalf("the leg from the corner %+v to %v,%v is not diagonal", p.Turns[0], p.X, p.Y)
	}
}
