package replay

import "strconv"

// wrapError is what fmt.Errorf("%w: ...") makes, without linking fmt into
// the browser's core, which decodes replays (fmt would be a sixth of it):
// its own text, and errors.Is and errors.As see err.
type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

// wrap returns err's text, a colon and detail, wrapping err.
func wrap(err error, detail string) error { return &wrapError{err.Error() + ": " + detail, err} }

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
