// Package view packs what the renderer needs from a simulation state into one
// flat byte buffer, so that the browser reads the whole game once per frame
// with a single copy across the WebAssembly boundary instead of one call per
// cycle or wall (a boundary call costs 0.1-9 µs; 16 cycles and thousands of
// walls would cost milliseconds).
//
// # Layout
//
// The buffer is a sequence of little-endian int32 words (JavaScript reads it
// as an Int32Array). Distances are millimetres: 10 km fits in an int32 and a
// millimetre is finer than any pixel. The word offsets below are mirrored in
// web/src/core/layout.ts; change both together and bump Magic.
//
//	header (HeaderWords words)
//	  0 Magic           layout version
//	  1 Tick            present (predicted) tick, low 32 bits
//	  2 You             your player id, -1 when spectating or before Welcome
//	  3 Phase           sim.Phase
//	  4 PhaseEnd        tick at which Prepare or Over ends
//	  5 Round           rounds started in this match
//	  6 Match           matches started
//	  7 Winner          winner of the last decided round, -1 none
//	  8 TickRate        ticks per second
//	  9 Arena           arena side, mm
//	 10 TurnDelayMs     minimum time between turns (lag-o-meter lobes)
//	 11 DeadWallTicks   a dead cycle's walls vanish this many ticks after death (-1 never)
//	 12 WallsLength     trail length in mm, <= 0 infinite
//	 13 Cycles          cycle records that follow (always sim.MaxPlayers)
//	 14 WallTotal       walls this round has now
//	 15 WallFrom        index of the first wall record in this buffer
//	 16 WallN           wall records in this buffer
//	 17 UpdateMicros    time the caller spent advancing the simulation
//	 18 Flags           FlagNotices: the caller has notices to drain
//	 19..23             reserved, zero
//	cycle records (Cycles x CycleWords words), slot i at HeaderWords + i*CycleWords
//	  0 flags (CyclePresent, CycleInRound, CycleAlive, CycleBraking, CycleWalls)
//	  1 dir (0 east +x, 1 north +y, 2 west, 3 south)
//	  2 x, 3 y              mm
//	  4 turnX, 5 turnY      mm: the open wall runs from here to (x, y)
//	  6 speed               mm/s
//	  7 score, 8 kills, 9 deaths
//	 10 deathTick
//	 11 brake               reservoir in millionths
//	 12 rubberUsed          µm
//	 13 odo, 14 segOdo      mm, distance driven (finite trails recede by it)
//	 15 killer              -1 none
//	wall records (WallN x WallWords words): x1, y1, x2, y2 (mm), odo (mm), owner
//
// # Walls
//
// A round's walls are append-only except that a rollback may truncate the tail
// and then lay different walls. The Encoder remembers every wall it has sent,
// and each frame sends only from the first wall that differs from what the
// reader already has: the reader truncates its geometry to WallFrom and
// appends WallN walls. A new round (or a resync) differs at wall 0, so the
// reader starts over without needing a separate signal.
package view

import (
	"encoding/binary"

	"webtron/sim"
)

// Magic identifies the layout version in word 0.
const Magic = 0x57540001

// Sizes of the three record kinds, in int32 words.
const (
	HeaderWords = 24
	CycleWords  = 16
	WallWords   = 6
)

// Header word offsets.
const (
	HMagic = iota
	HTick
	HYou
	HPhase
	HPhaseEnd
	HRound
	HMatch
	HWinner
	HTickRate
	HArena
	HTurnDelayMs
	HDeadWallTicks
	HWallsLength
	HCycles
	HWallTotal
	HWallFrom
	HWallN
	HUpdateMicros
	HFlags
)

// FlagNotices in the header's Flags word tells the reader that chat lines or
// server errors wait to be drained (a separate, rare call).
const FlagNotices = 1

// Cycle record flag bits.
const (
	CyclePresent = 1 << iota
	CycleInRound
	CycleAlive
	CycleBraking
	CycleWalls // its walls still stand (they vanish some time after death)
)

// DefaultMaxWalls bounds the walls sent in one frame so the buffer stays small
// (about 100 kB); a reader that joins a round with more walls catches up over
// a few frames.
const DefaultMaxWalls = 4096

// Encoder turns states into frame buffers. The zero value is ready to use.
// It is not safe for concurrent use.
type Encoder struct {
	// MaxWalls caps the wall records per frame; 0 means DefaultMaxWalls.
	MaxWalls int

	sent []sim.Wall // what the reader has: its geometry mirrors this
	buf  []byte
}

// Reset forgets what the reader has, so the next frame sends every wall:
// call it when the reader drops its geometry.
func (e *Encoder) Reset() { e.sent = e.sent[:0] }

// Frame encodes s as seen by player you. flags and updateMicros go to the
// header as they are. The returned slice aliases the Encoder's buffer and is
// valid until the next call.
func (e *Encoder) Frame(s *sim.State, you int, updateMicros int64, flags int32) []byte {
	walls := s.RoundWalls()
	from, n := e.diff(walls)
	size := 4 * (HeaderWords + sim.MaxPlayers*CycleWords + n*WallWords)
	if cap(e.buf) < size {
		e.buf = make([]byte, size, size+size/2)
	}
	b := e.buf[:size]
	cfg := s.Config()
	phase, phaseEnd := s.Phase()
	round, match := s.Round()
	w := words(b)
	w.put(HMagic, Magic)
	w.put(HTick, s.Tick())
	w.put(HYou, int64(you))
	w.put(HPhase, int64(phase))
	w.put(HPhaseEnd, phaseEnd)
	w.put(HRound, round)
	w.put(HMatch, match)
	w.put(HWinner, int64(s.Winner()))
	w.put(HTickRate, cfg.TickRate)
	w.put(HArena, mm(s.Arena())) // the round's: the settings set decides it
	w.put(HTurnDelayMs, cfg.TurnDelayMs)
	w.put(HDeadWallTicks, s.DeadWallTicks()) // -1: they stay
	w.put(HWallsLength, mm(s.WallsLength()))
	w.put(HCycles, sim.MaxPlayers)
	w.put(HWallTotal, int64(len(walls)))
	w.put(HWallFrom, int64(from))
	w.put(HWallN, int64(n))
	w.put(HUpdateMicros, updateMicros)
	w.put(HFlags, int64(flags))
	for i := HFlags + 1; i < HeaderWords; i++ {
		w.put(i, 0)
	}
	for i := range sim.MaxPlayers {
		c := s.Cycle(i)
		putCycle(w[4*(HeaderWords+i*CycleWords):], s, i, &c)
	}
	off := HeaderWords + sim.MaxPlayers*CycleWords
	for k, wl := range walls[from : from+n] {
		r := w[4*(off+k*WallWords):]
		r.put(0, mm(wl.X1))
		r.put(1, mm(wl.Y1))
		r.put(2, mm(wl.X2))
		r.put(3, mm(wl.Y2))
		r.put(4, mm(wl.Odo))
		r.put(5, int64(wl.Owner))
	}
	e.sent = append(e.sent[:from], walls[from:from+n]...)
	return b
}

// diff returns the first wall the reader lacks or has wrong, and how many
// walls to send from there. A rollback changes only walls laid after the tick
// it restored, and walls are laid in tick order, so everything before the
// first difference is still right.
func (e *Encoder) diff(walls []sim.Wall) (from, n int) {
	limit := min(len(walls), len(e.sent))
	for from < limit && walls[from] == e.sent[from] {
		from++
	}
	maxWalls := e.MaxWalls
	if maxWalls <= 0 {
		maxWalls = DefaultMaxWalls
	}
	return from, min(len(walls)-from, maxWalls)
}

func putCycle(r words, s *sim.State, id int, c *sim.Cycle) {
	var f int64
	for _, b := range [...]struct {
		on  bool
		bit int64
	}{{c.Present, CyclePresent}, {c.InRound, CycleInRound}, {c.Alive, CycleAlive}, {c.Braking, CycleBraking}} {
		if b.on {
			f |= b.bit
		}
	}
	// Ask the simulation's own rule whether this owner's walls still stand,
	// with the newest point of its trail: that point never recedes, so only
	// the owner's death can hide it. Finite trails are clipped by the reader
	// per vertex with the odometers.
	if _, ok := s.WallVisible(sim.Wall{X1: c.X, Y1: c.Y, X2: c.X, Y2: c.Y, Odo: c.Odo, Owner: uint8(id)}); ok && c.InRound {
		f |= CycleWalls
	}
	r.put(0, f)
	r.put(1, int64(c.Dir))
	r.put(2, mm(c.X))
	r.put(3, mm(c.Y))
	r.put(4, mm(c.TurnX))
	r.put(5, mm(c.TurnY))
	r.put(6, mm(c.Speed))
	r.put(7, c.Score)
	r.put(8, c.Kills)
	r.put(9, c.Deaths)
	r.put(10, c.DeathTick)
	r.put(11, c.Brake)
	r.put(12, c.RubberUsed)
	r.put(13, mm(c.Odo))
	r.put(14, mm(c.SegOdo))
	r.put(15, int64(c.Killer))
}

// words is a byte slice written as little-endian int32 words.
type words []byte

// put stores v, truncated to 32 bits, in word i. Ticks wrap after 207 days at
// 120 Hz; every other value fits by construction (distances in mm).
func (w words) put(i int, v int64) { binary.LittleEndian.PutUint32(w[4*i:], uint32(int32(v))) }

// mm converts micrometres to millimetres.
func mm(um int64) int64 { return um / 1000 }
