package sim

// Driving directions of a map whose Axes is not 4 (inaktek asks for 8).
//
// Armagetron spaces a grid's n windings evenly (eAxis::ComputeWinding,
// 0.2.9.2.3 src/engine/eAxis.cpp): winding i points at the angle
// 2 pi (n-i-1)/n, and a right turn is winding+1 (eAxis::Turn, called by
// gCycleMovement::DoTurn with +1 for right). Webtron numbers the same
// directions the other way round, as it numbers the four: direction k
// points at 2 pi k/n counter-clockwise from east (+x), Armagetron's winding
// n-1-k, and a left turn adds one. With four axes that is 0 east, 1 north,
// 2 west, 3 south, which the axis-aligned code (frame) plays unchanged; any
// other number plays through the table here and the slanted geometry of
// slant.go.

// AxisScale is the length of a direction vector of an axis table: a
// direction is (x, y) / AxisScale. 2^24 keeps the products of the slanted
// geometry (a coordinate of an arena of 10 km, 2^34 micrometres, times a
// direction) within 64 bits, and an axis within 6e-8 of its true angle.
const AxisScale = 1 << 24

// maxAxes bounds Map.Axes: a direction is a byte (Cycle.Dir).
const maxAxes = 256

// fixOne is 1.0 in the fixed point the table is computed in (2^60).
const fixOne = int64(1) << 60

// fixPi is pi in that fixed point, rounded: 3.14159265358979323846... x 2^60.
const fixPi = 3_622_009_729_038_561_421

// AxisVector returns direction k of a map of n axes (1..256) as a vector of
// length AxisScale, rounded to nearest: (AxisScale, 0) east for k = 0, a
// quarter turn counter-clockwise for k = n/4. Integers only (a Taylor
// series in 2^-60 fixed point over one eighth of the circle, the rest by
// symmetry), so that every machine plays the same directions and a
// direction and its mirror images are exactly alike.
func AxisVector(n, k int) (x, y int64) {
	k = ((k % n) + n) % n
	// The angle in eighths of a turn: octant o, and r/n of the next eighth.
	o, r := 8*int64(k)/int64(n), 8*int64(k)%int64(n)
	flip := o%2 == 1 // measured back from the octant's end
	if flip {
		r = int64(n) - r
	}
	c, s := sinCos(mulDiv(fixPi/4, r, int64(n)))
	round := func(v int64) int64 { return (v + fixOne/AxisScale/2) >> 36 } // 2^60 / 2^24
	c, s = round(c), round(s)
	switch o {
	case 0:
		return c, s
	case 1:
		return s, c
	case 2:
		return -s, c
	case 3:
		return -c, s
	case 4:
		return -c, -s
	case 5:
		return -s, -c
	case 6:
		return s, -c
	default:
		return c, -s
	}
}

// sinCos returns cos and sin of a in [0, pi/4], all in 2^-60 fixed point,
// by their Taylor series (the terms fall below the last bit by the 13th).
func sinCos(a int64) (c, s int64) {
	a2 := mulDiv(a, a, fixOne)
	c, s = fixOne, a
	tc, ts := fixOne, a
	for k := int64(1); k <= 12; k++ {
		tc = -mulDiv(tc, a2, fixOne) / ((2*k - 1) * (2 * k))
		ts = -mulDiv(ts, a2, fixOne) / ((2 * k) * (2*k + 1))
		c += tc
		s += ts
	}
	return c, s
}

// axisTable returns the directions of a map of n axes, or nil for four
// (and for no map): the axis-aligned code plays those.
func axisTable(m *Map) [][2]int64 {
	if m == nil || m.Axes == 4 {
		return nil
	}
	t := make([][2]int64, m.Axes)
	for k := range t {
		t[k][0], t[k][1] = AxisVector(int(m.Axes), k)
	}
	return t
}

// NearestAxis returns the direction of a map of n axes nearest to (dx, dy)
// (not both 0), as Armagetron's eAxis::NearestWinding picks a cycle's
// winding from its spawn direction: between two as near, the first of its
// windings, so the larger of Webtron's numbers.
func NearestAxis(n int, dx, dy int64) uint8 {
	best, bestDot := n-1, wide{hi: -1 << 62}
	for k := n - 1; k >= 0; k-- {
		ux, uy := AxisVector(n, k)
		if d := mulWide(dx, ux).add(mulWide(dy, uy)); d.cmp(bestDot) > 0 {
			best, bestDot = k, d
		}
	}
	return uint8(best)
}

// Axes returns the number of directions cycles drive in this match: the
// map's Axes, 4 without a map.
func (s *State) Axes() int {
	if s.cfg.Map == nil {
		return 4
	}
	return int(s.cfg.Map.Axes)
}

// Turned returns the direction a cycle heading dir takes on a turn to the
// left (t > 0) or the right (t < 0): the next axis that way; t == 0 keeps dir.
func (s *State) Turned(dir uint8, t int) uint8 {
	return TurnedOn(s.Axes(), dir, t)
}

// TurnedOn is Turned on n axes, for those (the bots) that keep a map's axes
// without a State at hand.
func TurnedOn(n int, dir uint8, t int) uint8 {
	switch {
	case t > 0:
		return uint8((int(dir) + 1) % n)
	case t < 0:
		return uint8((int(dir) + n - 1) % n)
	}
	return dir
}
