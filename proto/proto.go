// Package proto is Webtron's binary, versioned wire protocol between the game
// server and its clients (browser clients run it compiled to WebAssembly).
//
// One protocol message travels in one transport message: a WebSocket binary
// message today, a WebTransport datagram later. Datagrams may be lost,
// duplicated and reordered, so the protocol never relies on ordering between
// messages: the messages that matter carry sequence numbers or ticks, and
// applying one twice changes nothing (see docs/protocol.md for the rules).
//
// Encoding: the first byte is the message Type; Hello and Welcome follow it
// with the protocol Version. Integers are unsigned varints, signed ones
// zigzag varints (encoding/binary's Uvarint and Varint), the 64-bit state
// hash is 8 bytes little-endian, strings and byte strings are a varint length
// then the bytes, and strings must be valid UTF-8. Every field and message
// has a size limit (the Max* constants and MaxSize).
//
// Ticks are uint64 everywhere: a tick counts up from a room's match epoch and
// is never negative. In lists, ticks are sent as zigzag differences from the
// previous tick (the first from a base tick), which keeps a batch of events
// of nearby ticks at one byte per tick. Times are int64 microseconds on the
// sender's own clock; their epoch is the sender's business, since peers only
// ever compare differences (RTT) or offsets between the two clocks.
//
// A sender reuses one buffer; a receiver switches on the decoded type, and
// answers a malformed message with an Error before closing:
//
//	buf, err = proto.Append(buf[:0], &proto.Ping{ID: id, Time: nowMicros()})
//
//	m, err := proto.Decode(data)
//	if err != nil || !m.Type().FromClient() {
//		// send &proto.Error{Code: proto.CloseProtocol, Text: ...}, then close
//	}
//	switch m := m.(type) {
//	case *proto.Propose:
//		...
//	}
package proto

// Version is the protocol version sent in Hello and Welcome. Bump it for any
// change to a message layout; peers of different versions refuse each other.
const Version = 2

// Type identifies a message; it is the first byte of every encoding. The
// values are part of the protocol: append new types, never renumber.
type Type uint8

// Message types. The zero value is invalid on purpose, so that a zeroed
// buffer is never mistaken for a message.
const (
	TypeHello         Type = iota + 1 // client -> server: open a session
	TypeWelcome                       // server -> client: session opened, full state
	TypePing                          // both ways: clock sample request
	TypePong                          // both ways: clock sample reply
	TypePropose                       // client -> server: events the client wants
	TypeAccepted                      // server -> all: events with their final ticks
	TypePostponed                     // server -> proposer: event moved to a later tick
	TypeRefused                       // server -> proposer: event rejected
	TypeHeartbeat                     // server -> all: clock, finality and leads
	TypeRoster                        // server -> all: players and charity
	TypeHashReport                    // client -> server: confirmed-state hash
	TypeResync                        // server -> client: snapshot and events after a desync
	TypeChat                          // both ways: chat line
	TypeError                         // server -> client: reason for closing
	TypeResendRequest                 // client -> server: missing broadcasts
	typeEnd
)

var typeNames = [...]string{"invalid", "hello", "welcome", "ping", "pong", "propose",
	"accepted", "postponed", "refused", "heartbeat", "roster", "hash report",
	"resync", "chat", "error", "resend request"}

// String returns the type's name as used in error messages.
func (t Type) String() string {
	if t < typeEnd {
		return typeNames[t]
	}
	return "unknown"
}

// FromClient reports whether a client may send messages of type t: a server
// should close a connection that sends it anything else.
func (t Type) FromClient() bool {
	switch t {
	case TypeHello, TypePing, TypePong, TypePropose, TypeHashReport, TypeChat, TypeResendRequest:
		return true
	}
	return false
}

// FromServer reports whether a server may send messages of type t.
func (t Type) FromServer() bool {
	switch t {
	case TypeHello, TypePropose, TypeHashReport, TypeResendRequest:
		return false
	}
	return t > 0 && t < typeEnd
}

// versioned reports whether the version follows the type byte: only the
// handshake carries it, since nothing else is sent before both sides agree.
func versioned(t Type) bool { return t == TypeHello || t == TypeWelcome }

// Message is one protocol message: a pointer to one of this package's
// message structs (*Hello, *Welcome, ...). The unexported methods seal the
// set, so a type switch over Decode's result can be exhaustive.
type Message interface {
	Type() Type
	encode(w *writer)
	decode(r *reader)
}
