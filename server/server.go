package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"webtron/internal/netbatch"
	"webtron/room"
)

// Server is the game server. Make one with New, serve Handler (or call
// Serve), and stop it with Shutdown.
type Server struct {
	cfg     Config
	log     *slog.Logger
	start   time.Time
	metrics *metrics
	replays *replayWriter
	catalog *replayCatalog
	store   *replayStore // the cluster's replays; nil for a single node (replaystore.go)
	mux     *http.ServeMux

	mu      sync.Mutex
	rooms   map[string]*roomHost
	closing bool
	closed  chan struct{}      // closed when Shutdown begins
	conns   map[*conn]struct{} // every live connection, for shutdown
	// Per address (addrKey): live connections, and the quota of new rooms.
	addrConns  map[netip.Prefix]int
	roomQuotas map[netip.Prefix]*roomQuota
	httpConns  atomic.Int64 // open HTTP connections not (yet) upgraded to WebSockets
	connWG     sync.WaitGroup
	roomWG     sync.WaitGroup
	nextConn   atomic.Uint64
	wt         atomic.Pointer[wtServer] // set by ServeWebTransport
	quic       *quicGate                // the QUIC connections under WebTransport
	nextSeed   uint64
	cl         *clusterNode // nil for a single node (cluster.go)
	clientErrs *clientErrorLimits
	maps       []roomMap // what a new room may play, the default first (maps.go)
}

// New makes a server from cfg (see Config.Defaults).
func New(cfg Config) (*Server, error) {
	if err := cfg.Defaults(); err != nil {
		return nil, err
	}
	maps, warnings, err := loadMaps(&cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	for _, w := range warnings {
		cfg.Logger.Warn("server: map settings", "warning", w)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, start: time.Now(), rooms: map[string]*roomHost{},
		conns: map[*conn]struct{}{}, nextSeed: cfg.Seed, closed: make(chan struct{}),
		addrConns: map[netip.Prefix]int{}, roomQuotas: map[netip.Prefix]*roomQuota{}, maps: maps}
	s.metrics = newMetrics(s)
	s.clientErrs = newClientErrorLimits(s.now)
	s.quic = newQUICGate(&s.cfg, s.metrics)
	s.catalog = newReplayCatalog(cfg.DataDir)
	changed := s.catalog.changed
	if cfg.Cluster != nil {
		s.store = newReplayStore(s)
		changed = func() { s.catalog.changed(); s.store.poke() }
	}
	s.replays = newReplayWriter(&cfg, s.log, s.metrics, changed)
	s.routes()
	if cfg.Cluster != nil {
		o := *cfg.Cluster
		o.ReplayBytes = cfg.ReplayMaxBytes
		s.cfg.Cluster = &o
		if err := s.startCluster(); err != nil {
			s.replays.close()
			return nil, err
		}
		s.startReplayStore()
	}
	return s, nil
}

// now is the server's monotonic clock, the time base of every room.
func (s *Server) now() time.Duration { return time.Since(s.start) }

// Handler serves the WebSocket endpoint /ws, /healthz, /api/rooms, /metrics
// and the web client (Config.Web) or a status page at "/". Serve adds what a
// bare Handler cannot have: batched socket writes and ConnContext.
func (s *Server) Handler() http.Handler { return s.mux }

// ConnContext is for http.Server.ConnContext: it lets the WebSocket handler
// find the socket under a connection, so that Shutdown can cut a peer that
// stalls the close handshake instead of waiting for it.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, rawConnKey{}, c)
}

type rawConnKey struct{}

// ConnState is for http.Server.ConnState: it counts the open HTTP
// connections (webtron_http_connections); a WebSocket leaves the count when
// it is upgraded, and counts as a connection of its own.
func (s *Server) ConnState(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		s.httpConns.Add(1)
	case http.StateHijacked, http.StateClosed:
		s.httpConns.Add(-1)
	}
}

// Serve accepts connections on ln until Shutdown; it returns nil then.
func (s *Server) Serve(ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ConnContext: s.ConnContext, ConnState: s.ConnState,
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: s.cfg.HTTPReadTimeout,
		WriteTimeout: s.cfg.HTTPWriteTimeout, IdleTimeout: s.cfg.HTTPIdleTimeout,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	go func() {
		<-s.closed
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}()
	if err := hs.Serve(netbatch.Listener{Listener: ln}); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) roomConfig(seed uint64) room.Config {
	return room.Config{Sim: s.cfg.rules(), Seed: seed, Policy: s.cfg.Policy, Bots: s.cfg.Bots, BotSkill: s.cfg.BotSkill, Seats: s.cfg.Seats,
		Heartbeat: s.cfg.Heartbeat, QuietHeartbeat: s.cfg.QuietHeartbeat, Ping: s.cfg.Ping, Clock: s.now}
}

// attach finds or makes the room called name and counts c in it. The count
// keeps the room from being reclaimed while the join is on its way. A room
// it makes plays the map c's Hello chose (conn.mapChoice). In a cluster it
// makes none: there a room opens afresh only once its history has been
// looked at (clusterNode.join, attachOrOpen).
func (s *Server) attach(c *conn, name string) (*roomHost, *reason) {
	return s.attachOrOpen(c, name, s.cl == nil)
}

// attachOrOpen is attach, making the room when it is not open only if open
// says so. A cluster join that found a room open, or carried it on from its
// history, and reaches it after it closed (its history continued by
// another node, its lease lost) must not open it afresh: a fresh room
// knows none of the round's tokens (its players would come back seated
// anew, in a new round) and its history would supersede the round's. It
// is told to try again instead, and the next try finds the room wherever
// its history goes on.
func (s *Server) attachOrOpen(c *conn, name string, open bool) (*roomHost, *reason) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, &reasonShutdown
	}
	h := s.rooms[name]
	if h == nil && isPractice(name) {
		return nil, &reasonPracticeGone // only /api/practice opens one
	}
	if h == nil && !open {
		return nil, &reasonBusy
	}
	if h == nil {
		var why *reason
		if h, why = s.openRoom(name, c.addr, 0, c.mapChoice); why != nil {
			return nil, why
		}
	}
	h.refs++
	c.host = h
	return h, nil
}

// openRoom opens room name for a client at addr, spending one of the
// address's new rooms: a public room, or with practice > 0 a private one
// whose bots have that skill (/api/practice), playing map mp (nil: the
// default). Called with s.mu held.
func (s *Server) openRoom(name string, addr netip.Prefix, practice int, mp *roomMap) (*roomHost, *reason) {
	if len(s.rooms) >= s.cfg.MaxRooms {
		return nil, &reasonRooms
	}
	if !s.takeRoom(addr, s.now()) {
		return nil, &reasonAddrRooms
	}
	s.nextSeed++
	if mp == nil {
		mp = &s.maps[0]
	}
	h, err := newRoomHost(s, name, s.nextSeed*0x9e3779b97f4a7c15, practice, mp)
	if err != nil {
		s.log.Error("server: cannot make room", "room", name, "err", err)
		r := reason{label: "room_error", text: "cannot make the room", status: 1011, tell: true}
		return nil, &r
	}
	s.rooms[name] = h
	s.roomWG.Add(1)
	go func() {
		defer s.roomWG.Done()
		h.run()
	}()
	s.log.Info("server: room opened", "room", name, "practice", practice, "map", mp.info.ID)
	s.roomsChanged()
	return h, nil
}

// detach undoes attach when the connection has ended.
func (s *Server) detach(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.host != nil {
		c.host.refs--
	}
}

// reclaim removes an empty room from the server unless a connection is
// attaching to it right now; it runs on the room's goroutine.
func (s *Server) reclaim(h *roomHost) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.refs > 0 || s.closing {
		return false
	}
	h.reclaimed = true
	delete(s.rooms, h.name)
	s.roomsChanged()
	return true
}

// register counts a connection against --max-players and its address's
// share; the reason when it is over either.
func (s *Server) register(c *conn) *reason {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return &reasonShutdown
	case len(s.conns) >= s.cfg.MaxPlayers:
		return &reasonServerFull
	case s.cfg.MaxConnsPerAddr > 0 && s.addrConns[c.addr] >= s.cfg.MaxConnsPerAddr:
		return &reasonAddrConns
	}
	s.conns[c] = struct{}{}
	s.addrConns[c.addr]++
	s.connWG.Add(1)
	return nil
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.addrConns[c.addr]--; s.addrConns[c.addr] <= 0 {
		delete(s.addrConns, c.addr)
	}
	s.mu.Unlock()
	s.connWG.Done()
}

// Shutdown stops accepting connections, closes every room (telling each
// client, and writing each round in progress as a replay), waits for the
// connections to finish their close handshakes (Config.CloseGrace at most,
// less if ctx ends first), cuts the ones still open, and waits for the
// replays to be on disk. Cutting a client that never answers the close
// handshake is part of a clean shutdown, not a failure: it is logged, and the
// error is nil (a second Shutdown is the only error).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errors.New("server: already shut down")
	}
	s.closing = true
	close(s.closed)
	hosts := make([]*roomHost, 0, len(s.rooms))
	for _, h := range s.rooms {
		hosts = append(hosts, h)
	}
	s.mu.Unlock()
	for _, h := range hosts {
		close(h.stop)
	}
	s.roomWG.Wait()
	// Connections that never joined a room (still before their Hello).
	s.mu.Lock()
	for c := range s.conns {
		c.close(reasonShutdown)
	}
	s.mu.Unlock()
	grace, cancel := context.WithTimeout(ctx, s.cfg.CloseGrace)
	defer cancel()
	cut := 0
	if !waitGroup(grace, &s.connWG) {
		s.mu.Lock()
		cut = len(s.conns)
		for c := range s.conns {
			c.forceClose()
		}
		s.mu.Unlock()
		waitGroup(context.Background(), &s.connWG)
	}
	s.replays.close()
	if s.store != nil {
		s.store.close()
	}
	s.stopCluster()
	s.log.Info("server: shut down", "replays", s.replays.written.Load(), "cut", cut)
	return nil
}

// waitGroup waits for wg until ctx is done, reporting whether wg finished.
func waitGroup(ctx context.Context, wg *sync.WaitGroup) bool {
	ch := make(chan struct{})
	go func() {
		wg.Wait()
		close(ch)
	}()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}
