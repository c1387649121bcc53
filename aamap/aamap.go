// Package aamap reads Armagetron Advanced's map files (`*.aamap.xml`, the
// format of its map DTDs: Resource, Map, Settings, World, Field, Axes, Spawn,
// Wall with Points, Zone with ShapeCircle) into integer geometry, and turns
// a map into the simulation's sim.Map.
//
// Coordinates are kept as millionths of a map unit (Unit), parsed from the
// file's decimals exactly, without a float: the simulation scales them by
// the arena's size (a map unit is a metre at ARENA_SIZE 500 and SIZE_FACTOR
// 0, as Armagetron's map unit is at REAL_ARENA_SIZE_FACTOR 1), so that every
// machine builds bit for bit the same walls from the same file.
//
// What Armagetron reads and this package does too: Map's Settings (name and
// value, applied by the settings package), Field's Axes (the number), Spawn
// (x, y and xdir, ydir or angle), Wall (its Points in order; height is not
// used), Zone (effect win, death or fortress, default death) with a
// ShapeCircle (radius, growth, centre Point). Elements it does not know are
// skipped, as Armagetron skips what its version does not know.
package aamap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"webtron/settings"
)

// Unit is one map unit in the coordinates of Map: millionths.
const Unit = 1_000_000

// maxCoord bounds a coordinate, a radius or a growth, in map units: ten
// times the largest stock map, and small enough that the simulation's
// products of two coordinates stay within 64 bits after scaling.
const maxCoord = 100_000

// maxSize bounds a map file: the largest stock map is 5.3 KB.
const maxSize = 4 << 20

// Limits on counts, so a hostile file cannot make the simulation's per-tick
// search of the walls, spawn points or zones slow.
const (
	maxWalls  = 4096 // straight wall pieces
	maxSpawns = 256
	maxZones  = 32
)

// Map is a parsed map file.
type Map struct {
	Name, Version, Author, Category string // the Resource's attributes

	// Settings are the map's Setting elements in file order, applied over
	// the server's (Armagetron's gParser::parseSetting loads each line).
	Settings []Setting

	// Axes is the number of directions a cycle may drive in (Axes number,
	// default 4); custom Axis directions are not read.
	Axes int

	Spawns []Spawn
	Walls  [][]Point // each Wall's points in order: straight pieces between consecutive points
	Zones  []Zone
}

// Setting is one `<Setting name="" value=""/>`.
type Setting struct{ Name, Value string }

// Point is a position in millionths of a map unit.
type Point struct{ X, Y int64 }

// Spawn is a spawn point: where a cycle starts and the direction it faces
// (xdir, ydir, or angle given in degrees), in millionths; only the direction
// matters, not its length.
type Spawn struct {
	X, Y   int64
	DX, DY int64
	// Angle is the angle attribute in millionths of a degree, when the
	// spawn gave one instead of xdir and ydir (HasAngle).
	Angle    int64
	HasAngle bool
}

// Zone effects.
const (
	EffectDeath    = "death"
	EffectWin      = "win"
	EffectFortress = "fortress"
)

// Zone is a `<Zone>` with its ShapeCircle.
type Zone struct {
	Effect string // EffectDeath, EffectWin or EffectFortress
	X, Y   int64  // centre, millionths
	Radius int64  // millionths
	Growth int64  // radius change per second, millionths
}

// ErrMap is wrapped by every error Parse and Load return.
var ErrMap = errors.New("aamap")

// Load reads the map file at path (a regular file).
func Load(path string) (*Map, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMap, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s: not a regular file", ErrMap, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMap, err)
	}
	defer f.Close()
	return Parse(f, path)
}

// The file's elements, as encoding/xml fills them. Attributes are strings,
// read by fixed() so that a bad number is an error naming it.
type (
	xResource struct {
		XMLName  xml.Name `xml:"Resource"`
		Type     string   `xml:"type,attr"`
		Name     string   `xml:"name,attr"`
		Version  string   `xml:"version,attr"`
		Author   string   `xml:"author,attr"`
		Category string   `xml:"category,attr"`
		Map      []xMap   `xml:"Map"`
	}
	xMap struct {
		Settings []struct {
			Setting []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"Setting"`
		} `xml:"Settings"`
		World []struct {
			Field []xField `xml:"Field"`
		} `xml:"World"`
	}
	xField struct {
		Axes []struct {
			Number *string `xml:"number,attr"`
		} `xml:"Axes"`
		Spawn []struct {
			X      *string `xml:"x,attr"`
			Y      *string `xml:"y,attr"`
			XDir   *string `xml:"xdir,attr"`
			YDir   *string `xml:"ydir,attr"`
			Angle  *string `xml:"angle,attr"`
			Length *string `xml:"length,attr"`
		} `xml:"Spawn"`
		Wall []struct {
			Point []xPoint `xml:"Point"`
		} `xml:"Wall"`
		Zone []struct {
			Effect *string `xml:"effect,attr"`
			Circle []struct {
				Radius *string  `xml:"radius,attr"`
				Growth *string  `xml:"growth,attr"`
				Point  []xPoint `xml:"Point"`
			} `xml:"ShapeCircle"`
		} `xml:"Zone"`
	}
	xPoint struct {
		X *string `xml:"x,attr"`
		Y *string `xml:"y,attr"`
	}
)

// Parse reads a map file from r; name is the file's name in messages.
func Parse(r io.Reader, name string) (*Map, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMap, name, err)
	}
	if len(data) > maxSize {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes: not a map file", ErrMap, name, maxSize)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrMap, name, fmt.Sprintf(format, a...))
	}
	var res xResource
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = charsetReader
	dec.Strict = true
	if err := dec.Decode(&res); err != nil {
		return nil, fail("not a map file: %v", err)
	}
	if res.Type != "" && res.Type != "aamap" {
		return nil, fail("resource type %q, want aamap", res.Type)
	}
	if len(res.Map) != 1 {
		return nil, fail("%d Map elements, want one", len(res.Map))
	}
	xm := &res.Map[0]
	if len(xm.World) != 1 || len(xm.World[0].Field) != 1 {
		return nil, fail("a Map needs one World with one Field")
	}
	m := &Map{Name: res.Name, Version: res.Version, Author: res.Author, Category: res.Category, Axes: 4}
	for _, ss := range xm.Settings {
		for _, s := range ss.Setting {
			if s.Name == "" {
				return nil, fail("a Setting has no name")
			}
			m.Settings = append(m.Settings, Setting{Name: s.Name, Value: s.Value})
		}
	}
	f := &xm.World[0].Field[0]
	if len(f.Axes) > 1 {
		return nil, fail("%d Axes elements, want at most one", len(f.Axes))
	}
	for _, a := range f.Axes {
		if a.Number == nil {
			continue // the DTD's default, 4
		}
		n, err := fixed(*a.Number)
		if err != nil || n%Unit != 0 || n < Unit || n > 360*Unit {
			return nil, fail("Axes number %q: must be a whole number 1..360", *a.Number)
		}
		m.Axes = int(n / Unit)
	}
	for i, s := range f.Spawn {
		what := fmt.Sprintf("Spawn %d", i+1)
		var sp Spawn
		if err := coords(s.X, s.Y, &sp.X, &sp.Y); err != nil {
			return nil, fail("%s: %v", what, err)
		}
		if s.Angle != nil {
			a, err := fixed(*s.Angle)
			if err != nil {
				return nil, fail("%s: angle %q: %v", what, *s.Angle, err)
			}
			sp.Angle, sp.HasAngle = a, true
			if s.Length != nil {
				l, err := fixed(*s.Length)
				if err != nil || l <= 0 {
					return nil, fail("%s: length %q: must be a number above 0", what, *s.Length)
				}
			}
		} else {
			for _, p := range [2]struct {
				attr *string
				v    *int64
				n    string
			}{{s.XDir, &sp.DX, "xdir"}, {s.YDir, &sp.DY, "ydir"}} {
				if p.attr == nil {
					continue // Armagetron reads a missing one as 0
				}
				v, err := fixed(*p.attr)
				if err != nil {
					return nil, fail("%s: %s %q: %v", what, p.n, *p.attr, err)
				}
				*p.v = v
			}
			if sp.DX == 0 && sp.DY == 0 {
				return nil, fail("%s: no direction (xdir and ydir both 0 or missing)", what)
			}
		}
		m.Spawns = append(m.Spawns, sp)
	}
	if len(m.Spawns) == 0 {
		return nil, fail("no Spawn: a map needs at least one spawn point")
	}
	if len(m.Spawns) > maxSpawns {
		return nil, fail("%d spawn points, at most %d", len(m.Spawns), maxSpawns)
	}
	pieces := 0
	for i, w := range f.Wall {
		if len(w.Point) < 2 {
			return nil, fail("Wall %d: %d Point, a wall needs two at least", i+1, len(w.Point))
		}
		pts := make([]Point, len(w.Point))
		for k, p := range w.Point {
			if err := coords(p.X, p.Y, &pts[k].X, &pts[k].Y); err != nil {
				return nil, fail("Wall %d Point %d: %v", i+1, k+1, err)
			}
		}
		pieces += len(pts) - 1
		m.Walls = append(m.Walls, pts)
	}
	if pieces > maxWalls {
		return nil, fail("%d wall pieces, at most %d", pieces, maxWalls)
	}
	for i, z := range f.Zone {
		what := fmt.Sprintf("Zone %d", i+1)
		zn := Zone{Effect: EffectDeath}
		if z.Effect != nil {
			zn.Effect = *z.Effect
		}
		switch zn.Effect {
		case EffectDeath, EffectWin, EffectFortress:
		default:
			return nil, fail("%s: effect %q: must be win, death or fortress", what, zn.Effect)
		}
		if len(z.Circle) != 1 || len(z.Circle[0].Point) < 1 {
			return nil, fail("%s: needs one ShapeCircle with a centre Point", what)
		}
		c := &z.Circle[0]
		if c.Radius == nil {
			return nil, fail("%s: ShapeCircle has no radius", what)
		}
		r, err := fixed(*c.Radius)
		if err != nil || r < 0 {
			return nil, fail("%s: radius %q: must be a number from 0 to %d", what, *c.Radius, maxCoord)
		}
		zn.Radius = r
		if c.Growth != nil {
			if zn.Growth, err = fixed(*c.Growth); err != nil {
				return nil, fail("%s: growth %q: %v", what, *c.Growth, err)
			}
		}
		if err := coords(c.Point[0].X, c.Point[0].Y, &zn.X, &zn.Y); err != nil {
			return nil, fail("%s centre: %v", what, err)
		}
		m.Zones = append(m.Zones, zn)
	}
	if len(m.Zones) > maxZones {
		return nil, fail("%d zones, at most %d", len(m.Zones), maxZones)
	}
	return m, nil
}

// coords reads a point's required x and y.
func coords(xs, ys *string, x, y *int64) error {
	for _, c := range [2]struct {
		s *string
		v *int64
		n string
	}{{xs, x, "x"}, {ys, y, "y"}} {
		if c.s == nil {
			return fmt.Errorf("no %s", c.n)
		}
		v, err := fixed(*c.s)
		if err != nil {
			return fmt.Errorf("%s %q: %v", c.n, *c.s, err)
		}
		*c.v = v
	}
	return nil
}

// fixed reads a decimal attribute as millionths, exactly, bounded by maxCoord.
func fixed(s string) (int64, error) {
	v, err := settings.ParseFixed(strings.TrimSpace(s), Unit)
	if err != nil {
		return 0, err
	}
	if v < -maxCoord*Unit || v > maxCoord*Unit {
		return 0, fmt.Errorf("out of range (-%d..%d)", maxCoord, maxCoord)
	}
	return v, nil
}

// charsetReader reads the two encodings map files declare: UTF-8 and
// ISO-8859-1 (Latin-1, whose bytes are the first 256 code points).
func charsetReader(charset string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1":
		data, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(data))
		for _, b := range data {
			out = utf8.AppendRune(out, rune(b))
		}
		return bytes.NewReader(out), nil
	}
	return nil, fmt.Errorf("encoding %q: only UTF-8 and ISO-8859-1 are read", charset)
}
