// Package vnet is a deterministic in-process virtual network with a virtual
// clock. A game server and its clients run on it as callbacks on one
// goroutine, much faster than real time, and the same seed gives the same run
// bit for bit.
//
// # Time and events
//
// Time is virtual: a time.Duration since the Net was made, starting at 0. It
// moves only when Run, RunFor or Step pop the next event (a timer from At or
// After, or a message delivery) and jumps straight to that event's time;
// nothing in vnet sleeps, reads the wall clock or starts a goroutine. Events
// run in time order, and events due at the same instant run in the order they
// were scheduled (the order of the At, After and Send calls that made them). So
// a zero-latency Send made from a callback is delivered at the same instant,
// but after everything already queued for that instant.
//
// A Net is not safe for concurrent use, and Run, RunFor and Step must not be
// called from a callback (they panic): the single goroutine that drives the
// Net is what makes the run reproducible.
//
// # Links
//
// Every ordered pair of nodes (from, to) is one link direction with its own
// Profile, Stats and random generator. A direction that was never set is a
// perfect Stream with zero latency. Profiles apply when a message is sent:
// changing one with SetLink or SetOneWay leaves messages already in flight
// with the delivery times they were given.
//
// Stream models TCP or a WebSocket: nothing is lost, duplicated or reordered.
// A loss shows up as a retransmission: each lost attempt adds one RTO to that
// message's delay. Delivery time is max(previous delivery on the direction,
// send + Latency + jitter + retries*RTO), so a late message holds every later
// one behind it (head-of-line blocking) and jitter never reorders.
//
// Datagram models UDP or WebTransport datagrams: a lost message is dropped,
// and every message draws its own jitter, so later ones may overtake earlier
// ones. Reorder and Duplicate add explicit reordering and duplication. The
// protocol above is expected to resend what was not acknowledged.
//
// # Randomness
//
// All randomness comes from splitmix64 generators in integer arithmetic, so a
// run is identical on every platform and Go version. Each link direction has
// its own generator, seeded from the Net's seed and the (from, to) pair: the
// traffic on one direction never changes what happens on another, and adding a
// node does not reshuffle existing links. Every Send draws exactly five 64-bit
// numbers, whatever the profile, in this order: loss, jitter, reorder,
// duplicate, the duplicate's jitter. Turning one knob therefore does not shift
// the draws behind the others. Jitter is uniform on [0, Jitter] in whole
// nanoseconds. A probability p is hit when a draw is below p*2^64; Stream's
// retry count k comes from the loss draw alone, with P(k >= j) = Loss^j.
package vnet

import (
	"fmt"
	"math"
	"time"
)

// NodeID names a node of one Net. Ids are dense and start at 0, in AddNode
// order, so callers can index their own slices with them.
type NodeID int

// Handler receives one message. msg is the receiver's own copy: it may keep or
// modify it.
type Handler func(from NodeID, msg []byte)

// Net is the virtual network and its clock. Make one with New.
type Net struct {
	// Trace, if not nil, sees every send, drop, duplicate and delivery as it
	// happens, for debugging and for comparing runs. It must not call Run,
	// RunFor or Step.
	Trace func(TraceEvent)

	seed    uint64
	now     time.Duration
	seq     uint64 // last scheduling number; breaks ties between events due at the same instant
	msgID   uint64 // last message id handed out
	running bool   // inside Step, to refuse reentrant driving
	q       queue
	nodes   []node
}

type node struct {
	h   Handler
	out []link // by destination NodeID
}

// New returns an empty Net at time 0 whose randomness is fixed by seed.
func New(seed uint64) *Net { return &Net{seed: seed} }

// AddNode adds a node with handler h (nil is allowed: its messages are then
// discarded on arrival, and still count as delivered) and returns its id.
func (n *Net) AddNode(h Handler) NodeID {
	id := NodeID(len(n.nodes))
	for i := range n.nodes {
		n.nodes[i].out = append(n.nodes[i].out, n.newLink(NodeID(i), id))
	}
	out := make([]link, len(n.nodes)+1)
	for to := range out {
		out[to] = n.newLink(id, NodeID(to))
	}
	n.nodes = append(n.nodes, node{h: h, out: out})
	return id
}

// SetHandler replaces a node's handler, for when the node's owner can only be
// built once it knows its own id.
func (n *Net) SetHandler(id NodeID, h Handler) { n.node(id).h = h }

func (n *Net) node(id NodeID) *node {
	if id < 0 || int(id) >= len(n.nodes) {
		panic(fmt.Sprintf("vnet: unknown node %d", id))
	}
	return &n.nodes[id]
}

// TraceKind says what a TraceEvent reports.
type TraceKind uint8

// Trace kinds.
const (
	TraceSend      TraceKind = iota // a message was accepted; Due says when it will arrive
	TraceDrop                       // a Datagram was lost; it will never arrive
	TraceDuplicate                  // the network made a second copy; Due says when it will arrive
	TraceDeliver                    // a message (or copy) reached its receiver
)

var traceKindNames = [...]string{"send", "drop", "dup", "deliver"}

// String returns a short stable name, so traces print the same in every run.
func (k TraceKind) String() string {
	if int(k) < len(traceKindNames) {
		return traceKindNames[k]
	}
	return "unknown"
}

// TraceEvent is one thing that happened to one message.
type TraceEvent struct {
	Kind     TraceKind
	At       time.Duration // virtual time it happened
	From, To NodeID
	ID       uint64        // message id, 1, 2, ... in Send order across the Net; a duplicate keeps its original's id
	Size     int           // bytes
	Due      time.Duration // Send and Duplicate: when it will be delivered
	Retries  int           // Send on a Stream: lost attempts, each of which added one RTO
	Msg      []byte        // the payload; valid only during the call, must not be modified
}

// String formats the event on one line; equal events give equal strings.
func (e TraceEvent) String() string {
	return fmt.Sprintf("%v %s %d->%d #%d %dB due=%v retries=%d",
		e.At, e.Kind, e.From, e.To, e.ID, e.Size, e.Due, e.Retries)
}

func (n *Net) trace(e TraceEvent) {
	if n.Trace != nil {
		n.Trace(e)
	}
}

// LocalClock is how one node's clock reads the true (virtual) time, so clock
// synchronisation can be tested against a known error:
// local = true + Offset + true*Skew.
type LocalClock struct {
	Offset time.Duration // local reading at true time 0
	Skew   float64       // rate error: 50e-6 gains 50 µs per true second; must be > -1
}

// Local returns the local reading at true time t. It never decreases as t
// grows.
func (c LocalClock) Local(t time.Duration) time.Duration {
	return t + c.Offset + time.Duration(math.Round(float64(t)*c.Skew))
}

// True returns the true time at which the clock reads l: the inverse of Local,
// to within a nanosecond of rounding.
func (c LocalClock) True(l time.Duration) time.Duration {
	d := l - c.Offset
	return d - time.Duration(math.Round(float64(d)*c.Skew/(1+c.Skew)))
}
