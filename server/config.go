// Package server is Webtron's game server: rooms of package room behind
// WebSockets, one goroutine per room (Nakama's model), bounded per-connection
// send queues so a slow client never delays a room's tick, replays written
// for every round, and the operating endpoints (/healthz, /api/rooms,
// /metrics).
//
// Each room goroutine owns its room.Room: a timer set to the room's next
// wake-up (the next tick at which something is due: roomHost.untilWake)
// calls Tick, which runs every tick due, and decoded messages arrive on a buffered channel and are
// handled as they come. Each connection has a reader (the HTTP handler's
// goroutine) and a writer goroutine; the room only ever appends to the
// writer's queue without blocking, and drops the connection when it is full.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"webtron/bot"
	"webtron/clock"
	"webtron/cluster"
	"webtron/proto"
	"webtron/sim"
)

// Config is the server's configuration. Zero fields take the defaults noted.
type Config struct {
	TickRate   int64        // ticks per second (120)
	Policy     clock.Policy // ping charity: mode, cap and rule
	Bots       int          // bots per room, filling seats humans leave free (0: none)
	BotSkill   int          // their skill, Armagetron's AI_IQ, bot.MinSkill..bot.MaxSkill (0: bot.DefaultSkill)
	Seats      int          // cycles per room (8)
	MaxRooms   int          // rooms at once (100)
	MaxPlayers int          // connections at once, spectators included (2000)
	// MaxConnsPerAddr bounds the connections of one address (an IPv4
	// address, an IPv6 /64) at once (32; negative: no limit), and
	// RoomsPerAddr the rooms it may open a minute (5, as a burst;
	// negative: no limit). The address is the socket's peer, or what
	// X-Forwarded-For says behind one of TrustedProxies (WebSockets only: a
	// WebTransport session's is its UDP peer, as no HTTP proxy carries one).
	MaxConnsPerAddr int
	RoomsPerAddr    int
	TrustedProxies  []netip.Prefix
	DataDir         string   // replays and desync dumps go under it; "" writes none
	Origins         []string // extra allowed WebSocket origins (path.Match patterns on the host)
	// Replays and desync dumps older than ReplayKeep are deleted, and the
	// oldest beyond ReplayMaxBytes in all (zero: the defaults, 30 days and
	// 512 MiB; negative: an error).
	ReplayKeep     time.Duration
	ReplayMaxBytes int64
	// Web serves the browser client at "/"; nil serves a status page.
	Web    http.Handler
	Logger *slog.Logger // nil: slog.Default()
	// TLSCert and TLSKey are PEM files of the WebTransport server's
	// certificate; without them it generates one (server/cert.go).
	TLSCert, TLSKey string

	// The HTTP server's timeouts (WebSockets, once upgraded, have their own):
	// a request must arrive within HTTPReadTimeout (10 s), a response leave
	// within HTTPWriteTimeout (60 s: the client's largest file on a slow
	// link), and a kept-alive connection idle for HTTPIdleTimeout (30 s) is
	// closed, so idle connections cannot pile up to the file limit.
	HTTPReadTimeout, HTTPWriteTimeout, HTTPIdleTimeout time.Duration

	// Connection limits; tests shorten them.
	HelloTimeout time.Duration // the first message must be a Hello by then (5 s)
	IdleTimeout  time.Duration // a connection silent this long is closed (15 s)
	WriteTimeout time.Duration // one message write (5 s)
	// CloseGrace is how long Shutdown lets clients answer the close handshake
	// before cutting their sockets (2 s): a stalled peer must not hold the
	// process past its 5 s budget.
	CloseGrace   time.Duration
	SendQueue    int           // batches (one per room iteration) queued per connection before it counts as a slow reader (256)
	MsgRate      float64       // messages per second per connection (120)
	MsgBurst     float64       // burst of messages (240)
	EmptyRoomTTL time.Duration // a room without humans is closed after this (30 s)
	// Heartbeat and Ping override the room's intervals (room.DefaultHeartbeat
	// and clock.ServerPingInterval, 200 ms each): they decide most of a
	// player's downstream bandwidth.
	Heartbeat, Ping time.Duration
	// QuietHeartbeat overrides the heartbeat interval of a room where no
	// player presses a key (room.DefaultQuietHeartbeat, 1 s).
	QuietHeartbeat time.Duration
	Seed           uint64 // room seeds derive from it; 0 picks one from the clock
	// Rules, when set, replaces Armagetron's default rules (arena size,
	// speeds, round timings); its TickRate is replaced by TickRate.
	Rules *sim.Config
	// MapFile is the map file Rules plays (MAP_FILE, as found), which
	// names the default in GET /api/maps; "" with a Rules.Map names it
	// "default".
	MapFile string
	// Maps are the stock maps a player opening a room may choose besides
	// the default (GET /api/maps): resource paths under aamap.ResourceDir
	// (aamap.Stock lists them), each played over MapRules with its own
	// settings, as MAP_FILE is. None: every room plays the default.
	Maps []string
	// MapRules are the rules the maps of Maps play over: Rules before
	// MAP_FILE applied its map and settings (nil: Rules without its map).
	MapRules *sim.Config
	// Cluster, when set, makes this server one node of many sharing a
	// lobby (server/cluster.go); nil is a single node without NATS.
	// Its Logger, OnLost and Status are the server's own.
	Cluster *cluster.Options
	// EphemeralRooms, in a cluster, replicates no room's history: a room
	// dies with its node, as before issue 26 (docs/deploy.md). Otherwise
	// every room writes its history to the cluster as it is made, and the
	// node that takes a dead node's room over carries its round on.
	EphemeralRooms bool
	// WriteAhead, for rooms whose history is replicated, holds everything a
	// room sends until the history stream has acknowledged every record
	// the room wrote by then (write-ahead), instead of sending at once and
	// holding only finality (broadcast first, the default). It costs each
	// broadcast the stream's acknowledgement (docs/netcode.md, section 8).
	WriteAhead bool
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("server: invalid configuration")

// Defaults fills zero fields and checks the rest.
func (c *Config) Defaults() error {
	if c.TickRate == 0 {
		c.TickRate = 120
	}
	if c.Seats == 0 {
		c.Seats = 8
	}
	if c.BotSkill == 0 {
		c.BotSkill = bot.DefaultSkill
	}
	if c.BotSkill < bot.MinSkill || c.BotSkill > bot.MaxSkill {
		return fmt.Errorf("%w: bot skill %d is not %d..%d", ErrConfig, c.BotSkill, bot.MinSkill, bot.MaxSkill)
	}
	if c.MaxRooms == 0 {
		c.MaxRooms = 100
	}
	if c.MaxPlayers == 0 {
		c.MaxPlayers = 2000
	}
	if c.MaxConnsPerAddr == 0 {
		c.MaxConnsPerAddr = 32
	}
	if c.RoomsPerAddr == 0 {
		c.RoomsPerAddr = 5
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.HelloTimeout, 5*time.Second)
	def(&c.IdleTimeout, 15*time.Second)
	def(&c.WriteTimeout, 5*time.Second)
	def(&c.EmptyRoomTTL, 30*time.Second)
	def(&c.CloseGrace, 2*time.Second)
	// A negative limit would keep nothing, or everything: neither is
	// what was meant, and the default is not either.
	if c.ReplayKeep < 0 || c.ReplayMaxBytes < 0 {
		return fmt.Errorf("%w: replay limits must be positive (0: the default), got keep %v, max bytes %d", ErrConfig, c.ReplayKeep, c.ReplayMaxBytes)
	}
	def(&c.ReplayKeep, DefaultReplayKeep)
	if c.ReplayMaxBytes == 0 {
		c.ReplayMaxBytes = DefaultReplayMaxBytes
	}
	def(&c.HTTPReadTimeout, 10*time.Second)
	def(&c.HTTPWriteTimeout, 60*time.Second)
	def(&c.HTTPIdleTimeout, 30*time.Second)
	if c.SendQueue <= 0 {
		c.SendQueue = 256
	}
	if c.MsgRate <= 0 {
		c.MsgRate = 120
	}
	if c.MsgBurst <= 0 {
		c.MsgBurst = 2 * c.MsgRate
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	switch {
	case c.TickRate < 1 || c.TickRate > proto.MaxTickRate:
		return fmt.Errorf("%w: tick rate %d outside 1..%d", ErrConfig, c.TickRate, proto.MaxTickRate)
	case c.Seats < 1 || c.Seats > sim.MaxPlayers:
		return fmt.Errorf("%w: seats %d outside 1..%d", ErrConfig, c.Seats, sim.MaxPlayers)
	case c.Bots < 0 || c.Bots > c.Seats:
		return fmt.Errorf("%w: bots %d outside 0..seats (%d)", ErrConfig, c.Bots, c.Seats)
	case c.MaxRooms < 1 || c.MaxPlayers < 1:
		return fmt.Errorf("%w: max rooms and max players must be at least 1", ErrConfig)
	case c.Policy.Cap < 0:
		return fmt.Errorf("%w: negative charity cap", ErrConfig)
	case c.Policy.Rule != clock.RuleWebtron && c.Policy.Rule != clock.RuleArmagetron:
		return fmt.Errorf("%w: unknown charity rule %v", ErrConfig, c.Policy.Rule)
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return fmt.Errorf("%w: a TLS certificate needs its key and a key its certificate", ErrConfig)
	}
	for _, o := range c.Origins {
		if _, err := filepath.Match(o, ""); err != nil {
			return fmt.Errorf("%w: origin pattern %q: %v", ErrConfig, o, err)
		}
	}
	rules := c.rules()
	if err := rules.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// rules returns the simulation rules every room plays by.
func (c *Config) rules() sim.Config {
	r := sim.DefaultConfig()
	if c.Rules != nil {
		r = *c.Rules
	}
	r.TickRate = c.TickRate
	return r
}

// DefaultDataDir is where replays go when no --data is given:
// $XDG_DATA_HOME/webtron, else ~/.local/share/webtron, else ./webtron-data.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "webtron")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "webtron")
	}
	return "webtron-data"
}

// maxClientMessage is the largest message a client may send: the transport's
// read limit.
var maxClientMessage = func() int {
	n := 0
	for t := proto.Type(1); t < 32; t++ {
		if t.FromClient() {
			n = max(n, proto.MaxSize(t))
		}
	}
	return n
}()
