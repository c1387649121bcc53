package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/coder/websocket"

	"webtron/proto"
)

// DefaultRoom is the room a Hello without a room name joins.
const DefaultRoom = "lobby"

var (
	errTooLarge = errors.New("server: message too large")
	errText     = errors.New("server: text message")
)

// serveWS upgrades a request to a WebSocket and runs the connection: this
// goroutine reads, a second one writes.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	// Accept checks the Origin: the request's own host, plus --origin patterns.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.Origins})
	if err != nil {
		s.metrics.disconnects.WithLabelValues("handshake").Inc()
		s.log.Info("server: websocket handshake refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "err", err)
		return
	}
	ws.SetReadLimit(int64(maxClientMessage))
	raw, _ := r.Context().Value(rawConnKey{}).(net.Conn)
	c := newConn(s, ws, raw)
	c.addr = addrKey(s.clientAddr(r))
	c.hop, c.remote = joinHop(r), s.clientAddr(r).String()
	s.metrics.conns.WithLabelValues("websocket").Inc()
	s.runConn(c)
}

// runConn runs a connection, whatever its transport: this goroutine reads,
// a second one writes.
func (s *Server) runConn(c *conn) {
	if why := s.register(c); why != nil {
		go c.writeLoop()
		c.close(*why)
		<-c.finished
		return
	}
	defer s.unregister(c)
	go c.writeLoop()
	s.readLoop(c)
	c.close(reasonClient) // a no-op when the server closed it first
	s.leave(c)
	<-c.finished
}

// readLoop reads and checks messages and hands them to the room until the
// connection ends. Anything wrong closes this connection only.
func (s *Server) readLoop(c *conn) {
	hello := time.AfterFunc(s.cfg.HelloTimeout, func() { c.close(reasonHello) })
	defer hello.Stop()
	buf := make([]byte, maxClientMessage+1)
	limit := newBucket(s.cfg.MsgRate, s.cfg.MsgBurst, s.now())
	for {
		n, at, err := c.readMessage(buf)
		switch {
		case errors.Is(err, errTooLarge):
			c.close(protocolReason("oversized", fmt.Sprintf("message larger than %d bytes", maxClientMessage), websocket.StatusMessageTooBig))
			return
		case errors.Is(err, proto.ErrFrame):
			c.close(protocolReason("malformed", "bad framing: a length past the message's end", websocket.StatusPolicyViolation))
			return
		case errors.Is(err, errText):
			c.close(protocolReason("protocol", "text message: the protocol is binary", websocket.StatusUnsupportedData))
			return
		case err != nil:
			return // the client went away, or we closed it
		}
		now := s.now()
		c.lastRecv.Store(int64(now))
		s.metrics.bytesIn.Add(float64(n))
		if !limit.take(now) {
			c.close(reasonRate)
			return
		}
		m, err := proto.Decode(buf[:n])
		if err != nil {
			c.close(decodeReason(err))
			return
		}
		if !m.Type().FromClient() {
			c.close(protocolReason("protocol", fmt.Sprintf("%v is not a client message", m.Type()), websocket.StatusPolicyViolation))
			return
		}
		if c.host == nil && c.up == nil {
			h, ok := m.(*proto.Hello)
			if !ok {
				c.close(protocolReason("protocol", fmt.Sprintf("%v before hello", m.Type()), websocket.StatusPolicyViolation))
				return
			}
			name, ok := roomName(h.Room)
			if !ok {
				c.close(reason{label: "bad_name", code: proto.CloseBadName, text: "room name must be printable", status: websocket.StatusPolicyViolation, tell: true})
				return
			}
			h.Room = name
			if c.mapChoice = s.mapFor(h.Map); c.mapChoice == nil {
				c.close(reasonBadMap(h.Map))
				return
			}
			if why := s.join(c, name, h); why != nil {
				c.close(*why)
				return
			}
			hello.Stop()
		}
		if at == 0 {
			at = now
		}
		if !s.deliver(c, inbound{c: c, msg: m, at: at}) {
			return
		}
	}
}

// readMessage reads one message into buf. A message that does not fit is
// errTooLarge: the read stops there, within the transport's own limit, so
// that we, not the library, close the connection and can say why first.
func readMessage(ws *websocket.Conn, buf []byte) (int, error) {
	typ, r, err := ws.Reader(context.Background())
	if err != nil {
		return 0, err
	}
	if typ != websocket.MessageBinary {
		return 0, errText
	}
	n := 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, errTooLarge
}

// decodeReason words a decoding error for the client.
func decodeReason(err error) reason {
	switch {
	case errors.Is(err, proto.ErrVersion):
		return reason{label: "version", code: proto.CloseVersion,
			text:   fmt.Sprintf("protocol version mismatch: this server speaks version %d", proto.Version),
			status: websocket.StatusPolicyViolation, tell: true}
	case errors.Is(err, proto.ErrUnknownType):
		return protocolReason("unknown_type", err.Error(), websocket.StatusUnsupportedData)
	case errors.Is(err, proto.ErrTooLarge):
		return protocolReason("oversized", err.Error(), websocket.StatusMessageTooBig)
	}
	return protocolReason("malformed", err.Error(), websocket.StatusPolicyViolation)
}

// roomName checks a Hello's room name: printable, trimmed, "lobby" when empty.
func roomName(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultRoom, true
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "", false
		}
	}
	return s, true
}

// deliver hands a message to the room goroutine, by the inbox or, for a
// deferrable message of a joined connection, by the queue read at the next
// tick; false when the room or the connection is gone. It blocks while that
// queue is full, which holds back only this client's reads.
func (h *roomHost) deliver(in inbound) bool {
	q := h.inbox
	if in.msg != nil && in.c.joined.Load() && deferrable(in.msg.Type()) {
		q = h.later
	}
	select {
	case q <- in:
		return true
	case <-h.done:
		return false
	case <-in.c.done:
		return false
	}
}

// deliverLeave tells the room that c is gone, unless the room is gone too.
func (h *roomHost) deliverLeave(c *conn) {
	select {
	case h.inbox <- inbound{c: c, leave: true}:
	case <-h.done:
	}
}
