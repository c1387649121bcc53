package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"webtron/proto"
)

// A join of a room that another node holds is proxied: this node keeps the
// client's WebSocket and opens one of its own to the owner's /ws, and
// passes messages both ways. The page needs no change and a link works
// whichever node serves it; the price is a hop and this node's CPU for
// the copy (docs/deploy.md weighs it against a redirect). Messages from the
// client are checked here as for a local room (rate, size, decoding) before
// they go on; the owner's go to the client through the connection's usual
// writer, so a slow client is dropped here, not at the owner.

// upstream is a proxied connection's socket to the owner.
type upstream struct {
	g    *clusterNode
	c    *conn
	ws   *websocket.Conn
	once sync.Once
	done chan struct{} // closed when the reader has stopped
}

// serverMax is the largest message a server sends: the proxy's read limit.
var serverMax = func() int {
	n := 0
	for t := proto.Type(1); t < 32; t++ {
		if t.FromServer() {
			n = max(n, proto.MaxSize(t))
		}
	}
	return n
}()

// reasonElsewhere is reasonBusy, answered without this node's retries
// (Server.join): a join proxied here that finds the lease naming a third
// node (two takeovers of a dead node's room that named each other's node,
// as nats-server 2.9 lets both compare-and-sets through) cannot be
// forwarded again, and only the proxy can act on it, by looking the lease up
// again. Retried here, it held the join 3.1 s for nothing (issue 21).
var reasonElsewhere = reasonBusy

// forward proxies c to the node at base (its public URL, as its signed
// heartbeats give it: clusterNode.join), sending hello first. On failure
// the client is told to try again: the owner may have
// died, and the next attempt finds the room taken over.
func (g *clusterNode) forward(c *conn, base string, hello *proto.Hello) *reason {
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	h := http.Header{hopHeader: {strconv.Itoa(c.hop + 1)}}
	if c.remote != "" {
		h.Set("X-Forwarded-For", c.remote)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		g.s.log.Warn("cluster: cannot reach a room's node", "url", u, "err", err)
		return &reasonOwnerDown
	}
	ws.SetReadLimit(int64(serverMax))
	// The Welcome is the client's first clock sample, and the owner takes
	// its own hold of the Hello out of it (room.ReceiveAt); this node's
	// (the join's lease work, retries, the dial) goes out here: the Hello
	// leaves as if sent that much later. The reader has read nothing since
	// the Hello (it waits for this join), so lastRecv is its arrival. A
	// copy: a retried join forwards the Hello again.
	fwd := *hello
	fwd.ClientTime += int64((g.s.now() - time.Duration(c.lastRecv.Load())) / time.Microsecond)
	b, err := proto.Marshal(&fwd)
	if err == nil {
		err = ws.Write(ctx, websocket.MessageBinary, b)
	}
	if err != nil {
		ws.CloseNow()
		return &reasonOwnerDown
	}
	// The owner's first answer is read here. Two nodes that take over a dead
	// node's room at the same moment may each place it on the other (seen
	// against nats-server 2.9, whose compare-and-set let both writes
	// through); the node this join reaches then finds the lease naming a
	// third place and answers "busy". That answer is this node's to act on:
	// the join is looked up again (Server.join tries again), not refused.
	first, cancelFirst := context.WithTimeout(context.Background(), firstAnswer)
	defer cancelFirst()
	_, b, err = ws.Read(first)
	if err != nil {
		ws.CloseNow()
		var ce websocket.CloseError
		if errors.As(err, &ce) && ce.Code == reasonBusy.status {
			return &reasonBusy
		}
		return &reasonOwnerDown
	}
	if m, err := proto.Decode(b); err == nil {
		if e, ok := m.(*proto.Error); ok && e.Text == reasonBusy.text {
			ws.CloseNow()
			return &reasonBusy
		}
	}
	up := &upstream{g: g, c: c, ws: ws, done: make(chan struct{})}
	c.up = up
	g.proxied.Add(1)
	if !c.enqueue([][]byte{b}) {
		ws.CloseNow()
	}
	go up.readLoop()
	return nil
}

// firstAnswer bounds the wait for the owner's first message (its Welcome,
// or why not): longer than the owner's own retries of a join it cannot
// settle at once (Server.join).
const firstAnswer = 10 * time.Second

// readLoop passes the owner's messages to the client until either side ends.
func (u *upstream) readLoop() {
	defer close(u.done)
	defer u.g.proxied.Add(-1)
	for {
		_, b, err := u.ws.Read(context.Background())
		if err != nil {
			u.ended(err)
			return
		}
		if !u.c.enqueue([][]byte{b}) {
			u.ws.CloseNow()
			return
		}
	}
}

// ended closes the client after the owner's socket ended. The owner's own
// reason (an Error message, already passed on) comes with a close status,
// which the client gets too; a socket cut without one means the owner is
// gone, and the client hears so.
func (u *upstream) ended(err error) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		u.c.close(reason{label: "upstream", status: ce.Code, text: ce.Reason})
		return
	}
	u.c.close(reasonOwnerDown) // a no-op when the client closed first
}

// send passes one of the client's messages to the owner; false ends the
// client's reading (the upstream is gone).
func (u *upstream) send(m proto.Message) bool {
	b, err := proto.Marshal(m)
	if err != nil {
		u.c.close(protocolReason("protocol", err.Error(), websocket.StatusPolicyViolation))
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), u.c.srv.cfg.WriteTimeout)
	defer cancel()
	if err := u.ws.Write(ctx, websocket.MessageBinary, b); err != nil {
		u.c.close(reasonOwnerDown)
		return false
	}
	return true
}

// close ends the upstream when the client has gone.
func (u *upstream) close() {
	u.once.Do(func() {
		u.ws.Close(websocket.StatusNormalClosure, "client left")
		<-u.done
	})
}

// joinHop reads how many nodes a join came through.
func joinHop(r *http.Request) int {
	hop, _ := strconv.Atoi(r.Header.Get(hopHeader))
	return min(max(hop, 0), maxHops)
}
