package replay

import "strconv"

// errorString is an error made of text alone.
type errorString string

func (e errorString) Error() string { return string(e) }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func utoa(v uint64) string { return strconv.FormatUint(v, 10) }

// hex returns v in hexadecimal, zero-padded to digits (%016x, %08x).
func hex(v uint64, digits int) string {
	s := strconv.FormatUint(v, 16)
	for len(s) < digits {
		s = "0" + s
	}
	return s
}
