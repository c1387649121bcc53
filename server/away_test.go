package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"webtron/client"
	"webtron/headless"
	"webtron/proto"
	"webtron/room"
)

// TestSecondConnectionTakesOver: a second connection with a player's token
// (the page's second tab, which shares the browser's token) takes the seat
// over: it is welcomed as the same player, the first connection is closed
// with CloseReplaced (the page then says "continued in another tab"), and
// the room holds one such player, connected. Someone else asking for the
// name is told who holds it and when it frees up.
func TestSecondConnectionTakesOver(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Bots = 1 })
	first := player(t, s.url, headless.Options{Name: "alice", Room: "tabs", Idle: true})
	drive(t, first)
	var you int
	var token []byte
	first.Inspect(func(cs *client.Session) { you, token = cs.You(), cs.Token() })

	second := player(t, s.url, headless.Options{Name: "alice", Room: "tabs", Token: token, Idle: true})
	drive(t, second)
	var again int
	second.Inspect(func(cs *client.Session) { again = cs.You() })
	if again != you {
		t.Fatalf("the second connection is player %d, the first was %d", again, you)
	}
	select {
	case <-first.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first connection is still open 5 s after the second took its seat")
	}
	var why *proto.Error
	if err := first.Err(); !errors.As(err, &why) || why.Code != proto.CloseReplaced {
		t.Fatalf("the first connection ended with %v, want CloseReplaced", err)
	}
	s.inspect(t, "tabs", func(r *room.Room) {
		n := 0
		for _, p := range r.RosterNow().Players {
			if strings.EqualFold(p.Name, "alice") {
				n++
				if int(p.ID) != you || !p.Connected || p.Bot {
					t.Errorf("roster entry %+v, want player %d connected", p, you)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d players called alice in the roster, want 1", n)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	other, err := headless.Dial(ctx, headless.Options{URL: s.url, Name: "ALICE", Room: "tabs", Idle: true})
	if err == nil {
		defer other.Close()
		err = other.WaitWelcome(ctx)
	}
	const want = "alice is playing in this room; the name frees up when they leave"
	if !errors.As(err, &why) || why.Code != proto.CloseNameTaken || !strings.Contains(why.Text, want) {
		t.Fatalf("another player asking for the name: %v, want CloseNameTaken saying %q", err, want)
	}
}
