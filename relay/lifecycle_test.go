package relay

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Connections in every state a relay can be closed in: idle, with bytes
// queued behind a long delay, held back by loss, half-closed.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	tests := []struct {
		name  string
		close func(r *Relay, cancel context.CancelFunc)
	}{
		{"Close", func(r *Relay, _ context.CancelFunc) { r.Close() }},
		{"context canceled", func(r *Relay, cancel context.CancelFunc) {
			cancel()
			r.Close() // waits for the goroutines the cancel stops
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			echo, stopEcho := net.Listen("tcp", "127.0.0.1:0")
			if stopEcho != nil {
				t.Fatal(stopEcho)
			}
			go func() {
				for {
					c, err := echo.Accept()
					if err != nil {
						return
					}
					go func() { io.Copy(c, c); c.Close() }()
				}
			}()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Close must not wait for queued bytes: with a minute of delay,
			// a Close that did would fail the 10s limit below.
			slow := Direction{Delay: time.Minute, Loss: 0.5}
			r, err := Start(ctx, Config{To: echo.Addr().String(), Up: slow, Down: slow})
			if err != nil {
				t.Fatal(err)
			}
			var clients []net.Conn
			for i := range 8 {
				c, err := net.Dial("tcp", r.Addr())
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, c)
				switch i % 4 {
				case 1:
					c.Write(make([]byte, 100<<10))
				case 2:
					c.Write([]byte("hello"))
					c.(*net.TCPConn).CloseWrite()
				case 3:
					c.Write([]byte("x"))
				}
			}
			waitFor(t, "8 connections to be forwarded", func() bool { return r.Stats().Active == 8 })

			closed := make(chan struct{})
			go func() { tt.close(r, cancel); close(closed) }()
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not return within 10s")
			}
			if s := r.Stats(); s.Active != 0 {
				t.Errorf("after Close: got %d active connections, want 0", s.Active)
			}
			if _, err := net.Dial("tcp", r.Addr()); err == nil {
				t.Error("after Close: dialing the relay succeeded, want refused")
			}
			for _, c := range clients {
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				if _, err := io.ReadAll(c); err != nil && !isReset(err) {
					t.Errorf("client after Close: got %v, want EOF or reset", err)
				}
				c.Close()
			}
			echo.Close()
			waitFor(t, "goroutines to return to baseline", func() bool { return runtime.NumGoroutine() <= before })
		})
	}
}

// isReset reports a connection reset, which is how a client sees a relay
// closed while it still had bytes in flight.
func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

func TestDialFailureClosesClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there now
	r := startRelay(t, Config{To: dead})
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil || isTimeout(err) {
		t.Errorf("client of a relay to a dead server: got %d bytes, %v; want the connection closed", n, err)
	}
	if s := r.Stats(); s.Connections != 0 {
		t.Errorf("stats: got %d connections forwarded, want 0", s.Connections)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// A server that says goodbye and closes while its client is still sending:
// the client must get the goodbye, though the relay can no longer deliver the
// client's bytes.
func TestServerCloseDeliversPendingBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("bye"))
		time.Sleep(10 * time.Millisecond) // let the client's bytes arrive unread: Close sends a RST
		c.Close()
	}()
	r := startRelay(t, Config{To: ln.Addr().String(), Down: Direction{Delay: 200 * time.Millisecond}})
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				c.Write([]byte("input"))
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if string(got) != "bye" {
		t.Errorf("got %q, %v; want \"bye\" then the close", got, err)
	}
	waitFor(t, "the connection to close", func() bool { return r.Stats().Active == 0 })
}
