package main

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// TestServeAddressFlags: the per-address limits reach the server's
// configuration; 0 lifts a limit; a proxy is an address or a prefix.
func TestServeAddressFlags(t *testing.T) {
	cfg, _, err := parseServe([]string{"--max-conns-per-addr", "0", "--rooms-per-addr", "3",
		"--trusted-proxy", " 10.0.0.0/8, 192.0.2.1 ,::1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("::1/128")}
	if cfg.MaxConnsPerAddr != -1 || cfg.RoomsPerAddr != 3 || !reflect.DeepEqual(cfg.TrustedProxies, want) {
		t.Fatalf("config %d conns, %d rooms, proxies %v", cfg.MaxConnsPerAddr, cfg.RoomsPerAddr, cfg.TrustedProxies)
	}
	cfg, _, err = parseServe(nil)
	if err != nil || cfg.MaxConnsPerAddr != 32 || cfg.RoomsPerAddr != 5 || cfg.TrustedProxies != nil {
		t.Fatalf("defaults: %v, %d conns, %d rooms, proxies %v", err, cfg.MaxConnsPerAddr, cfg.RoomsPerAddr, cfg.TrustedProxies)
	}
	for _, args := range [][]string{{"--trusted-proxy", "proxy.example"}, {"--max-conns-per-addr", "-1"}} {
		if _, _, err := parseServe(args); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: %v, want an error naming the flag", args, err)
		}
	}
}

// TestServeReplayLimitFlags: --replay-keep and --replay-max-bytes must be
// positive; zero or less is an error naming the flag, never the default.
func TestServeReplayLimitFlags(t *testing.T) {
	for _, args := range [][]string{{"--replay-keep", "0"}, {"--replay-keep", "-1h"}, {"--replay-max-bytes", "0"}, {"--replay-max-bytes", "-5"}} {
		if _, _, err := parseServe(args); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: %v, want an error naming the flag", args, err)
		}
	}
}

// TestServeBotSkillFlag: --bot-skill and WEBTRON_BOT_SKILL set the bots'
// skill (100 by default); outside 1..100 is an error naming the flag.
func TestServeBotSkillFlag(t *testing.T) {
	cfg, _, err := parseServe(nil)
	if err != nil || cfg.BotSkill != 100 {
		t.Fatalf("default: skill %d, %v", cfg.BotSkill, err)
	}
	if cfg, _, err = parseServe([]string{"--bot-skill", "1"}); err != nil || cfg.BotSkill != 1 {
		t.Fatalf("--bot-skill 1: skill %d, %v", cfg.BotSkill, err)
	}
	t.Setenv("WEBTRON_BOT_SKILL", "40")
	if cfg, _, err = parseServe(nil); err != nil || cfg.BotSkill != 40 {
		t.Fatalf("WEBTRON_BOT_SKILL=40: skill %d, %v", cfg.BotSkill, err)
	}
	for _, v := range []string{"0", "101", "-3"} {
		if _, _, err := parseServe([]string{"--bot-skill", v}); err == nil || !strings.Contains(err.Error(), "bot-skill") {
			t.Errorf("--bot-skill %s: %v, want an error naming the flag", v, err)
		}
	}
}
