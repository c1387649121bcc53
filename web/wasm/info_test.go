//go:build js && wasm

package main

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"webtron/client"
)

// Run with: PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./web/wasm

func TestJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quo"te\back`, "ctl\x00\x1f\n\t", "ünï 🚲", "bad\xffutf8", "sep\u2028\u2029"} {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("%q: %v in %s", s, err, appendJSONString(nil, s))
		}
		want := string([]rune(s)) // invalid bytes become U+FFFD, as in JSON
		if got != want {
			t.Errorf("%q round-tripped to %q", s, got)
		}
	}
}

// tsFields returns the field names of a TypeScript interface in
// web/src/core/core.ts, the page's side of the contract.
func tsFields(t *testing.T, iface string) []string {
	t.Helper()
	src, err := os.ReadFile("../src/core/core.ts")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "export interface "+iface+" {")
	body, _, ok2 := strings.Cut(body, "\n}")
	if !ok || !ok2 {
		t.Fatalf("no interface %s in core.ts", iface)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(\w+)\??:`).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return names
}

// sortedKeys returns an object's keys, as written (case and all).
func sortedKeys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}

// TestInfoJSON: the HUD's JSON has exactly the keys the page reads (core.ts's
// Info and PlayerInfo, spelt as there: encoding/json would match a key that
// differs in case, the page would not), with the values given.
func TestInfoJSON(t *testing.T) {
	in := client.Info{Tick: 42, TickRate: 120, PingMs: 12.5, CharityMode: "auto", EventsSent: 3,
		Players: []client.PlayerInfo{{ID: 1, Name: `Cl"u`, Bot: true, Score: -4, PredictedLagMs: 61.25}, {ID: 2, Spectator: true}}}
	b := appendInfo(nil, in)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if got, want := sortedKeys(top), tsFields(t, "Info"); !slices.Equal(got, want) {
		t.Fatalf("keys %q, core.ts's Info has %q", got, want)
	}
	var players []map[string]json.RawMessage
	if err := json.Unmarshal(top["players"], &players); err != nil || len(players) != 2 {
		t.Fatalf("players %s: %v", top["players"], err)
	}
	for i, p := range players {
		if got, want := sortedKeys(p), tsFields(t, "PlayerInfo"); !slices.Equal(got, want) {
			t.Fatalf("player %d's keys %q, core.ts's PlayerInfo has %q", i, got, want)
		}
	}
	val := func(m map[string]json.RawMessage, key string) string { return string(m[key]) }
	for key, want := range map[string]string{"tick": "42", "tickRate": "120", "pingMs": "12.5", "charityMode": `"auto"`, "eventsSent": "3"} {
		if got := val(top, key); got != want {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
	for key, want := range map[string]string{"id": "1", "name": `"Cl\"u"`, "bot": "true", "score": "-4", "predictedLagMs": "61.25", "spectator": "false"} {
		if got := val(players[0], key); got != want {
			t.Errorf("player 0's %s: %s, want %s", key, got, want)
		}
	}
	if got := val(players[1], "spectator"); got != "true" {
		t.Errorf("player 1's spectator: %s, want true", got)
	}
}
