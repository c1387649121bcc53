package bot

// maxFills is how many fills one decision batches (straight, left, right).
const maxFills = 4

// fills is the flood-fill state of a grid. The fills of one decision share
// their marks until forget: a way whose seed lies in a region already counted
// gets that count without a second fill. In open country the left and the
// right seed are one region, and a decision costs one fill instead of two.
type fills struct {
	seen  []uint64 // cells reached since the last forget, one bit each
	queue []int32  // those cells, in order, so that forget clears only them
	done  [maxFills]region
	count int // fills in done
}

// region is one fill of a batch: queue[start:end], and whether it stopped at
// the budget (then its marks cover only part of its region).
type region struct {
	start, end int
	cut        bool
}

// forget ends a batch of fills.
func (g *grid) forget() {
	for _, k := range g.queue {
		g.seen[k>>6] &^= 1 << (k & 63)
	}
	g.queue = g.queue[:0]
	g.count = 0
}

// fill counts the cells reachable from cell (i, j) without crossing a wall,
// stopping at limit: the room a cycle would have after heading that way.
// side is the side of a square of at least limit cells: in open country such
// a square around the seed is free of walls, which a few words of the
// bitsets show, and the fill, which would run to the full budget, is skipped.
func (g *grid) fill(i, j int64, limit int, side int64) int {
	if g.open(i, j, side) {
		return limit
	}
	start := int32(j*stride + i)
	if isSet(g.seen, int64(start)) {
		for f := g.count - 1; f >= 0; f-- {
			r := &g.done[f]
			for _, k := range g.queue[r.start:r.end] {
				if k == start && (!r.cut || r.end-r.start >= limit) {
					return min(r.end-r.start, limit)
				}
			}
		}
	}
	// Earlier regions are whole components, so a new seed's region cannot
	// run into their marks, unless one stopped at its budget: start afresh.
	if g.count == maxFills || g.count > 0 && g.done[g.count-1].cut || isSet(g.seen, int64(start)) {
		g.forget()
	}
	n := g.n
	q := g.queue
	base := len(q)
	g.seen[start>>6] |= 1 << (start & 63)
	q = append(q, start)
	for h := base; h < len(q) && len(q)-base < limit; h++ {
		k := q[h]
		i, j, kk := k&(stride-1), k>>strideShift, int64(k)
		if int64(i+1) < n && !isSet(g.west, kk+1) {
			q = g.visit(q, k+1)
		}
		if i > 0 && !isSet(g.west, kk) {
			q = g.visit(q, k-1)
		}
		if int64(j+1) < n && !isSet(g.south, kk+stride) {
			q = g.visit(q, k+stride)
		}
		if j > 0 && !isSet(g.south, kk) {
			q = g.visit(q, k-stride)
		}
	}
	g.queue = q
	size := len(q) - base
	g.done[g.count] = region{start: base, end: len(q), cut: size >= limit}
	g.count++
	return min(size, limit)
}

func (g *grid) visit(q []int32, k int32) []int32 {
	if bit := uint64(1) << (k & 63); g.seen[k>>6]&bit == 0 {
		g.seen[k>>6] |= bit
		q = append(q, k)
	}
	return q
}

// open reports whether some side x side square of cells holding (i, j) has
// no wall inside it: then all its cells are one room. It tries the square
// centred on the seed, then the four with the seed on an edge, because a bot
// running along a wall has that wall next to every centred square.
func (g *grid) open(i, j, side int64) bool {
	if side > g.n {
		return false
	}
	h := side / 2
	for _, at := range [5][2]int64{{i - h, j - h}, {i - h, j}, {i - h, j - side + 1}, {i, j - h}, {i - side + 1, j - h}} {
		if g.clearSquare(min(max(0, at[0]), g.n-side), min(max(0, at[1]), g.n-side), side) {
			return true
		}
	}
	return false
}

// clearSquare reports whether no wall lies inside the square of cells with
// corner (i0, j0); its outer borders do not matter.
func (g *grid) clearSquare(i0, j0, side int64) bool {
	i1, j1 := i0+side-1, j0+side-1
	for r := j0; r <= j1; r++ {
		if r > j0 && anySet(g.south, r, i0, i1) || anySet(g.west, r, i0+1, i1) {
			return false
		}
	}
	return true
}

// anySet reports whether any of bits lo..hi of row r is set.
func anySet(bits []uint64, r, lo, hi int64) bool {
	for lo <= hi {
		k := r*stride + lo
		w := bits[k>>6] >> (k & 63)
		n := min(hi-lo+1, 64-(k&63)) // bits of this word in range
		if n < 64 {
			w &= 1<<n - 1
		}
		if w != 0 {
			return true
		}
		lo += n
	}
	return false
}
