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
//	  7 Winner          team that won the last decided round, -1 none
//	  8 TickRate        ticks per second
//	  9 Arena           arena side, mm
//	 10 TurnDelayMs     minimum time between turns (lag-o-meter lobes)
//	 11 DeadWallTicks   a dead cycle's walls start to sink this many ticks after death,
//	                    gone half a second later (-1 never)
//	 12 WallsLength     trail length in mm, <= 0 infinite
//	 13 Cycles          cycle records that follow (always sim.MaxPlayers)
//	 14 WallTotal       walls this round has now
//	 15 WallFrom        index of the first wall record in this buffer
//	 16 WallN           wall records in this buffer
//	 17 UpdateMicros    time the caller spent advancing the simulation
//	 18 Flags           FlagNotices: the caller has notices to drain
//	 19 Rubber          Config.Rubber, µm: the rubber gauge's scale
//	 20 BaseSpeed       Config.BaseSpeed, mm/s: the speed gauge's (a settings set's
//	                    speed factor and ping rubber may go past them; the gauges stop full)
//	 21 TeamMax         TEAM_MAX_PLAYERS of this round's set: 1 is every one for themselves
//	 22 Teams           teams that spawned this round
//	 23 ZoneX, 24 ZoneY the win zone's centre, mm
//	 25 ZoneRadius      its radius now, mm
//	 26 ZoneOpen        1 while the win zone is open, else 0
//	 27 ExplN           explosion records that follow the cycles
//	 28 HoleN           hole records that follow the explosions
//	 29 ExplosionRadius EXPLOSION_RADIUS of this round's set, mm
//	 30 MatchOver       1 while the round is over and the match has reached its limits
//	 31 LimitRounds     LIMIT_ROUNDS of this round's set
//	 32..63 TeamScore   each team's score this match (sim.MaxPlayers words)
//	 64..95 TeamRound   the points each team made this round (sim.MaxPlayers words)
//	 96 MapN            map wall records after the wall records (0: the square)
//	 97 MapZoneN        map zone records after the map wall records
//	cycle records (Cycles x CycleWords words), slot i at HeaderWords + i*CycleWords
//	  0 flags (CyclePresent, CycleInRound, CycleAlive, CycleBraking, CycleWalls, CycleHuman)
//	  1 dir (0 east +x, 1 north +y, 2 west, 3 south; of axes directions, counter-clockwise from east)
//	  2 x, 3 y              mm
//	  4 turnX, 5 turnY      mm: the open wall runs from here to (x, y)
//	  6 speed               mm/s
//	  7 score, 8 kills, 9 deaths
//	 10 deathTick
//	 11 brake               reservoir in millionths
//	 12 rubberUsed          µm
//	 13 odo, 14 segOdo      mm, distance driven (finite trails recede by it)
//	 15 killer              -1 none
//	 16 cause              why it died this round (sim.DeathCause), sim.CauseNone while alive
//	 17 team               its team this round
//	 18 roundScore          points it made this round
//	 19 axes                how many directions dir counts: the map's Axes, 4 without a map (dir x 360/axes degrees)
//	explosion records (ExplN x ExplWords words), one per cycle that died less
//	than sim.ExplosionLife ago: x, y (mm), radius it has reached (mm), age
//	(ticks), owner, reserved
//	hole records (HoleN x HoleWords words): owner, from, to (mm of the owner's
//	odometer): every wall of owner, its open segment included, lacks the part
//	between from and to. The holes of one owner are merged and sorted by from,
//	owners in increasing order.
//	wall records (WallN x WallWords words): x1, y1, x2, y2 (mm), odo (mm), owner
//	map wall records (MapN x MapWords words): x1, y1, x2, y2 (mm), the pieces
//	of an Armagetron map's walls (sim.State.MapWalls), in every frame
//	map zone records (MapZoneN x ZoneWords words), one per zone of the map:
//	x, y, radius (mm), effect (sim.ZoneDeath, ZoneWin, ZoneFortress), state
//	(sim.ZoneOpen, ZoneCollapsing, ZoneGone), owner (a fortress's team, -1
//	none), conquered (millionths: a million is conquered), reserved
//
// web/build generates web/src/core/layout.ts from these constants (and the
// phases, press kinds and close codes the page uses), so the two cannot
// drift apart; bump Magic when the layout changes all the same, so that a
// page built from an older layout refuses the frames loudly.
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
	"cmp"
	"encoding/binary"
	"slices"

	"webtron/sim"
)

// Magic identifies the layout version in word 0.
const Magic = 0x57540008

// Sizes of the header and the four record kinds, in int32 words.
const (
	HeaderWords = HMapN + 2
	CycleWords  = 20
	WallWords   = 6
	ExplWords   = 6
	HoleWords   = 3
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
	HRubber
	HBaseSpeed
	HTeamMax
	HTeams
	HZoneX
	HZoneY
	HZoneRadius
	HZoneOpen
	HExplN
	HHoleN
	HExplosionRadius
	HMatchOver
	HLimitRounds
)

// HTeamScore is the header word of team 0's score; team t's is HTeamScore+t.
const HTeamScore = 32

// HTeamRound is the header word of team 0's points this round; team t's is
// HTeamRound+t.
const HTeamRound = 64

// HMapN is the header word that counts the map's wall pieces, sent in every
// frame after the walls (MapWords each: X1, Y1, X2, Y2 in millimetres as
// WX1..WY2); 0 on the square map, whose rim is the square of side HArena.
const HMapN = HTeamRound + sim.MaxPlayers

// MapWords is the size of a map wall piece's record.
const MapWords = 4

// HMapZoneN is the header word that counts the map's zone records, sent in
// every frame after the map's walls.
const HMapZoneN = HMapN + 1

// ZoneWords is the size of a map zone's record.
const ZoneWords = 8

// Map zone record word offsets.
const (
	ZX = iota
	ZY
	ZRadius
	ZEffect
	ZState
	ZOwner
	ZConquered
)

// Cycle record word offsets.
const (
	CFlags = iota
	CDir
	CX
	CY
	CTurnX
	CTurnY
	CSpeed
	CScore
	CKills
	CDeaths
	CDeathTick
	CBrake
	CRubberUsed
	COdo
	CSegOdo
	CKiller
	CCause
	CTeam
	CRoundScore
	CAxes
)

// Wall record word offsets.
const (
	WX1 = iota
	WY1
	WX2
	WY2
	WOdo
	WOwner
)

// Explosion record word offsets.
const (
	EX = iota
	EY
	ERadius
	EAge
	EOwner
)

// Hole record word offsets.
const (
	HoOwner = iota
	HoFrom
	HoTo
)

// MaxHoles bounds the hole records of one frame, after merging; past it the
// holes of the highest-numbered owners are left out (a round would need
// hundreds of deaths to get there).
const MaxHoles = 2048

// FlagNotices in the header's Flags word tells the reader that chat lines or
// server errors wait to be drained (a separate, rare call).
const FlagNotices = 1

// Cycle record flag bits.
const (
	CyclePresent = 1 << iota
	CycleInRound
	CycleAlive
	CycleBraking
	CycleWalls // its walls are still deadly (until some time after death; drawn sinking around then)
	CycleHuman // a person rides it, not a bot
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
	// The round's holes as last merged, and them merged (mergeHoles): a
	// frame merges only the holes laid since, not all of them again.
	rawHoles, holes []sim.Hole
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
	holes := e.mergeHoles(s.RoundHoles())
	nexpl := 0
	for i := range sim.MaxPlayers {
		if _, _, ok := s.Blast(i); ok {
			nexpl++
		}
	}
	mapWalls := s.MapWalls()
	nzones := 0
	for ; ; nzones++ {
		if _, _, _, _, _, _, ok := s.MapZone(nzones); !ok {
			break
		}
	}
	size := 4 * (HeaderWords + sim.MaxPlayers*CycleWords + nexpl*ExplWords + len(holes)*HoleWords + n*WallWords +
		len(mapWalls)*MapWords + nzones*ZoneWords)
	if cap(e.buf) < size {
		e.buf = make([]byte, size, size+size/2)
	}
	b := e.buf[:size]
	cfg := s.Config()
	set, _ := s.Rules()
	phase, phaseEnd := s.Phase()
	round, match := s.Round()
	w := words(b)
	for i := range HeaderWords {
		w.put(i, 0)
	}
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
	w.put(HRubber, cfg.Rubber)
	w.put(HBaseSpeed, mm(cfg.BaseSpeed))
	w.put(HTeamMax, set.TeamMaxPlayers)
	w.put(HTeams, s.Teams())
	if x, y, r, ok := s.Zone(); ok {
		w.put(HZoneX, mm(x))
		w.put(HZoneY, mm(y))
		w.put(HZoneRadius, mm(r))
		w.put(HZoneOpen, 1)
	}
	w.put(HExplN, int64(nexpl))
	w.put(HHoleN, int64(len(holes)))
	w.put(HExplosionRadius, mm(s.ExplosionRadius()))
	if s.MatchOver() {
		w.put(HMatchOver, 1)
	}
	w.put(HLimitRounds, s.LimitRounds())
	w.put(HMapN, int64(len(mapWalls)))
	w.put(HMapZoneN, int64(nzones))
	for t := range sim.MaxPlayers {
		w.put(HTeamScore+t, s.TeamScore(t))
		w.put(HTeamRound+t, s.TeamRound(t))
	}
	for i := range sim.MaxPlayers {
		c := s.Cycle(i)
		putCycle(w[4*(HeaderWords+i*CycleWords):], s, i, &c)
	}
	off := HeaderWords + sim.MaxPlayers*CycleWords
	for i := range sim.MaxPlayers {
		r, age, ok := s.Blast(i)
		if !ok {
			continue
		}
		c := s.Cycle(i)
		x := w[4*off:]
		x.put(EX, mm(c.X))
		x.put(EY, mm(c.Y))
		x.put(ERadius, mm(r))
		x.put(EAge, age)
		x.put(EOwner, int64(i))
		x.put(EOwner+1, 0)
		off += ExplWords
	}
	for _, h := range holes {
		x := w[4*off:]
		x.put(HoOwner, int64(h.Owner))
		x.put(HoFrom, mm(h.From))
		x.put(HoTo, mm(h.To))
		off += HoleWords
	}
	for k, wl := range walls[from : from+n] {
		r := w[4*(off+k*WallWords):]
		r.put(WX1, mm(wl.X1))
		r.put(WY1, mm(wl.Y1))
		r.put(WX2, mm(wl.X2))
		r.put(WY2, mm(wl.Y2))
		r.put(WOdo, mm(wl.Odo))
		r.put(WOwner, int64(wl.Owner))
	}
	off += n * WallWords
	for k, mw := range mapWalls {
		r := w[4*(off+k*MapWords):]
		for j, v := range mw {
			r.put(j, mm(v))
		}
	}
	off += len(mapWalls) * MapWords
	for k := range nzones {
		x, y, radius, effect, z, conquered, _ := s.MapZone(k)
		r := w[4*(off+k*ZoneWords):]
		r.put(ZX, mm(x))
		r.put(ZY, mm(y))
		r.put(ZRadius, mm(radius))
		r.put(ZEffect, int64(effect))
		r.put(ZState, int64(z.State))
		r.put(ZOwner, int64(z.Owner))
		r.put(ZConquered, conquered)
		r.put(ZConquered+1, 0)
	}
	e.sent = append(e.sent[:from], walls[from:from+n]...)
	return b
}

// mergeHoles returns the round's holes merged into disjoint stretches per
// owner, sorted by owner and then odometer, at most MaxHoles: an explosion
// cuts the same wall at each of its steps with a growing radius, so most
// holes lie inside another, and a reader tests fewer. Holes, like walls, are
// only appended, except that a rollback (or a new round) may take the tail
// away and lay others: the holes up to the first that differs from the last
// call's are merged already, and those after it are added one by one. When
// holes were taken away, or many came at once, all are merged afresh by
// sorting.
func (e *Encoder) mergeHoles(holes []sim.Hole) []sim.Hole {
	k := 0
	for limit := min(len(holes), len(e.rawHoles)); k < limit && holes[k] == e.rawHoles[k]; k++ {
	}
	if k < len(e.rawHoles) || len(holes)-k > remergeHoles {
		e.holes = sortMerge(append(e.holes[:0], holes...))
	} else {
		for _, h := range holes[k:] {
			e.holes = insertHole(e.holes, h)
		}
	}
	e.rawHoles = append(e.rawHoles[:0], holes...)
	return e.holes[:min(len(e.holes), MaxHoles)]
}

// remergeHoles is how many new holes a frame adds one by one at most; past
// it sorting them all is cheaper.
const remergeHoles = 64

// sortMerge sorts hs by owner and odometer and merges the holes of an owner
// that overlap or touch, in place.
func sortMerge(hs []sim.Hole) []sim.Hole {
	slices.SortFunc(hs, func(a, b sim.Hole) int {
		return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.From, b.From))
	})
	out := hs[:0]
	for _, h := range hs {
		if k := len(out) - 1; k >= 0 && out[k].Owner == h.Owner && h.From <= out[k].To {
			out[k].To = max(out[k].To, h.To)
			continue
		}
		out = append(out, h)
	}
	return out
}

// insertHole adds h to merged holes (as sortMerge leaves them) and keeps
// them so: h joins the stretch of its owner it overlaps or touches, and
// swallows those after it that it reaches. Written out rather than with
// slices.Insert and friends, whose instances cost the core 14 KB.
func insertHole(hs []sim.Hole, h sim.Hole) []sim.Hole {
	// i: the first stretch after h's place in the order.
	i, n := 0, len(hs)
	for i < n {
		m := int(uint(i+n) >> 1)
		if a := hs[m]; a.Owner < h.Owner || a.Owner == h.Owner && a.From <= h.From {
			i = m + 1
		} else {
			n = m
		}
	}
	j := i // the stretch that holds h
	if i > 0 && hs[i-1].Owner == h.Owner && h.From <= hs[i-1].To {
		j = i - 1
		hs[j].To = max(hs[j].To, h.To)
	} else {
		hs = append(hs, sim.Hole{})
		copy(hs[i+1:], hs[i:])
		hs[i] = h
	}
	end := j + 1
	for end < len(hs) && hs[end].Owner == h.Owner && hs[end].From <= hs[j].To {
		hs[j].To = max(hs[j].To, hs[end].To)
		end++
	}
	return append(hs[:j+1], hs[end:]...)
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
	}{{c.Present, CyclePresent}, {c.InRound, CycleInRound}, {c.Alive, CycleAlive}, {c.Braking, CycleBraking}, {c.Human, CycleHuman}} {
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
	r.put(CFlags, f)
	r.put(CDir, int64(c.Dir))
	r.put(CX, mm(c.X))
	r.put(CY, mm(c.Y))
	r.put(CTurnX, mm(c.TurnX))
	r.put(CTurnY, mm(c.TurnY))
	r.put(CSpeed, mm(c.Speed))
	r.put(CScore, c.Score)
	r.put(CKills, c.Kills)
	r.put(CDeaths, c.Deaths)
	r.put(CDeathTick, c.DeathTick)
	r.put(CBrake, c.Brake)
	r.put(CRubberUsed, c.RubberUsed)
	r.put(COdo, mm(c.Odo))
	r.put(CSegOdo, mm(c.SegOdo))
	r.put(CKiller, int64(c.Killer))
	r.put(CCause, int64(c.Cause))
	r.put(CTeam, int64(c.Team))
	r.put(CRoundScore, c.RoundScore)
	r.put(CAxes, int64(s.Axes()))
	for i := CAxes + 1; i < CycleWords; i++ {
		r.put(i, 0)
	}
}

// words is a byte slice written as little-endian int32 words.
type words []byte

// put stores v, truncated to 32 bits, in word i. Ticks wrap after 207 days at
// 120 Hz; every other value fits by construction (distances in mm).
func (w words) put(i int, v int64) { binary.LittleEndian.PutUint32(w[4*i:], uint32(int32(v))) }

// mm converts micrometres to millimetres.
func mm(um int64) int64 { return um / 1000 }
