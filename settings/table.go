package settings

import (
	"errors"
	"strings"

	"webtron/bot"
	"webtron/sim"
)

// unit is how a setting's decimal value maps to the simulation's integer.
type unit struct {
	name  string // shown after the value
	scale int64  // integer units per Armagetron unit
}

var (
	metres  = unit{"m", sim.Meter}
	speed   = unit{"m/s", sim.Meter}
	accel   = unit{"m/s^2", sim.Meter}
	seconds = unit{"s", 1000}
	ratio   = unit{"", sim.Unit}
	rate    = unit{"/s", sim.Unit}
	count   = unit{"", 1}
)

// setting is one entry of the table.
type setting struct {
	name    string
	unit    unit
	meaning string
	field   func(*sim.Config, *Server) *int64
	server  bool              // a server-level knob, not a rule of the simulation
	check   func(int64) error // extra bounds beyond sim.Config.Validate (nil: none)
}

// physics are the settings shared by both sets, in the order of Armagetron's
// settings.cfg.
func physics() []setting {
	c := func(f func(*sim.Config) *int64) func(*sim.Config, *Server) *int64 {
		return func(cfg *sim.Config, _ *Server) *int64 { return f(cfg) }
	}
	return []setting{
		{"CYCLE_TURN_MEMORY", count, "turns a cycle queues under the turn delay before opposite turns cancel", c(func(x *sim.Config) *int64 { return &x.TurnMemory }), false, nil},
		{"CYCLE_SPEED", speed, "basic cycle speed: speed relaxes toward it", c(func(x *sim.Config) *int64 { return &x.BaseSpeed }), false, nil},
		{"CYCLE_SPEED_MIN", ratio, "least speed, as a ratio of CYCLE_SPEED", c(func(x *sim.Config) *int64 { return &x.SpeedMin }), false, nil},
		{"CYCLE_SPEED_MAX", ratio, "greatest speed, as a ratio of CYCLE_SPEED; 0 is 500 m/s", c(func(x *sim.Config) *int64 { return &x.SpeedMax }), false, nil},
		{"CYCLE_SPEED_DECAY_BELOW", rate, "rate at which speed rises toward CYCLE_SPEED", c(func(x *sim.Config) *int64 { return &x.DecayBelow }), false, nil},
		{"CYCLE_SPEED_DECAY_ABOVE", rate, "rate at which speed falls toward CYCLE_SPEED", c(func(x *sim.Config) *int64 { return &x.DecayAbove }), false, nil},
		{"CYCLE_START_SPEED", speed, "speed at the start of a round", c(func(x *sim.Config) *int64 { return &x.StartSpeed }), false, nil},
		{"CYCLE_ACCEL", ratio, "wall acceleration: a wall D metres away adds CYCLE_ACCEL x (1/(D+OFFSET) - 1/(NEAR+OFFSET)) m/s^2", c(func(x *sim.Config) *int64 { return &x.Accel }), false, nil},
		{"CYCLE_ACCEL_SELF", ratio, "factor of CYCLE_ACCEL for one's own walls", c(func(x *sim.Config) *int64 { return &x.AccelSelf }), false, nil},
		{"CYCLE_ACCEL_TEAM", ratio, "factor of CYCLE_ACCEL for teammates' walls", c(func(x *sim.Config) *int64 { return &x.AccelTeam }), false, nil},
		{"CYCLE_ACCEL_ENEMY", ratio, "factor of CYCLE_ACCEL for enemies' walls", c(func(x *sim.Config) *int64 { return &x.AccelEnemy }), false, nil},
		{"CYCLE_ACCEL_RIM", ratio, "factor of CYCLE_ACCEL for the rim", c(func(x *sim.Config) *int64 { return &x.AccelRim }), false, nil},
		{"CYCLE_ACCEL_SLINGSHOT", ratio, "factor of the wall acceleration between one's own wall and another", c(func(x *sim.Config) *int64 { return &x.AccelSlingshot }), false, nil},
		{"CYCLE_ACCEL_TUNNEL", ratio, "factor of the wall acceleration between two walls not one's own", c(func(x *sim.Config) *int64 { return &x.AccelTunnel }), false, nil},
		{"CYCLE_ACCEL_OFFSET", metres, "offset in the wall acceleration's formula", c(func(x *sim.Config) *int64 { return &x.AccelOffset }), false, nil},
		{"CYCLE_WALL_NEAR", metres, "range of the wall acceleration sensors", c(func(x *sim.Config) *int64 { return &x.WallNear }), false, nil},
		{"CYCLE_BRAKE", accel, "deceleration while braking; negative is a turbo", c(func(x *sim.Config) *int64 { return &x.Brake }), false, nil},
		{"CYCLE_DELAY", seconds, "least time between two turns (to the other side)", c(func(x *sim.Config) *int64 { return &x.TurnDelayMs }), false, nil},
		{"CYCLE_DELAY_DOUBLEBIND_BONUS", ratio, "factor of CYCLE_DELAY between two turns to the same side", c(func(x *sim.Config) *int64 { return &x.DoublebindBonus }), false, nil},
		{"CYCLE_TURN_SPEED_FACTOR", ratio, "speed kept through a turn", c(func(x *sim.Config) *int64 { return &x.TurnSpeed }), false, nil},
		{"CYCLE_RUBBER", metres, "travel a cycle may be denied at a wall before it dies", c(func(x *sim.Config) *int64 { return &x.Rubber }), false, nil},
		{"CYCLE_PING_RUBBER", ratio, "rubber gained per second of latency, times CYCLE_RUBBER (see docs/physics.md for the latency)", c(func(x *sim.Config) *int64 { return &x.PingRubber }), false, nil},
		{"CYCLE_RUBBER_SPEED", rate, "the gap to a wall ahead shrinks by e^(-CYCLE_RUBBER_SPEED t) while rubber holds", c(func(x *sim.Config) *int64 { return &x.RubberSpeed }), false, nil},
		{"CYCLE_RUBBER_TIME", seconds, "time scale on which used rubber is restored", c(func(x *sim.Config) *int64 { return &x.RubberTimeMs }), false, nil},
		{"CYCLE_BRAKE_REFILL", rate, "brake reservoir regained per second when not braking", c(func(x *sim.Config) *int64 { return &x.BrakeRefill }), false, nil},
		{"CYCLE_BRAKE_DEPLETE", rate, "brake reservoir used per second of braking", c(func(x *sim.Config) *int64 { return &x.BrakeDeplete }), false, nil},
		{"SCORE_SUICIDE", count, "points for a death credited to nobody", c(func(x *sim.Config) *int64 { return &x.ScoreSuicide }), false, nil},
		{"SCORE_KILL", count, "points for each enemy killed", c(func(x *sim.Config) *int64 { return &x.ScoreKill }), false, nil},
		{"SCORE_DIE", count, "points for a death credited to an enemy", c(func(x *sim.Config) *int64 { return &x.ScoreDie }), false, nil},
		{"SPAWN_WINGMEN_BACK", metres, "how far each teammate spawns behind the one before", c(func(x *sim.Config) *int64 { return &x.SpawnWingmenBack }), false, nil},
		{"SPAWN_WINGMEN_SIDE", metres, "how far each teammate spawns beside the one before", c(func(x *sim.Config) *int64 { return &x.SpawnWingmenSide }), false, nil},
		{"ENEMY_TEAMMATE_PENALTY", seconds, "a teammate's wall counts as built this much earlier when crediting a death", c(func(x *sim.Config) *int64 { return &x.EnemyTeammatePenaltyMs }), false, nil},
		{"ENEMY_SUICIDE_TIMEOUT", seconds, "an enemy's wall seen longer ago than this no longer takes the credit for a death", c(func(x *sim.Config) *int64 { return &x.EnemySuicideTimeoutMs }), false, nil},
		{"WIN_ZONE_RANDOMNESS", ratio, "where the win zone opens: 0 the centre, 1 anywhere", c(func(x *sim.Config) *int64 { return &x.WinZoneRandomness }), false, nil},
		{"WIN_ZONE_EXPANSION", speed, "growth of the win zone's radius", c(func(x *sim.Config) *int64 { return &x.WinZoneExpansion }), false, nil},
		{"WIN_ZONE_INITIAL_SIZE", metres, "radius of the win zone when it opens", c(func(x *sim.Config) *int64 { return &x.WinZoneInitialSize }), false, nil},
		{"ARENA_SIZE", metres, "Webtron's: side of the square map at SIZE_FACTOR 0 (Armagetron's square map is 500 m)", c(func(x *sim.Config) *int64 { return &x.ArenaSize }), false, nil},
		{"PREPARE_TIME", seconds, "Webtron's: countdown before the cycles move", c(func(x *sim.Config) *int64 { return &x.PrepareMs }), false, nil},
		{"ROUND_OVER_TIME", seconds, "Webtron's: pause showing the winner before the next round", c(func(x *sim.Config) *int64 { return &x.RoundOverMs }), false, nil},
		{"START_PLAYERS", count, "Webtron's: players present before a round starts", c(func(x *sim.Config) *int64 { return &x.MinPlayers }), false, nil},
		{"FORTRESS_CONQUEST_RATE", rate, "a fortress zone's conquest grows this much a second for each enemy inside (1 is conquered)", c(func(x *sim.Config) *int64 { return &x.FortressConquestRate }), false, nil},
		{"FORTRESS_DEFEND_RATE", rate, "and falls this much a second for each owner inside", c(func(x *sim.Config) *int64 { return &x.FortressDefendRate }), false, nil},
		{"FORTRESS_CONQUEST_DECAY_RATE", rate, "and falls this much a second in any case", c(func(x *sim.Config) *int64 { return &x.FortressDecayRate }), false, nil},
		{"FORTRESS_COLLAPSE_SPEED", rate, "a conquered fortress shrinks by this fraction of its radius a second", c(func(x *sim.Config) *int64 { return &x.FortressCollapseSpeed }), false, nil},
		{"FORTRESS_MAX_PER_TEAM", count, "fortress zones a team may own, the nearest its spawn; 0 any", c(func(x *sim.Config) *int64 { return &x.FortressMaxPerTeam }), false, nil},
		{"FORTRESS_CONQUERED_WIN", count, "1: the team that conquers a fortress wins the round", c(func(x *sim.Config) *int64 { return &x.FortressConqueredWin }), false, between(0, 1)},
		{"FORTRESS_SURVIVE_WIN", count, "1: the last team owning a fortress not conquered wins the round", c(func(x *sim.Config) *int64 { return &x.FortressSurviveWin }), false, between(0, 1)},
		{"SPAWN_POINT_GROUP_SIZE", count, "above 2: a map's spawn points come in groups of this many, and a team skips the last of a group to keep the last team from a group alone", c(func(x *sim.Config) *int64 { return &x.SpawnPointGroupSize }), false, nil},
		{"ALLOW_ENEMIES_SAME_IP", count, "1: players from one address are enemies; 0: their walls give each other no kill credit (Webtron's client carries one player, so ALLOW_ENEMIES_SAME_CLIENT has nothing to rule)", c(func(x *sim.Config) *int64 { return &x.AllowEnemiesSameIP }), false, between(0, 1)},
	}
}

// perSet are the settings Armagetron keeps for single player (SP_NAME) and
// multiplayer (NAME).
func perSet() []setting {
	s := func(f func(*sim.Set) *int64) func(*sim.Set) *int64 { return f }
	type ps struct {
		name    string
		unit    unit
		meaning string
		field   func(*sim.Set) *int64
	}
	list := []ps{
		{"SCORE_WIN", count, "points for the team that wins a round", s(func(x *sim.Set) *int64 { return &x.ScoreWin })},
		{"LIMIT_SCORE", count, "a match ends when a team reaches this score", s(func(x *sim.Set) *int64 { return &x.LimitScore })},
		{"LIMIT_ROUNDS", count, "or after this many rounds", s(func(x *sim.Set) *int64 { return &x.LimitRounds })},
		{"EXPLOSION_RADIUS", metres, "radius of the holes a dying cycle's blast cuts into walls", s(func(x *sim.Set) *int64 { return &x.ExplosionRadius })},
		{"WALLS_LENGTH", metres, "length of the trails; negative is endless", s(func(x *sim.Set) *int64 { return &x.WallsLength })},
		{"WALLS_STAY_UP_DELAY", seconds, "a dead cycle's walls stand this long; negative is for ever", s(func(x *sim.Set) *int64 { return &x.WallsStayUpDelayMs })},
		{"TEAM_MAX_PLAYERS", count, "players per team; 1 is every one for themselves", s(func(x *sim.Set) *int64 { return &x.TeamMaxPlayers })},
		{"WIN_ZONE_MIN_ROUND_TIME", seconds, "the win zone opens once the round is this old", s(func(x *sim.Set) *int64 { return &x.WinZoneMinRoundTimeMs })},
		{"WIN_ZONE_MIN_LAST_DEATH", seconds, "and the last death this old", s(func(x *sim.Set) *int64 { return &x.WinZoneMinLastDeathMs })},
		{"FINISH_TYPE", count, "once no human cycle is alive: 0 the round ends 2 s after the last death, 1 after 4 s, 2 and 3 it goes on", s(func(x *sim.Set) *int64 { return &x.FinishType })},
		{"GAME_TYPE", count, "1 a round ends when one team is left, 0 when every cycle is dead", s(func(x *sim.Set) *int64 { return &x.GameType })},
		{"SIZE_FACTOR", count, "arena size: ARENA_SIZE x 2^(SIZE_FACTOR/2)", s(func(x *sim.Set) *int64 { return &x.SizeFactor })},
		{"SPEED_FACTOR", count, "cycle speed: speeds and accelerations x 2^(SPEED_FACTOR/2), turn delay divided by it", s(func(x *sim.Set) *int64 { return &x.SpeedFactor })},
	}
	var out []setting
	for _, sp := range []bool{true, false} {
		for _, p := range list {
			f, name, meaning := p.field, p.name, p.meaning
			if sp {
				name, meaning = "SP_"+name, meaning+" (at most one human)"
			} else {
				meaning += " (two humans or more)"
			}
			pick := func(cfg *sim.Config, _ *Server) *int64 {
				if sp {
					return f(&cfg.SP)
				}
				return f(&cfg.MP)
			}
			out = append(out, setting{name, p.unit, meaning, pick, false, nil})
		}
	}
	return out
}

// server are the server-level knobs.
func server() []setting {
	return []setting{
		{"TICK_RATE", count, "Webtron's: simulation ticks per second", func(_ *sim.Config, s *Server) *int64 { return &s.TickRate }, true, between(10, 1000)},
		{"SEATS", count, "Webtron's: cycles per room, humans and bots", func(_ *sim.Config, s *Server) *int64 { return &s.Seats }, true, between(1, sim.MaxPlayers)},
		{"BOTS", count, "Webtron's: bots per room; they give their seats to humans between rounds", func(_ *sim.Config, s *Server) *int64 { return &s.Bots }, true, between(0, sim.MaxPlayers)},
		{"MAX_CLIENTS", count, "connections at once, spectators included", func(_ *sim.Config, s *Server) *int64 { return &s.MaxClients }, true, between(1, 1_000_000)},
		{"AI_IQ", count, "the bots' skill, 1..100: reaction time, look-ahead, pocket detection, attacks (docs/performance.md, bot skill); 100 is the full bot; a Practice room has its own",
			func(_ *sim.Config, s *Server) *int64 { return &s.BotSkill }, true, between(bot.MinSkill, bot.MaxSkill)},
	}
}

// all is the whole table, in the order List shows it.
func all() []setting {
	out := append(server(), physics()...)
	return append(out, perSet()...)
}

// byName indexes the table by name.
func byName() map[string]setting {
	m := map[string]setting{}
	for _, s := range all() {
		if s.check == nil {
			s.check = func(int64) error { return nil }
		}
		m[s.name] = s
	}
	return m
}

func between(lo, hi int64) func(int64) error {
	return func(v int64) error {
		if v < lo || v > hi {
			return errors.New("must be " + formatFixed(lo, 1) + ".." + formatFixed(hi, 1))
		}
		return nil
	}
}

// unsupported explains Armagetron settings that Webtron knows but does not
// follow, so that a stock settings file says why they are ignored.
func unsupported(name string) (string, bool) {
	switch strings.TrimPrefix(name, "SP_") {
	case "CYCLE_DELAY_TIMEBASED", "CYCLE_RUBBER_TIMEBASED":
		return "Webtron's delays and rubber do not depend on speed (Armagetron's defaults, 1 and 0)", true
	case "CYCLE_DELAY_BONUS":
		return "turns run at the exact tick on every machine, so no timing bonus is needed", true
	case "CYCLE_RUBBER_MINDISTANCE", "CYCLE_RUBBER_MINDISTANCE_RATIO", "CYCLE_RUBBER_MINDISTANCE_RESERVOIR",
		"CYCLE_RUBBER_MINDISTANCE_UNPREPARED", "CYCLE_RUBBER_MINDISTANCE_PREPARATION", "CYCLE_RUBBER_MINDISTANCE_LEGACY",
		"CYCLE_RUBBER_MINDISTANCE_GAP", "CYCLE_RUBBER_MINDISTANCE_GAP_BACKDOOR", "CYCLE_RUBBER_MINDISTANCE_GAP_SIDE",
		"CYCLE_RUBBER_MINADJUST", "CYCLE_RUBBER_LEGACY", "CYCLE_RUBBER_DELAY", "CYCLE_RUBBER_DELAY_BONUS",
		"CYCLE_RUBBER_MALUS_TURN", "CYCLE_RUBBER_MALUS_TIME", "CYCLE_RUBBER_WALL_SHRINK":
		return "a refinement of Armagetron's rubber that Webtron does not have", true
	case "CYCLE_WIDTH", "CYCLE_WIDTH_SIDE", "CYCLE_WIDTH_RUBBER_MIN", "CYCLE_WIDTH_RUBBER_MAX",
		"CYCLE_BOOST_SELF", "CYCLE_BOOST_TEAM", "CYCLE_BOOST_ENEMY", "CYCLE_BOOST_RIM",
		"CYCLE_BOOSTFACTOR_SELF", "CYCLE_BOOSTFACTOR_TEAM", "CYCLE_BOOSTFACTOR_ENEMY", "CYCLE_BOOSTFACTOR_RIM",
		"CYCLE_DIST_WALL_SHRINK", "CYCLE_DIST_WALL_SHRINK_OFFSET", "CYCLE_INVULNERABLE_TIME", "CYCLE_WALL_TIME",
		"CYCLE_FIRST_SPAWN_PROTECTION", "WIN_ZONE_DEATHS", "ENEMY_DEAD_PENALTY", "ENEMY_CURRENTTIME_INFLUENCE",
		"ENEMY_CHATBOT_PENALTY", "CYCLE_WALLS_STAY_UP_DELAY", "CYCLE_WALLS_LENGTH", "CYCLE_EXPLOSION_RADIUS":
		return "an Armagetron rule Webtron does not have (its default is Webtron's behaviour)", true
	case "TEAMS_MIN", "TEAMS_MAX", "TEAM_MIN_PLAYERS", "TEAM_MAX_IMBALANCE", "TEAM_BALANCE_WITH_AIS",
		"TEAM_BALANCE_ON_QUIT", "AUTO_TEAM", "ALLOW_TEAM_CHANGE":
		return "Webtron deals teams itself (docs/physics.md, teams)", true
	case "LIMIT_TIME", "NUM_AIS", "MIN_PLAYERS", "AUTO_AIS", "AUTO_IQ":
		return "Webtron's rooms fill seats with bots (BOTS, SEATS) and have no time limit", true
	case "FORTRESS_CONQUERED_SCORE", "FORTRESS_HELD_SCORE", "FORTRESS_CONQUERED_KILL_MIN", "FORTRESS_CONQUERED_KILL_RATIO",
		"FORTRESS_CONQUEST_TIMEOUT":
		return "a fortress rule Webtron does not have (its default, 0, is Webtron's behaviour)", true
	case "MAP_FILE_OVERRIDE":
		return "a map's settings always apply over the server's", true
	case "AI_IQ": // SP_AI_IQ: AI_IQ itself is a setting
		return "a room's bots have one skill (AI_IQ) whatever the number of humans", true
	}
	return "", false
}
