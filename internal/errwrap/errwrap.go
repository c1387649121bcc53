// Package errwrap makes the errors fmt.Errorf("%w: ...") makes without
// linking fmt, which would be a sixth of the browser's WebAssembly core: the
// packages the browser runs (the replay format and its player) build their
// messages with strconv and wrap their sentinel errors here.
package errwrap

// wrapped is an error with its own text through which errors.Is and
// errors.As see err.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// New returns an error whose text is msg and which wraps err.
func New(msg string, err error) error { return &wrapped{msg, err} }

// Wrap returns err's text, a colon and detail, wrapping err.
func Wrap(err error, detail string) error { return &wrapped{err.Error() + ": " + detail, err} }
