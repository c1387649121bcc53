package server

import (
	"strings"
	"testing"
	"time"

	"webtron/headless"
	"webtron/sim"
)

// TestBotRoundsNotWritten: rounds of bots alone, watched by a spectator, are
// neither written nor listed (issue 22: they filled Recent rounds with draws
// nobody played); once a human rides, the room's rounds are, each with its
// human.
func TestBotRoundsNotWritten(t *testing.T) {
	data := t.TempDir()
	start := time.Now()
	s := newTestServer(t, func(c *Config) {
		c.DataDir = data
		c.Bots = 2
		c.Rules.ArenaSize = 25 * sim.Meter // rounds of bots of a few seconds
	})
	w := player(t, s.url, headless.Options{Name: "watcher", Room: "bots", Spectate: true})
	drive(t, w)
	time.Sleep(100 * time.Millisecond)
	for s.metricRounds(t) < 1 {
		time.Sleep(100 * time.Millisecond)
	}
	base := "http" + strings.TrimPrefix(s.url, "ws")
	var list []ReplayInfo
	getJSON(t, base+"/api/replays?room=bots", &list)
	if len(list) != 0 {
		t.Fatalf("%d rounds of bots alone listed, want none: %+v", len(list), list[0])
	}
	t.Logf("%v rounds of bots after %v", s.metricRounds(t), time.Since(start))
	a := player(t, s.url, headless.Options{Name: "alice", Room: "bots", Idle: true})
	drive(t, a)
	for deadline := time.Now().Add(30 * time.Second); len(list) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no round of alice's listed in 30 s")
		}
		getJSON(t, base+"/api/replays?room=bots", &list)
	}
	for _, e := range list {
		human := false
		for _, p := range e.Players {
			human = human || !p.Bot
		}
		if !human {
			t.Errorf("round %s listed without a human", e.ID)
		}
	}
}

func (s *testServer) metricRounds(t *testing.T) float64 {
	t.Helper()
	return metricValue(t, s.Server, MetricRounds)
}
