package settings

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
)

// parseValue reads a setting's value in unit u. Counts (scores, limits,
// types, SIZE_FACTOR) must be whole numbers.
func parseValue(s string, u unit) (int64, error) {
	if u.scale != 1 {
		return parseFixed(s, u.scale)
	}
	v, err := parseFixed(s, 1_000_000)
	if err == nil && v%1_000_000 != 0 {
		err = errors.New("must be a whole number")
	}
	return v / 1_000_000, err
}

// parseFixed reads a decimal such as "-0.25", "30", ".1" or "1e6" as an
// integer count of 1/scale, rounding half away from zero. It never goes
// through a float, so "0.1" is exactly 100 milliseconds.
func parseFixed(s string, scale int64) (int64, error) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -30 || e > 30 {
			return 0, errors.New("not a number")
		}
		exp, s = e, s[:i]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, errors.New("not a number")
	}
	exp -= len(frac) // value = digits x 10^exp
	digits = strings.TrimLeft(digits, "0")
	// value/unit = digits x 10^exp x scale: multiply by scale first, then
	// shift by the power of ten, rounding at the last step.
	var n uint64
	for _, c := range digits {
		hi, lo := bits.Mul64(n, 10)
		if hi != 0 || lo > lo+uint64(c-'0') {
			return 0, errors.New("out of range")
		}
		n = lo + uint64(c-'0')
	}
	hi, n := bits.Mul64(n, uint64(scale))
	if hi != 0 {
		return 0, errors.New("out of range")
	}
	for ; exp > 0; exp-- {
		h, l := bits.Mul64(n, 10)
		if h != 0 {
			return 0, errors.New("out of range")
		}
		n = l
	}
	if exp < 0 {
		div := uint64(1)
		for ; exp < 0; exp++ {
			if div > 1e18 {
				n, div = 0, 1 // far below the resolution
				break
			}
			div *= 10
		}
		n = (n + div/2) / div
	}
	if n > 1<<62 {
		return 0, errors.New("out of range")
	}
	if neg {
		return -int64(n), nil
	}
	return int64(n), nil
}

// formatFixed writes v/scale as the shortest exact decimal.
func formatFixed(v, scale int64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v/scale, 10)
	if r := v % scale; r != 0 {
		frac := strconv.FormatInt(r+scale, 10)[1:] // zero-padded to the scale's digits
		s += "." + strings.TrimRight(frac, "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}
