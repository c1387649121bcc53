//go:build !js

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // for --pprof, on its own listener
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"webtron/aamap"
	"webtron/bot"
	"webtron/clock"
	"webtron/server"
	"webtron/settings"
	"webtron/sim"
	"webtron/web"
)

func init() {
	commands["serve"] = command{summary: "run the game server (default)", run: runServe}
}

// serveFlags are serve's flags; each can also come from the environment
// variable named beside it (the flag wins when both are given).
type serveFlags struct {
	addr, charity, rule, data, origin string
	pprof, settings, mapFile          string
	maps                              string      // --maps: all, none or resource paths
	mapRules                          *sim.Config // the rules before MAP_FILE, which --maps' maps play over
	tlsCert, tlsKey                   string
	webtransport                      bool
	tickRate                          int64
	cap                               time.Duration
	bots, seats, maxRooms, maxPlayers int
	botSkill                          int
	replayKeep                        time.Duration
	replayMaxBytes                    int64
	perAddr                           addrFlags
}

// addrFlags are the per-address limits.
type addrFlags struct {
	conns, rooms int
	proxies      string
}

func (a *addrFlags) register(fs *flag.FlagSet, env map[string]string) {
	fs.IntVar(&a.conns, "max-conns-per-addr", 32, "connections at once from one address (an IPv6 /64 counts as one); 0: no limit")
	fs.IntVar(&a.rooms, "rooms-per-addr", 5, "new rooms one address may open a minute; 0: no limit")
	fs.StringVar(&a.proxies, "trusted-proxy", "", "reverse proxies (comma-separated addresses or CIDR prefixes) whose X-Forwarded-For names the client")
	env["max-conns-per-addr"], env["rooms-per-addr"], env["trusted-proxy"] = "WEBTRON_MAX_CONNS_PER_ADDR", "WEBTRON_ROOMS_PER_ADDR", "WEBTRON_TRUSTED_PROXY"
}

// apply puts the limits into cfg (0 there means the default, so "no limit" is -1).
func (a *addrFlags) apply(cfg *server.Config) error {
	cfg.MaxConnsPerAddr, cfg.RoomsPerAddr = a.conns, a.rooms
	if a.conns == 0 {
		cfg.MaxConnsPerAddr = -1
	}
	if a.rooms == 0 {
		cfg.RoomsPerAddr = -1
	}
	for _, p := range strings.Split(a.proxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			ad, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return fmt.Errorf("--trusted-proxy: %q is neither an address nor a CIDR prefix", p)
			}
			pre = netip.PrefixFrom(ad.Unmap(), ad.Unmap().BitLen())
		}
		cfg.TrustedProxies = append(cfg.TrustedProxies, pre.Masked())
	}
	return nil
}

func (f *serveFlags) register(fs *flag.FlagSet) map[string]string {
	fs.StringVar(&f.addr, "addr", ":8080", "listen address")
	fs.Int64Var(&f.tickRate, "tick-rate", 120, "simulation ticks per second")
	fs.StringVar(&f.charity, "charity", "auto", "ping charity: a duration like 50ms, auto (equal lag for all), or 0")
	fs.DurationVar(&f.cap, "charity-cap", clock.DefaultCharityCap, "upper bound of the charity in every mode")
	fs.StringVar(&f.rule, "charity-rule", "webtron", "lead and leniency rule: webtron or armagetron")
	fs.IntVar(&f.bots, "bots", 3, "bots per room (they give their seats to humans between rounds)")
	fs.IntVar(&f.seats, "seats", 8, "cycles per room, humans and bots")
	fs.IntVar(&f.botSkill, "bot-skill", bot.DefaultSkill, "the bots' skill, Armagetron's AI_IQ: 1 (slow, short-sighted, never attacks) to 100 (the full bot)")
	fs.IntVar(&f.maxRooms, "max-rooms", 100, "rooms open at once")
	fs.IntVar(&f.maxPlayers, "max-players", 2000, "connections at once, spectators included")
	fs.StringVar(&f.data, "data", server.DefaultDataDir(), "data directory (replays, desync dumps); empty writes none")
	fs.StringVar(&f.origin, "origin", "", "extra allowed WebSocket origins, comma-separated host patterns (e.g. *.example.com)")
	fs.StringVar(&f.pprof, "pprof", "", "serve net/http/pprof on this separate address (e.g. 127.0.0.1:6060); off when empty")
	fs.BoolVar(&f.webtransport, "webtransport", true, "also serve WebTransport (HTTP/3) on UDP at the --addr port")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "WebTransport certificate (PEM); without it a self-signed one is made and renewed, its hash served at /api/transport")
	fs.StringVar(&f.tlsKey, "tls-key", "", "key of --tls-cert (PEM)")
	fs.StringVar(&f.settings, "settings", "", "Armagetron-format settings file (`webtron settings` lists them); flags given explicitly win over its TICK_RATE, BOTS, SEATS, MAX_CLIENTS, AI_IQ")
	fs.StringVar(&f.mapFile, "map-file", "", "Armagetron map to play (MAP_FILE; wins over the settings file's): a path, or a resource path under "+aamap.ResourceDir+" such as Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml")
	fs.StringVar(&f.maps, "maps", "all", "maps a player opening a room may choose besides --map-file (GET /api/maps): all (every one under "+aamap.ResourceDir+"), none, or comma-separated resource paths")
	fs.DurationVar(&f.replayKeep, "replay-keep", server.DefaultReplayKeep, "delete replays and desync dumps older than this")
	fs.Int64Var(&f.replayMaxBytes, "replay-max-bytes", server.DefaultReplayMaxBytes, "delete the oldest replays and dumps beyond this many bytes in all")
	env := map[string]string{"settings": "WEBTRON_SETTINGS", "map-file": "WEBTRON_MAP_FILE", "maps": "WEBTRON_MAPS", "addr": "WEBTRON_ADDR", "tick-rate": "WEBTRON_TICK_RATE", "charity": "WEBTRON_CHARITY",
		"charity-cap": "WEBTRON_CHARITY_CAP", "charity-rule": "WEBTRON_CHARITY_RULE", "bots": "WEBTRON_BOTS", "bot-skill": "WEBTRON_BOT_SKILL",
		"seats": "WEBTRON_SEATS", "max-rooms": "WEBTRON_MAX_ROOMS", "max-players": "WEBTRON_MAX_PLAYERS",
		"data": "WEBTRON_DATA", "origin": "WEBTRON_ORIGIN", "pprof": "WEBTRON_PPROF",
		"replay-keep": "WEBTRON_REPLAY_KEEP", "replay-max-bytes": "WEBTRON_REPLAY_MAX_BYTES",
		"webtransport": "WEBTRON_WEBTRANSPORT", "tls-cert": "WEBTRON_TLS_CERT", "tls-key": "WEBTRON_TLS_KEY"}
	f.perAddr.register(fs, env)
	return env
}

// serveOptions are what serve needs besides the server's configuration.
type serveOptions struct {
	addr, pprof  string
	webtransport bool
	warnings     []string      // from the settings file, logged once the logger exists
	drain        time.Duration // before Shutdown, for a cluster node
}

// parseServe reads flags and environment into a server configuration.
func parseServe(args []string) (server.Config, serveOptions, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f serveFlags
	var cf clusterFlags
	env := f.register(fs)
	for k, v := range cf.register(fs) {
		env[k] = v
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stderr)
			fmt.Fprintln(os.Stderr, "usage: webtron serve [flags]  (each flag also reads the environment variable shown)")
			fs.VisitAll(func(fl *flag.Flag) { fl.Usage += " [" + env[fl.Name] + "]" })
			fs.PrintDefaults()
		}
		return server.Config{}, serveOptions{}, err
	}
	if fs.NArg() > 0 {
		return server.Config{}, serveOptions{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for name, v := range env {
		if val, ok := os.LookupEnv(v); ok && !set[name] {
			if err := fs.Set(name, val); err != nil {
				return server.Config{}, serveOptions{}, fmt.Errorf("invalid value %q for %s (--%s): %v", val, v, name, err)
			}
		}
	}
	file, err := f.applySettings(fs)
	if err != nil {
		return server.Config{}, serveOptions{}, err
	}
	charity, err := clock.ParseCharity(f.charity)
	if err != nil {
		return server.Config{}, serveOptions{}, fmt.Errorf("--charity: %w", err)
	}
	var rule clock.Rule
	switch strings.ToLower(f.rule) {
	case "webtron":
		rule = clock.RuleWebtron
	case "armagetron":
		rule = clock.RuleArmagetron
	default:
		return server.Config{}, serveOptions{}, fmt.Errorf("--charity-rule: %q is neither webtron nor armagetron", f.rule)
	}
	checks := []struct {
		bad  bool
		flag string
		msg  string
	}{
		{f.tickRate < 10 || f.tickRate > 1000, "tick-rate", "must be 10..1000"},
		{f.cap <= 0, "charity-cap", "must be positive"},
		{f.seats < 1 || f.seats > 32, "seats", "must be 1..32"},
		{f.bots < 0 || f.bots > f.seats, "bots", "must be 0..seats"},
		{f.botSkill < bot.MinSkill || f.botSkill > bot.MaxSkill, "bot-skill", fmt.Sprintf("must be %d..%d", bot.MinSkill, bot.MaxSkill)},
		{f.maxRooms < 1, "max-rooms", "must be at least 1"},
		{f.maxPlayers < 1, "max-players", "must be at least 1"},
		{f.replayKeep <= 0, "replay-keep", "must be positive"},
		{f.replayMaxBytes <= 0, "replay-max-bytes", "must be positive"},
		{f.perAddr.conns < 0, "max-conns-per-addr", "must be 0 (no limit) or more"},
		{f.perAddr.rooms < 0, "rooms-per-addr", "must be 0 (no limit) or more"},
	}
	for _, c := range checks {
		if c.bad {
			v := fs.Lookup(c.flag).Value.String()
			return server.Config{}, serveOptions{}, fmt.Errorf("--%s %s: %s", c.flag, v, c.msg)
		}
	}
	cfg := server.Config{TickRate: f.tickRate, Policy: clock.Policy{Charity: charity, Cap: f.cap, Rule: rule},
		Bots: f.bots, BotSkill: f.botSkill, Seats: f.seats, MaxRooms: f.maxRooms, MaxPlayers: f.maxPlayers, DataDir: f.data,
		ReplayKeep: f.replayKeep, ReplayMaxBytes: f.replayMaxBytes, TLSCert: f.tlsCert, TLSKey: f.tlsKey}
	if err := f.perAddr.apply(&cfg); err != nil {
		return server.Config{}, serveOptions{}, err
	}
	for _, o := range strings.Split(f.origin, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.Origins = append(cfg.Origins, o)
		}
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return server.Config{}, serveOptions{}, fmt.Errorf("--tls-cert and --tls-key go together")
	}
	cfg.EphemeralRooms, cfg.WriteAhead = !cf.durable, cf.writeAhead
	if cfg.Cluster, err = cf.options(f.addr, f.data); err != nil {
		return server.Config{}, serveOptions{}, err
	}
	opt := serveOptions{addr: f.addr, pprof: f.pprof, webtransport: f.webtransport, drain: cf.drain}
	if file != nil {
		cfg.Rules, cfg.MapFile, cfg.MapRules = &file.Sim, file.MapFile, f.mapRules
		opt.warnings = file.Warnings
	}
	if cfg.Maps, err = f.mapList(); err != nil {
		return server.Config{}, serveOptions{}, err
	}
	return cfg, opt, nil
}

// applySettings reads --settings, if given, and takes its server knobs
// (TICK_RATE, BOTS, SEATS, MAX_CLIENTS, AI_IQ) where no flag or environment variable
// set them.
func (f *serveFlags) applySettings(fs *flag.FlagSet) (*settings.File, error) {
	if f.settings == "" && f.mapFile == "" {
		return nil, nil
	}
	file, err := settings.Parse(strings.NewReader(""), "defaults")
	if f.settings != "" {
		file, err = settings.Load(f.settings)
	}
	if err != nil {
		return nil, fmt.Errorf("--settings: %w", err)
	}
	if err := f.applyMap(file); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true }) // the environment's values count
	use := func(flagName, key string) bool { return !set[flagName] && file.ServerSet[key] }
	if use("tick-rate", "TICK_RATE") {
		f.tickRate = file.Server.TickRate
	}
	if use("bots", "BOTS") {
		f.bots = int(file.Server.Bots)
	}
	if use("seats", "SEATS") {
		f.seats = int(file.Server.Seats)
	}
	if use("max-players", "MAX_CLIENTS") {
		f.maxPlayers = int(file.Server.MaxClients)
	}
	if use("bot-skill", "AI_IQ") {
		f.botSkill = int(file.Server.BotSkill)
	}
	return file, nil
}

// applyMap loads the map MAP_FILE names (--map-file, else the settings
// file's), relative to the settings file's directory or among Armagetron's
// resources, and plays it: its settings over the file's, its arena.
func (f *serveFlags) applyMap(file *settings.File) error {
	name, dir := file.MapFile, filepath.Dir(f.settings)
	if f.mapFile != "" {
		name, dir = f.mapFile, ""
	}
	if name == "" {
		return nil
	}
	base := file.Sim
	f.mapRules = &base
	path, warnings, err := aamap.LoadInto(&file.Sim, name, dir)
	if err != nil {
		return fmt.Errorf("MAP_FILE: %w", err)
	}
	file.MapFile = path
	file.Warnings = append(file.Warnings, warnings...)
	return nil
}

// mapList reads --maps: the stock maps a new room may play.
func (f *serveFlags) mapList() ([]string, error) {
	switch v := strings.TrimSpace(f.maps); v {
	case "all":
		maps, err := aamap.Stock()
		if err != nil {
			return nil, fmt.Errorf("--maps all: %w", err)
		}
		return maps, nil
	case "none", "":
		return nil, nil
	}
	var out []string
	for _, m := range strings.Split(f.maps, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out, nil
}

// runServe runs the game server until SIGINT or SIGTERM, then closes every
// room (writing their replays) within five seconds.
func runServe(args []string) error {
	cfg, opt, err := parseServe(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	cfg.Logger = newLogger()
	for _, w := range opt.warnings {
		cfg.Logger.Warn("webtron: settings", "warning", w)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		// Rooms tick 120 times a second: a collection that delays many of
		// them at once shows as tick lateness. Memory is the cheaper
		// resource here (measured in docs/performance.md); GOGC overrides.
		debug.SetGCPercent(400)
	}
	cfg.Web = web.Handler() // the browser client, embedded at build time
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opt.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", opt.addr, err)
	}
	if opt.pprof != "" {
		// The profiler gets its own listener so it is never exposed with the game.
		pl, err := net.Listen("tcp", opt.pprof)
		if err != nil {
			return fmt.Errorf("--pprof %s: %w", opt.pprof, err)
		}
		go http.Serve(pl, http.DefaultServeMux)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 2)
	go func() { done <- srv.Serve(ln) }()
	serving := 1
	if opt.webtransport {
		// The same port number on UDP: a page finds WebTransport at its own
		// host and port.
		pc, err := net.ListenPacket("udp", ln.Addr().String())
		if err != nil {
			return fmt.Errorf("--addr %s (udp, for WebTransport; --webtransport=false serves without): %w", opt.addr, err)
		}
		defer pc.Close()
		serving++
		go func() { done <- srv.ServeWebTransport(pc) }()
	}
	cfg.Logger.Info("webtron: listening", "addr", ln.Addr().String(), "tick_rate", cfg.TickRate,
		"charity", cfg.Policy.Charity.String(), "rule", cfg.Policy.Rule.String(), "bots", cfg.Bots, "bot_skill", cfg.BotSkill,
		"seats", cfg.Seats, "data", cfg.DataDir, "webtransport", opt.webtransport)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	stop() // a second signal kills the process the usual way
	if cfg.Cluster != nil {
		drain(srv, opt.drain)
	}
	cfg.Logger.Info("webtron: shutting down")
	shut, cancel := context.WithTimeout(context.Background(), 4500*time.Millisecond)
	defer cancel()
	err = srv.Shutdown(shut)
	for range serving {
		if e := <-done; err == nil {
			err = e
		}
	}
	return err
}

// newLogger logs text to a terminal and JSON otherwise (log collectors).
func newLogger() *slog.Logger {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, nil))
}
