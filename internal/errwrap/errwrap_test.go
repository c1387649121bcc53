package errwrap

import (
	"errors"
	"io"
	"testing"
)

func TestWrap(t *testing.T) {
	err := Wrap(io.ErrUnexpectedEOF, "section 3 cut short")
	if !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "unexpected EOF: section 3 cut short" {
		t.Fatalf("%v", err)
	}
	err = New("replay: start snapshot: bad", io.EOF)
	if !errors.Is(err, io.EOF) || err.Error() != "replay: start snapshot: bad" {
		t.Fatalf("%v", err)
	}
}
