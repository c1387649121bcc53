package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"webtron/settings"
	"webtron/sim"
)

// TestSettingsEndpoint: /api/settings lists the rules the rooms play by and
// the server's knobs, as `webtron settings` does.
func TestSettingsEndpoint(t *testing.T) {
	s := newTestServer(t, func(c *Config) {
		c.Bots, c.BotSkill = 2, 45
		c.Rules.BaseSpeed = 40 * sim.Meter
	})
	resp, err := http.Get(s.ts.URL + "/api/settings")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []settings.Entry
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	got := map[string]settings.Entry{}
	for _, e := range list {
		got[e.Name] = e
	}
	for name, want := range map[string]string{"CYCLE_SPEED": "40", "ARENA_SIZE": "50", "BOTS": "2", "AI_IQ": "45", "TICK_RATE": "120", "SP_SIZE_FACTOR": "0", "SIZE_FACTOR": "0"} {
		if got[name].Value != want {
			t.Errorf("%s = %q, want %q", name, got[name].Value, want)
		}
	}
	if e := got["CYCLE_SPEED"]; e.Default != "30" || e.Unit != "m/s" || e.Meaning == "" {
		t.Errorf("CYCLE_SPEED entry %+v", e)
	}
	if len(list) != len(settings.List(sim.DefaultConfig(), settings.DefaultServer())) {
		t.Errorf("%d entries, want every setting", len(list))
	}
}

// TestConfigReplayLimits: a zero replay limit is the default (as every
// zero field of Config); a negative one is an error, no longer the default
// taken silently.
func TestConfigReplayLimits(t *testing.T) {
	c := Config{}
	if err := c.Defaults(); err != nil || c.ReplayKeep != DefaultReplayKeep || c.ReplayMaxBytes != DefaultReplayMaxBytes {
		t.Fatalf("zero limits: %v, keep %v, max %d", err, c.ReplayKeep, c.ReplayMaxBytes)
	}
	for _, bad := range []Config{{ReplayKeep: -time.Hour}, {ReplayMaxBytes: -1}} {
		c := bad
		if err := c.Defaults(); !errors.Is(err, ErrConfig) {
			t.Errorf("keep %v, max %d bytes: %v, want a configuration error", bad.ReplayKeep, bad.ReplayMaxBytes, err)
		}
	}
}

// TestConfigBotSkill: a zero bot skill is the full bot's, one outside
// 1..100 a configuration error; the rooms' bots play at the server's.
func TestConfigBotSkill(t *testing.T) {
	c := Config{}
	if err := c.Defaults(); err != nil || c.BotSkill != 100 {
		t.Fatalf("zero skill: %v, skill %d", err, c.BotSkill)
	}
	for _, k := range []int{-1, 101} {
		c := Config{BotSkill: k}
		if err := c.Defaults(); !errors.Is(err, ErrConfig) {
			t.Errorf("skill %d: %v, want a configuration error", k, err)
		}
	}
	s := &Server{cfg: Config{BotSkill: 20}}
	if got := s.roomConfig(1).BotSkill; got != 20 {
		t.Errorf("a room of a server of skill 20 has skill %d", got)
	}
}
