package proto

import "strconv"

// encodeBody and decodeBody dispatch with type switches rather than through
// the Message interface: static calls let the compiler keep the writer and
// reader on the stack, which saves two allocations per message.
func encodeBody(w *writer, m Message) {
	switch m := m.(type) {
	case *Hello:
		m.encode(w)
	case *Welcome:
		m.encode(w)
	case *Ping:
		m.encode(w)
	case *Pong:
		m.encode(w)
	case *Propose:
		m.encode(w)
	case *Accepted:
		m.encode(w)
	case *Postponed:
		m.encode(w)
	case *Refused:
		m.encode(w)
	case *Heartbeat:
		m.encode(w)
	case *Roster:
		m.encode(w)
	case *HashReport:
		m.encode(w)
	case *Resync:
		m.encode(w)
	case *Chat:
		m.encode(w)
	case *Error:
		m.encode(w)
	case *ResendRequest:
		m.encode(w)
	}
}

// decodeBody returns nil for an unknown type.
func decodeBody(r *reader, t Type) Message {
	switch t {
	case TypeHello:
		m := new(Hello)
		m.decode(r)
		return m
	case TypeWelcome:
		m := new(Welcome)
		m.decode(r)
		return m
	case TypePing:
		m := new(Ping)
		m.decode(r)
		return m
	case TypePong:
		m := new(Pong)
		m.decode(r)
		return m
	case TypePropose:
		m := new(Propose)
		m.decode(r)
		return m
	case TypeAccepted:
		m := new(Accepted)
		m.decode(r)
		return m
	case TypePostponed:
		m := new(Postponed)
		m.decode(r)
		return m
	case TypeRefused:
		m := new(Refused)
		m.decode(r)
		return m
	case TypeHeartbeat:
		m := new(Heartbeat)
		m.decode(r)
		return m
	case TypeRoster:
		m := new(Roster)
		m.decode(r)
		return m
	case TypeHashReport:
		m := new(HashReport)
		m.decode(r)
		return m
	case TypeResync:
		m := new(Resync)
		m.decode(r)
		return m
	case TypeChat:
		m := new(Chat)
		m.decode(r)
		return m
	case TypeError:
		m := new(Error)
		m.decode(r)
		return m
	case TypeResendRequest:
		m := new(ResendRequest)
		m.decode(r)
		return m
	}
	return nil
}

// Append appends the encoding of m to b, in the style of encoding/binary's
// Append functions, so a sender can reuse one buffer for every message. It
// checks every limit the decoder checks; on error it returns b unchanged
// (its spare capacity may have been written) and an error naming the field.
// m must not be a nil pointer.
func Append(b []byte, m Message) ([]byte, error) {
	t := m.Type()
	w := writer{b: b}
	w.u8(uint8(t))
	if versioned(t) {
		w.uvarint(Version)
	}
	encodeBody(&w, m)
	if w.err != nil {
		return b, w.err
	}
	if n := len(w.b) - len(b); n > MaxSize(t) {
		// Unreachable while maxSizes mirrors the encoders; kept so that a
		// drift between them fails loudly on the sending side.
		return b, tooLong(t.String()+" message", uint64(n), MaxSize(t))
	}
	return w.b, nil
}

// Marshal returns the encoding of m in a new slice.
func Marshal(m Message) ([]byte, error) {
	return Append(nil, m)
}

// Decode parses one whole message. It never panics, refuses input longer
// than MaxSize of its type, allocates no more than a small multiple of
// min(len(b), MaxSize), and copies what it keeps (b may be reused after).
// Errors wrap ErrUnknownType, ErrVersion, ErrTruncated, ErrTooLarge or
// ErrInvalid.
func Decode(b []byte) (Message, error) {
	if len(b) == 0 {
		return nil, truncatedErr("message type")
	}
	t := Type(b[0])
	if t == 0 || t >= typeEnd {
		return nil, &wrapError{ErrUnknownType.Error() + " " + strconv.Itoa(int(b[0])), ErrUnknownType}
	}
	r := reader{b: b[1:]}
	if versioned(t) {
		// The version comes first: a peer of another version gets a version
		// error (and a CloseVersion answer) whatever the rest looks like.
		v := r.uvarint("protocol version")
		if r.err != nil {
			return nil, r.err
		}
		if v != Version {
			return nil, &wrapError{ErrVersion.Error() + " " + utoa(v) + " (this is version " + strconv.Itoa(Version) + ")", ErrVersion}
		}
	}
	m := decodeBody(&r, t)
	// The whole-message limit is checked after the fields so that an
	// oversized field is reported by name; the field limits already bound
	// the work and allocations. A message over MaxSize with every field
	// within its limit has padded varints or trailing bytes.
	if r.err == nil && len(b) > MaxSize(t) {
		return nil, tooLong(t.String()+" message", uint64(len(b)), MaxSize(t))
	}
	if err := r.finish(t); err != nil {
		return nil, err
	}
	return m, nil
}
