package sim

import "errors"

// Config holds a match's rules. It is fixed for the life of a State and is not
// part of snapshots; it is part of the encoded state, so a replay or a joining
// client simulates under the same rules. Durations are in milliseconds.
type Config struct {
	TickRate  int64 // ticks per second
	ArenaSize int64 // side of the square arena, micrometres

	StartSpeed   int64 // micrometres per second at spawn (Armagetron: 20 m/s)
	BaseSpeed    int64 // speed relaxes toward this (CYCLE_SPEED, 30 m/s)
	MinSpeedPct  int64 // speed never drops below this percentage of BaseSpeed (25)
	SpeedUpMilli int64 // relaxation rate below base, per mille per second (5/s -> 5000)
	SlowMilli    int64 // relaxation rate above base, per mille per second (0.1/s -> 100)

	WallAccel       int64 // CYCLE_ACCEL, m/s^2 scale of wall acceleration (10)
	WallAccelOffset int64 // CYCLE_ACCEL_OFFSET, micrometres (2 m)
	WallNear        int64 // CYCLE_WALL_NEAR, sensor range, micrometres (6 m)

	TurnDelayMs int64 // CYCLE_DELAY, minimum time between turns (100)
	TurnSpeed   int64 // speed multiplier per turn, in Unit (0.95 -> 950000)
	TurnQueue   int64 // turns that may wait for the turn delay (3)

	BrakeDecel  int64 // micrometres per second squared (30 m/s^2)
	BrakeDrain  int64 // reservoir drained per second while braking, in Unit (1.0)
	BrakeRefill int64 // reservoir refilled per second while not braking, in Unit (0.1)

	Rubber        int64 // CYCLE_RUBBER, micrometres of denied travel before death (1 m)
	RubberSpeed   int64 // CYCLE_RUBBER_SPEED, per second: the gap shrinks by e^(-RubberSpeed*dt) (40)
	RubberDecayMs int64 // used rubber decays as r /= 1 + dt/decay (10 s)

	WallsLength     int64 // trail length in micrometres; <= 0 means infinite (WALLS_LENGTH -1)
	DeadWallDelayMs int64 // walls of a dead cycle vanish after this (2 s)

	PrepareMs   int64 // countdown before cycles move (4 s)
	RoundOverMs int64 // pause showing the winner before the next round (3 s)
	MinPlayers  int64 // a round starts when this many players are present (1)
	FinishType  int64 // FINISH_TYPE: how a round ends once no human cycle is alive (FinishExpress)

	ScoreWin, ScoreKill, ScoreDeath, ScoreSuicide int64

	MatchScore  int64 // the match ends when someone reaches this score (100)
	MatchRounds int64 // or after this many rounds (10)
}

// FINISH_TYPE values, with Armagetron's numbers: what happens once every
// human cycle is dead (or the only humans are waiting for the next round).
const (
	FinishExpress     = 0 // the round ends 2 s after the later of the last death and that moment
	FinishReset       = 1 // the same after 4 s
	FinishFastForward = 2 // Armagetron fast-forwards the bots; here the round goes on as with FinishNormal
	FinishNormal      = 3 // the round goes on until it is decided
)

// DefaultConfig returns Armagetron Advanced's defaults (physics.md) at 120 Hz.
func DefaultConfig() Config {
	return Config{
		TickRate:  120,
		ArenaSize: 500 * Meter,

		StartSpeed:   20 * Meter,
		BaseSpeed:    30 * Meter,
		MinSpeedPct:  25,
		SpeedUpMilli: 5000,
		SlowMilli:    100,

		WallAccel:       10,
		WallAccelOffset: 2 * Meter,
		WallNear:        6 * Meter,

		TurnDelayMs: 100,
		TurnSpeed:   950_000,
		TurnQueue:   3,

		BrakeDecel:  30 * Meter,
		BrakeDrain:  Unit,
		BrakeRefill: Unit / 10,

		Rubber:        1 * Meter,
		RubberSpeed:   40,
		RubberDecayMs: 10_000,

		WallsLength:     -1,
		DeadWallDelayMs: 2000,

		PrepareMs:   4000,
		RoundOverMs: 3000,
		MinPlayers:  1,
		FinishType:  FinishExpress,

		ScoreWin: 10, ScoreKill: 3, ScoreDeath: -2, ScoreSuicide: -4,

		MatchScore:  100,
		MatchRounds: 10,
	}
}

// Validate reports the first rule that would make the simulation meaningless
// or overflow. The bounds are generous; they exist so that a corrupted replay
// or a hostile snapshot cannot make Step divide by zero or loop for ever.
func (c *Config) Validate() error {
	switch {
	case c.TickRate < 10 || c.TickRate > 1000:
		return errors.New("sim: tick rate must be 10..1000 Hz")
	case c.ArenaSize < 20*Meter || c.ArenaSize > 10_000*Meter:
		return errors.New("sim: arena size must be 20 m..10 km")
	case c.BaseSpeed < Meter || c.BaseSpeed > 500*Meter || c.StartSpeed < 0 || c.StartSpeed > 500*Meter:
		return errors.New("sim: speeds must be 1..500 m/s")
	case c.MinSpeedPct < 1 || c.MinSpeedPct > 100:
		return errors.New("sim: minimum speed must be 1..100 % of base speed")
	case c.SpeedUpMilli < 0 || c.SlowMilli < 0 || c.SpeedUpMilli > 100_000 || c.SlowMilli > 100_000:
		return errors.New("sim: speed relaxation rates out of range")
	case c.WallAccel < 0 || c.WallAccel > 1000 || c.WallAccelOffset < 1 || c.WallNear < 0 || c.WallNear > 100*Meter:
		return errors.New("sim: wall acceleration settings out of range")
	case c.TurnDelayMs < 0 || c.TurnDelayMs > 10_000 || c.TurnSpeed < 0 || c.TurnSpeed > 2*Unit || c.TurnQueue < 0 || c.TurnQueue > maxTurnQueue:
		return errors.New("sim: turn settings out of range")
	case c.BrakeDecel < 0 || c.BrakeDecel > 1000*Meter || c.BrakeDrain < 0 || c.BrakeRefill < 0 || c.BrakeDrain > 100*Unit || c.BrakeRefill > 100*Unit:
		return errors.New("sim: brake settings out of range")
	case c.Rubber < 0 || c.Rubber > 1000*Meter || c.RubberSpeed < 1 || c.RubberSpeed > 1000 || c.RubberDecayMs < 1:
		return errors.New("sim: rubber settings out of range")
	case c.DeadWallDelayMs < 0 || c.PrepareMs < 0 || c.RoundOverMs < 0 || c.PrepareMs > 600_000 || c.RoundOverMs > 600_000:
		return errors.New("sim: round timings out of range")
	case c.FinishType < FinishExpress || c.FinishType > FinishNormal:
		return errors.New("sim: finish type must be 0..3")
	case c.MinPlayers < 1 || c.MinPlayers > MaxPlayers:
		return errors.New("sim: min players must be 1..32")
	case c.MatchScore < 1 || c.MatchRounds < 1:
		return errors.New("sim: match limits must be positive")
	}
	return nil
}

// ticks converts a duration in milliseconds to whole ticks, rounding up so that
// a minimum delay is never shortened by the tick grid.
func (c *Config) ticks(ms int64) int64 {
	return (ms*c.TickRate + 999) / 1000
}
