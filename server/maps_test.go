package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/client"
	"webtron/cluster"
	"webtron/headless"
	"webtron/internal/aamaptest"
	"webtron/internal/natstest"
	"webtron/proto"
	"webtron/room"
	"webtron/sim"
)

// The stock maps the tests offer: sumo_4x4 (4 rim pieces, 16 spawn points,
// 16 fortress zones) and the 40-gon (40 rim pieces).
const (
	sumoMap  = "Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml"
	fortyGon = "Anonymous/polygon/regular/40-gon-0.2.aamap.xml"
)

// mapServer runs a server offering the built-in square (its default) and
// two stock maps.
func mapServer(t *testing.T) *testServer {
	t.Helper()
	aamaptest.Paths(t)
	return newTestServer(t, func(c *Config) {
		c.Bots = 1
		c.Maps = []string{sumoMap, fortyGon}
	})
}

// sessionMap returns the map of the rules p's session simulates.
func sessionMap(p *headless.Player) (m *sim.Map) {
	p.Inspect(func(s *client.Session) { m = s.Timeline().State().Config().Map })
	return m
}

// TestRoomMapChosen: /api/maps lists the default first, then the stock
// maps; the player who opens a room picks its map, a second player who asks
// for another joins the room as it is and simulates the same map (the
// snapshot carries it: the same hashes), the room list and the status page
// say which map each room plays, and the round's replay record starts on that map.
func TestRoomMapChosen(t *testing.T) {
	s := mapServer(t)
	var maps []MapInfo
	if status := getJSON(t, s.ts.URL+"/api/maps", &maps); status != http.StatusOK {
		t.Fatalf("/api/maps: status %d", status)
	}
	if len(maps) != 3 || maps[0].ID != BuiltinMap || !maps[0].Default || maps[1].ID != sumoMap || maps[2].ID != fortyGon {
		t.Fatalf("/api/maps = %+v, want the built-in square (default), sumo_4x4, 40-gon", maps)
	}
	if m := maps[1]; m.Name != "sumo_4x4" || m.Spawns != 16 || m.Zones != 16 || m.Default {
		t.Errorf("sumo_4x4's entry %+v: want its name, 16 spawn points, 16 zones", m)
	}

	ann := player(t, s.url, headless.Options{Name: "Ann", Room: "sumo", Map: sumoMap})
	bob := player(t, s.url, headless.Options{Name: "Bob", Room: "sumo", Map: fortyGon})
	cid := player(t, s.url, headless.Options{Name: "Cid", Room: "plain"})
	drive(t, ann, bob, cid)
	for _, p := range []*headless.Player{ann, bob} {
		if m := sessionMap(p); m == nil || len(m.Walls) != 4 || len(m.Spawns) != 16 || len(m.Zones) != 16 {
			t.Fatalf("%s simulates %+v, want sumo_4x4 (4 rim pieces, 16 spawns, 16 zones)", p.Name(), m)
		}
	}
	if m := sessionMap(cid); m != nil {
		t.Fatalf("Cid's room, opened without a map, plays %d rim pieces: want the built-in square", len(m.Walls))
	}
	sameHashes(t, s.Server, "sumo", ann, bob)

	var rooms []RoomInfo
	if status := getJSON(t, s.ts.URL+"/api/rooms", &rooms); status != http.StatusOK {
		t.Fatalf("/api/rooms: status %d", status)
	}
	got := map[string]string{}
	for _, r := range rooms {
		got[r.Name] = r.Map + " " + r.MapName
	}
	if got["sumo"] != sumoMap+" sumo_4x4" || got["plain"] != BuiltinMap+" square (built in)" {
		t.Fatalf("/api/rooms maps: %q", got)
	}
	if status, page := get(t, s.ts.URL+"/"); status != http.StatusOK || !strings.Contains(string(page), "<td>sumo_4x4</td>") {
		t.Errorf("the status page does not list sumo's map: %d %s", status, page)
	}
	// The round in progress, as a replay will hold it, starts on the map.
	var start []byte
	s.inspect(t, "sumo", func(r *room.Room) { start = r.Timeline().Round().Start })
	st, err := sim.UnmarshalState(start)
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Config().Map; m == nil || len(m.Walls) != 4 {
		t.Fatalf("the round's record starts on %+v, want sumo_4x4", m)
	}
}

// TestRoomMapUnknownRefused: a Hello that names a map the server does not
// offer (a path, a made-up id) is closed with CloseBadName and a reason that
// says so; no room opens, and the server carries on.
func TestRoomMapUnknownRefused(t *testing.T) {
	s := mapServer(t)
	for _, id := range []string{"../../../../etc/passwd", "/etc/passwd", "Z-Man/fortress/nothere.aamap.xml", "sumo_4x4"} {
		ws := dialRaw(t, s.url)
		send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "Eve", Room: "evil", Map: id}))
		e := expectClosed(t, ws, proto.CloseBadName, websocket.StatusPolicyViolation)
		if !strings.Contains(e.Text, "offers no map") {
			t.Errorf("map %q: closed with %q, want a reason naming the map", id, e.Text)
		}
	}
	for _, r := range s.Rooms() {
		if r.Name == "evil" {
			t.Fatalf("a refused Hello opened room evil: %+v", r)
		}
	}
	ok := player(t, s.url, headless.Options{Name: "Ok", Room: "evil", Map: fortyGon})
	drive(t, ok)
	if m := sessionMap(ok); m == nil || len(m.Walls) != 40 {
		t.Fatalf("a good Hello after the refusals plays %+v, want the 40-gon", m)
	}
}

// TestPracticeMap: /api/practice takes a map too, and refuses one the
// server does not offer.
func TestPracticeMap(t *testing.T) {
	s := mapServer(t)
	if status, _ := askPractice(t, s, "application/json", "", `{"skill": 1, "map": "../x"}`); status != http.StatusBadRequest {
		t.Fatalf("an unknown map: status %d, want 400", status)
	}
	status, a := askPractice(t, s, "application/json", "", `{"skill": 1, "map": "`+fortyGon+`"}`)
	if status != http.StatusCreated {
		t.Fatalf("status %d", status)
	}
	ann := player(t, s.url, headless.Options{Name: "Ann", Room: a.Room})
	if m := sessionMap(ann); m == nil || len(m.Walls) != 40 {
		t.Fatalf("the practice room plays %+v, want the 40-gon", m)
	}
}

// TestRoomMapResumed: a cluster node's room keeps its map in its history
// (the base entry's snapshot, and its id in Meta), so that the node that
// carries the room on plays and lists the same map.
func TestRoomMapResumed(t *testing.T) {
	aamaptest.Paths(t)
	url := natstest.Start(t)
	s := clusterServer(t, url, func(c *Config) { c.Bots = 1; c.Maps = []string{sumoMap} })
	drive(t, player(t, s.url, headless.Options{Name: "ann", Room: "m", Map: sumoMap}))
	es := recoverRoom(t, url, "m")
	if es[0].Meta == nil || es[0].Meta.Map != sumoMap {
		t.Fatalf("the history's base entry says %+v, want map %s", es[0].Meta, sumoMap)
	}
	// Another node, whose default is the square, rebuilds the room.
	other := mapServer(t)
	h, err := restoreRoomHost(other.Server, "m", es, cluster.Chain{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.room.Close()
	if m := h.room.Timeline().Confirmed().Config().Map; m == nil || len(m.Walls) != 4 || len(m.Spawns) != 16 {
		t.Fatalf("the resumed room plays %+v, want sumo_4x4", m)
	}
	if h.mapID != sumoMap || h.mapName != "sumo_4x4" {
		t.Fatalf("the resumed room lists map %q (%q), want %s", h.mapID, h.mapName, sumoMap)
	}
}

// TestRoomMapListedByOtherNodes: a cluster node's lobby lists the map of a
// room another node holds (the heartbeat carries it), as the holder's does.
func TestRoomMapListedByOtherNodes(t *testing.T) {
	aamaptest.Paths(t)
	url := natstest.Start(t)
	a := clusterServer(t, url, func(c *Config) { c.Bots = 1; c.Maps = []string{sumoMap} })
	drive(t, player(t, a.url, headless.Options{Name: "ann", Room: "m", Map: sumoMap}))
	b := clusterServer(t, url, func(c *Config) { c.Bots = 1; c.Maps = []string{sumoMap}; c.Cluster.Name = "b" })
	eventually(t, 5*time.Second, "b's lobby lists m, on a, with its map", func() bool {
		var rooms []RoomInfo
		getJSON(t, b.ts.URL+"/api/rooms", &rooms)
		for _, r := range rooms {
			if r.Name == "m" {
				return r.Node == "a" && r.Map == sumoMap && r.MapName == "sumo_4x4"
			}
		}
		return false
	})
}
