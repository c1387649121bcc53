package aamap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"webtron/settings"
	"webtron/sim"
)

// ResourceDir is where Debian's armagetronad-common installs Armagetron's
// stock maps (scripts/install-armagetron-maps.sh): a MAP_FILE that is not
// found as given is looked up there, as Armagetron looks a map up among its
// resources ("Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml").
const ResourceDir = "/usr/share/games/armagetronad/resource/included"

// Find returns the path of map file name: as given (relative to dir when
// not absolute and dir is not empty), else under ResourceDir.
func Find(name, dir string) (string, error) {
	try := []string{name}
	if !filepath.IsAbs(name) {
		if dir != "" {
			try[0] = filepath.Join(dir, name)
		}
		try = append(try, filepath.Join(ResourceDir, name))
	}
	for _, p := range try {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: map file %s not found (looked in %v)", ErrMap, name, try)
}

// Stock lists the map files under ResourceDir (the files ending in
// .aamap.xml) as resource paths, slash-separated and relative to it, in
// sorted order: the maps a server can offer besides its MAP_FILE. Without
// the directory (armagetronad-common not installed) there are none.
func Stock() ([]string, error) {
	var out []string
	err := fs.WalkDir(os.DirFS(ResourceDir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".aamap.xml") {
			out = append(out, p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && len(out) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMap, err)
	}
	slices.Sort(out)
	return out, nil
}

// LoadInto plays the map file name (MAP_FILE; found by Find, relative to
// dir) in cfg: its settings, then its arena (Apply). It returns the map's
// path and a warning for each of its settings Webtron does not have.
func LoadInto(cfg *sim.Config, name, dir string) (path string, warnings []string, err error) {
	if path, err = Find(name, dir); err != nil {
		return "", nil, err
	}
	m, err := Load(path)
	if err != nil {
		return "", nil, err
	}
	if warnings, err = m.Apply(cfg); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return path, warnings, nil
}

// Sim returns the map as the simulation plays it: each Wall's consecutive
// Points as straight pieces (a repeated point draws nothing, as in
// Armagetron), each spawn facing the axis of the map's Axes nearest its
// direction (Armagetron's gCycle constructor snaps dirDrive to
// Grid()->DirectionWinding at once), the zones.
func (m *Map) Sim() *sim.Map {
	out := &sim.Map{Axes: int64(m.Axes)}
	for _, pts := range m.Walls {
		for k := 1; k < len(pts); k++ {
			a, b := pts[k-1], pts[k]
			if a != b {
				out.Walls = append(out.Walls, sim.MapWall{X1: a.X, Y1: a.Y, X2: b.X, Y2: b.Y})
			}
		}
	}
	for _, s := range m.Spawns {
		out.Spawns = append(out.Spawns, sim.MapSpawn{X: s.X, Y: s.Y, Dir: s.axisOf(m.Axes)})
	}
	for _, z := range m.Zones {
		e := uint8(sim.ZoneDeath)
		switch z.Effect {
		case EffectWin:
			e = sim.ZoneWin
		case EffectFortress:
			e = sim.ZoneFortress
		}
		out.Zones = append(out.Zones, sim.MapZone{Effect: e, X: z.X, Y: z.Y, Radius: z.Radius, Growth: z.Growth})
	}
	return out
}

// axisOf returns the one of n evenly spaced axes nearest the spawn's
// direction (sim.AxisVector numbers them): axis for four, and for others the
// nearest by angle, between two as near the larger number, as axis says.
func (s Spawn) axisOf(n int) uint8 {
	if n == 4 || n < 1 || n > 256 {
		return s.axis() // out of range: sim.Config.Validate refuses the map
	}
	if s.HasAngle {
		// The angle in nths of a turn, k + r/(360 Unit): k or k+1 by r.
		const full = 360 * Unit
		a := (s.Angle%full + full) % full
		k, r := a*int64(n)/full, a*int64(n)%full
		switch {
		case 2*r > full:
			k++
		case 2*r == full && k+1 < int64(n): // as near both: the larger, but n-1 over 0
			k++
		}
		return uint8(k % int64(n))
	}
	return sim.NearestAxis(n, s.DX, s.DY)
}

// axis returns the one of the four axes (0 east, 1 north, 2 west, 3 south)
// nearest the spawn's direction, as Armagetron's eAxis::NearestWinding
// picks a cycle's winding: between two as near, the first of its windings,
// which run south, west, north, east; so the larger of our numbers.
func (s Spawn) axis() uint8 {
	if s.HasAngle {
		// Degrees in millionths, 0 east, counter-clockwise, as cos and sin
		// in gParser::myxmlGetDirection.
		const full = 360 * Unit
		a := (s.Angle%full + full) % full
		q, r := a/(90*Unit), a%(90*Unit)
		switch {
		case r > 45*Unit:
			q++
		case r == 45*Unit && q == 3: // between south and east: south
			return 3
		case r == 45*Unit:
			q++
		}
		return uint8(q % 4)
	}
	ax, ay := abs(s.DX), abs(s.DY)
	h, v := uint8(0), uint8(1) // east or west, north or south
	if s.DX < 0 {
		h = 2
	}
	if s.DY < 0 {
		v = 3
	}
	switch {
	case ax > ay:
		return h
	case ay > ax:
		return v
	case h == 0 && v == 3:
		return 3 // south before east
	}
	return max(h, v)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Apply plays the map under cfg: its settings over cfg's (Armagetron loads
// them after the server's configuration), then its arena (cfg.Map). It
// returns a warning for each setting Webtron does not have; a bad value or
// an arena the rules cannot hold is an error.
func (m *Map) Apply(cfg *sim.Config) (warnings []string, err error) {
	for _, s := range m.Settings {
		w, err := settings.Apply(cfg, s.Name, s.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: map setting: %v", ErrMap, err)
		}
		if w != "" {
			warnings = append(warnings, "map setting "+w)
		}
	}
	cfg.Map = m.Sim()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMap, err)
	}
	return warnings, nil
}
