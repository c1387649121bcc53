package server

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/headless"
	"webtron/internal/natstest"
	"webtron/proto"
	"webtron/room"
)

// askPractice posts body to /api/practice with contentType (and origin, if
// any), and returns the status and the answer.
func askPractice(t *testing.T, s *testServer, contentType, origin, body string) (int, practiceAnswer) {
	t.Helper()
	req, err := http.NewRequest("POST", s.ts.URL+"/api/practice", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a practiceAnswer
	if resp.StatusCode == http.StatusCreated {
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, a
}

// TestPractice: /api/practice opens a private room whose bots have the
// skill asked for, under an unguessable name; /api/rooms leaves it out; its
// player joins it by name, and a second player or a spectator is refused.
func TestPractice(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Bots, c.BotSkill = 3, 100 })
	status, a := askPractice(t, s, "application/json", s.ts.URL, `{"skill": 1}`)
	if status != http.StatusCreated || !strings.HasPrefix(a.Room, "practice-") || len(a.Room) != len("practice-")+20 || a.Skill != 1 {
		t.Fatalf("status %d, answer %+v", status, a)
	}
	if _, b := askPractice(t, s, "application/json", "", `{"skill": 1}`); b.Room == a.Room {
		t.Fatalf("two practice rooms named %q", a.Room)
	}
	ann := player(t, s.url, headless.Options{Name: "Ann", Room: a.Room})
	drive(t, ann)
	var skill, bots int
	s.inspect(t, a.Room, func(r *room.Room) { skill, bots = r.BotSkill(), r.Bots() })
	if skill != 1 || bots != 3 {
		t.Fatalf("the practice room's bots: %d of skill %d, want 3 of skill 1", bots, skill)
	}
	found := false
	for _, r := range s.Rooms() {
		if r.Name == a.Room {
			found = r.Private && r.BotSkill == 1
		}
	}
	if !found {
		t.Fatalf("Rooms() lacks the practice room, private and of skill 1: %+v", s.Rooms())
	}
	resp, err := http.Get(s.ts.URL + "/api/rooms")
	if err != nil {
		t.Fatal(err)
	}
	var listed []RoomInfo
	json.NewDecoder(resp.Body).Decode(&listed)
	resp.Body.Close()
	for _, r := range listed {
		if isPractice(r.Name) {
			t.Fatalf("/api/rooms lists %q", r.Name)
		}
	}
	for _, h := range []proto.Hello{{Name: "Bob", Room: a.Room}, {Name: "Cy", Room: a.Room, Spectate: true}} {
		ws := dialRaw(t, s.url)
		send(t, ws, websocket.MessageBinary, marshal(t, &h))
		if e := expectClosed(t, ws, proto.CloseRoomFull, websocket.StatusPolicyViolation); !strings.Contains(e.Text, "practice") {
			t.Errorf("%s refused with %q", h.Name, e.Text)
		}
	}
	// A room of the practice prefix opens only through /api/practice.
	ws := dialRaw(t, s.url)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "Dee", Room: "practice-aaaaaaaaaaaaaaaaaaaa"}))
	expectClosed(t, ws, proto.CloseBadName, websocket.StatusPolicyViolation)
	for _, r := range s.Rooms() {
		if r.Name == "practice-aaaaaaaaaaaaaaaaaaaa" {
			t.Fatalf("a Hello opened practice room %q", r.Name)
		}
	}
}

// TestPracticeBounded: a hostile page cannot open rooms without end: each
// practice room is one of the address's new rooms (--rooms-per-addr) and of
// --max-rooms; requests from another site, not in JSON or with a skill
// outside 1..100 are refused, and none of them opens a room.
func TestPracticeBounded(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.RoomsPerAddr, c.MaxRooms = 2, 3 })
	for _, c := range []struct {
		ctype, origin, body string
		want                int
	}{
		{"application/json", "http://evil.example", `{"skill": 30}`, http.StatusForbidden},
		{"text/plain", "", `{"skill": 30}`, http.StatusUnsupportedMediaType},
		{"application/x-www-form-urlencoded", "", `skill=30`, http.StatusUnsupportedMediaType},
		{"application/json", "", `{"skill": 0}`, http.StatusBadRequest},
		{"application/json", "", `{"skill": 101}`, http.StatusBadRequest},
		{"application/json", "", `{}`, http.StatusBadRequest},
		{"application/json", "", `{"skill": 30, "bots": 32}`, http.StatusBadRequest},
		{"application/json", "", `{"skill": "30"}`, http.StatusBadRequest},
		{"application/json", "", `{"skill": 30` + strings.Repeat(" ", 300) + `}`, http.StatusBadRequest},
	} {
		if got, _ := askPractice(t, s, c.ctype, c.origin, c.body); got != c.want {
			t.Errorf("%s %q from %q: status %d, want %d", c.ctype, c.body, c.origin, got, c.want)
		}
	}
	if n := len(s.Rooms()); n != 0 {
		t.Fatalf("refused requests opened %d rooms", n)
	}
	for i := range 2 {
		if got, _ := askPractice(t, s, "application/json; charset=utf-8", "", `{"skill": 60}`); got != http.StatusCreated {
			t.Fatalf("practice room %d: status %d", i+1, got)
		}
	}
	if got, _ := askPractice(t, s, "application/json", "", `{"skill": 60}`); got != http.StatusTooManyRequests {
		t.Fatalf("a third room a minute from one address: status %d, want 429", got)
	}
	if n := len(s.Rooms()); n != 2 {
		t.Fatalf("%d rooms open, want 2", n)
	}
	// An address within its quota still meets --max-rooms.
	s.mu.Lock()
	s.cfg.RoomsPerAddr = -1
	s.mu.Unlock()
	askPractice(t, s, "application/json", "", `{"skill": 60}`)
	if got, _ := askPractice(t, s, "application/json", "", `{"skill": 60}`); got != http.StatusServiceUnavailable {
		t.Fatalf("past --max-rooms: status %d, want 503", got)
	}
}

// TestPracticeUnjoinedCloses: a practice room nobody joins closes once
// empty for --empty-room-ttl, as any room does, giving its place back.
func TestPracticeUnjoinedCloses(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.EmptyRoomTTL = 200 * time.Millisecond })
	if got, _ := askPractice(t, s, "application/json", "", `{"skill": 30}`); got != http.StatusCreated {
		t.Fatalf("status %d", got)
	}
	for deadline := time.Now().Add(5 * time.Second); len(s.Rooms()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the unjoined practice room is still open: %+v", s.Rooms())
		}
	}
}

// TestPracticeInCluster: a cluster node leases a practice room as it opens
// it, so that a join landing on any node finds it here; its heartbeat
// leaves it out of the shared lobby, and counts its place.
func TestPracticeInCluster(t *testing.T) {
	s := clusterServer(t, natstest.Start(t), func(c *Config) { c.MaxRooms = 10 })
	status, a := askPractice(t, s, "application/json", "", `{"skill": 30}`)
	if status != http.StatusCreated {
		t.Fatalf("status %d", status)
	}
	if !s.cl.node.Holds(a.Room) {
		t.Fatalf("the node holds no lease of %q", a.Room)
	}
	player(t, s.url, headless.Options{Name: "Ann", Room: a.Room})
	info := s.cl.status()
	for _, r := range info.Rooms {
		if r.Name == a.Room {
			t.Fatalf("the heartbeat lists %q", a.Room)
		}
	}
	if info.MaxRooms != 9 {
		t.Errorf("the heartbeat says %d rooms may open, want 9", info.MaxRooms)
	}
	// It names the room apart, for a node to carry it on should this one
	// die (cluster.Node.Orphans), and /api/nodes leaves that out.
	if len(info.Private) != 1 || info.Private[0] != a.Room {
		t.Errorf("the heartbeat's private rooms: %v, want %q", info.Private, a.Room)
	}
	resp, err := http.Get(s.ts.URL + "/api/nodes")
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(nodes), a.Room) {
		t.Errorf("/api/nodes names the practice room: %s", nodes)
	}
	ws := dialRaw(t, s.url)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "Dee", Room: "practice-bbbbbbbbbbbbbbbbbbbb"}))
	expectClosed(t, ws, proto.CloseBadName, websocket.StatusPolicyViolation)
	if s.cl.node.Holds("practice-bbbbbbbbbbbbbbbbbbbb") {
		t.Fatal("a Hello placed a practice room")
	}
}

// TestRoomsAnnouncedAtOnce: a node's heartbeat goes out as soon as its rooms
// change, not at its next tick: a room opened since the last heartbeat is
// otherwise unknown to the other nodes, and should its node die before the
// next one, no survivor carries it on by itself (only its players' rejoins
// would revive it). Here the heartbeat ticks once an hour: the other node
// must still learn of the Practice room at once, and of its closing.
func TestRoomsAnnouncedAtOnce(t *testing.T) {
	url := natstest.Start(t)
	slow := func(name string) func(*Config) {
		return func(c *Config) {
			c.Cluster.Name, c.Cluster.Heartbeat, c.Cluster.DeadAfter = name, time.Hour, 2*time.Hour
		}
	}
	a := clusterServer(t, url, slow("a"))
	b := clusterServer(t, url, slow("b"))
	private := func() []string {
		for _, n := range b.cl.node.Nodes() {
			if n.Name == "a" {
				return n.Private
			}
		}
		return nil
	}
	status, ans := askPractice(t, a, "application/json", "", `{"skill": 30}`)
	if status != http.StatusCreated {
		t.Fatalf("status %d", status)
	}
	eventually(t, 2*time.Second, "node b hearing of a's practice room", func() bool { return slices.Contains(private(), ans.Room) })
	a.evict(ans.Room, reasonBusy)
	eventually(t, 2*time.Second, "node b hearing that the room closed", func() bool { return !slices.Contains(private(), ans.Room) })

	// Rooms that come and go all the time make a few heartbeats a second,
	// not one each: 100 changes in a second, at most 4 extra heartbeats a
	// second (cluster's changedGap), 6 allowed here.
	m := a.cl.node.Metrics()
	before := m.HeartbeatBytes.Load()
	a.cl.node.Announce()
	one := m.HeartbeatBytes.Load() - before
	time.Sleep(300 * time.Millisecond) // past the gap after the last change's heartbeat
	before = m.HeartbeatBytes.Load()
	for range 100 {
		a.roomsChanged()
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the last change's heartbeat
	if n := (m.HeartbeatBytes.Load() - before) / one; n > 6 {
		t.Fatalf("100 changes in a second made about %d heartbeats", n)
	}
}
