package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"time"
	"unicode/utf8"

	"webtron/history"
	"webtron/internal/errwrap"
	"webtron/sim"
)

// Errors returned by Read; each is wrapped with detail.
var (
	ErrNotReplay = errors.New("replay: not a replay file")
	ErrVersion   = errors.New("replay: unsupported format version")
	ErrTruncated = errors.New("replay: file truncated")
	ErrCorrupt   = errors.New("replay: file corrupted")
	// ErrRules is a round played under other rules than this build's
	// simulation (sim.RulesVersion): re-simulating it would not give its
	// hashes, so it is refused before trying.
	ErrRules = errors.New("replay: written by another version of the game")
)

// Explain adds to err, for a file that does not record its rules version
// (written before that was recorded), that an older simulation may have
// played it: such a file fails to decode its snapshot or to match its
// hashes, and that alone would not say why.
func (f *File) Explain(err error) error {
	if err == nil || f.Rules != 0 {
		return err
	}
	return errwrap.New(err.Error()+" (the file does not record its rules version: an older version of the game probably wrote it)", err)
}

// Unmarshal decodes a file Marshal wrote. It never panics: a truncated,
// damaged or hostile input returns an error wrapping ErrNotReplay,
// ErrVersion, ErrTruncated, ErrCorrupt or ErrRules.
func Unmarshal(b []byte) (*File, error) {
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return nil, errwrap.Wrap(ErrNotReplay, "bad magic")
	}
	if len(b) < headerLen {
		return nil, errwrap.Wrap(ErrTruncated, itoa(int64(len(b)))+" bytes, header needs "+itoa(int64(headerLen)))
	}
	v := b[len(Magic)]
	if v < 1 || v > Version {
		return nil, errwrap.Wrap(ErrVersion, itoa(int64(v))+" (this build reads 1 to "+itoa(Version)+")")
	}
	want := binary.LittleEndian.Uint32(b[len(Magic)+1:])
	switch {
	case uint64(len(b)) < uint64(want):
		return nil, errwrap.Wrap(ErrTruncated, itoa(int64(len(b)))+" of "+utoa(uint64(want))+" bytes")
	case uint64(len(b)) > uint64(want):
		return nil, errwrap.Wrap(ErrCorrupt, utoa(uint64(len(b))-uint64(want))+" bytes after the end")
	case len(b) < headerLen+4:
		return nil, errwrap.Wrap(ErrCorrupt, "length "+utoa(uint64(want))+" too short")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if got := crc32.ChecksumIEEE(body); got != sum {
		return nil, errwrap.Wrap(ErrCorrupt, "checksum "+hex(uint64(got), 8)+", expected "+hex(uint64(sum), 8))
	}
	f, err := parse(body[headerLen:], v)
	if err != nil {
		return nil, err
	}
	f.Version = v
	return f, nil
}

// parse decodes the sections; the checksum has already matched, but the
// content is still checked as if it were hostile (a buggy writer, a crafted file).
func parse(b []byte, version uint8) (*File, error) {
	var secs [tagRules + 1][]byte
	var seen [tagRules + 1]bool
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
				return nil, errwrap.Wrap(ErrCorrupt, "section "+itoa(int64(tag))+" repeated")
			}
			seen[tag], secs[tag] = true, payload
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	for _, t := range []int{tagMeta, tagNames, tagStart, tagEvents, tagHashes} {
		if !seen[t] {
			return nil, errwrap.Wrap(ErrCorrupt, "section "+itoa(int64(t))+" missing")
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
	f.Record.Winner = -1
	if version >= 2 {
		if err := f.parseMeasured(secs[tagResult:], seen[tagResult:]); err != nil {
			return nil, err
		}
	}
	if seen[tagRules] {
		d := reader{b: secs[tagRules]}
		f.Rules = d.uvarint("rules")
		if err := d.end("rules"); err != nil {
			return nil, err
		}
		if f.Rules != sim.RulesVersion {
			older := "an older"
			if f.Rules > sim.RulesVersion {
				older = "a newer"
			}
			return nil, errwrap.New("replay: written by "+older+" version of the game (its rules "+utoa(f.Rules)+", this build's "+utoa(sim.RulesVersion)+"): it cannot be played here", ErrRules)
		}
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
		return nil, errwrap.Wrap(ErrCorrupt, err.Error())
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
			return errwrap.Wrap(ErrCorrupt, "name slot "+itoa(int64(slot))+" out of order")
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
		r.err = errwrap.Wrap(ErrCorrupt, field+" cut short")
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

func (r *reader) uvarint(field string) uint64 { return readVarint(r, field, binary.Uvarint) }

func (r *reader) varint(field string) int64 { return readVarint(r, field, binary.Varint) }

// readVarint reads one varint with dec (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](r *reader, field string, dec func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := dec(r.b)
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
		r.err = errwrap.Wrap(ErrCorrupt, utoa(n)+" "+field+" in "+itoa(int64(len(r.b)))+" bytes")
		return 0
	}
	return n
}

func (r *reader) bytes(field string, n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		if r.err == nil {
			r.err = errwrap.Wrap(ErrCorrupt, field+" of "+utoa(n)+" bytes with "+itoa(int64(len(r.b)))+" left")
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
		r.err = errwrap.Wrap(ErrCorrupt, field+" is not UTF-8")
	}
	return string(b)
}

func (r *reader) end(section string) error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errwrap.Wrap(ErrCorrupt, itoa(int64(len(r.b)))+" stray bytes in section "+section)
	}
	return r.err
}
