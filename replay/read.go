package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"webtron/history"
	"webtron/sim"
)

// Errors returned by Read; each is wrapped with detail.
var (
	ErrNotReplay = errors.New("replay: not a replay file")
	ErrVersion   = errors.New("replay: unsupported format version")
	ErrTruncated = errors.New("replay: file truncated")
	ErrCorrupt   = errors.New("replay: file corrupted")
)

// ReadFile reads and decodes the file at path. Only a regular file is read
// (a device such as /dev/zero never ends, a FIFO blocks), and never more than
// MaxFileSize bytes of it, whatever its size said when it was opened.
func ReadFile(path string) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%v)", ErrNotReplay, path, fi.Mode().Type())
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than any replay", ErrNotReplay, path, fi.Size())
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer fd.Close()
	if fi, err := fd.Stat(); err != nil || !fi.Mode().IsRegular() { // replaced since the Stat
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrNotReplay, path)
	}
	b, err := io.ReadAll(io.LimitReader(fd, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s grew past %d bytes, more than any replay", ErrNotReplay, path, MaxFileSize)
	}
	f, err := Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Unmarshal decodes a file Marshal wrote. It never panics: a truncated,
// damaged or hostile input returns an error wrapping ErrNotReplay,
// ErrVersion, ErrTruncated or ErrCorrupt.
func Unmarshal(b []byte) (*File, error) {
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return nil, fmt.Errorf("%w: bad magic", ErrNotReplay)
	}
	if len(b) < headerLen {
		return nil, fmt.Errorf("%w: %d bytes, header needs %d", ErrTruncated, len(b), headerLen)
	}
	if v := b[len(Magic)]; v != Version {
		return nil, fmt.Errorf("%w: %d (this build reads %d)", ErrVersion, v, Version)
	}
	want := binary.LittleEndian.Uint32(b[len(Magic)+1:])
	switch {
	case uint64(len(b)) < uint64(want):
		return nil, fmt.Errorf("%w: %d of %d bytes", ErrTruncated, len(b), want)
	case uint64(len(b)) > uint64(want):
		return nil, fmt.Errorf("%w: %d bytes after the end", ErrCorrupt, uint64(len(b))-uint64(want))
	case len(b) < headerLen+4:
		return nil, fmt.Errorf("%w: length %d too short", ErrCorrupt, want)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if got := crc32.ChecksumIEEE(body); got != sum {
		return nil, fmt.Errorf("%w: checksum %08x, expected %08x", ErrCorrupt, got, sum)
	}
	return parse(body[headerLen:])
}

// parse decodes the sections; the checksum has already matched, but the
// content is still checked as if it were hostile (a buggy writer, a crafted file).
func parse(b []byte) (*File, error) {
	var secs [tagDesync + 1][]byte
	var seen [tagDesync + 1]bool
	r := reader{b: b}
	for len(r.b) > 0 && r.err == nil {
		tag := r.u8("section tag")
		n := r.uvarint("section length")
		payload := r.bytes("section", n)
		if r.err != nil {
			break
		}
		if int(tag) < len(secs) {
			if seen[tag] {
				return nil, fmt.Errorf("%w: section %d repeated", ErrCorrupt, tag)
			}
			seen[tag], secs[tag] = true, payload
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	for _, t := range []int{tagMeta, tagNames, tagStart, tagEvents, tagHashes} {
		if !seen[t] {
			return nil, fmt.Errorf("%w: section %d missing", ErrCorrupt, t)
		}
	}
	f := &File{}
	m := reader{b: secs[tagMeta]}
	f.Kind = Kind(m.u8("kind"))
	f.Room = m.str("room")
	f.Round = int64(m.uvarint("round"))
	f.Created = time.UnixMilli(m.varint("created"))
	f.Record.StartTick = m.varint("start tick")
	f.Record.EndTick = m.varint("end tick")
	if err := m.end("meta"); err != nil {
		return nil, err
	}
	f.Record.Start = bytes.Clone(secs[tagStart])
	if err := f.parseNames(secs[tagNames]); err != nil {
		return nil, err
	}
	if err := f.parseEvents(secs[tagEvents]); err != nil {
		return nil, err
	}
	if err := f.parseHashes(secs[tagHashes]); err != nil {
		return nil, err
	}
	if seen[tagDesync] {
		d := reader{b: secs[tagDesync]}
		f.Desync = &Desync{Player: int(d.u8("desync player")), Tick: d.varint("desync tick"),
			Client: d.u64("client hash"), Want: d.u64("server hash")}
		if err := d.end("desync"); err != nil {
			return nil, err
		}
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return f, nil
}

func (f *File) parseNames(b []byte) error {
	r := reader{b: b}
	n := r.count("names", 2)
	f.Names = make([]string, 0, sim.MaxPlayers)
	for i := uint64(0); i < n && r.err == nil; i++ {
		slot := int(r.u8("name slot"))
		name := r.str("name")
		if r.err == nil && (slot >= sim.MaxPlayers || slot < len(f.Names)) {
			return fmt.Errorf("%w: name slot %d out of order", ErrCorrupt, slot)
		}
		for len(f.Names) < slot {
			f.Names = append(f.Names, "")
		}
		f.Names = append(f.Names, name)
	}
	return r.end("names")
}

func (f *File) parseEvents(b []byte) error {
	r := reader{b: b}
	n := r.count("events", 5)
	f.Record.Events = make([]history.TickEvent, 0, n)
	tick := f.Record.StartTick
	for i := uint64(0); i < n && r.err == nil; i++ {
		tick += r.varint("event tick")
		ev := sim.Event{Kind: sim.EventKind(r.u8("event kind")), Player: r.u8("event player")}
		ev.Seq = uint32(min(r.uvarint("event seq"), 1<<32-1))
		ev.Arg = int32(max(min(r.varint("event arg"), 1<<31-1), -1<<31))
		f.Record.Events = append(f.Record.Events, history.TickEvent{Tick: tick, Ev: ev})
	}
	return r.end("events")
}

func (f *File) parseHashes(b []byte) error {
	r := reader{b: b}
	n := r.count("hashes", 9)
	f.Record.Hashes = make([]history.TickHash, 0, n)
	tick := f.Record.StartTick
	for i := uint64(0); i < n && r.err == nil; i++ {
		tick += r.varint("hash tick")
		f.Record.Hashes = append(f.Record.Hashes, history.TickHash{Tick: tick, Hash: r.u64("hash")})
	}
	return r.end("hashes")
}

// reader decodes fields, remembering the first error so callers check once.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(field string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s cut short", ErrCorrupt, field)
	}
}

func (r *reader) u8(field string) uint8 {
	if r.err != nil || len(r.b) < 1 {
		r.fail(field)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u64(field string) uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail(field)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) uvarint(field string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(field)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(field string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(field)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a list length and checks it against the bytes left (each
// element takes at least minSize), so a forged count cannot make us allocate.
func (r *reader) count(field string, minSize int) uint64 {
	n := r.uvarint(field + " count")
	if r.err == nil && n > uint64(len(r.b)/minSize) {
		r.err = fmt.Errorf("%w: %d %s in %d bytes", ErrCorrupt, n, field, len(r.b))
		return 0
	}
	return n
}

func (r *reader) bytes(field string, n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		if r.err == nil {
			r.err = fmt.Errorf("%w: %s of %d bytes with %d left", ErrCorrupt, field, n, len(r.b))
		}
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) str(field string) string {
	b := r.bytes(field, r.uvarint(field+" length"))
	if r.err == nil && !utf8.Valid(b) {
		r.err = fmt.Errorf("%w: %s is not UTF-8", ErrCorrupt, field)
	}
	return string(b)
}

func (r *reader) end(section string) error {
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: %d stray bytes in section %s", ErrCorrupt, len(r.b), section)
	}
	return r.err
}
