package proto

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
)

// Framing for transports that do not delimit messages themselves
// (WebTransport, docs/protocol.md section 1): on the reliable stream and
// inside a datagram, each message is its length as a uvarint followed by the
// message. One datagram carries as many whole messages as fit in
// MaxDatagram bytes, so that a tick's heartbeat, ping and pong cost one
// packet; a message is never split across datagrams.

// MaxDatagram is the largest datagram payload a Webtron peer sends. QUIC
// carries about 1,240 bytes of datagram at its initial packet size (1,280
// bytes on the wire); the rest is left to the WebTransport session prefix and
// to paths with smaller packets.
const MaxDatagram = 1100

// DatagramSafe reports whether messages of type t may travel as datagrams
// (lost, duplicated, reordered: docs/protocol.md section 6). The others go on
// the reliable stream, and so does a datagram-safe message too large for a
// datagram of its own.
func (t Type) DatagramSafe() bool {
	switch t {
	case TypePing, TypePong, TypePropose, TypeAccepted, TypePostponed, TypeRefused,
		TypeHeartbeat, TypeHashReport, TypeResendRequest:
		return true
	}
	return false
}

// ErrFrame reports framing that does not hold together: a length past the
// end of the data, an empty message, or a varint that does not end.
var ErrFrame = errors.New("proto: malformed frame")

// ErrFrameTooLarge reports a frame on a stream longer than its reader
// accepts, found from the length alone: nothing of the body is read or
// allocated.
var ErrFrameTooLarge = errors.New("proto: frame too large")

// ReadFrames reads a framed stream (WebTransport's), each message at most
// max bytes long, and hands each message to put while put returns true.
// The error that ends the stream is handed over last: io.EOF, ErrFrame for
// an empty message, ErrFrameTooLarge for a length over max (found from the
// length alone), or the reader's.
func ReadFrames(r io.Reader, max int, put func(msg []byte, err error) bool) {
	br := bufio.NewReader(r)
	for {
		msg, err := readFrame(br, max)
		if !put(msg, err) || err != nil {
			return
		}
	}
}

func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	switch {
	case err != nil:
		return nil, err
	case n == 0:
		return nil, ErrFrame
	case n > uint64(max):
		return nil, ErrFrameTooLarge
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// EachFrame hands each message of framed data (a datagram) to put, in order,
// while put returns true; framing that does not hold together is handed over
// as ErrFrame and ends it. It reports whether put took every message.
func EachFrame(b []byte, put func(msg []byte, err error) bool) bool {
	for len(b) > 0 {
		msg, rest, err := NextFrame(b)
		if !put(msg, err) || err != nil {
			return false
		}
		b = rest
	}
	return true
}

// AppendFrame appends msg to b with its length in front.
func AppendFrame(b, msg []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(msg)))
	return append(b, msg...)
}

// FrameSize is the size of msg once framed.
func FrameSize(msg []byte) int {
	n := len(msg)
	return uvarintLen(uint64(n)) + n
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// NextFrame splits the first message off framed data. msg aliases b. At the
// end of b it returns nil, nil, nil.
func NextFrame(b []byte) (msg, rest []byte, err error) {
	if len(b) == 0 {
		return nil, nil, nil
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > uint64(len(b)-k) {
		return nil, nil, ErrFrame
	}
	end := k + int(n)
	return b[k:end], b[end:], nil
}

// Packer sorts a batch of encoded messages for a WebTransport sender:
// datagram-safe ones into as few datagrams as hold them, in order, and the
// others (and any too large for a datagram) into one buffer for the stream.
// A message added twice in a row is a deliberate second copy (a client's
// proposal on a lossy link): the copy starts a datagram of its own, so that
// one lost packet does not take both. The zero Packer is ready; Reset
// reuses its storage.
type Packer struct {
	Datagrams [][]byte // each at most MaxDatagram bytes of framed messages
	Stream    []byte   // framed messages for the reliable stream
	buf       []byte
	last      []byte // the last message put in a datagram (in buf)
}

// Reset empties the packer, keeping its storage for the next batch. The
// slices it returned before are overwritten.
func (p *Packer) Reset() {
	p.Datagrams = p.Datagrams[:0]
	p.Stream = p.Stream[:0]
	p.buf = p.buf[:0]
	p.last = nil
}

// Add sorts one encoded message (its first byte is its Type).
func (p *Packer) Add(msg []byte) {
	if len(msg) == 0 {
		return
	}
	size := FrameSize(msg)
	if !Type(msg[0]).DatagramSafe() || size > MaxDatagram {
		p.Stream = AppendFrame(p.Stream, msg)
		return
	}
	// All datagrams live in buf; the last one grows while the next message
	// fits, unless it is a copy of the message before it.
	if n := len(p.Datagrams); n > 0 && len(p.Datagrams[n-1])+size <= MaxDatagram && !bytes.Equal(msg, p.last) {
		start := len(p.buf) - len(p.Datagrams[n-1])
		p.buf = AppendFrame(p.buf, msg)
		p.Datagrams[n-1] = p.buf[start:len(p.buf):len(p.buf)]
		p.last = p.buf[len(p.buf)-len(msg):]
		return
	}
	start := len(p.buf)
	if cap(p.buf)-start < MaxDatagram {
		// A new array for the rest keeps the datagrams already cut valid.
		p.buf = make([]byte, 0, max(4*MaxDatagram, 2*cap(p.buf)))
		start = 0
	}
	p.buf = AppendFrame(p.buf, msg)
	p.Datagrams = append(p.Datagrams, p.buf[start:len(p.buf):len(p.buf)])
	p.last = p.buf[len(p.buf)-len(msg):]
}
