package bot

import "webtron/sim"

// stride is the row length of the map: a power of two so that a cell index
// splits into column and row with a mask and a shift inside the flood fill.
const (
	strideShift = 8
	stride      = 1 << strideShift
)

// minCell is the finest map resolution. A wall snaps to the nearest cell
// border, at most half a cell away, so a cycle stays on its true side of every
// wall at least minCell/2 away: grinding at 1 m or more keeps the map honest.
const minCell = 2 * sim.Meter

// grid is a coarse map of the arena in which walls live on cell borders, not in
// cells: two walls 2 m apart then still leave the lane between them open, which
// an occupancy grid of 2 m cells would close.
//
// Each border counts the walls on it in four bits: counts, not flags, because
// a dead cycle's walls vanish and must come off the map without taking a
// neighbour's wall with them (and a cycle may lay three walls within half a
// metre of each other, so two bits are not enough). South borders are counted
// by rows and west borders by columns, so that a wall covers consecutive
// entries. What the lookups read is a pair of bitsets, one bit per border, row
// by row: a flood fill touches a few words per row of the area it covers. A
// whole map is 88 KB; with 32 bots on a state, the maps are what the cache
// has to hold.
type grid struct {
	n, cell, arena int64
	h, v           []uint8  // 4-bit counts: h[row*stride+col], v[col*stride+row]
	south, west    []uint64 // border carries a wall: bit row*stride+col
	fills
}

func (g *grid) init(arena int64) {
	g.arena = arena
	g.cell = max(minCell, (arena+stride-1)/stride)
	g.n = min(stride, (arena+g.cell-1)/g.cell)
	if g.h == nil {
		g.h = make([]uint8, stride*stride/2)
		g.v = make([]uint8, stride*stride/2)
		g.south = make([]uint64, stride*stride/64)
		g.west = make([]uint64, stride*stride/64)
		g.seen = make([]uint64, stride*stride/64)
	}
	g.clear()
}

func (g *grid) clear() {
	clear(g.h)
	clear(g.v)
	clear(g.south)
	clear(g.west)
}

// col maps a coordinate to a column or row.
func (g *grid) col(v int64) int64 {
	return min(g.n-1, max(0, v/g.cell))
}

// line maps a coordinate to the nearest cell border.
func (g *grid) line(v int64) int64 { return (v + g.cell/2) / g.cell }

// seg describes where a straight wall from (x1,y1) to (x2,y2) lies on the map:
// on border line `at`, over cells lo..hi along it. ok is false for a point, or
// for a wall on the rim's border, which the map's edge already blocks.
type seg struct {
	horiz      bool
	at, lo, hi int64
}

func (g *grid) span(x1, y1, x2, y2 int64) (s seg, ok bool) {
	switch {
	case y1 == y2 && x1 != x2:
		s = seg{horiz: true, at: g.line(y1), lo: g.col(min(x1, x2)), hi: g.col(max(x1, x2))}
	case x1 == x2 && y1 != y2:
		s = seg{at: g.line(x1), lo: g.col(min(y1, y2)), hi: g.col(max(y1, y2))}
	default:
		return s, false
	}
	return s, s.at > 0 && s.at < g.n
}

// bump adds delta (+1 or -1) to the wall count of cells lo..hi of s, leaving
// out the cells skipLo..skipHi that were already counted (a growing segment
// only adds its new end). Counts saturate at 15 and then stay: fifteen walls
// within one cell's width are a wall for good.
func (g *grid) bump(s seg, skipLo, skipHi int64, delta int) {
	if skipLo > skipHi {
		g.bumpRange(s, s.lo, s.hi, delta)
		return
	}
	g.bumpRange(s, s.lo, min(s.hi, skipLo-1), delta)
	g.bumpRange(s, max(s.lo, skipHi+1), s.hi, delta)
}

func (g *grid) bumpRange(s seg, lo, hi int64, delta int) {
	e, bits := g.v, g.west
	if s.horiz {
		e, bits = g.h, g.south
	}
	for k := lo; k <= hi; k++ {
		idx := s.at*stride + k
		shift := uint(idx&1) * 4
		v := e[idx>>1] >> shift & 15
		switch {
		case v == 15:
			continue
		case delta > 0:
			v++
		case v > 0:
			v--
		}
		e[idx>>1] = e[idx>>1]&^(15<<shift) | v<<shift
		bit := idx // the bitsets are row by row for both kinds of border
		if !s.horiz {
			bit = k*stride + s.at
		}
		if v == 0 {
			bits[bit>>6] &^= 1 << (bit & 63)
		} else {
			bits[bit>>6] |= 1 << (bit & 63)
		}
	}
}

// wall adds (delta 1) or removes (delta -1) a whole wall.
func (g *grid) wall(x1, y1, x2, y2 int64, delta int) {
	if s, ok := g.span(x1, y1, x2, y2); ok {
		g.bump(s, 1, 0, delta)
	}
}

// slanted puts a map wall at any angle on the map (sim.State.MapWalls): as
// itself when it runs along an axis, else as a staircase of borders that
// follows it a cell at a time, which no lane crosses.
func (g *grid) slanted(x1, y1, x2, y2 int64) { g.stairs(x1, y1, x2, y2, 1) }

// stairs adds (delta 1) or removes (delta -1) a wall at any angle, as
// slanted draws it: the same wall is always the same staircase, so a trail
// on a map of other Axes comes off as it went on.
func (g *grid) stairs(x1, y1, x2, y2 int64, delta int) {
	if x1 == x2 || y1 == y2 {
		g.wall(x1, y1, x2, y2, delta)
		return
	}
	n := max(abs(x2-x1), abs(y2-y1))/g.cell + 1
	px, py := x1, y1
	for k := int64(1); k <= n; k++ {
		x, y := x1+(x2-x1)*k/n, y1+(y2-y1)*k/n
		g.wall(px, py, x, py, delta)
		g.wall(x, py, x, y, delta)
		px, py = x, y
	}
}

// blockedX reports a wall on the west border of cell (i, j).
func (g *grid) blockedX(i, j int64) bool { return isSet(g.west, j*stride+i) }

// blockedY reports a wall on the south border of cell (i, j).
func (g *grid) blockedY(i, j int64) bool { return isSet(g.south, j*stride+i) }

func isSet(bits []uint64, k int64) bool { return bits[k>>6]>>(k&63)&1 != 0 }

// ahead returns the distance from (x,y) along dir to the first map border that
// carries a wall, capped at limit. It is the per-tick look: exact to within
// half a cell. skip is a border line to ignore (the cycle's own last corner,
// which snaps up to half a cell in front of it right after a turn), or -1.
func (g *grid) ahead(x, y int64, dir uint8, limit, skip int64) int64 {
	i, j := g.col(x), g.col(y)
	switch dir & 3 {
	case 0:
		for k := i + 1; k < g.n; k++ {
			if d := k*g.cell - x; d > limit {
				return limit
			} else if k != skip && g.blockedX(k, j) {
				return max(0, d)
			}
		}
		return min(limit, g.arena-x)
	case 2:
		for k := i; k > 0; k-- {
			if d := x - k*g.cell; d > limit {
				return limit
			} else if k != skip && g.blockedX(k, j) {
				return max(0, d)
			}
		}
		return min(limit, x)
	case 1:
		for k := j + 1; k < g.n; k++ {
			if d := k*g.cell - y; d > limit {
				return limit
			} else if k != skip && g.blockedY(i, k) {
				return max(0, d)
			}
		}
		return min(limit, g.arena-y)
	default:
		for k := j; k > 0; k-- {
			if d := y - k*g.cell; d > limit {
				return limit
			} else if k != skip && g.blockedY(i, k) {
				return max(0, d)
			}
		}
		return min(limit, y)
	}
}
