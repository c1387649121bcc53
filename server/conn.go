package server

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"webtron/internal/netbatch"
	"webtron/proto"
	"webtron/room"
)

// reason is why a connection closes: what the client is told (an Error
// message, then a WebSocket close status and text) and the label counted in
// webtron_disconnects_total.
type reason struct {
	label  string
	code   proto.CloseCode
	text   string
	status websocket.StatusCode
	tell   bool // send proto.Error before closing: the client is still listening
}

// The reasons a connection ends.
var (
	reasonClient     = reason{label: "client", status: websocket.StatusNormalClosure}
	reasonShutdown   = reason{label: "shutdown", code: proto.CloseShutdown, text: "server shutting down", status: websocket.StatusGoingAway, tell: true}
	reasonSlow       = reason{label: "slow_reader", code: proto.CloseTimeout, text: "too slow to receive: send queue full", status: websocket.StatusPolicyViolation, tell: true}
	reasonRate       = reason{label: "rate_limit", code: proto.CloseKicked, text: "too many messages", status: websocket.StatusPolicyViolation, tell: true}
	reasonHello      = reason{label: "hello_timeout", code: proto.CloseTimeout, text: "no hello in time", status: websocket.StatusPolicyViolation, tell: true}
	reasonIdle       = reason{label: "idle", code: proto.CloseTimeout, text: "nothing heard for too long", status: websocket.StatusPolicyViolation, tell: true}
	reasonCrashed    = reason{label: "room_crashed", code: proto.CloseOther, text: "this room failed and was closed; rejoining opens it afresh", status: websocket.StatusInternalError, tell: true}
	reasonWrite      = reason{label: "write_error", status: websocket.StatusInternalError}
	reasonServerFull = reason{label: "server_full", code: proto.CloseRoomFull, text: "server full", status: websocket.StatusTryAgainLater, tell: true}
	reasonRooms      = reason{label: "too_many_rooms", code: proto.CloseRoomFull, text: "no room for another room", status: websocket.StatusTryAgainLater, tell: true}
)

// protocolReason closes a connection that broke the protocol.
func protocolReason(label, text string, status websocket.StatusCode) reason {
	return reason{label: label, code: proto.CloseProtocol, text: text, status: status, tell: true}
}

// errorReason turns a room's proto.Error into a close reason.
func errorReason(e *proto.Error) reason {
	labels := map[proto.CloseCode]string{proto.CloseRoomFull: "room_full", proto.CloseBadToken: "bad_token",
		proto.CloseReplaced: "replaced", proto.CloseProtocol: "protocol", proto.CloseVersion: "version",
		proto.CloseBadName: "bad_name", proto.CloseNameTaken: "name_taken", proto.CloseKicked: "kicked"}
	l, ok := labels[e.Code]
	if !ok {
		l = "other"
	}
	st := websocket.StatusPolicyViolation
	if e.Code == proto.CloseReplaced {
		st = websocket.StatusNormalClosure
	}
	return reason{label: l, code: e.Code, text: e.Text, status: st, tell: true}
}

// conn is one client connection. The room goroutine only calls enqueue and
// close, which never block; the writer goroutine does the blocking writes.
type conn struct {
	id   room.ConnID
	srv  *Server
	ws   *websocket.Conn // nil for test connections without a socket, and for WebTransport
	wt   *wtLink         // the WebTransport session, or nil for a WebSocket
	raw  net.Conn        // the socket under ws, when known: closing it cuts a stalled close handshake short
	addr netip.Prefix    // the client's address, as the per-address limits count it
	send chan [][]byte   // batches of messages, one per room iteration
	done chan struct{}   // closed when the connection starts closing
	pend [][]byte        // the room's messages of its current iteration (room goroutine only)

	once     sync.Once
	why      reason
	lastRecv atomic.Int64 // server clock (ns) of the last message received
	joined   atomic.Bool  // the room has handled this connection's Hello
	host     *roomHost    // the room joined; set by the reader before the join is sent
	up       *upstream    // instead of host: the proxy to another node's room (cluster.go)
	hop      int          // nodes this join came through (cluster.go's hopHeader)
	remote   string       // the client's address, passed on by the proxy
	// mapChoice is the map its Hello asked for (nil: the default), which
	// a room this connection opens plays; set by the reader before the join.
	mapChoice *roomMap
	finished  chan struct{}
}

func newConn(s *Server, ws *websocket.Conn, raw net.Conn) *conn {
	c := &conn{id: room.ConnID(s.nextConn.Add(1)), srv: s, ws: ws, raw: raw,
		send: make(chan [][]byte, s.cfg.SendQueue), done: make(chan struct{}), finished: make(chan struct{})}
	c.lastRecv.Store(int64(s.now()))
	return c
}

// enqueue hands a batch of messages to the writer without ever blocking:
// when the queue is full the client is not keeping up, and it is dropped
// rather than slowing its room down. It reports whether the batch was queued.
func (c *conn) enqueue(b [][]byte) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	select {
	case c.send <- b:
		return true
	default:
		c.close(reasonSlow)
		return false
	}
}

// close starts closing with reason r; only the first reason counts.
func (c *conn) close(r reason) bool {
	first := false
	c.once.Do(func() {
		first = true
		c.why = r
		close(c.done)
		c.srv.metrics.disconnects.WithLabelValues(r.label).Inc()
		if r.label != "client" && r.label != "shutdown" {
			c.srv.log.Info("server: closing connection", "conn", c.id, "reason", r.label, "text", r.text)
		}
	})
	return first
}

func (c *conn) closing() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// writeLoop sends queued messages until the connection closes, then tells
// the client why (when it can) and closes the WebSocket.
func (c *conn) writeLoop() {
	defer close(c.finished)
	if c.wt != nil {
		c.wt.writeLoop(c)
		return
	}
	bc, _ := c.raw.(*netbatch.Conn)
	for {
		select {
		case batch := <-c.send:
			if err := c.writeBatch(bc, batch); err != nil {
				c.close(reasonWrite)
			}
			continue
		case <-c.done:
		}
		break
	}
	r := c.why
	if r.tell && r.label != "write_error" {
		if b, err := proto.Marshal(&proto.Error{Code: r.code, Text: r.text}); err == nil {
			c.write(b, time.Second)
		}
	}
	text := r.text
	if len(text) > 120 { // a close frame's reason is at most 123 bytes
		text = text[:120]
	}
	c.ws.Close(r.status, text)
}

// writeBatch writes a batch and whatever else is queued already, in one
// system call when the socket allows it (see netbatch.Conn).
func (c *conn) writeBatch(bc *netbatch.Conn, batch [][]byte) error {
	if bc == nil || len(batch) == 1 && len(c.send) == 0 {
		for _, b := range batch {
			if err := c.write(b, c.srv.cfg.WriteTimeout); err != nil {
				return err
			}
		}
		return nil
	}
	// Held writes only fill a buffer; release bounds the real one in time.
	bc.Hold()
	var err error
	for n := 0; err == nil; n++ {
		for _, b := range batch {
			if err = c.write(b, 0); err != nil {
				break
			}
		}
		if n == 64 || len(c.send) == 0 {
			break
		}
		batch = <-c.send
	}
	if rerr := bc.Release(c.srv.cfg.WriteTimeout); err == nil {
		err = rerr
	}
	return err
}

// write sends one message; timeout 0 means none (a held netbatch.Conn).
func (c *conn) write(b []byte, timeout time.Duration) error {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if err := c.ws.Write(ctx, websocket.MessageBinary, b); err != nil {
		return err
	}
	c.srv.metrics.bytesOut.Add(float64(len(b)))
	return nil
}

// forceClose cuts the socket: for a peer that stalls the close handshake
// while the server is shutting down.
func (c *conn) forceClose() {
	if c.wt != nil {
		c.wt.cut()
	} else if c.raw != nil {
		c.raw.Close()
	} else if c.ws != nil {
		c.ws.CloseNow()
	}
}
