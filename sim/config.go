package sim

import "errors"

// Config holds a match's rules, under Armagetron Advanced's names (the
// settings package reads them from Armagetron's NAME value format and
// docs/physics.md tables them). It is fixed for the life of a State and is not
// part of snapshots; it is part of the encoded state, so a replay or a joining
// client simulates under the same rules.
//
// Every value is an integer. Distances are micrometres, speeds micrometres
// per second, accelerations micrometres per second squared, durations
// milliseconds; a dimensionless ratio or a rate per second is in Unit
// (millionths: 0.95 is 950_000). Settings that Armagetron keeps twice, once
// for the single-player case and once for multiplayer, live in SP and MP.
type Config struct {
	TickRate int64 // ticks per second (Webtron's; Armagetron integrates in continuous time)

	ArenaSize int64 // side of the square map at SIZE_FACTOR 0 (Armagetron's square map: 500 m)

	StartSpeed int64 // CYCLE_START_SPEED (20 m/s)
	BaseSpeed  int64 // CYCLE_SPEED: speed relaxes toward it (30 m/s)
	SpeedMin   int64 // CYCLE_SPEED_MIN, Unit of BaseSpeed: speed never drops below (0.25)
	SpeedMax   int64 // CYCLE_SPEED_MAX, Unit of BaseSpeed; 0 means MaxSpeed (0)
	DecayBelow int64 // CYCLE_SPEED_DECAY_BELOW, Unit per second: relaxation rate below base (5)
	DecayAbove int64 // CYCLE_SPEED_DECAY_ABOVE, Unit per second: relaxation rate above base (0.1)

	Accel          int64 // CYCLE_ACCEL, Unit (m^2/s^2): scale of wall acceleration (10)
	AccelSelf      int64 // CYCLE_ACCEL_SELF, Unit: factor for one's own walls (1)
	AccelTeam      int64 // CYCLE_ACCEL_TEAM, Unit: for teammates' walls (1)
	AccelEnemy     int64 // CYCLE_ACCEL_ENEMY, Unit: for enemies' walls (1)
	AccelRim       int64 // CYCLE_ACCEL_RIM, Unit: for the rim (0)
	AccelSlingshot int64 // CYCLE_ACCEL_SLINGSHOT, Unit: between one's own wall and another (1)
	AccelTunnel    int64 // CYCLE_ACCEL_TUNNEL, Unit: between two walls not one's own (1)
	AccelOffset    int64 // CYCLE_ACCEL_OFFSET (2 m)
	WallNear       int64 // CYCLE_WALL_NEAR: range of the acceleration sensors (6 m)

	TurnDelayMs     int64 // CYCLE_DELAY: least time from a turn to the next one to the other side (100 ms)
	DoublebindBonus int64 // CYCLE_DELAY_DOUBLEBIND_BONUS, Unit: the delay to the next turn to the same side, times CYCLE_DELAY (1)
	TurnSpeed       int64 // CYCLE_TURN_SPEED_FACTOR, Unit: speed kept through a turn (0.95)
	TurnMemory      int64 // CYCLE_TURN_MEMORY: turns queued before opposite turns cancel (3)

	Brake        int64 // CYCLE_BRAKE: deceleration while braking; negative is a turbo (30 m/s^2)
	BrakeDeplete int64 // CYCLE_BRAKE_DEPLETE, Unit per second: reservoir used while braking (1)
	BrakeRefill  int64 // CYCLE_BRAKE_REFILL, Unit per second: reservoir regained otherwise (0.1)

	Rubber       int64 // CYCLE_RUBBER: forward travel a cycle may be denied before it dies (1 m)
	PingRubber   int64 // CYCLE_PING_RUBBER, Unit: effectiveness gained per second of latency, x CYCLE_RUBBER (3)
	RubberSpeed  int64 // CYCLE_RUBBER_SPEED, Unit per second: the gap ahead shrinks by e^(-speed dt) (40)
	RubberTimeMs int64 // CYCLE_RUBBER_TIME: used rubber decays as r /= 1 + dt/time (10 s)

	EnemySuicideTimeoutMs  int64 // ENEMY_SUICIDE_TIMEOUT: older enemy influence makes a death a suicide (10000 s)
	EnemyTeammatePenaltyMs int64 // ENEMY_TEAMMATE_PENALTY: a teammate's wall counts as built this much earlier (2500 s)

	WinZoneInitialSize int64 // WIN_ZONE_INITIAL_SIZE: radius of the win zone when it opens (5 m)
	WinZoneExpansion   int64 // WIN_ZONE_EXPANSION: its growth (1 m/s)
	WinZoneRandomness  int64 // WIN_ZONE_RANDOMNESS, Unit: 0 opens it at the centre, 1 anywhere (0.8)

	SpawnWingmenBack int64 // SPAWN_WINGMEN_BACK: teammates spawn this far behind the one before (2.202896 m)
	SpawnWingmenSide int64 // SPAWN_WINGMEN_SIDE: and this far beside (2.75362 m)

	ScoreKill    int64 // SCORE_KILL: for each enemy who dies of one's wall (3)
	ScoreDie     int64 // SCORE_DIE: for a death credited to an enemy (-2)
	ScoreSuicide int64 // SCORE_SUICIDE: for a death credited to nobody (-4)

	PrepareMs   int64 // Webtron's PREPARE_TIME: countdown before cycles move (4 s)
	RoundOverMs int64 // Webtron's ROUND_OVER_TIME: pause showing the winner before the next round (3 s)
	MinPlayers  int64 // Webtron's MIN_PLAYERS_TO_START: a round starts when this many players are present (1)

	// AllowEnemiesSameIP is ALLOW_ENEMIES_SAME_IP (0): with 0, players who
	// joined from one address (Cycle.Machine) are not enemies: their walls
	// give each other no kill credit, as ePlayerNetID::Enemies rules.
	AllowEnemiesSameIP int64

	// Fortress zones (Armagetron's FORTRESS_* settings, config/settings.cfg):
	// conquest a second per enemy inside, defence per owner inside, decay,
	// in Unit a second; the collapse of a conquered zone, in Unit of its
	// radius a second; at most FortressMaxPerTeam zones a team (0: any);
	// FortressConqueredWin 1: a conquest wins the round for the conquerors;
	// FortressSurviveWin 1: the last team owning a zone not conquered wins.
	FortressConquestRate, FortressDefendRate, FortressDecayRate, FortressCollapseSpeed int64
	FortressMaxPerTeam, FortressConqueredWin, FortressSurviveWin                       int64

	// SpawnPointGroupSize is SPAWN_POINT_GROUP_SIZE (0): above 2, the map's
	// spawn points come in groups of this many, and a team skips the last
	// point of a group when that keeps the last team from a group alone.
	SpawnPointGroupSize int64

	// SP applies to a round that starts with at most one human present, MP to
	// one with two or more, as Armagetron's dedicated server switches between
	// its SP_ settings and the others.
	SP, MP Set

	// Map is the arena when it is not Armagetron's square map (MAP_FILE):
	// its walls, spawn points and zones; nil plays the square. It travels
	// with the rules in every snapshot, so a joining client plays the same
	// arena.
	Map *Map
}

// Set is the part of the rules Armagetron keeps once for single player (SP_
// names) and once for multiplayer.
type Set struct {
	SizeFactor  int64 // SIZE_FACTOR: the arena is ArenaSize x 2^(f/2) (SP -3, MP 0)
	SpeedFactor int64 // SPEED_FACTOR: speeds and accelerations x 2^(f/2), turn delay / 2^(f/2) (0)
	GameType    int64 // GAME_TYPE: GameDuel ends at one team left, GameFreestyle when all are dead (1)
	FinishType  int64 // FINISH_TYPE: what happens once no human cycle is alive (FinishExpress)

	WinZoneMinRoundTimeMs int64 // WIN_ZONE_MIN_ROUND_TIME: the win zone opens once the round is this old (SP never, MP 60 s)
	WinZoneMinLastDeathMs int64 // WIN_ZONE_MIN_LAST_DEATH: and the last death this old (SP never, MP 30 s)

	TeamMaxPlayers int64 // TEAM_MAX_PLAYERS: players per team, 1 for every one for themselves (SP 1, MP 5)

	WallsStayUpDelayMs int64 // WALLS_STAY_UP_DELAY: a dead cycle's walls vanish after this (8 s); < 0 never
	WallsLength        int64 // WALLS_LENGTH: trail length; <= 0 infinite (-1)
	ExplosionRadius    int64 // EXPLOSION_RADIUS: holes blown into walls by a dying cycle (4 m)

	ScoreWin    int64 // SCORE_WIN: for the team that wins a round (10)
	LimitScore  int64 // LIMIT_SCORE: a match ends when a team reaches it (SP 100000, MP 100)
	LimitRounds int64 // LIMIT_ROUNDS: or after this many rounds (10)
}

// GAME_TYPE values.
const (
	GameFreestyle = 0 // the round ends when every cycle is dead
	GameDuel      = 1 // the round ends when one team is left
)

// FINISH_TYPE values, with Armagetron's numbers: what happens once every
// human cycle is dead (or the only humans are waiting for the next round).
const (
	FinishExpress     = 0 // the round ends 2 s after the later of the last death and that moment
	FinishReset       = 1 // the same after 4 s
	FinishFastForward = 2 // Armagetron fast-forwards the bots; here the round goes on as with FinishNormal
	FinishNormal      = 3 // the round goes on until it is decided
)

// Set indices: SetSP is the single-player set, SetMP the multiplayer one.
const (
	SetSP = 0
	SetMP = 1
)

// MaxSpeed bounds every cycle's speed when CYCLE_SPEED_MAX is 0 (Armagetron's
// bound then is (100 + CYCLE_SPEED) x 100000 m/s, which nothing reaches);
// rays and sensors are sized for it.
const MaxSpeed = 500 * Meter

// never is a duration standing for Armagetron's "1000000 s": the SP win zone
// opens never in any real round.
const never = 1_000_000_000

// DefaultConfig returns the rules of Armagetron Advanced 0.2.9's dedicated
// server (config/settings.cfg and settings_dedicated.cfg) at 120 Hz, except
// FINISH_TYPE: see Set.FinishType and docs/physics.md.
func DefaultConfig() Config {
	return Config{
		TickRate:  120,
		ArenaSize: 500 * Meter,

		StartSpeed: 20 * Meter,
		BaseSpeed:  30 * Meter,
		SpeedMin:   Unit / 4,
		DecayBelow: 5 * Unit,
		DecayAbove: Unit / 10,

		Accel:          10 * Unit,
		AccelSelf:      Unit,
		AccelTeam:      Unit,
		AccelEnemy:     Unit,
		AccelSlingshot: Unit,
		AccelTunnel:    Unit,
		AccelOffset:    2 * Meter,
		WallNear:       6 * Meter,

		TurnDelayMs:     100,
		DoublebindBonus: Unit,
		TurnSpeed:       950_000,
		TurnMemory:      3,

		Brake:        30 * Meter,
		BrakeDeplete: Unit,
		BrakeRefill:  Unit / 10,

		Rubber:       1 * Meter,
		PingRubber:   3 * Unit,
		RubberSpeed:  40 * Unit,
		RubberTimeMs: 10_000,

		EnemySuicideTimeoutMs:  10_000_000,
		EnemyTeammatePenaltyMs: 2_500_000,

		WinZoneInitialSize: 5 * Meter,
		WinZoneExpansion:   1 * Meter,
		WinZoneRandomness:  800_000,

		SpawnWingmenBack: 2_202_896,
		SpawnWingmenSide: 2_753_620,

		ScoreKill: 3, ScoreDie: -2, ScoreSuicide: -4,

		PrepareMs:   4000,
		RoundOverMs: 3000,
		MinPlayers:  1,

		FortressConquestRate: Unit / 2, FortressDefendRate: Unit / 4, FortressDecayRate: Unit / 10,
		FortressCollapseSpeed: Unit / 2, FortressSurviveWin: 1,

		SP: Set{
			SizeFactor: -3, GameType: GameDuel, FinishType: FinishExpress,
			WinZoneMinRoundTimeMs: never, WinZoneMinLastDeathMs: never,
			TeamMaxPlayers:     1,
			WallsStayUpDelayMs: 8000, WallsLength: -Meter, ExplosionRadius: 4 * Meter,
			ScoreWin: 10, LimitScore: 100_000, LimitRounds: 10,
		},
		MP: Set{
			SizeFactor: 0, GameType: GameDuel, FinishType: FinishExpress,
			WinZoneMinRoundTimeMs: 60_000, WinZoneMinLastDeathMs: 30_000,
			TeamMaxPlayers:     5,
			WallsStayUpDelayMs: 8000, WallsLength: -Meter, ExplosionRadius: 4 * Meter,
			ScoreWin: 10, LimitScore: 100, LimitRounds: 10,
		},
	}
}

// Both sets the rules for single player and multiplayer alike: tests and
// tools that want one set of rules whatever the number of humans use it.
func (c *Config) Both(s Set) { c.SP, c.MP = s, s }

// set returns set k (SetSP or SetMP).
func (c *Config) set(k uint8) *Set {
	if k == SetMP {
		return &c.MP
	}
	return &c.SP
}

// Validate reports the first rule that would make the simulation meaningless
// or overflow. The bounds are generous; they exist so that a corrupted replay
// or a hostile snapshot cannot make Step divide by zero, overflow or loop for
// ever.
func (c *Config) Validate() error {
	in := func(v, lo, hi int64) bool { return v >= lo && v <= hi }
	switch {
	case !in(c.TickRate, 10, 1000):
		return errors.New("sim: tick rate must be 10..1000 Hz")
	case !in(c.ArenaSize, 20*Meter, 5000*Meter):
		return errors.New("sim: arena size must be 20 m..5 km")
	case !in(c.BaseSpeed, Meter, 200*Meter) || !in(c.StartSpeed, 0, 200*Meter):
		return errors.New("sim: CYCLE_SPEED must be 1..200 m/s and CYCLE_START_SPEED 0..200 m/s")
	case !in(c.SpeedMin, 1, Unit) || !in(c.SpeedMax, 0, 100*Unit) || c.SpeedMax != 0 && c.SpeedMax < c.SpeedMin:
		return errors.New("sim: CYCLE_SPEED_MIN must be 0..1 (above 0) and CYCLE_SPEED_MAX 0 or at least the minimum")
	case !in(c.DecayBelow, 0, 100*Unit) || !in(c.DecayAbove, 0, 100*Unit):
		return errors.New("sim: CYCLE_SPEED_DECAY_BELOW and _ABOVE must be 0..100")
	case !in(c.Accel, 0, 10_000*Unit) || !in(c.AccelOffset, Meter/1000, 100*Meter) || !in(c.WallNear, 0, 100*Meter):
		return errors.New("sim: CYCLE_ACCEL must be 0..10000, CYCLE_ACCEL_OFFSET 0.001..100 m, CYCLE_WALL_NEAR 0..100 m")
	case !in(c.AccelSelf, -100*Unit, 100*Unit) || !in(c.AccelTeam, -100*Unit, 100*Unit) || !in(c.AccelEnemy, -100*Unit, 100*Unit) ||
		!in(c.AccelRim, -100*Unit, 100*Unit) || !in(c.AccelSlingshot, -100*Unit, 100*Unit) || !in(c.AccelTunnel, -100*Unit, 100*Unit):
		return errors.New("sim: CYCLE_ACCEL_* factors must be -100..100")
	case !in(c.TurnDelayMs, 0, 10_000) || !in(c.DoublebindBonus, 0, 100*Unit) || !in(c.TurnSpeed, 0, 2*Unit) || !in(c.TurnMemory, 0, maxTurnQueue-1):
		return errors.New("sim: CYCLE_DELAY must be 0..10 s, CYCLE_DELAY_DOUBLEBIND_BONUS 0..100, CYCLE_TURN_SPEED_FACTOR 0..2, CYCLE_TURN_MEMORY 0..31")
	case !in(c.Brake, -1000*Meter, 1000*Meter) || !in(c.BrakeDeplete, 0, 100*Unit) || !in(c.BrakeRefill, 0, 100*Unit):
		return errors.New("sim: CYCLE_BRAKE must be -1000..1000 m/s^2, CYCLE_BRAKE_DEPLETE and _REFILL 0..100")
	case !in(c.Rubber, -1000*Meter, 1000*Meter) || !in(c.PingRubber, 0, 1000*Unit) || !in(c.RubberSpeed, Unit/1000, 1000*Unit) || !in(c.RubberTimeMs, 1, 1_000_000_000):
		return errors.New("sim: CYCLE_RUBBER must be -1000..1000 m, CYCLE_PING_RUBBER 0..1000, CYCLE_RUBBER_SPEED 0.001..1000, CYCLE_RUBBER_TIME above 0")
	case !in(c.EnemySuicideTimeoutMs, 0, 1_000_000_000_000) || !in(c.EnemyTeammatePenaltyMs, 0, 1_000_000_000_000):
		return errors.New("sim: ENEMY_SUICIDE_TIMEOUT and ENEMY_TEAMMATE_PENALTY must be 0..1e9 s")
	case !in(c.WinZoneInitialSize, 0, 10_000*Meter) || !in(c.WinZoneExpansion, -1000*Meter, 1000*Meter) || !in(c.WinZoneRandomness, 0, Unit):
		return errors.New("sim: WIN_ZONE_INITIAL_SIZE must be 0..10 km, WIN_ZONE_EXPANSION -1000..1000 m/s, WIN_ZONE_RANDOMNESS 0..1")
	case !in(c.SpawnWingmenBack, -100*Meter, 100*Meter) || !in(c.SpawnWingmenSide, -100*Meter, 100*Meter):
		return errors.New("sim: SPAWN_WINGMEN_BACK and _SIDE must be -100..100 m")
	case !in(c.ScoreKill, -1_000_000, 1_000_000) || !in(c.ScoreDie, -1_000_000, 1_000_000) || !in(c.ScoreSuicide, -1_000_000, 1_000_000):
		return errors.New("sim: scores must be -1000000..1000000")
	case !in(c.PrepareMs, 0, 600_000) || !in(c.RoundOverMs, 0, 600_000):
		return errors.New("sim: PREPARE_TIME and ROUND_OVER_TIME must be 0..600 s")
	case !in(c.MinPlayers, 1, MaxPlayers):
		return errors.New("sim: MIN_PLAYERS_TO_START must be 1..32")
	case !in(c.AllowEnemiesSameIP, 0, 1):
		return errors.New("sim: ALLOW_ENEMIES_SAME_IP must be 0 or 1")
	case !in(c.FortressConquestRate, -1000*Unit, 1000*Unit) || !in(c.FortressDefendRate, -1000*Unit, 1000*Unit) ||
		!in(c.FortressDecayRate, -1000*Unit, 1000*Unit) || !in(c.FortressCollapseSpeed, 0, 1000*Unit):
		return errors.New("sim: FORTRESS_CONQUEST_RATE, _DEFEND_RATE and _CONQUEST_DECAY_RATE must be -1000..1000, FORTRESS_COLLAPSE_SPEED 0..1000")
	case !in(c.FortressMaxPerTeam, 0, maxZones) || !in(c.FortressConqueredWin, 0, 1) || !in(c.FortressSurviveWin, 0, 1):
		return errors.New("sim: FORTRESS_MAX_PER_TEAM must be 0..32, FORTRESS_CONQUERED_WIN and FORTRESS_SURVIVE_WIN 0 or 1")
	case !in(c.SpawnPointGroupSize, 0, maxMapSpawns):
		return errors.New("sim: SPAWN_POINT_GROUP_SIZE must be 0..256")
	}
	for k, s := range [2]*Set{&c.SP, &c.MP} {
		if err := s.validate(); err != nil {
			prefix := "sim: "
			if k == SetSP {
				prefix = "sim: SP_"
			}
			return errors.New(prefix + err.Error())
		}
		if size := c.arena(s); size < 10*Meter || size > 10_000*Meter {
			return errors.New("sim: the arena at SIZE_FACTOR " + itoa(s.SizeFactor) + " would be " + itoa(size/Meter) + " m; it must be 10 m..10 km")
		}
		if c.Map != nil {
			if why := c.Map.validate(); why != "" {
				return errors.New("sim: " + why)
			}
			x0, y0, x1, y1 := c.Map.bounds()
			side := c.arena(s)
			if size := mulDiv(max(x1-x0, y1-y0), side, 500*Unit); size < 10*Meter || size > 10_000*Meter {
				return errors.New("sim: the map at SIZE_FACTOR " + itoa(s.SizeFactor) + " would be " + itoa(size/Meter) + " m across; it must be 10 m..10 km")
			}
		}
	}
	return nil
}

func (s *Set) validate() error {
	in := func(v, lo, hi int64) bool { return v >= lo && v <= hi }
	switch {
	case !in(s.SizeFactor, -20, 20) || !in(s.SpeedFactor, -10, 10):
		return errors.New("SIZE_FACTOR must be -20..20 and SPEED_FACTOR -10..10")
	case !in(s.GameType, GameFreestyle, GameDuel) || !in(s.FinishType, FinishExpress, FinishNormal):
		return errors.New("GAME_TYPE must be 0..1 and FINISH_TYPE 0..3")
	case !in(s.WinZoneMinRoundTimeMs, 0, never) || !in(s.WinZoneMinLastDeathMs, 0, never):
		return errors.New("WIN_ZONE_MIN_ROUND_TIME and _LAST_DEATH must be 0..1000000 s")
	case !in(s.TeamMaxPlayers, 1, MaxPlayers):
		return errors.New("TEAM_MAX_PLAYERS must be 1..32")
	case !in(s.WallsStayUpDelayMs, -1_000_000_000, 1_000_000_000) || !in(s.WallsLength, -1_000_000*Meter, 1_000_000*Meter) || !in(s.ExplosionRadius, 0, 1000*Meter):
		return errors.New("WALLS_STAY_UP_DELAY must be -1000000..1000000 s, WALLS_LENGTH -1000..1000 km, EXPLOSION_RADIUS 0..1000 m")
	case !in(s.ScoreWin, -1_000_000, 1_000_000) || !in(s.LimitScore, 1, 1_000_000_000) || !in(s.LimitRounds, 1, 1_000_000_000):
		return errors.New("SCORE_WIN must be -1000000..1000000, LIMIT_SCORE and LIMIT_ROUNDS at least 1")
	}
	return nil
}

// arena returns the side of the arena under set s: ArenaSize x 2^(SIZE_FACTOR/2).
func (c *Config) arena(s *Set) int64 { return c.ArenaSize * pow2half(s.SizeFactor) / Unit }

// sqrt2 is the square root of two in Unit, rounded to nearest.
const sqrt2 = 1_414_214

// pow2half returns 2^(f/2) in Unit, as Armagetron's exponent() for
// SIZE_FACTOR and SPEED_FACTOR: whole powers of two exactly, odd f through
// sqrt2, negative f as the rounded reciprocal.
func pow2half(f int64) int64 {
	if f < 0 {
		p := pow2half(-f)
		return (Unit*Unit + p/2) / p
	}
	v := int64(Unit)
	if f%2 == 1 {
		v = sqrt2
	}
	return v << (f / 2)
}

// ticks converts a duration in milliseconds to whole ticks, rounding up so that
// a minimum delay is never shortened by the tick grid.
func (c *Config) ticks(ms int64) int64 {
	return (ms*c.TickRate + 999) / 1000
}
