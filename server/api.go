package server

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"webtron/cluster"
	"webtron/settings"
)

func (s *Server) routes() {
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", s.serveWS)
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.HandleFunc("GET /api/rooms", s.serveRooms)
	mux.HandleFunc("GET /api/maps", s.serveMaps)
	mux.HandleFunc("POST /api/practice", s.servePractice)
	mux.HandleFunc("GET /api/replays", s.serveReplays)
	mux.HandleFunc("GET /api/replays/{id}", s.serveReplay)
	mux.HandleFunc("GET /replay/{id}", s.serveReplayPage)
	mux.HandleFunc("GET /api/transport", s.serveTransport)
	mux.HandleFunc("GET /api/settings", s.serveSettings)
	mux.HandleFunc("POST /api/client-error", s.serveClientError)
	mux.Handle("GET /metrics", s.metrics.handler())
	if s.cfg.Web != nil {
		mux.Handle("/", s.cfg.Web)
	} else {
		mux.HandleFunc("/", s.serveStatus)
	}
	s.mux = mux
}

// RoomInfo is one entry of /api/rooms. The JSON keys are a contract: the
// browser's landing page reads exactly these.
type RoomInfo struct {
	Name       string `json:"name"`
	Players    int    `json:"players"`
	Bots       int    `json:"bots"`
	Spectators int    `json:"spectators"`
	Node       string `json:"node,omitempty"` // the node that holds it (cluster only)
	// Map is the map the room plays (its /api/maps id) and MapName its
	// name (a cluster's other nodes say theirs in their heartbeats).
	Map     string `json:"map,omitempty"`
	MapName string `json:"map_name,omitempty"`
	cluster.RoomTeams
	// Private marks a Practice room, which no listing shows; BotSkill is
	// its bots' skill. Neither is in /api/rooms.
	Private  bool `json:"-"`
	BotSkill int  `json:"-"`
}

// Rooms lists the open rooms, sorted by name, with their population as of
// each room's last tick: every room, Practice rooms included (Private).
func (s *Server) Rooms() []RoomInfo {
	s.mu.Lock()
	list := make([]RoomInfo, 0, len(s.rooms))
	for name, h := range s.rooms {
		p := h.pop.Load()
		list = append(list, RoomInfo{Name: name, Players: int(p.players), Bots: int(p.bots), Spectators: int(p.spectators), RoomTeams: p.teams,
			Map: h.mapID, MapName: h.mapName, Private: h.private, BotSkill: h.skill})
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b RoomInfo) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// publicRooms is Rooms without the Practice rooms: what the lobby, the
// status page and the cluster's heartbeats show.
func (s *Server) publicRooms() []RoomInfo {
	return slices.DeleteFunc(s.Rooms(), func(r RoomInfo) bool { return r.Private })
}

func (s *Server) serveRooms(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.lobby())
}

// serveSettings lists every setting the rooms play by (package settings:
// name, value, default, unit, meaning), the same entries `webtron settings`
// prints.
func (s *Server) serveSettings(w http.ResponseWriter, _ *http.Request) {
	srv := settings.Server{TickRate: s.cfg.TickRate, Bots: int64(s.cfg.Bots), Seats: int64(s.cfg.Seats), MaxClients: int64(s.cfg.MaxPlayers),
		BotSkill: int64(s.cfg.BotSkill)}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(settings.List(s.cfg.rules(), srv))
}

// serveHealth answers load balancers: 200 while serving, 503 once shutting
// down so that traffic moves elsewhere before the connections close.
func (s *Server) serveHealth(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	closing := s.closing || s.cl != nil && s.cl.draining.Load()
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if closing {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "shutting down")
		return
	}
	fmt.Fprintln(w, "ok")
}

var statusPage = template.Must(template.New("status").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Webtron server</title>
<style>body{font:15px/1.4 system-ui,sans-serif;background:#05070d;color:#cde;margin:2em}
table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #234;text-align:left}
code{color:#6cf}</style></head><body>
<h1>Webtron server</h1>
<p>The game server is running. The browser client is not built into this binary;
clients connect over WebSocket at <code>/ws</code>.</p>
<h2>Rooms</h2>
{{if .}}<table><tr><th>Room</th><th>Map</th><th>Players</th><th>Bots</th><th>Spectators</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td>{{.MapName}}</td><td>{{.Players}}</td><td>{{.Bots}}</td><td>{{.Spectators}}</td></tr>
{{end}}</table>{{else}}<p>No room is open; the first player to connect opens one.</p>{{end}}
<p><a href="/api/rooms">/api/rooms</a> · <a href="/api/maps">/api/maps</a> · <a href="/metrics">/metrics</a> · <a href="/healthz">/healthz</a></p>
</body></html>
`))

// serveStatus is the page at "/" until the web client is wired in.
func (s *Server) serveStatus(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	statusPage.Execute(w, s.publicRooms())
}

// popTotals sums the rooms' published populations.
type popTotals struct {
	rooms, conns, players, bots, spectators int
	wtConns                                 int // conns over WebTransport
}

func (s *Server) population() popTotals {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := popTotals{rooms: len(s.rooms), conns: len(s.conns)}
	for c := range s.conns {
		if c.wt != nil {
			t.wtConns++
		}
	}
	for _, h := range s.rooms {
		p := h.pop.Load()
		t.players += int(p.players)
		t.bots += int(p.bots)
		t.spectators += int(p.spectators)
	}
	return t
}
