package netbatch

import (
	"io"
	"net"
	"testing"
	"time"
)

// countConn counts the writes that reach the socket.
type countConn struct {
	net.Conn
	writes int
	data   []byte
}

func (c *countConn) Write(p []byte) (int, error) {
	c.writes++
	c.data = append(c.data, p...)
	return len(p), nil
}

func (c *countConn) SetWriteDeadline(time.Time) error { return nil }

func TestHeldWritesLeaveTogether(t *testing.T) {
	under := &countConn{}
	c := &Conn{Conn: under}
	io.WriteString(c, "a")
	if under.writes != 1 {
		t.Fatalf("%d writes unheld, want 1", under.writes)
	}
	c.Hold()
	for _, s := range []string{"b", "c", "d"} {
		io.WriteString(c, s)
	}
	if under.writes != 1 {
		t.Fatalf("held writes reached the socket: %d writes", under.writes)
	}
	if err := c.Release(time.Second); err != nil {
		t.Fatal(err)
	}
	if under.writes != 2 || string(under.data) != "abcd" {
		t.Fatalf("%d writes of %q, want 2 of \"abcd\"", under.writes, under.data)
	}
	c.Hold()
	if err := c.Release(time.Second); err != nil || under.writes != 2 {
		t.Fatalf("an empty release wrote (%d writes, err %v)", under.writes, err)
	}
}
