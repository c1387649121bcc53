// Package settings reads Armagetron Advanced's settings format (a `NAME value`
// line per setting, as in its settings.cfg and settings_dedicated.cfg) into
// the simulation's rules (sim.Config) and the server-level knobs, and lists
// every setting with its default and meaning (`webtron settings`,
// /api/settings).
//
// The format, as Armagetron reads it: names are case-insensitive, a line whose
// first word starts with # is a comment, and anything after the value is
// ignored. Values are decimals in Armagetron's units (metres, seconds, m/s,
// plain ratios) and become the simulation's integers by rounding to the
// setting's resolution, half away from zero: micrometres, milliseconds,
// millionths. An unknown name is a warning naming it (past 1,000 of them,
// or at a line with a NUL byte, the file is refused as not a settings
// file); a value that is not a number, or out of the simulation's bounds,
// is an error naming the line.
package settings

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"webtron/bot"
	"webtron/sim"
)

// Server holds the server-level knobs a settings file may set.
type Server struct {
	TickRate   int64 // TICK_RATE (Webtron): simulation ticks per second
	Bots       int64 // BOTS (Webtron): bots per room, giving their seats to humans between rounds
	Seats      int64 // SEATS (Webtron): cycles per room, humans and bots
	MaxClients int64 // MAX_CLIENTS (Armagetron's): connections at once, spectators included
	BotSkill   int64 // AI_IQ (Armagetron's): the bots' skill, bot.MinSkill..bot.MaxSkill
}

// DefaultServer returns the server knobs' defaults (`webtron serve`'s).
func DefaultServer() Server {
	return Server{TickRate: 120, Bots: 3, Seats: 8, MaxClients: 2000, BotSkill: bot.DefaultSkill}
}

// File is a parsed settings file.
type File struct {
	Sim    sim.Config // sim.DefaultConfig with the file's settings applied
	Server Server     // DefaultServer with the file's knobs applied
	// ServerSet names the server knobs the file set (TICK_RATE, BOTS,
	// SEATS, MAX_CLIENTS, AI_IQ): a command line flag given explicitly wins
	// over them.
	ServerSet map[string]bool
	Warnings  []string // unknown or unsupported names, with file and line

	// MapFile is MAP_FILE: the Armagetron map to play (package aamap loads
	// it and puts it in Sim), as the file wrote it; empty for the square.
	MapFile string
}

// ErrSettings is wrapped by every error Parse returns.
var ErrSettings = errors.New("settings")

// maxUnknown is how many names Webtron does not know a file may have:
// four times what Armagetron's stock settings.cfg has (some 250), and a
// bound on what anything that is not a settings file costs to read.
const maxUnknown = 1000

// Load reads the settings file at path, a regular file: a device or a pipe
// might never end (/dev/urandom was read for ever).
func Load(path string) (*File, error) {
	regular := func(fi os.FileInfo) error {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%w: %s: not a regular file", ErrSettings, path)
		}
		return nil
	}
	// Stat before opening: opening a named pipe waits for its writer.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	return Parse(f, path)
}

// Parse reads settings from r; name is the file's name in messages.
func Parse(r io.Reader, name string) (*File, error) {
	out := &File{Sim: sim.DefaultConfig(), Server: DefaultServer(), ServerSet: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	table := byName()
	for line := 1; sc.Scan(); line++ {
		where := fmt.Sprintf("%s:%d", name, line)
		if strings.IndexByte(sc.Text(), 0) >= 0 { // no text file holds a NUL
			return nil, fmt.Errorf("%w: %s: binary data: not a settings file", ErrSettings, where)
		}
		words := strings.Fields(sc.Text())
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		key := strings.ToUpper(words[0])
		if key == "MAP_FILE" {
			if len(words) < 2 || strings.HasPrefix(words[1], "#") {
				return nil, fmt.Errorf("%w: %s: MAP_FILE has no value", ErrSettings, where)
			}
			out.MapFile = words[1]
			continue
		}
		s, ok := table[key]
		if !ok {
			if len(out.Warnings) == maxUnknown {
				return nil, fmt.Errorf("%w: %s: more than %d names Webtron does not know: not a settings file", ErrSettings, where, maxUnknown)
			}
			why := "not a Webtron setting"
			if reason, known := unsupported(key); known {
				why = reason
			}
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %s: %s (ignored)", where, key, why))
			continue
		}
		if len(words) < 2 || strings.HasPrefix(words[1], "#") {
			return nil, fmt.Errorf("%w: %s: %s has no value", ErrSettings, where, key)
		}
		v, err := parseValue(words[1], s.unit)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s %s: %v", ErrSettings, where, key, words[1], err)
		}
		if err := s.check(v); err != nil {
			return nil, fmt.Errorf("%w: %s: %s %s: %v", ErrSettings, where, key, words[1], err)
		}
		*s.field(&out.Sim, &out.Server) = v
		if s.server {
			out.ServerSet[key] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSettings, name, err)
	}
	out.Sim.TickRate = out.Server.TickRate
	if err := out.Sim.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSettings, name, err)
	}
	return out, nil
}

// Entry is one setting as `webtron settings` and /api/settings show it.
type Entry struct {
	Name    string `json:"name"`    // Armagetron's name (or Webtron's own, for settings Armagetron lacks)
	Value   string `json:"value"`   // in force, in Armagetron's units
	Default string `json:"default"` // Webtron's default
	Unit    string `json:"unit"`    // m, s, m/s, m/s^2, /s, or empty for counts and ratios
	Meaning string `json:"meaning"` // one line
}

// List returns every setting, in the order of Armagetron's settings.cfg
// groups, with the values of cfg and srv.
func List(cfg sim.Config, srv Server) []Entry {
	def, defSrv := sim.DefaultConfig(), DefaultServer()
	var out []Entry
	for _, s := range all() {
		out = append(out, Entry{
			Name:    s.name,
			Value:   formatFixed(*s.field(&cfg, &srv), s.unit.scale),
			Default: formatFixed(*s.field(&def, &defSrv), s.unit.scale),
			Unit:    s.unit.name,
			Meaning: s.meaning,
		})
	}
	return out
}

// Write writes entries as a settings file that Parse reads back: a comment
// line with the meaning, then the `NAME value` line.
func Write(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	for _, e := range entries {
		unit := ""
		if e.Unit != "" {
			unit = " (" + e.Unit + ")"
		}
		fmt.Fprintf(bw, "# %s%s\n%s %s\n", e.Meaning, unit, e.Name, e.Value)
	}
	return bw.Flush()
}

// ParseFixed reads a decimal such as "-0.25", "30" or ".1" as a whole
// number of 1/scale, exactly (no float), rounding half away from zero:
// settings and map files read their numbers with it.
func ParseFixed(s string, scale int64) (int64, error) { return parseFixed(s, scale) }

// Apply sets the rule name (Armagetron's name, any case) to value in cfg, as
// a settings file's line would: a map's Settings go through it. A name
// Webtron does not have, or a server knob (which a map does not set), is
// a warning, not an error; a bad value is an error.
func Apply(cfg *sim.Config, name, value string) (warning string, err error) {
	key := strings.ToUpper(name)
	s, ok := byName()[key]
	switch {
	case !ok:
		why := "not a Webtron setting"
		if reason, known := unsupported(key); known {
			why = reason
		}
		return key + ": " + why + " (ignored)", nil
	case s.server:
		return key + ": a server setting, not a map's (ignored)", nil
	}
	v, err := parseValue(value, s.unit)
	if err == nil {
		err = s.check(v)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s %s: %v", ErrSettings, key, value, err)
	}
	var srv Server
	*s.field(cfg, &srv) = v
	return "", nil
}
