package proto

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

// writer appends one message's fields and keeps the first error, so that an
// encoder reads as the list of its fields, in wire order, like the decoder.
type writer struct {
	b   []byte
	err error
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *writer) u8(v uint8)         { w.b = append(w.b, v) }
func (w *writer) uvarint(v uint64)   { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) varint(v int64)     { w.b = binary.AppendVarint(w.b, v) } // zigzag
func (w *writer) fixed64(v uint64)   { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) u32(v uint32)       { w.uvarint(uint64(v)) }
func (w *writer) i32(v int32)        { w.varint(int64(v)) }
func (w *writer) flags(bits ...bool) { w.u8(packFlags(bits...)) }

// str writes a length-prefixed string after checking the limit the decoder
// enforces, so that nothing we send can be refused by a peer of our version.
func (w *writer) str(field, s string, max int) {
	if w.err != nil {
		return
	}
	if len(s) > max {
		w.fail(tooLong(field, uint64(len(s)), max))
		return
	}
	if !utf8.ValidString(s) {
		w.fail(invalidErr(field + " is not valid UTF-8"))
		return
	}
	w.uvarint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// bytes writes a length-prefixed opaque byte string (no UTF-8 requirement).
func (w *writer) bytes(field string, p []byte, max int) {
	if w.err != nil {
		return
	}
	if len(p) > max {
		w.fail(tooLong(field, uint64(len(p)), max))
		return
	}
	w.uvarint(uint64(len(p)))
	w.b = append(w.b, p...)
}

// count writes a list length after checking it against the list's limit.
func (w *writer) count(field string, n, max int) {
	if n > max {
		w.fail(tooMany(field, uint64(n), max))
		return
	}
	w.uvarint(uint64(n))
}

func packFlags(bits ...bool) uint8 {
	var f uint8
	for i, b := range bits {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// reader consumes one message's fields and keeps the first error. After an
// error every read returns a zero value, so decoders need no error check per
// field and loops stop on r.err: a hostile input can never make them spin.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *reader) truncated(field string) {
	r.fail(truncatedErr(field))
}

func (r *reader) invalid(detail string) {
	r.fail(invalidErr(detail))
}

func (r *reader) u8(field string) uint8 {
	if len(r.b) < 1 {
		r.truncated(field)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) uvarint(field string) uint64 { return r.uvarintOf(field, "") }

// uvarintOf names the field field+suffix in errors; it concatenates only on
// the error path, since building the name up front would allocate per field.
func (r *reader) uvarintOf(field, suffix string) uint64 {
	v, n := binary.Uvarint(r.b)
	if n == 0 {
		r.truncated(field + suffix)
		return 0
	}
	if n < 0 {
		r.invalid(field + suffix + " overflows 64 bits")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(field string) int64 {
	v, n := binary.Varint(r.b)
	if n == 0 {
		r.truncated(field)
		return 0
	}
	if n < 0 {
		r.invalid(field + " overflows 64 bits")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) u32(field string) uint32 {
	v := r.uvarint(field)
	if v > math.MaxUint32 {
		r.invalid(field + " out of range (" + utoa(v) + ")")
		return 0
	}
	return uint32(v)
}

func (r *reader) i32(field string) int32 {
	v := r.varint(field)
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.invalid(field + " out of range (" + strconv.FormatInt(v, 10) + ")")
		return 0
	}
	return int32(v)
}

func (r *reader) fixed64(field string) uint64 {
	if len(r.b) < 8 {
		r.truncated(field)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// flags reads a flag byte and rejects bits this version does not define, so
// that a flag a later version adds cannot be silently dropped.
func (r *reader) flags(field string, n int) uint8 {
	f := r.u8(field)
	if f>>n != 0 {
		r.invalid(field + " has unknown bits " + hex8(f))
		return 0
	}
	return f
}

// hex8 writes f as %#02x does: "0x" and two lowercase digits.
func hex8(f uint8) string {
	const digits = "0123456789abcdef"
	return string([]byte{'0', 'x', digits[f>>4], digits[f&15]})
}

// length reads a length prefix and checks it against the limit first and the
// remaining input second, so a lie about the length costs no allocation.
func (r *reader) length(field string, max int) int {
	n := r.uvarintOf(field, " length")
	if r.err != nil {
		return 0
	}
	if n > uint64(max) {
		r.fail(tooLong(field, n, max))
		return 0
	}
	if n > uint64(len(r.b)) {
		r.truncated(field)
		return 0
	}
	return int(n)
}

func (r *reader) str(field string, max int) string {
	n := r.length(field, max)
	if r.err != nil || n == 0 {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	if !utf8.ValidString(s) {
		r.invalid(field + " is not valid UTF-8")
		return ""
	}
	return s
}

// bytes copies rather than aliases the input: callers reuse read buffers.
// Empty decodes as nil so that decoded messages compare equal.
func (r *reader) bytes(field string, max int) []byte {
	n := r.length(field, max)
	if r.err != nil || n == 0 {
		return nil
	}
	p := make([]byte, n)
	copy(p, r.b)
	r.b = r.b[n:]
	return p
}

// count reads a list length. minSize is the smallest encoding of one element:
// a count the remaining input cannot hold is truncation, and checking it
// before allocating bounds every allocation by the input size.
func (r *reader) count(field string, max, minSize int) int {
	n := r.uvarintOf(field, " count")
	if r.err != nil {
		return 0
	}
	if n > uint64(max) {
		r.fail(tooMany(field, n, max))
		return 0
	}
	if n*uint64(minSize) > uint64(len(r.b)) {
		r.truncated(field)
		return 0
	}
	return int(n)
}

// finish rejects trailing bytes: a message is exactly its fields.
func (r *reader) finish(t Type) error {
	if r.err == nil && len(r.b) != 0 {
		r.invalid(strconv.Itoa(len(r.b)) + " trailing bytes after " + t.String() + " message")
	}
	return r.err
}
