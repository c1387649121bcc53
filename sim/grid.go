package sim

// cellSize is the side of a grid cell. A tick's rays reach about a metre and the
// wall sensors 6 m, so 8 m cells keep every query to a handful of cells while a
// long wall is listed in at most arena/8 of them.
const cellSize = 8 * Meter

// grid is a spatial index of the current round's walls: each cell lists the
// global indices of the walls that touch it, in the order they were laid.
// It is derived data, never copied by a snapshot: Restore pops the walls laid
// after the snapshot off the cell tails, which costs as much as those walls,
// not as much as the whole trail.
type grid struct {
	n     int64 // cells per side
	cells [][]int32
	start int64 // global index of the first wall indexed (a round's first)
	count int64 // global index one past the last wall indexed
}

func (g *grid) init(arena int64) {
	g.n = (arena + cellSize - 1) / cellSize
	if g.n < 1 {
		g.n = 1
	}
	g.cells = make([][]int32, g.n*g.n)
}

// clamp maps a coordinate to a cell column or row. Positions outside the arena
// only arise for walls touching the rim, which belong to the edge cells.
func (g *grid) clamp(v int64) int64 {
	c := v / cellSize
	if v < 0 {
		c = 0
	}
	if c >= g.n {
		c = g.n - 1
	}
	return c
}

// span returns the cell rectangle that a wall covers.
func (g *grid) span(w *Wall) (cx0, cy0, cx1, cy1 int64) {
	x0, x1 := min(w.X1, w.X2), max(w.X1, w.X2)
	y0, y1 := min(w.Y1, w.Y2), max(w.Y1, w.Y2)
	return g.clamp(x0), g.clamp(y0), g.clamp(x1), g.clamp(y1)
}

func (g *grid) add(w *Wall, idx int64) {
	cx0, cy0, cx1, cy1 := g.span(w)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			i := cy*g.n + cx
			g.cells[i] = append(g.cells[i], int32(idx))
		}
	}
	g.count = idx + 1
}

// pop removes wall idx, which must be the newest wall in every cell it touches.
func (g *grid) pop(w *Wall, idx int64) {
	cx0, cy0, cx1, cy1 := g.span(w)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			i := cy*g.n + cx
			g.cells[i] = popIdx(g.cells[i], idx)
		}
	}
	g.count = idx
}

// popIdx drops idx from the tail of a cell's list.
func popIdx(l []int32, idx int64) []int32 {
	if n := len(l); n > 0 && int64(l[n-1]) == idx {
		return l[:n-1]
	}
	return l
}

// reset empties the grid for a round whose first wall has global index start.
func (g *grid) reset(start int64) {
	for i := range g.cells {
		g.cells[i] = g.cells[i][:0]
	}
	g.start, g.count = start, start
}

// cellRange returns the cells covering the rectangle [x0,x1] x [y0,y1].
func (g *grid) cellRange(x0, y0, x1, y1 int64) (cx0, cy0, cx1, cy1 int64) {
	return g.clamp(x0), g.clamp(y0), g.clamp(x1), g.clamp(y1)
}
