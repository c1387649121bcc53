package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"webtron/cluster"
	"webtron/headless"
	"webtron/room"
)

// roomsNow reads /api/rooms.
func roomsNow(t *testing.T, url string) []RoomInfo {
	t.Helper()
	resp, err := http.Get(url + "/api/rooms")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rooms []RoomInfo
	if err := json.NewDecoder(resp.Body).Decode(&rooms); err != nil {
		t.Fatal(err)
	}
	return rooms
}

// waitRoom polls /api/rooms until room name satisfies ok (a round has to
// start before teams are dealt), for 20 s at most.
func waitRoom(t *testing.T, url, name string, ok func(RoomInfo) bool) RoomInfo {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, r := range roomsNow(t, url) {
			if r.Name == name && ok(r) {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/api/rooms: %+v; %q never got there", roomsNow(t, url), name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRoomsShowTeams: /api/rooms says how a room plays. With
// SP_TEAM_MAX_PLAYERS 3, one human and five bots play in two teams of three,
// the human on one of them; with the default rules one human plays every one
// for themselves.
func TestRoomsShowTeams(t *testing.T) {
	s := newTestServer(t, func(c *Config) {
		c.Bots = 5
		c.Rules.SP.TeamMaxPlayers = 3
	})
	player(t, s.url, headless.Options{Name: "alice", Room: "teams"})
	// Until alice's cycle is dealt a team (at the round's start, or her
	// spawn into a countdown) the room shows the bots' teams alone.
	r := waitRoom(t, s.ts.URL, "teams", func(r RoomInfo) bool {
		dealt := 0
		for _, tm := range r.Teams {
			dealt += tm.Players
		}
		return len(r.Teams) > 0 && r.Bots == 5 && dealt == 1
	})
	if r.Mode != "teams" || r.TeamMaxPlayers != 3 || r.TeamSize != 3 || len(r.Teams) != 2 {
		t.Fatalf("room %+v: want mode teams, 2 teams of 3 (max 3)", r)
	}
	humans, bots := 0, 0
	for k, tm := range r.Teams {
		if tm.Team != k || tm.Players+tm.Bots != 3 {
			t.Errorf("team %d: %+v, want team %d with 3 players", k, tm, k)
		}
		humans += tm.Players
		bots += tm.Bots
	}
	if humans != 1 || bots != 5 {
		t.Fatalf("teams hold %d humans and %d bots, want 1 and 5: %+v", humans, bots, r.Teams)
	}
	// The teams' scores are the match's: they follow the state.
	s.inspect(t, "teams", func(rm *room.Room) {
		st := rm.State()
		for _, tm := range roomsNow(t, s.ts.URL)[0].Teams {
			if got := st.TeamScore(tm.Team); got < tm.Score {
				t.Errorf("team %d: /api/rooms score %d ahead of the state's %d", tm.Team, tm.Score, got)
			}
		}
	})

	ffa := newTestServer(t, func(c *Config) { c.Bots = 2 })
	player(t, ffa.url, headless.Options{Name: "bob", Room: "ffa"})
	r = waitRoom(t, ffa.ts.URL, "ffa", func(r RoomInfo) bool { return r.Mode != "" && r.TeamSize > 0 })
	if want := (cluster.RoomTeams{Mode: "ffa", TeamMaxPlayers: 1, TeamSize: 1, Teams: []cluster.TeamInfo{}}); r.Mode != want.Mode ||
		r.TeamMaxPlayers != want.TeamMaxPlayers || r.TeamSize != want.TeamSize || len(r.Teams) != 0 {
		t.Fatalf("room %+v, want %+v", r.RoomTeams, want)
	}
}
