package playback

import "strconv"

// wrapError is what fmt.Errorf("%w: ...") makes, without linking fmt into
// the browser's core: its own text, and errors.Is sees err.
type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

// wrap returns err's text, a colon and detail, wrapping err.
func wrap(err error, detail string) error { return &wrapError{err.Error() + ": " + detail, err} }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// hex16 is %016x.
func hex16(v uint64) string {
	s := strconv.FormatUint(v, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}
