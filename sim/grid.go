package sim

import "math/bits"

// cellSize is the side of a grid cell. A tick's rays reach about a metre and the
// wall sensors 6 m, so 8 m cells keep every query to a handful of cells while a
// long wall is listed in at most arena/8 of them.
const cellSize = 8 * Meter

// subSize is the side of a sub-cell: a cell is 8 x 8 of them, and each entry
// of a cell marks the sub-cells its wall touches (cellEntry.mask), so that a
// query rules out most walls of a cell by one AND, without reading them.
const subSize = cellSize / 8

// grid is a spatial index of the current round's walls: each cell lists the
// walls that touch it, in the order they were laid.
// It is derived data, never copied by a snapshot: Restore pops the walls laid
// after the snapshot off the cell tails, which costs as much as those walls,
// not as much as the whole trail.
type grid struct {
	n     int64 // cells per side
	cells [][]cellEntry
	start int64 // global index of the first wall indexed (a round's first)
	count int64 // global index one past the last wall indexed
}

// cellEntry is a wall listed in a cell.
type cellEntry struct {
	mask uint64 // the sub-cells of the cell that the wall touches (see grid.mask)
	idx  int32  // the wall's global index
}

func (g *grid) init(arena int64) {
	g.n = (arena + cellSize - 1) / cellSize
	if g.n < 1 {
		g.n = 1
	}
	g.cells = make([][]cellEntry, g.n*g.n)
}

// clamp maps a coordinate to a cell column or row. Positions outside the arena
// only arise for walls touching the rim, which belong to the edge cells.
func (g *grid) clamp(v int64) int64 {
	// Unsigned: a division by a constant is then a multiplication and a
	// shift, without the fix-ups for a negative v, which is 0 anyway.
	return min(int64(uint64(max(v, 0))/cellSize), g.n-1)
}

// span returns the cell rectangle that a wall covers.
func (g *grid) span(w *Wall) (cx0, cy0, cx1, cy1 int64) {
	x0, x1 := min(w.X1, w.X2), max(w.X1, w.X2)
	y0, y1 := min(w.Y1, w.Y2), max(w.Y1, w.Y2)
	return g.clamp(x0), g.clamp(y0), g.clamp(x1), g.clamp(y1)
}

func (g *grid) add(w *Wall, idx int64) {
	if w.X1 != w.X2 && w.Y1 != w.Y2 {
		g.addSlant(w, idx)
		return
	}
	cx0, cy0, cx1, cy1 := g.span(w)
	x0, x1 := min(w.X1, w.X2), max(w.X1, w.X2)
	y0, y1 := min(w.Y1, w.Y2), max(w.Y1, w.Y2)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			i := cy*g.n + cx
			g.cells[i] = append(g.cells[i], cellEntry{mask: g.mask(cx, cy, x0, y0, x1, y1), idx: int32(idx)})
		}
	}
	g.count = idx + 1
}

// addSlant is add for a slanted wall (a map of other Axes): listed only in
// the cells it runs through, not in all of its box.
func (g *grid) addSlant(w *Wall, idx int64) {
	_, cy0, _, cy1 := g.span(w)
	x0, x1 := min(w.X1, w.X2), max(w.X1, w.X2)
	y0, y1 := min(w.Y1, w.Y2), max(w.Y1, w.Y2)
	for cy := cy0; cy <= cy1; cy++ {
		cx0, cx1 := g.slantCols(w, cy)
		for cx := cx0; cx <= cx1; cx++ {
			if g.crosses(w, cx, cy) {
				i := cy*g.n + cx
				g.cells[i] = append(g.cells[i], cellEntry{mask: g.mask(cx, cy, x0, y0, x1, y1), idx: int32(idx)})
			}
		}
	}
	g.count = idx + 1
}

// slantCols returns the columns of row cy, within w's box, that slanted
// wall w may run through (crosses tells): those its line spans over the
// row's height and a column either side. Walking only these, a wall costs
// the cells it runs through, not the whole of its box (a diagonal across
// 10 km is 1.5 million cells of box).
func (g *grid) slantCols(w *Wall, cy int64) (cx0, cx1 int64) {
	bx0, _, bx1, _ := g.span(w)
	ex, ey := w.X2-w.X1, w.Y2-w.Y1
	lo, hi := min(w.X1, w.X2), max(w.X1, w.X2)
	// The line's x at the bottom and the top of the row as crosses sees
	// it (2 um beyond the cell), kept within the wall's box.
	at := func(y int64) int64 { return min(max(w.X1+floorDiv(mulWide(y-w.Y1, ex), ey), lo), hi) }
	xa, xb := at(cy*cellSize-2), at(cy*cellSize+cellSize+1)
	return max(bx0, g.clamp(min(xa, xb)-cellSize)), min(bx1, g.clamp(max(xa, xb)+cellSize))
}

// crosses reports whether slanted wall w runs through cell (cx, cy) or
// within 2 um of it (a point of w rounded, as blast's nearest, stays in a
// cell listing it): its box meets the cell (the caller's loop), and the
// cell's corners lie on both sides of its line.
func (g *grid) crosses(w *Wall, cx, cy int64) bool {
	x0, y0 := cx*cellSize-2, cy*cellSize-2
	x1, y1 := x0+cellSize+3, y0+cellSize+3
	ex, ey := w.X2-w.X1, w.Y2-w.Y1
	pos, neg := false, false
	for _, p := range [4][2]int64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		switch mulWide(ex, p[1]-w.Y1).sub(mulWide(ey, p[0]-w.X1)).sign() {
		case 1:
			pos = true
		case -1:
			neg = true
		default:
			return true
		}
	}
	return pos && neg
}

// pop removes wall idx, which must be the newest wall in every cell it touches.
func (g *grid) pop(w *Wall, idx int64) {
	cx0, cy0, cx1, cy1 := g.span(w)
	slanted := w.X1 != w.X2 && w.Y1 != w.Y2 // listed only where it runs (addSlant)
	for cy := cy0; cy <= cy1; cy++ {
		if slanted {
			cx0, cx1 = g.slantCols(w, cy)
		}
		for cx := cx0; cx <= cx1; cx++ {
			i := cy*g.n + cx
			if l := g.cells[i]; len(l) > 0 && int64(l[len(l)-1].idx) == idx {
				g.cells[i] = l[:len(l)-1]
			}
		}
	}
	g.count = idx
}

// reset empties the grid for a round whose first wall has global index start.
func (g *grid) reset(start int64) {
	for i := range g.cells {
		g.cells[i] = g.cells[i][:0]
	}
	g.start, g.count = start, start
}

// away returns how far coordinate v, in column or row o, is from column or
// row c, and on which side c lies (-1 before, 0 the same, +1 after): c's
// nearest point to v is d from it.
func (g *grid) away(c, o, v int64) (d, side int64) {
	switch {
	case c < o:
		return v - (c*cellSize + cellSize - 1), -1
	case c > o:
		return c*cellSize - v, 1
	}
	return 0, 0
}

// cellRange returns the cells covering the rectangle [x0,x1] x [y0,y1].
func (g *grid) cellRange(x0, y0, x1, y1 int64) (cx0, cy0, cx1, cy1 int64) {
	return g.clamp(x0), g.clamp(y0), g.clamp(x1), g.clamp(y1)
}

// mask returns the sub-cells of cell (cx, cy) that the closed rectangle
// [x0,x1] x [y0,y1] touches, bit 8 row + column: every sub-cell whose closed
// square holds a point of it (two on a border between them), and for a
// rectangle reaching out of the cell, the sub-cells on that side. So when a
// wall and a query's shape share a point p, the entry of the wall in the
// cell where p lies and the query's mask of that cell share p's sub-cell:
// an AND of zero there is a sure miss.
func (g *grid) mask(cx, cy, x0, y0, x1, y1 int64) uint64 {
	return g.rows(cy, y0, y1) & g.cols(cx, x0, x1)
}

// rows returns the rows of sub-cells of a cell in row cy that the closed
// interval [y0, y1] touches (see mask), every sub-cell of them.
func (g *grid) rows(cy, y0, y1 int64) uint64 {
	r0, r1 := subRange(y0-cy*cellSize, y1-cy*cellSize)
	return uint64(1)<<(8*(r1+1)) - uint64(1)<<(8*r0)
}

// cols returns the columns of sub-cells of a cell in column cx that the
// closed interval [x0, x1] touches (see mask), every sub-cell of them.
func (g *grid) cols(cx, x0, x1 int64) uint64 {
	c0, c1 := subRange(x0-cx*cellSize, x1-cx*cellSize)
	return (uint64(1)<<(c1+1) - uint64(1)<<c0) * 0x0101010101010101
}

// subRange returns the first and last sub-cell, 0..7, that the closed
// interval [a, b] touches, relative to the cell's start: a point on the
// border of two touches both.
func subRange(a, b int64) (lo, hi int64) {
	// Clamped first, then divided unsigned (see clamp).
	return int64(uint64(min(max(a-1, 0), 7*subSize)) / subSize), int64(uint64(min(max(b, 0), 7*subSize)) / subSize)
}

// diagonal is a line at 45 degrees through a cell, as the cells of a query
// see it: the line y - x = c (up) or x + y = c (down), c in sub-cells
// relative to the first cell's corner, rounded down, and whether it was
// whole (the line then runs through corners, and touches one more row of
// sub-cells).
type diagonal struct {
	q     int64
	whole bool
	up    bool
}

// diagonalThrough returns the diagonal through (x, y), up or down, relative
// to cell (cx, cy).
func diagonalThrough(x, y, cx, cy int64, up bool) diagonal {
	c := x + y - (cx+cy)*cellSize
	if up {
		c = y - x - (cy-cx)*cellSize
	}
	q := c / subSize
	if c%subSize != 0 && c < 0 {
		q-- // rounded down
	}
	return diagonal{q: q, whole: c%subSize == 0, up: up}
}

// in returns the sub-cells of the cell dx columns right of and dy rows above
// the diagonal's first cell that it crosses: every closed square it touches,
// those whose own y - x (x + y) in sub-cells lies within one of the line's.
func (d diagonal) in(dx, dy int64) uint64 {
	if d.up {
		// cells with j - i = e: the main diagonal moved up e rows
		q := d.q + 8*(dx-dy)
		if q < -9 || q > 8 {
			return 0
		}
		m := shiftRows(0x8040201008040201, q) | shiftRows(0x8040201008040201, q+1)
		if d.whole {
			m |= shiftRows(0x8040201008040201, q-1)
		}
		return m
	}
	// cells with i + j = e: the anti-diagonal (i + j = 7) moved up e - 7 rows
	q := d.q - 8*(dx+dy)
	if q < -1 || q > 16 {
		return 0
	}
	m := shiftRows(0x0102040810204080, q-7) | shiftRows(0x0102040810204080, q-8)
	if d.whole {
		m |= shiftRows(0x0102040810204080, q-9)
	}
	return m
}

// shiftRows moves a mask of sub-cells d rows up (down for d < 0); rows moved
// out of the cell are gone.
func shiftRows(m uint64, d int64) uint64 {
	if d >= 0 {
		return m << (8 * uint64(min(d, 8)))
	}
	return m >> (8 * uint64(min(-d, 8)))
}

// key orders wall idx (w) as the search of the cells from (cx0, cy0) on meets
// it first: by the first of its cells in that range, rows of cells upward and
// each row left to right, then by the order laid. Between walls met equally
// near, the queries keep the one first in this order (TestGoldenQueries/ties:
// the rules before the sub-cells, which visited the cells in that order).
func (g *grid) key(w *Wall, idx int32, cx0, cy0 int64) int64 {
	wx0, wy0, _, _ := g.span(w)
	return (max(wy0, cy0)*g.n+max(wx0, cx0))<<32 | int64(idx)
}

// keyOpen is the key of cycle i's open segment: after every closed wall, in
// seat order.
func keyOpen(i int) int64 { return 1<<62 + int64(i) }

// fewSeats is how many boxes are tested one by one rather than through
// bands: a test is a few comparisons, a look-up in bands some sixty
// instructions.
const fewSeats = 8

// bands is a coarse index of at most MaxPlayers boxes, one per seat: the
// arena cut into 64 bands across x and 64 across y, each band a bit set of
// the seats whose box reaches into it. The boxes of two seats a query must
// look at (the living cycles' open segments while the moves are planned,
// the blasts of a round) are few, and a query near none of them costs a
// few ORs instead of a test of each.
type bands struct {
	shift      uint // a band is 1<<shift wide
	cols, rows [64]uint32
}

// reset empties b for an arena of side a.
func (b *bands) reset(a int64) {
	b.shift = uint(max(bits.Len64(uint64(a))-6, 0))
	b.cols, b.rows = [64]uint32{}, [64]uint32{}
}

// span returns the bands that [v0, v1] reaches into: positions off the
// arena belong to its edge bands.
func (b *bands) span(v0, v1 int64) (k0, k1 int) {
	sh := b.shift & 63 // at most 63: no test for larger shifts
	return int(min(max(v0>>sh, 0), 63)), int(min(max(v1>>sh, 0), 63))
}

// add notes seat i's box [x0,x1] x [y0,y1].
func (b *bands) add(i int, x0, y0, x1, y1 int64) {
	bit := uint32(1) << i
	k0, k1 := b.span(x0, x1)
	for k := k0; k <= k1; k++ {
		b.cols[k] |= bit
	}
	k0, k1 = b.span(y0, y1)
	for k := k0; k <= k1; k++ {
		b.rows[k] |= bit
	}
}

// in returns the seats whose boxes share a band with [x0,x1] x [y0,y1] in
// both axes: every seat whose box meets it, and maybe others.
func (b *bands) in(x0, y0, x1, y1 int64) uint32 {
	var c, r uint32
	k0, k1 := b.span(x0, x1)
	for k := k0; k <= k1; k++ {
		c |= b.cols[k]
	}
	if c == 0 {
		return 0
	}
	k0, k1 = b.span(y0, y1)
	for k := k0; k <= k1; k++ {
		r |= b.rows[k]
	}
	return c & r
}
