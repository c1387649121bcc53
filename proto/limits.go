package proto

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Sentinel errors. Every error Decode and Append return wraps exactly one of
// them (test with errors.Is), with the offending field named in the text.
var (
	// ErrUnknownType: the first byte is no message type of this version.
	ErrUnknownType = errors.New("proto: unknown message type")
	// ErrVersion: a Hello or Welcome of another protocol version. The server
	// answers it with an Error (CloseVersion) rather than a silent close.
	ErrVersion = errors.New("proto: unsupported protocol version")
	// ErrTruncated: the input ends inside a field.
	ErrTruncated = errors.New("proto: message truncated")
	// ErrTooLarge: a message, string or list exceeds its limit; the concrete
	// error is a *LimitError.
	ErrTooLarge = errors.New("proto: too large")
	// ErrInvalid: well-framed but malformed content (bad UTF-8, unknown flag
	// bits, invalid event kind, out-of-range value, trailing bytes).
	ErrInvalid = errors.New("proto: invalid message")
)

// Limits. Each one is enforced by both Append and Decode, so a peer that
// follows them is never refused, and a hostile peer can make the decoder
// allocate no more than a small multiple of the bytes it sent.
const (
	MaxNameLen        = 24      // player name, bytes of UTF-8
	MaxRoomLen        = 32      // room name, bytes of UTF-8
	MaxTokenLen       = 32      // reconnect token, opaque bytes
	MaxMapLen         = 128     // map id (Hello), bytes of UTF-8
	MaxChatLen        = 200     // chat text, bytes of UTF-8
	MaxTextLen        = 200     // Error and Refused explanations, bytes of UTF-8
	MaxSnapshotLen    = 1 << 20 // simulation snapshot in Welcome/Resync, bytes
	MaxHistoryEvents  = 4096    // events after the snapshot in Welcome/Resync
	MaxProposeEvents  = 32      // events in one Propose
	MaxAcceptedEvents = 256     // events in one Accepted
	MaxRoster         = 64      // players in a Roster and in a Heartbeat
	MaxResendSpan     = 256     // broadcasts one ResendRequest may ask for
	MaxTickRate       = 1000    // ticks per second in Welcome
)

// LimitError reports a message, string or list over its limit. It unwraps to
// ErrTooLarge; its fields let a server log or count which limit was hit.
type LimitError struct {
	Field string // what was too large, e.g. "chat text" or "accepted events"
	Size  uint64 // the size found (bytes or elements)
	Max   int    // the limit
	Count bool   // Size and Max count list elements rather than bytes
}

// Error words counts and byte lengths differently, since "too long (25 > 24)"
// would leave a reader guessing whether it means bytes or runes.
func (e *LimitError) Error() string {
	if e.Count {
		return "proto: too many " + e.Field + " (" + utoa(e.Size) + " > " + strconv.Itoa(e.Max) + ")"
	}
	return "proto: " + e.Field + " too long (" + utoa(e.Size) + " > " + strconv.Itoa(e.Max) + " bytes)"
}

// Unwrap makes errors.Is(err, ErrTooLarge) hold.
func (e *LimitError) Unwrap() error { return ErrTooLarge }

// wrapError is what fmt.Errorf("%w ...") made, without linking fmt into the
// wasm client: its own text, and errors.Is and errors.As see err.
type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

// invalidErr wraps ErrInvalid: "proto: invalid message: " + detail.
func invalidErr(detail string) error {
	return &wrapError{ErrInvalid.Error() + ": " + detail, ErrInvalid}
}

// truncatedErr wraps ErrTruncated: "proto: message truncated (reading field)".
func truncatedErr(field string) error {
	return &wrapError{ErrTruncated.Error() + " (reading " + field + ")", ErrTruncated}
}

func utoa(v uint64) string { return strconv.FormatUint(v, 10) }

func tooLong(field string, size uint64, max int) error {
	return &LimitError{Field: field, Size: size, Max: max}
}

func tooMany(field string, n uint64, max int) error {
	return &LimitError{Field: field, Size: n, Max: max, Count: true}
}

// MaxSize is the largest encoding of a message of type t (0 for an unknown
// type): a buffer that size always suffices for Append, Decode refuses longer
// input, and a transport can set its read limit to it. It is exact: a message with
// every list full, every string at its limit and every varint at its widest
// encodes to exactly MaxSize bytes (the tests build one for each type).
func MaxSize(t Type) int {
	if t >= typeEnd {
		return 0
	}
	return maxSizes[t]
}

// maxSizes derives the limits of whole messages from the field limits, so the
// two cannot drift apart. The element sizes mirror the encoders field by field.
var maxSizes = func() (s [typeEnd]int) {
	const u8, u32, i32, u64, i64, fixed64 = 1, 5, 5, 10, 10, 8
	str := func(max int) int { return ulen(uint64(max)) + max }
	list := func(max, elem int) int { return ulen(uint64(max)) + max*elem }
	version := ulen(Version)

	tickEvent := i64 + u8 + u8 + u32 + i32 // tick delta, kind, player, seq, arg
	proposal := i64 + u32 + u8 + i32       // tick delta, seq, kind, arg
	rosterPlayer := u8 + str(MaxNameLen) + u8 + i32 + 3*u32
	heartbeatPlayer := u8 + i64 + u32 + i32 // player, final delta, lead, margin
	history := u64 + u64 + str(MaxSnapshotLen) + list(MaxHistoryEvents, tickEvent)
	roster := u64 + u8 + u32 + list(MaxRoster, rosterPlayer)

	s[TypeHello] = 1 + version + str(MaxNameLen) + str(MaxRoomLen) + str(MaxTokenLen) + u8 + i64 + str(MaxMapLen)
	s[TypeWelcome] = 1 + version + u8 + u8 + str(MaxTokenLen) + ulen(MaxTickRate) +
		u64 + i64 + i64 + history + roster
	s[TypePing] = 1 + u32 + i64
	s[TypePong] = 1 + u32 + i64 + i64 + u64 + u32
	s[TypePropose] = 1 + list(MaxProposeEvents, proposal)
	s[TypeAccepted] = 1 + u64 + list(MaxAcceptedEvents, tickEvent)
	s[TypePostponed] = 1 + u32 + u64 + u64 - 1 // Tick-Asked < 2^63 when Asked needs 10 bytes
	s[TypeRefused] = 1 + u32 + u8 + str(MaxTextLen)
	s[TypeHeartbeat] = 1 + u64 + i64 + u64 + list(MaxRoster, heartbeatPlayer)
	s[TypeRoster] = 1 + roster
	s[TypeHashReport] = 1 + u64 + fixed64
	s[TypeResync] = 1 + history
	s[TypeChat] = 1 + u8 + str(MaxChatLen)
	s[TypeError] = 1 + u8 + str(MaxTextLen)
	s[TypeResendRequest] = 1 + u64 + ulen(MaxResendSpan-1)
	return s
}()

// ulen is the length of v as an unsigned varint.
func ulen(v uint64) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], v)
}
