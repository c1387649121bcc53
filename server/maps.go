package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coder/websocket"

	"webtron/aamap"
	"webtron/proto"
	"webtron/sim"
)

// Maps per room (issue 24, section 3): a player who opens a room picks its
// map among those the server offers (GET /api/maps): the server's default
// (Config.Rules, MAP_FILE or the built-in square) and the stock maps the
// operator lists (Config.Maps, `webtron serve --maps`). The choice travels
// in the Hello (proto.Hello.Map) and counts only when that Hello opens the
// room; the map is in the room's rules from then on, so every snapshot, and
// with it every joining client, replay and resumed room, has it. A client
// names a map by its id, never by a path: an id the list does not hold is
// refused, and no file is opened for it.

// BuiltinMap is the id of Armagetron's square arena the simulation plays
// without a map file, when it is the server's default.
const BuiltinMap = "builtin"

// MapInfo is one entry of GET /api/maps, the default first. The JSON keys
// are a contract: the lobby's map choice reads exactly these.
type MapInfo struct {
	ID      string `json:"id"`                // what a Hello's Map says: a resource path under aamap.ResourceDir, or BuiltinMap
	Name    string `json:"name"`              // the map's name (its Resource name attribute)
	Default bool   `json:"default,omitempty"` // the server's default, which an empty Hello.Map plays
	Spawns  int    `json:"spawns,omitempty"`  // spawn points (none listed for the built-in square)
	Zones   int    `json:"zones,omitempty"`   // win, death and fortress zones
	// Width and Height are the extent of the map's walls, in map units
	// (metres at the default arena size); none for the built-in square.
	Width  int64 `json:"width,omitempty"`
	Height int64 `json:"height,omitempty"`
}

// roomMap is a map a room may play, with the rules it plays by.
type roomMap struct {
	info  MapInfo
	rules sim.Config
}

// loadMaps makes the server's list of maps from cfg (its defaults filled):
// the default, then each of cfg.Maps loaded from aamap.ResourceDir and
// played over cfg.MapRules. It returns the warnings of the maps' settings
// Webtron does not have.
func loadMaps(cfg *Config) (maps []roomMap, warnings []string, err error) {
	def, err := defaultMap(cfg)
	if err != nil {
		return nil, nil, err
	}
	maps = []roomMap{def}
	base := cfg.rules()
	base.Map = nil
	if cfg.MapRules != nil {
		base = *cfg.MapRules
	}
	base.TickRate = cfg.TickRate
	for _, id := range cfg.Maps {
		if id == def.info.ID {
			continue // listed once, as the default
		}
		if !filepath.IsLocal(filepath.FromSlash(id)) || strings.Contains(id, `\`) || len(id) > proto.MaxMapLen {
			return nil, nil, fmt.Errorf("map %q: not a resource path under %s of at most %d bytes", id, aamap.ResourceDir, proto.MaxMapLen)
		}
		for _, m := range maps {
			if m.info.ID == id {
				return nil, nil, fmt.Errorf("map %q listed twice", id)
			}
		}
		m, err := aamap.Load(filepath.Join(aamap.ResourceDir, filepath.FromSlash(id)))
		if err != nil {
			return nil, nil, err
		}
		rules := base
		w, err := m.Apply(&rules)
		if err != nil {
			return nil, nil, fmt.Errorf("map %s: %w", id, err)
		}
		for _, s := range w {
			warnings = append(warnings, id+": "+s)
		}
		maps = append(maps, roomMap{info: describeMap(id, m.Name, rules.Map), rules: rules})
	}
	return maps, warnings, nil
}

// defaultMap describes the map the server's rules play: cfg.MapFile names
// its file, found under aamap.ResourceDir (its id the resource path) or
// elsewhere (its id the file's name).
func defaultMap(cfg *Config) (roomMap, error) {
	rules := cfg.rules()
	if rules.Map == nil {
		return roomMap{info: MapInfo{ID: BuiltinMap, Name: "square (built in)", Default: true}, rules: rules}, nil
	}
	id, name := "default", "default"
	if cfg.MapFile != "" {
		m, err := aamap.Load(cfg.MapFile)
		if err != nil {
			return roomMap{}, err
		}
		id, name = filepath.Base(cfg.MapFile), m.Name
		if rel, err := filepath.Rel(aamap.ResourceDir, cfg.MapFile); err == nil && filepath.IsLocal(rel) {
			id = filepath.ToSlash(rel)
		}
	}
	info := describeMap(id, name, rules.Map)
	info.Default = true
	return roomMap{info: info, rules: rules}, nil
}

// describeMap makes the /api/maps entry of map m.
func describeMap(id, name string, m *sim.Map) MapInfo {
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(id), ".aamap.xml")
	}
	info := MapInfo{ID: id, Name: name, Spawns: len(m.Spawns), Zones: len(m.Zones)}
	if len(m.Walls) > 0 {
		w := m.Walls[0]
		x0, y0, x1, y1 := min(w.X1, w.X2), min(w.Y1, w.Y2), max(w.X1, w.X2), max(w.Y1, w.Y2)
		for _, w := range m.Walls[1:] {
			x0, y0, x1, y1 = min(x0, w.X1, w.X2), min(y0, w.Y1, w.Y2), max(x1, w.X1, w.X2), max(y1, w.Y1, w.Y2)
		}
		info.Width, info.Height = (x1-x0+sim.Unit/2)/sim.Unit, (y1-y0+sim.Unit/2)/sim.Unit
	}
	return info
}

// mapFor returns the map a Hello's Map asks for: "" the default; nil for
// an id the server does not offer.
func (s *Server) mapFor(id string) *roomMap {
	if id == "" {
		return &s.maps[0]
	}
	for i := range s.maps {
		if s.maps[i].info.ID == id {
			return &s.maps[i]
		}
	}
	return nil
}

// mapName names the map of id for the room list: its name when this
// server offers it, else (a room resumed from a node with other maps) the
// id's file name.
func (s *Server) mapName(id string) string {
	if m := s.mapFor(id); m != nil {
		return m.info.Name
	}
	return strings.TrimSuffix(filepath.Base(id), ".aamap.xml")
}

// reasonBadMap refuses a Hello whose map the server does not offer; the
// text quotes the id, cut short.
func reasonBadMap(id string) reason {
	q := strconv.QuoteToASCII(id)
	if len(q) > 80 {
		q = q[:77] + "..."
	}
	return reason{label: "bad_map", code: proto.CloseBadName, text: "this server offers no map " + q + ": pick one the lobby lists (/api/maps)",
		status: websocket.StatusPolicyViolation, tell: true}
}

// serveMaps is GET /api/maps: the maps a new room may play, the default first.
func (s *Server) serveMaps(w http.ResponseWriter, _ *http.Request) {
	list := make([]MapInfo, len(s.maps))
	for i, m := range s.maps {
		list[i] = m.info
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(list)
}
