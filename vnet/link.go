package vnet

import (
	"fmt"
	"math/bits"
	"time"
)

// Mode is a link direction's transport: it decides what a loss does.
type Mode uint8

// Modes. Stream is the zero value so that a link nobody configured loses
// nothing.
const (
	Stream   Mode = iota // reliable and ordered, like TCP or a WebSocket: a loss costs an RTO
	Datagram             // unreliable and unordered, like UDP or WebTransport datagrams: a loss drops
)

// String returns "stream" or "datagram", for test names and lab reports.
func (m Mode) String() string {
	switch m {
	case Stream:
		return "stream"
	case Datagram:
		return "datagram"
	}
	return "unknown"
}

// DefaultRTO is a Stream's delay per lost attempt when the profile leaves RTO
// at 0: the usual TCP minimum retransmission timeout.
const DefaultRTO = 200 * time.Millisecond

// Profile is how one link direction treats the messages sent on it. The zero
// Profile is a perfect, instantaneous Stream.
type Profile struct {
	Mode      Mode
	Latency   time.Duration // one-way base delay: half the RTT of a symmetric link
	Jitter    time.Duration // extra delay per message, uniform on [0, Jitter]
	Loss      float64       // chance an attempt is lost: dropped (Datagram) or retried after RTO (Stream, must be < 1)
	RTO       time.Duration // Stream: delay each lost attempt adds; 0 means DefaultRTO
	Reorder   float64       // Datagram: chance a message is held back an extra Latency+Jitter, so later ones overtake it
	Duplicate float64       // Datagram: chance a second copy arrives too, with its own jitter; the copy is never lost
}

func (p Profile) check() {
	bad := func(x float64) bool { return !(x >= 0 && x <= 1) } // NaN fails too
	switch {
	case p.Mode > Datagram:
		panic(fmt.Sprintf("vnet: unknown mode %d", p.Mode))
	case p.Latency < 0 || p.Jitter < 0 || p.RTO < 0:
		panic("vnet: negative delay in profile")
	case bad(p.Loss) || bad(p.Reorder) || bad(p.Duplicate):
		panic("vnet: probability outside [0, 1] in profile")
	case p.Mode == Stream && p.Loss == 1:
		panic("vnet: a Stream with Loss 1 would retry forever")
	}
}

// Count is a number of messages and their total size.
type Count struct{ Msgs, Bytes uint64 }

func (c *Count) add(msgs, size int) {
	c.Msgs += uint64(msgs)
	c.Bytes += uint64(msgs) * uint64(size)
}

// Stats counts what happened on one link direction since its nodes were
// added. Messages in flight = Sent + Duplicated - Delivered - Dropped.
type Stats struct {
	Sent          Count // Send calls
	Delivered     Count // arrivals, duplicates included
	Dropped       Count // Datagrams lost
	Retransmitted Count // Stream attempts lost and sent again; a message lost twice counts twice
	Duplicated    Count // extra copies made because of Duplicate
}

// chance is a probability as an integer threshold, so that whether it hits is
// the same on every platform.
type chance struct {
	below  uint64 // hit when a uniform 64-bit draw is below this
	always bool   // for probability 1, which below cannot express
}

func newChance(p float64) chance {
	if p >= 1 {
		return chance{always: true}
	}
	return chance{below: uint64(p * 0x1p64)} // exact: scaling by a power of two
}

func (c chance) hit(x uint64) bool { return c.always || x < c.below }

// link is one direction of one pair of nodes.
type link struct {
	p                  Profile
	loss, reorder, dup chance
	rng                uint64        // splitmix64 state
	last               time.Duration // latest Stream delivery scheduled, which later messages may not precede
	stats              Stats
}

func (n *Net) newLink(from, to NodeID) link {
	key := uint64(uint32(from))<<32 | uint64(uint32(to))
	l := link{rng: mix(n.seed ^ mix(key+1))}
	l.set(Profile{})
	return l
}

func (l *link) set(p Profile) {
	p.check()
	if p.RTO == 0 {
		p.RTO = DefaultRTO
	}
	l.p = p
	l.loss, l.reorder, l.dup = newChance(p.Loss), newChance(p.Reorder), newChance(p.Duplicate)
}

// next is splitmix64: tiny, fast, and fully specified here, so no library
// change can alter a recorded run.
func (l *link) next() uint64 {
	l.rng += 0x9e3779b97f4a7c15
	return mix(l.rng)
}

func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// jitter maps a draw onto [0, j] by multiply-high (Lemire); its bias is below
// j/2^64, far under one nanosecond's worth.
func jitter(x uint64, j time.Duration) time.Duration {
	hi, _ := bits.Mul64(x, uint64(j)+1)
	return time.Duration(hi)
}

// retries returns how many attempts in a row a Stream loses, from one draw: k
// such that x < loss^k and not x < loss^(k+1), so P(k >= j) = Loss^j. The
// threshold shrinks every round, so the loop ends even for x = 0.
func retries(x uint64, loss chance) int {
	k := 0
	for q := loss.below; x < q; q, _ = bits.Mul64(q, loss.below) {
		k++
	}
	return k
}

func (n *Net) link(from, to NodeID) *link {
	n.node(to)
	return &n.node(from).out[to]
}

// SetLink gives both directions between a and b the profile p (so Latency is
// half the RTT). Messages already in flight keep their delivery times. It
// panics on a profile that makes no sense (a probability outside [0, 1], a
// negative delay, a Stream that loses everything).
func (n *Net) SetLink(a, b NodeID, p Profile) {
	n.SetOneWay(a, b, p)
	n.SetOneWay(b, a, p)
}

// SetOneWay gives the direction from -> to the profile p, for asymmetric
// links; otherwise it is like SetLink.
func (n *Net) SetOneWay(from, to NodeID, p Profile) { n.link(from, to).set(p) }

// Link returns the profile of the direction from -> to, with RTO filled in.
func (n *Net) Link(from, to NodeID) Profile { return n.link(from, to).p }

// Stats returns the counters of the direction from -> to.
func (n *Net) Stats(from, to NodeID) Stats { return n.link(from, to).stats }

// Send puts a copy of msg on the link from -> to; the sender may reuse msg
// right away. It never delivers synchronously: even with zero latency the
// message arrives from a later event.
func (n *Net) Send(from, to NodeID, msg []byte) {
	l := n.link(from, to)
	xLoss, xJitter, xReorder, xDup, xDupJitter := l.next(), l.next(), l.next(), l.next(), l.next()
	n.msgID++
	size := len(msg)
	l.stats.Sent.add(1, size)
	ev := TraceEvent{Kind: TraceSend, At: n.now, From: from, To: to, ID: n.msgID, Size: size, Msg: msg}
	p := &l.p
	due := n.now + p.Latency + jitter(xJitter, p.Jitter)
	dup := TraceEvent{Kind: TraceDuplicate, At: n.now, From: from, To: to, ID: n.msgID, Size: size, Msg: msg, Due: -1}
	if p.Mode == Stream {
		ev.Retries = retries(xLoss, l.loss)
		l.stats.Retransmitted.add(ev.Retries, size)
		due = max(due+time.Duration(ev.Retries)*p.RTO, l.last)
		l.last = due
	} else {
		if l.loss.hit(xLoss) {
			l.stats.Dropped.add(1, size)
			ev.Kind = TraceDrop
			n.trace(ev)
			return
		}
		if l.reorder.hit(xReorder) {
			due += p.Latency + p.Jitter
		}
		if l.dup.hit(xDup) {
			l.stats.Duplicated.add(1, size)
			dup.Due = n.now + p.Latency + jitter(xDupJitter, p.Jitter)
		}
	}
	ev.Due = due
	n.schedule(due, event{msg: append([]byte(nil), msg...), from: from, to: to, id: n.msgID})
	if dup.Due >= 0 {
		n.schedule(dup.Due, event{msg: append([]byte(nil), msg...), from: from, to: to, id: n.msgID})
	}
	n.trace(ev) // last, when l is no longer used: a trace hook that adds nodes moves the links
	if dup.Due >= 0 {
		n.trace(dup)
	}
}

// deliver hands a message to its receiver; it runs from Step.
func (n *Net) deliver(ev event) {
	n.link(ev.from, ev.to).stats.Delivered.add(1, len(ev.msg))
	n.trace(TraceEvent{Kind: TraceDeliver, At: n.now, From: ev.from, To: ev.to, ID: ev.id, Size: len(ev.msg), Msg: ev.msg})
	if h := n.nodes[ev.to].h; h != nil {
		h(ev.from, ev.msg)
	}
}
