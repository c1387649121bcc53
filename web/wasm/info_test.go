//go:build js && wasm

package main

import (
	"encoding/json"
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

func TestInfoJSON(t *testing.T) {
	in := client.Info{Tick: 42, TickRate: 120, PingMs: 12.5, CharityMode: "auto", EventsSent: 3,
		Players: []client.PlayerInfo{{ID: 1, Name: `Cl"u`, Bot: true, Score: -4, PredictedLagMs: 61.25}, {ID: 2, Spectator: true}}}
	var out struct {
		Tick, TickRate int64
		PingMs         float64
		CharityMode    string
		EventsSent     int64
		Players        []struct {
			ID             int
			Name           string
			Bot, Spectator bool
			Score          int64
			PredictedLagMs float64
		}
	}
	b := appendInfo(nil, in)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if out.Tick != 42 || out.TickRate != 120 || out.PingMs != 12.5 || out.CharityMode != "auto" || out.EventsSent != 3 ||
		len(out.Players) != 2 || out.Players[0].Name != `Cl"u` || !out.Players[0].Bot || out.Players[0].Score != -4 ||
		out.Players[0].PredictedLagMs != 61.25 || !out.Players[1].Spectator {
		t.Fatalf("decoded %+v from %s", out, b)
	}
}
