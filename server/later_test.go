package server

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"webtron/proto"
)

// TestDeferredMessages: pings, pongs, hash reports and chat wait for the
// room's next tick instead of waking it, and never overtake the Hello sent
// before them. A client that sends its Hello and a Ping back to back gets
// its Welcome and then the Pong, with the heartbeat, held and saying so; its
// chat line reaches the room.
func TestDeferredMessages(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Bots = 1 })
	ws := dialRaw(t, s.url)
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Hello{Name: "eager", Room: "later"}))
	send(t, ws, websocket.MessageBinary, marshal(t, &proto.Ping{ID: 9, Time: 42}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var welcomed, chatted bool
	var pong *proto.Pong
	sentChat := false
	for pong == nil || !chatted {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("welcomed %v, pong %v, chat %v: %v", welcomed, pong != nil, chatted, err)
		}
		m, err := proto.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *proto.Welcome:
			welcomed = true
		case *proto.Error:
			t.Fatalf("closed: %s", m.Text)
		case *proto.Pong:
			if !welcomed {
				t.Fatal("the pong overtook the welcome")
			}
			if m.ID == 9 && m.Echo == 42 {
				pong = m
			}
		case *proto.Chat:
			chatted = chatted || m.Text == "hi"
		}
		if welcomed && !sentChat {
			sentChat = true
			send(t, ws, websocket.MessageBinary, marshal(t, &proto.Chat{Text: "hi"}))
		}
	}
	// The answer left with a heartbeat, up to a second after the ping came
	// in a room where nobody presses a key (room.DefaultQuietHeartbeat).
	if pong.Held == 0 || pong.Held > 1_100_000 {
		t.Errorf("pong held %d µs, want within (0, 1.1 s]", pong.Held)
	}
}
