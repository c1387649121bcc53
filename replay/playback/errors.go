package playback

import "strconv"

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// hex16 is %016x.
func hex16(v uint64) string {
	s := strconv.FormatUint(v, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}
