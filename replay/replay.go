// Package replay stores a room's history in files that re-simulate offline:
// every finished round (a replay) and every desync the server detected (a
// dump that reproduces the server's side of the divergence). `webtron replay`
// reads them back, steps the simulation from the recorded start snapshot and
// checks every recorded hash.
//
// File layout (all integers little-endian or varints, as noted):
//
//	magic    "WTRP"
//	version  u8 (Version)
//	length   u32: the whole file's size, checksum included, so that a
//	         truncated file is named as such rather than as corrupt
//	sections tag u8, uvarint length, payload; each tag at most once, unknown
//	         tags skipped (a newer writer of the same version may add some)
//	crc      u32: CRC-32 (IEEE) of every byte before it
//
// Sections: meta (kind, room, round number, creation time, start and end
// tick), names (player slot and name), start (sim.State.AppendBinary at the
// start tick), events (tick-delta encoded like the wire protocol), hashes,
// and desync (only in dumps: player, tick, the client's and the server's hash).
//
// Version 2 adds what the server knew beyond the history (issue 16), each
// section optional: result (decided u8, and the winner's slot as a varint,
// -1 for a draw, when decided), bots (the slots bots held), net (each human's
// lead, leniency, one-way latency, jitter and real clock lead over time: tick
// delta, player, four uvarints and a varint in microseconds) and timing (one entry per event, in the
// events' order: ticks it was postponed by, then when it was accepted as a
// varint delta from the previous event's, how long before that it arrived,
// and how long after it was broadcast, all in microseconds since the room's
// tick 0). A version-1 file has none of them and reads as before. A later
// optional section, rules (a uvarint: sim.RulesVersion of the simulation
// that played the round), lets a reader refuse a round its simulation
// would not reproduce with that reason (ErrRules); files written before it
// existed lack it (File.Rules 0).
package replay

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"time"

	"webtron/history"
	"webtron/sim"
)

// Magic starts every replay file.
const Magic = "WTRP"

// Version is the format version written. Read also reads every older one.
const Version = 2

// Ext is the file name extension of replays and desync dumps.
const Ext = ".wtr"

// MaxFileSize bounds what Read accepts. A round of a full room at 120 Hz for
// ten minutes is a few hundred kilobytes; this leaves a wide margin while
// keeping a hostile file from making the reader allocate without bound.
const MaxFileSize = 64 << 20

// Kind says what a file records.
type Kind uint8

// Kinds of files.
const (
	KindRound  Kind = 1 // one round of a room, start to end
	KindDesync Kind = 2 // the history around a client's hash mismatch
)

// String names the kind for summaries.
func (k Kind) String() string {
	switch k {
	case KindRound:
		return "round"
	case KindDesync:
		return "desync"
	}
	return "unknown"
}

// Desync is what a client reported and what the server had instead.
type Desync struct {
	Player       int
	Tick         int64
	Client, Want uint64
}

// File is the content of one replay file.
type File struct {
	// Version is the format version the file was read in (Marshal always
	// writes Version): version 1 records no result, bots, net or timing.
	Version uint8
	Kind    Kind
	Room    string
	Round   int64     // the room's count of recorded rounds, from 1
	Created time.Time // stored to the millisecond
	// Names holds each player slot's display name; empty for a free slot.
	Names []string
	// Rules is the sim.RulesVersion the round was played under; 0 in files
	// written before it was recorded. Marshal writes sim.RulesVersion when
	// it is 0: a record made now was made by this simulation.
	Rules  uint64
	Record history.RoundRecord
	Desync *Desync // KindDesync only
}

// Section tags.
const (
	tagMeta   = 1
	tagNames  = 2
	tagStart  = 3
	tagEvents = 4
	tagHashes = 5
	tagDesync = 6
	tagResult = 7 // version 2 on
	tagBots   = 8
	tagNet    = 9
	tagTiming = 10
	tagRules  = 11 // version 2 files written since sim.RulesVersion existed
)

// maxMicros bounds a decoded duration (about 12 days), so that converting it
// to nanoseconds never overflows and a crafted file cannot claim absurd times.
const maxMicros = 1 << 40

// headerLen is magic, version and length.
const headerLen = len(Magic) + 1 + 4

// Marshal encodes f. It fails only for content Read would refuse, so that the
// server never writes a file it cannot read back.
func Marshal(f *File) ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	b := append([]byte(Magic), Version, 0, 0, 0, 0)
	var w []byte
	w = append(w, byte(f.Kind))
	w = appendString(w, f.Room)
	w = binary.AppendUvarint(w, uint64(f.Round))
	w = binary.AppendVarint(w, f.Created.UnixMilli())
	w = binary.AppendVarint(w, f.Record.StartTick)
	w = binary.AppendVarint(w, f.Record.EndTick)
	b = appendSection(b, tagMeta, w)

	w = w[:0]
	n := 0
	for _, name := range f.Names {
		if name != "" {
			n++
		}
	}
	w = binary.AppendUvarint(w, uint64(n))
	for slot, name := range f.Names {
		if name != "" {
			w = append(w, byte(slot))
			w = appendString(w, name)
		}
	}
	b = appendSection(b, tagNames, w)
	b = appendSection(b, tagStart, f.Record.Start)

	w = binary.AppendUvarint(w[:0], uint64(len(f.Record.Events)))
	prev := f.Record.StartTick
	for _, te := range f.Record.Events {
		w = binary.AppendVarint(w, te.Tick-prev)
		prev = te.Tick
		w = append(w, byte(te.Ev.Kind), te.Ev.Player)
		w = binary.AppendUvarint(w, uint64(te.Ev.Seq))
		w = binary.AppendVarint(w, int64(te.Ev.Arg))
	}
	b = appendSection(b, tagEvents, w)

	w = binary.AppendUvarint(w[:0], uint64(len(f.Record.Hashes)))
	prev = f.Record.StartTick
	for _, h := range f.Record.Hashes {
		w = binary.AppendVarint(w, h.Tick-prev)
		prev = h.Tick
		w = binary.LittleEndian.AppendUint64(w, h.Hash)
	}
	b = appendSection(b, tagHashes, w)

	if d := f.Desync; d != nil {
		w = append(w[:0], byte(d.Player))
		w = binary.AppendVarint(w, d.Tick)
		w = binary.LittleEndian.AppendUint64(w, d.Client)
		w = binary.LittleEndian.AppendUint64(w, d.Want)
		b = appendSection(b, tagDesync, w)
	}
	b = appendMeasured(b, &f.Record, w[:0])
	rules := f.Rules
	if rules == 0 {
		rules = sim.RulesVersion
	}
	b = appendSection(b, tagRules, binary.AppendUvarint(w[:0], rules))
	total := len(b) + 4
	if total > MaxFileSize {
		return nil, errors.New("replay: record too large to write")
	}
	binary.LittleEndian.PutUint32(b[len(Magic)+1:], uint32(total))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// check refuses what the format cannot carry or the reader would refuse.
func (f *File) check() error {
	r := &f.Record
	switch {
	case f.Kind != KindRound && f.Kind != KindDesync:
		return errors.New("replay: unknown kind")
	case (f.Kind == KindDesync) != (f.Desync != nil):
		return errors.New("replay: a desync dump needs its desync, and only it")
	case len(f.Names) > sim.MaxPlayers:
		return errors.New("replay: more names than player slots")
	case r.EndTick < r.StartTick || r.StartTick < 0:
		return errors.New("replay: end tick before start tick")
	case len(r.Start) == 0:
		return errors.New("replay: no start snapshot")
	case f.Round < 0:
		return errors.New("replay: negative round number")
	}
	if f.Desync != nil && (f.Desync.Player < 0 || f.Desync.Player >= sim.MaxPlayers) {
		return errors.New("replay: desync player out of range")
	}
	if err := checkRecord(r); err != nil {
		return err
	}
	return checkMeasured(r)
}

// checkRecord refuses records the re-simulation could not follow: events out
// of the round or out of order, unknown kinds, impossible players.
func checkRecord(r *history.RoundRecord) error {
	prev := r.StartTick
	for i, te := range r.Events {
		switch {
		case te.Tick < prev || te.Tick >= r.EndTick:
			return errorString("replay: event " + itoa(int64(i)) + " at tick " + itoa(te.Tick) + " out of order or outside [" + itoa(r.StartTick) + ", " + itoa(r.EndTick) + ")")
		case !te.Ev.Kind.Valid():
			return errorString("replay: event " + itoa(int64(i)) + " has unknown kind " + itoa(int64(te.Ev.Kind)))
		case te.Ev.Player >= sim.MaxPlayers:
			return errorString("replay: event " + itoa(int64(i)) + " names player " + itoa(int64(te.Ev.Player)))
		}
		prev = te.Tick
	}
	prev = r.StartTick
	for i, h := range r.Hashes {
		if h.Tick < prev || h.Tick > r.EndTick {
			return errorString("replay: hash " + itoa(int64(i)) + " at tick " + itoa(h.Tick) + " out of order or outside [" + itoa(r.StartTick) + ", " + itoa(r.EndTick) + "]")
		}
		prev = h.Tick
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendSection(b []byte, tag byte, payload []byte) []byte {
	b = append(b, tag)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...)
}
