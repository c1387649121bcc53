package server

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"webtron/client"
	"webtron/cluster"
	"webtron/headless"
	"webtron/internal/natstest"
)

// TestClusterMoveRoom: an operator moves a room to another node by hand,
// live (POST /api/rooms/move with the admin token derived from the cluster
// secret; none, or another, is refused): the room stops on its node and
// goes on on the other one, in the same round, and its player, told it
// moved, is back in its seat there with its token.
func TestClusterMoveRoom(t *testing.T) {
	url := natstest.Start(t)
	a := clusterServer(t, url, func(c *Config) { c.Bots = 3 })
	// b starts once the room is a's (a join places a room on the node with
	// the most room).
	p := player(t, a.url, headless.Options{Name: "ann", Room: "m"})
	drive(t, p)
	if !a.hasRoom("m") {
		t.Fatal("room m is not a's")
	}
	b := clusterServer(t, url, func(c *Config) { c.Bots = 3; c.Cluster.Name = "b" })
	seat, round, match := riding(t, p)
	eventually(t, 5*time.Second, "a hears b", func() bool { _, ok := a.cl.node.Node("b"); return ok })
	move := func(token string) int { return moveRoom(t, a, "m", "b", token) }
	for _, tok := range []string{"", cluster.AdminToken([]byte("another secret, long enough to be one"))} {
		if code := move(tok); code != http.StatusUnauthorized {
			t.Fatalf("a move with token %q: status %d, want 401", tok, code)
		}
	}
	if !a.hasRoom("m") {
		t.Fatal("a refused move moved the room")
	}
	if code := move(cluster.AdminToken(clusterSecret)); code != http.StatusOK {
		t.Fatalf("the operator's move: status %d", code)
	}
	if a.hasRoom("m") || !b.hasRoom("m") {
		t.Fatalf("after the move: on a %v, on b %v", a.hasRoom("m"), b.hasRoom("m"))
	}
	eventually(t, 5*time.Second, "ann told", func() bool { return p.Err() != nil })
	if err := p.Err(); !strings.Contains(err.Error(), "moved") {
		t.Fatalf("ann told %v, want the room moved", err)
	}
	var token []byte
	p.Inspect(func(s *client.Session) { token = s.Token() })
	backInSeat(t, b, "m", token, seat, round, match)
	if o, held, err := b.cl.node.Lookup(t.Context(), "m"); err != nil || !held || o.Node != "b" {
		t.Fatalf("lease after the move: %+v held %v err %v", o, held, err)
	}
}

// moveRoom asks node a to move room to node to with the bearer token
// ("": none) and returns the answer's status.
func moveRoom(t *testing.T, a *testServer, room, to, token string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, a.ts.URL+"/api/rooms/move?room="+url.QueryEscape(room)+"&to="+to, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestClusterMovePracticeRoom: a Practice room moves like any other (a
// drain hands it over the same way): on the other node it is still
// private, its bots as good, and its player is back in its seat of the
// same round with its token.
func TestClusterMovePracticeRoom(t *testing.T) {
	nats := natstest.Start(t)
	a := clusterServer(t, nats, nil)
	status, ans := askPractice(t, a, "application/json", "", `{"skill": 40}`)
	if status != http.StatusCreated {
		t.Fatalf("/api/practice: status %d", status)
	}
	p := player(t, a.url, headless.Options{Name: "ann", Room: ans.Room})
	drive(t, p)
	b := clusterServer(t, nats, func(c *Config) { c.Cluster.Name = "b" })
	seat, round, match := riding(t, p)
	eventually(t, 5*time.Second, "a hears b", func() bool { _, ok := a.cl.node.Node("b"); return ok })
	if code := moveRoom(t, a, ans.Room, "b", cluster.AdminToken(clusterSecret)); code != http.StatusOK {
		t.Fatalf("the operator's move: status %d", code)
	}
	if a.hasRoom(ans.Room) || !b.hasRoom(ans.Room) {
		t.Fatalf("after the move: on a %v, on b %v", a.hasRoom(ans.Room), b.hasRoom(ans.Room))
	}
	for _, r := range b.Rooms() {
		if r.Name == ans.Room && (!r.Private || r.BotSkill != 40) {
			t.Fatalf("the moved room on b: %+v, want private with skill 40", r)
		}
	}
	if rooms := b.publicRooms(); slices.ContainsFunc(rooms, func(r RoomInfo) bool { return r.Name == ans.Room }) {
		t.Fatalf("b lists the practice room: %+v", rooms)
	}
	eventually(t, 5*time.Second, "ann told", func() bool { return p.Err() != nil })
	var token []byte
	p.Inspect(func(s *client.Session) { token = s.Token() })
	backInSeat(t, b, ans.Room, token, seat, round, match)
}

// riding waits until p rides a round and returns its seat and the round.
func riding(t *testing.T, p *headless.Player) (seat int, round, match int64) {
	t.Helper()
	eventually(t, 5*time.Second, p.Name()+" riding", func() bool {
		p.Inspect(func(s *client.Session) {
			seat = s.You()
			round, match = s.State().Round()
		})
		return round > 0
	})
	return seat, round, match
}

// backInSeat joins room on b as ann with token and checks she is back in
// seat, in the same match and no earlier round.
func backInSeat(t *testing.T, b *testServer, room string, token []byte, seat int, round, match int64) {
	t.Helper()
	q := player(t, b.url, headless.Options{Name: "ann", Room: room, Token: token})
	drive(t, q)
	q.Inspect(func(s *client.Session) {
		r, m := s.State().Round()
		if s.You() != seat || m != match || r < round {
			t.Fatalf("ann back in seat %d, round %d of match %d; was seat %d, round %d of %d", s.You(), r, m, seat, round, match)
		}
	})
}
