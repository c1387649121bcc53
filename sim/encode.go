package sim

import (
	"encoding/binary"
	"errors"
)

// stateMagic starts every encoded state; the digit is the format version.
const stateMagic = "WTS4"

// ErrCorrupt is returned (wrapped, with detail) by UnmarshalState for input
// that is truncated, malformed, or describes an impossible state.
var ErrCorrupt = errors.New("sim: corrupt state encoding")

// corruptError is ErrCorrupt with detail: "<ErrCorrupt>: <detail>". It is
// what fmt.Errorf("%w: ...") made, without linking fmt into the wasm client.
type corruptError struct{ detail string }

func (e *corruptError) Error() string { return ErrCorrupt.Error() + ": " + e.detail }
func (e *corruptError) Unwrap() error { return ErrCorrupt }

func corrupt(detail string) error { return &corruptError{detail} }

// itoa formats v in decimal, as %d does. The simulation imports neither fmt
// nor strconv (TestImportRules).
func itoa(v int64) string {
	var b [20]byte
	i := len(b)
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if v < 0 {
		return "-" + string(b[i:])
	}
	return string(b[i:])
}

// AppendBinary appends a self-contained encoding of the state to b: the rules,
// every core field and the current round's walls. A joining client, a resync
// and a replay file start from it. The previous round's walls are left out, so
// the decoded state cannot be rolled back across this round's start, which no
// newcomer needs.
func (s *State) AppendBinary(b []byte) []byte {
	b = append(b, stateMagic...)
	e := encoder{b: b}
	s.cfg.visit(&e)
	e.mapOf(s.cfg.Map)
	s.c.visit(&e)
	s.visitZones(&e)
	for _, w := range s.RoundWalls() {
		for _, v := range [...]int64{w.X1, w.Y1, w.X2, w.Y2, w.Odo, w.T1, w.T2} {
			e.i64(&v)
		}
		e.b = append(e.b, w.Owner)
	}
	for _, h := range s.RoundHoles() {
		e.i64(&h.From)
		e.i64(&h.To)
		e.b = append(e.b, h.Owner)
	}
	return e.b
}

// UnmarshalState decodes what AppendBinary wrote. It never panics: input that is
// truncated or does not describe a possible state returns an error wrapping
// ErrCorrupt, so a damaged replay file or a hostile snapshot is refused cleanly.
func UnmarshalState(b []byte) (*State, error) {
	if len(b) < len(stateMagic) || string(b[:len(stateMagic)]) != stateMagic {
		return nil, corrupt("bad magic or version")
	}
	d := decoder{b: b[len(stateMagic):]}
	var cfg Config
	cfg.visit(&d)
	cfg.Map = d.mapOf()
	if d.err != nil {
		return nil, d.err
	}
	if err := cfg.Validate(); err != nil {
		return nil, corrupt(err.Error())
	}
	s, _ := NewState(cfg, 0)
	s.c.visit(&d)
	s.visitZones(&d)
	if d.err != nil {
		return nil, d.err
	}
	if err := s.checkCore(); err != nil {
		return nil, err
	}
	n := s.c.WallCount - s.c.RoundWallStart
	if n > int64(len(d.b))/8 { // every wall takes at least 8 bytes: bound the allocation by the input
		return nil, corrupt(itoa(n) + " walls in " + itoa(int64(len(d.b))) + " bytes")
	}
	s.walls = make([]Wall, 0, n)
	s.wallBase = s.c.RoundWallStart
	s.grid.reset(s.c.RoundWallStart)
	for i := int64(0); i < n; i++ {
		var w Wall
		for _, p := range [...]*int64{&w.X1, &w.Y1, &w.X2, &w.Y2, &w.Odo, &w.T1, &w.T2} {
			d.i64(p)
		}
		d.u8(&w.Owner)
		if d.err == nil {
			if err := s.checkWall(&w); err != nil {
				return nil, err
			}
		}
		if d.err != nil {
			return nil, d.err
		}
		s.walls = append(s.walls, w)
		s.grid.add(&s.walls[len(s.walls)-1], s.wallBase+i)
	}
	n = s.c.HoleCount - s.c.RoundHoleStart
	if n > int64(len(d.b))/3 {
		return nil, corrupt(itoa(n) + " holes in " + itoa(int64(len(d.b))) + " bytes")
	}
	s.holes = make([]Hole, 0, n)
	s.holeBase = s.c.RoundHoleStart
	for i := int64(0); i < n; i++ {
		var h Hole
		d.i64(&h.From)
		d.i64(&h.To)
		d.u8(&h.Owner)
		if d.err != nil {
			return nil, d.err
		}
		if h.Owner >= MaxPlayers || h.From > h.To {
			return nil, corrupt("impossible hole")
		}
		o := &s.c.Cycles[h.Owner]
		h.prev = o.lastHole
		s.holes = append(s.holes, h)
		o.lastHole = s.holeBase + i + 1
	}
	if len(d.b) != 0 {
		return nil, corrupt(itoa(int64(len(d.b))) + " trailing bytes")
	}
	return s, nil
}

// checkCore refuses values that Step would index with or that cannot occur.
func (s *State) checkCore() error {
	c := &s.c
	if c.Phase > PhaseOver || c.Set > SetMP || c.RoundWallStart < 0 || c.WallCount < c.RoundWallStart ||
		c.RoundHoleStart < 0 || c.HoleCount < c.RoundHoleStart || c.Tick < 0 ||
		c.Winner < -1 || c.Winner >= MaxPlayers || c.Wish < -1 || c.Wish >= MaxPlayers || c.Teams < 0 || c.Teams > MaxPlayers {
		return corrupt("impossible round state")
	}
	for k := 0; k < s.zoneCount(); k++ {
		if z := &c.Zones[k]; z.State > ZoneGone || z.Owner < -1 || z.Owner >= MaxPlayers || z.First < -1 || z.First >= MaxPlayers ||
			z.Conquered < 0 || z.Conquered > 2*Unit*s.cfg.TickRate || z.R0 < 0 {
			return corrupt("impossible zone " + itoa(int64(k)))
		}
	}
	a := s.dv().arena
	for i := range c.Cycles {
		cy := &c.Cycles[i]
		if int(cy.Dir) >= s.Axes() || cy.QueueLen > maxTurnQueue || cy.Killer < -1 || cy.Killer >= MaxPlayers ||
			cy.Enemy < -1 || cy.Enemy >= MaxPlayers || (cy.Team >= MaxPlayers && cy.Team != NoTeam) || cy.Cause > CauseZone ||
			cy.X < 0 || cy.X > a || cy.Y < 0 || cy.Y > a || cy.TurnX < 0 || cy.TurnX > a || cy.TurnY < 0 || cy.TurnY > a ||
			cy.Speed < 0 || cy.Speed > MaxSpeed || cy.Sub < 0 || cy.Sub >= SubTicks*s.cfg.TickRate || cy.Brake < 0 || cy.Brake > Unit ||
			cy.RubberUsed < 0 || cy.RubberUsed > 2*max(s.cfg.Rubber, 0)+2*maxLatency+1000*Meter || cy.Latency < 0 || cy.Latency > maxLatency ||
			cy.Alive && cy.Team >= MaxPlayers {
			return corrupt("impossible cycle " + itoa(int64(i)))
		}
		// The slanted geometry puts a cycle Odo - SegOdo along the line from
		// TurnX, TurnY: no leg in the arena is longer than its diagonal.
		if leg := cy.Odo - cy.SegOdo; s.dirs != nil && (cy.SegOdo > cy.Odo || leg < 0 || leg > 2*a) {
			return corrupt("impossible leg of cycle " + itoa(int64(i)))
		}
	}
	return nil
}

func (s *State) checkWall(w *Wall) error {
	a := s.dv().arena
	if (w.X1 != w.X2 && w.Y1 != w.Y2 && s.dirs == nil) || w.Owner >= MaxPlayers ||
		min(w.X1, w.X2) < 0 || max(w.X1, w.X2) > a || min(w.Y1, w.Y2) < 0 || max(w.Y1, w.Y2) > a {
		return corrupt("impossible wall")
	}
	return nil
}

func (c *Config) visit(v visitor) {
	for _, p := range [...]*int64{&c.TickRate, &c.ArenaSize, &c.StartSpeed, &c.BaseSpeed, &c.SpeedMin, &c.SpeedMax,
		&c.DecayBelow, &c.DecayAbove, &c.Accel, &c.AccelSelf, &c.AccelTeam, &c.AccelEnemy, &c.AccelRim,
		&c.AccelSlingshot, &c.AccelTunnel, &c.AccelOffset, &c.WallNear, &c.TurnDelayMs, &c.DoublebindBonus,
		&c.TurnSpeed, &c.TurnMemory, &c.Brake, &c.BrakeDeplete, &c.BrakeRefill, &c.Rubber, &c.PingRubber,
		&c.RubberSpeed, &c.RubberTimeMs, &c.EnemySuicideTimeoutMs, &c.EnemyTeammatePenaltyMs,
		&c.WinZoneInitialSize, &c.WinZoneExpansion, &c.WinZoneRandomness, &c.SpawnWingmenBack, &c.SpawnWingmenSide,
		&c.ScoreKill, &c.ScoreDie, &c.ScoreSuicide, &c.PrepareMs, &c.RoundOverMs, &c.MinPlayers, &c.AllowEnemiesSameIP,
		&c.FortressConquestRate, &c.FortressDefendRate, &c.FortressDecayRate, &c.FortressCollapseSpeed,
		&c.FortressMaxPerTeam, &c.FortressConqueredWin, &c.FortressSurviveWin, &c.SpawnPointGroupSize} {
		v.i64(p)
	}
	c.SP.visit(v)
	c.MP.visit(v)
}

func (s *Set) visit(v visitor) {
	for _, p := range [...]*int64{&s.SizeFactor, &s.SpeedFactor, &s.GameType, &s.FinishType,
		&s.WinZoneMinRoundTimeMs, &s.WinZoneMinLastDeathMs, &s.TeamMaxPlayers, &s.WallsStayUpDelayMs,
		&s.WallsLength, &s.ExplosionRadius, &s.ScoreWin, &s.LimitScore, &s.LimitRounds} {
		v.i64(p)
	}
}

type encoder struct{ b []byte }

func (e *encoder) i64(p *int64)  { e.b = binary.AppendVarint(e.b, *p) }
func (e *encoder) u64(p *uint64) { e.b = binary.AppendUvarint(e.b, *p) }
func (e *encoder) u8(p *uint8)   { e.b = append(e.b, *p) }
func (e *encoder) i8(p *int8)    { e.b = append(e.b, uint8(*p)) }
func (e *encoder) flag(p *bool) {
	b := byte(0)
	if *p {
		b = 1
	}
	e.b = append(e.b, b)
}

// decoder reads what encoder wrote; after the first error every read is a no-op.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err = corrupt("truncated or malformed") }

func (d *decoder) i64(p *int64) {
	if d.err != nil {
		return
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return
	}
	*p, d.b = v, d.b[n:]
}

func (d *decoder) u64(p *uint64) {
	if d.err != nil {
		return
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return
	}
	*p, d.b = v, d.b[n:]
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) u8(p *uint8) { *p = d.byte() }
func (d *decoder) i8(p *int8)  { *p = int8(d.byte()) }
func (d *decoder) flag(p *bool) {
	v := d.byte()
	if v > 1 {
		d.fail()
	}
	*p = v == 1
}
