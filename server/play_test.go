package server

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"webtron/client"
	"webtron/headless"
	"webtron/proto"
	"webtron/replay"
	"webtron/room"
	"webtron/sim"
)

func resyncs(p *headless.Player) (n int64) {
	p.Inspect(func(s *client.Session) { n = s.Stats().Resyncs + s.Stats().ProtocolErrors })
	return n
}

// TestTwoPlayersPlayRounds: two headless clients play whole rounds over real
// sockets; rounds advance, every round is written as a replay that
// re-simulates to its recorded hashes, and nobody desyncs. Bob never steers
// (the bots are good enough to make rounds last minutes), so each round ends
// when he meets the wall.
func TestTwoPlayersPlayRounds(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, func(c *Config) { c.DataDir = data })
	a := player(t, s.url, headless.Options{Name: "alice", Room: "duel", BrakeEvery: 200 * time.Millisecond})
	b := player(t, s.url, headless.Options{Name: "bob", Room: "duel", Idle: true})
	drive(t, a, b)
	const rounds = 3
	deadline := time.Now().Add(30 * time.Second)
	for s.replays.written.Load() < rounds && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := s.replays.written.Load(); n < rounds {
		t.Fatalf("%d rounds finished in 30 s", n)
	}
	sameHashes(t, s.Server, "duel", a, b)
	for _, p := range []*headless.Player{a, b} {
		if err := p.Err(); err != nil {
			t.Fatalf("%s dropped: %v", p.Name(), err)
		}
		if n := resyncs(p); n != 0 {
			t.Fatalf("%s: %d resyncs or protocol errors", p.Name(), n)
		}
	}
	files, _ := filepath.Glob(filepath.Join(data, "replays", "duel", "*"+replay.Ext))
	if len(files) < 2 {
		t.Fatalf("replay files: %v", files)
	}
	f, err := replay.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sum, err := replay.Verify(f)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Decided || len(sum.Players) != 2 || sum.HashesChecked == 0 {
		t.Fatalf("replay summary %+v", sum)
	}
	// A corrupted byte is detected.
	raw, _ := os.ReadFile(files[0])
	raw[len(raw)/2] ^= 1
	if _, err := replay.Unmarshal(raw); !errors.Is(err, replay.ErrCorrupt) {
		t.Fatalf("corrupted replay: %v", err)
	}
}

// TestLateJoinerSharesConfirmedHashes: a third player joins mid-round and
// ends with the same confirmed hashes as the room.
func TestLateJoinerSharesConfirmedHashes(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Bots = 2 })
	a := player(t, s.url, headless.Options{Name: "alice", Room: "late", BrakeEvery: 300 * time.Millisecond})
	b := player(t, s.url, headless.Options{Name: "bob", Room: "late", BrakeEvery: 300 * time.Millisecond})
	drive(t, a, b)
	time.Sleep(time.Second)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var ph sim.Phase
		s.inspect(t, "late", func(r *room.Room) { ph, _ = r.State().Phase() })
		if ph == sim.PhasePlay {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no round is being played")
		}
	}
	c := player(t, s.url, headless.Options{Name: "carol", Room: "late", BrakeEvery: 300 * time.Millisecond})
	drive(t, c)
	time.Sleep(2 * time.Second)
	sameHashes(t, s.Server, "late", a, b, c)
	for _, p := range []*headless.Player{a, b, c} {
		if n := resyncs(p); n != 0 {
			t.Fatalf("%s: %d resyncs or protocol errors", p.Name(), n)
		}
	}
}

// TestReconnectResumesPlayer: a player that has ridden in a round and
// comes back with its token within the grace period gets the same player id;
// a second connection with the token replaces a live first one, which is
// told so.
func TestReconnectResumesPlayer(t *testing.T) {
	s := newTestServer(t, nil)
	a := player(t, s.url, headless.Options{Name: "alice", Room: "r"})
	var id int
	var token []byte
	a.Inspect(func(cs *client.Session) { id, token = cs.You(), bytes.Clone(cs.Token()) })
	// Only a player who has ridden keeps the seat (seat squatting).
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var riding bool
		s.inspect(t, "r", func(r *room.Room) {
			c := r.Timeline().Confirmed()
			ph, _ := c.Phase()
			riding = ph == sim.PhasePlay && c.Cycle(id).InRound
		})
		if riding {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("alice never rode")
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := player(t, s.url, headless.Options{Name: "alice", Room: "r", Token: token})
	var id2 int
	b.Inspect(func(cs *client.Session) { id2 = cs.You() })
	if id2 != id {
		t.Fatalf("reconnected as player %d, was %d", id2, id)
	}
	c := player(t, s.url, headless.Options{Name: "alice", Room: "r", Token: token})
	select {
	case <-b.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the replaced connection stays open")
	}
	var e *proto.Error
	if err := b.Err(); !errors.Is(err, headless.ErrDropped) || !errors.As(err, &e) && !bytes.Contains([]byte(err.Error()), []byte("reconnected")) {
		t.Fatalf("replaced connection ended with %v", err)
	}
	var id3 int
	c.Inspect(func(cs *client.Session) { id3 = cs.You() })
	if id3 != id {
		t.Fatalf("replacing connection is player %d, want %d", id3, id)
	}
	// A token the room never issued is refused.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := headless.Dial(ctx, headless.Options{URL: s.url, Name: "mallory", Room: "r", Token: []byte("forged")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WaitWelcome(ctx); !errors.Is(err, headless.ErrDropped) {
		t.Fatalf("forged token: %v", err)
	}
	var players int
	s.inspect(t, "r", func(r *room.Room) { players, _ = r.Humans() })
	if players != 1 {
		t.Fatalf("%d human players in the room, want 1", players)
	}
}
