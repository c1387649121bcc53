package sim

// Phase is where a round stands.
type Phase uint8

// Round phases. A State starts Waiting; a round goes Prepare -> Play -> Over
// and the next one starts by itself while enough players are present.
const (
	PhaseWaiting Phase = iota // fewer than Config.MinPlayers present: nothing moves
	PhasePrepare              // countdown: cycles stand on their spawn points
	PhasePlay                 // cycles move; the round ends when one team is left
	PhaseOver                 // round decided; the winner is shown until PhaseEnd
)

// maxTurnQueue bounds the turns a cycle holds back under the turn delay; the
// queue is a bit set in Cycle so that a snapshot stays a flat copy.
// Deviation: Armagetron's queue has no bound (same-side turns are always
// appended); 32 turns wait 3.2 s at the default delay.
const maxTurnQueue = 32

// NoTeam is Cycle.Team of a player not yet put in a team.
const NoTeam = 255

// Cycle is one player slot: who is there, and the cycle it drives this round.
type Cycle struct {
	Present bool  // a player holds this slot
	Human   bool  // joined as a human player (EvJoin's Arg has JoinHuman), not a bot
	Machine uint8 // the address it joined from, as a number (JoinArg; 0 none): players of one machine are not enemies
	InRound bool  // spawned in the current round
	Alive   bool  // in the round and not crashed
	Braking bool  // brake held
	Dir     uint8 // 0 east (+x), 1 north (+y), 2 west, 3 south; on a map of other Axes, 0..Axes-1 counter-clockwise from east (axes.go)
	Team    uint8 // team (0..MaxPlayers-1, NoTeam before the first round); teammates win together
	Killer  int8  // who is credited with its death this round: player id, -1 none
	Cause   DeathCause

	X, Y         int64 // position, micrometres
	Speed        int64 // micrometres per second
	Sub          int64 // remainder of the distance ridden, in 1/(SubTicks x TickRate) micrometres, carried on so that distance never drifts
	RubberUsed   int64 // micrometres of denied travel, decaying
	Brake        int64 // reservoir, 0..Unit
	TurnX, TurnY int64 // where the open wall segment (the one being laid now) starts
	Odo          int64 // distance driven this round; finite trails and holes are measured by it
	SegOdo       int64 // Odo at TurnX, TurnY
	SegTick      int64 // tick at which the open segment was started
	LastLeft     int64 // instant of the last turn to the left, in 1/SubTicks of a tick since tick 0
	LastRight    int64 // instant of the last turn to the right, likewise
	DeathTick    int64 // tick of death this round (walls vanish after WALLS_STAY_UP_DELAY)
	Latency      int64 // microseconds of latency that ping rubber counts (EvLatency; 0 for bots)

	// Enemy is the player whose wall most recently influenced this cycle
	// (Armagetron's gEnemyInfluence: seen by its side sensors, or hit), -1
	// none, and EnemyTick when that wall was built, less Armagetron's time
	// penalties: a death on the rim or one's own wall is credited to it.
	Enemy     int8
	EnemyTick int64

	Queue    uint64 // turns waiting for the turn delay, oldest in bit 0: 1 left, 0 right
	QueueLen uint8

	Score, Kills, Deaths int64
	RoundScore           int64 // points made this round: the round's summary shows them to a player who joined mid-round too

	// lastHole is one past the global index of the newest hole in this
	// cycle's trail this round (0: none), the head of its chain (Hole.prev).
	// It is derived from the holes, so neither hashed nor encoded.
	lastHole int64
}

// LastTurn returns the tick of the cycle's last turn to either side.
func (c *Cycle) LastTurn() int64 { return mulDiv(max(c.LastLeft, c.LastRight), 1, SubTicks) }

// Wall is a closed, straight trail segment, axis-aligned unless the map's
// Axes is not 4. Walls are only ever
// appended during a round, which is what makes snapshots cheap: a snapshot
// records how many walls there were, never the walls themselves.
type Wall struct {
	X1, Y1, X2, Y2 int64 // from (X1,Y1), where it was started, to (X2,Y2)
	Odo            int64 // owner's odometer at (X1,Y1): finite trails and holes are measured by it
	T1, T2         int64 // ticks at which (X1,Y1) and (X2,Y2) were laid
	Owner          uint8
}

// Hole is a stretch of a player's trail blown away by an explosion, measured
// by the owner's odometer: every wall of Owner loses the part between From and
// To. Holes are appended like walls.
type Hole struct {
	From, To int64
	Owner    uint8
	prev     int64 // one past the global index of the owner's previous hole this round, 0 none
}

// core is everything that Snapshot copies. It is a flat value: no slices, no
// pointers, so a copy is one memmove of a fixed size.
type core struct {
	Tick      int64
	Phase     Phase
	Set       uint8 // rules of this round: SetSP or SetMP
	PhaseEnd  int64 // tick at which Prepare or Over ends
	PlayStart int64 // tick at which this round's play began (or begins)
	Round     int64 // rounds started in this match
	Match     int64 // matches started
	Winner    int8  // team that won the last decided round, -1 for none
	Wish      int8  // team that rode into the win zone, named winner once the last death is a second old; -1 none
	Started   int64 // cycles that spawned in this round
	Teams     int64 // teams that spawned in this round

	// LastDeath is the tick of the round's latest death (its start before
	// any), and NoHuman the tick from which no human cycle has been alive
	// while a human is present (-1 while that is not so): FINISH_TYPE ends
	// the round some time after the later of the two.
	LastDeath, NoHuman int64

	// The win zone: opened at ZoneTick (-1: not open) at ZoneX, ZoneY.
	ZoneTick, ZoneX, ZoneY int64

	RoundWallStart int64  // global index of this round's first wall
	WallCount      int64  // global index one past the newest wall
	RoundHoleStart int64  // global index of this round's first hole
	HoleCount      int64  // global index one past the newest hole
	WallHash       uint64 // running hash of every wall and hole appended, so Hash is O(1) in walls
	Rng            uint64 // spawn and win zone draws

	// Zones are the states of the map's zones this round (the first
	// len(Config.Map.Zones)), hashed and encoded only on a map with zones.
	Zones [maxZones]ZoneState

	TeamScore [MaxPlayers]int64 // score of each team this match
	TeamRound [MaxPlayers]int64 // points each team made this round (the round's summary)
	Cycles    [MaxPlayers]Cycle
}

// State is the whole simulation. The zero value is not usable: call NewState.
type State struct {
	c    core
	cfg  Config
	dirs [][2]int64 // the map's directions (axisTable), nil for the four: the slanted geometry plays when set
	d    derived
	sd   [2]setDerived // per set: SetSP, SetMP

	// walls holds this round's and the previous round's walls: rolling back
	// across a round start needs the old ones, nothing needs older ones.
	// walls[i] has global index wallBase+i. holes likewise.
	walls    []Wall
	wallBase int64
	holes    []Hole
	holeBase int64
	grid     grid

	// where cycles exploded this round (nearBlast), by seat, and the bands
	// their blasts reach, valid while blastStamp is Tick+1: a death or a
	// Restore clears it.
	blasts     [MaxPlayers][2]int64
	blastBands bands
	// what blastBands was built from: the seats, EXPLOSION_RADIUS, the arena
	blastSeats  uint32
	blastRadius int64
	blastArena  int64
	blastStamp  int64
	near        [MaxPlayers][2]int64 // blastsNear's answer

	// scratch for Step, kept here so a tick allocates nothing.
	moves     [MaxPlayers]move
	live      uint32 // the living cycles, a bit each, while liveOK: set while moveCycles plans the moves, when no cycle dies
	liveOK    bool
	open      bands // the living cycles' open segments while openOK: set while moveCycles plans the moves, which stand still then
	openOK    bool
	crossings []crossing
	evBuf     []Event
	presses   []press  // this tick's turns pressed in play, made in moveCycles
	corners   []corner // this tick's corners, laid once every cycle has made its turns
	hasher    hasher
}

// derived are Config values turned into per-tick integers once.
type derived struct {
	prepare      int64 // ticks
	roundOver    int64 // ticks
	decide       int64 // ticks without a death before a round is decided (1 s)
	brakeDrain   int64 // reservoir per tick
	brakeRefill  int64
	rubberShrink int64 // e^(-RubberSpeed/TickRate) in Unit
	rubberDecayT int64 // RubberTimeMs in ticks
	suicide      int64 // ENEMY_SUICIDE_TIMEOUT in ticks
	teammate     int64 // ENEMY_TEAMMATE_PENALTY in ticks
}

// setDerived are a Set's values, with SPEED_FACTOR and SIZE_FACTOR applied,
// in per-tick integers.
type setDerived struct {
	arena          int64 // side of the arena
	speedMult      int64 // 2^(SPEED_FACTOR/2) in Unit
	startSpeed     int64
	baseSpeed      int64
	minSpeed       int64
	maxSpeed       int64
	brake          int64 // micrometres per second squared
	turnDelay      int64 // 1/SubTicks of a tick, from the last turn to the other side
	turnDelaySame  int64 // 1/SubTicks of a tick, from the last turn to the same side
	deadWall       int64 // ticks from a death until its walls stop being deadly, -1 never
	sinkWall       int64 // ticks from a death until its walls start to sink from sight, -1 never
	finish         int64 // ticks a round goes on once no human is alive, -1 to its end
	zoneRound      int64 // ticks of play before the win zone may open
	zoneDeath      int64 // ticks since the last death before it may open
	wingBack       int64 // spawn formation, micrometres
	wingSide       int64
	explosion      int64 // EXPLOSION_RADIUS
	wallsLength    int64
	teamMaxPlayers int64
	mp             *mapArena // Config.Map laid out at this set's size, nil for the square
}

// NewState returns a fresh state in PhaseWaiting with no players, or an error
// if cfg fails Validate.
func NewState(cfg Config, seed uint64) (*State, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &State{cfg: cfg, dirs: axisTable(cfg.Map)}
	s.derive()
	s.c.Rng = seed ^ 0x9e3779b97f4a7c15
	s.c.Winner = -1
	s.c.ZoneTick = -1
	s.c.NoHuman = -1
	for i := range s.c.Cycles {
		s.c.Cycles[i].Killer = -1
		s.c.Cycles[i].Enemy = -1
		s.c.Cycles[i].Team = NoTeam
	}
	s.grid.init(max(s.sd[SetSP].arena, s.sd[SetMP].arena))
	s.resetZones()
	return s, nil
}

func (s *State) derive() {
	c := &s.cfg
	s.d = derived{
		prepare:      c.ticks(c.PrepareMs),
		roundOver:    c.ticks(c.RoundOverMs),
		decide:       c.ticks(1000),
		brakeDrain:   c.BrakeDeplete / c.TickRate,
		brakeRefill:  c.BrakeRefill / c.TickRate,
		rubberShrink: expNeg(c.RubberSpeed, c.TickRate*Unit),
		rubberDecayT: max(1, c.RubberTimeMs*c.TickRate/1000),
		suicide:      c.ticks(c.EnemySuicideTimeoutMs),
		teammate:     c.ticks(c.EnemyTeammatePenaltyMs),
	}
	for k := range s.sd {
		st := c.set(uint8(k))
		m := pow2half(st.SpeedFactor)
		base := c.BaseSpeed * m / Unit
		sd := setDerived{
			arena:          c.arena(st),
			speedMult:      m,
			startSpeed:     c.StartSpeed * m / Unit,
			baseSpeed:      base,
			minSpeed:       base * c.SpeedMin / Unit,
			maxSpeed:       MaxSpeed,
			brake:          c.Brake * m / Unit,
			deadWall:       -1,
			sinkWall:       -1,
			finish:         -1,
			zoneRound:      c.ticks(st.WinZoneMinRoundTimeMs),
			zoneDeath:      c.ticks(st.WinZoneMinLastDeathMs),
			wingBack:       c.SpawnWingmenBack * m / Unit,
			wingSide:       c.SpawnWingmenSide * m / Unit,
			explosion:      st.ExplosionRadius,
			wallsLength:    st.WallsLength,
			teamMaxPlayers: st.TeamMaxPlayers,
		}
		if c.Map != nil {
			sd.mp = scaleMap(c.Map, sd.arena)
			sd.arena = sd.mp.side()
		}
		if c.SpeedMax > 0 {
			sd.maxSpeed = min(MaxSpeed, base*c.SpeedMax/Unit)
		}
		// Armagetron's delay is CYCLE_DELAY / SpeedMultiplier (and times the
		// double-bind bonus to the same side); in 1/SubTicks of a tick,
		// rounded up.
		delayUs := c.TurnDelayMs * 1000 * Unit / m
		sd.turnDelay = (delayUs*c.TickRate*SubTicks + 999_999) / 1_000_000
		sd.turnDelaySame = (delayUs*c.DoublebindBonus/Unit*c.TickRate*SubTicks + 999_999) / 1_000_000
		if st.WallsStayUpDelayMs >= 0 {
			// gNetPlayerWall::IsDangerous* (gWall.cpp lines 2396 and
			// 2422): deadly until WALLS_STAY_UP_DELAY + 0.2 s after the
			// death; drawn sinking from WALLS_STAY_UP_DELAY over 0.5 s
			// (RenderNormal, line 1073: dt = 2 (t - death - delay)).
			sd.deadWall = c.ticks(st.WallsStayUpDelayMs + 200)
			sd.sinkWall = c.ticks(st.WallsStayUpDelayMs)
		}
		switch st.FinishType {
		case FinishExpress:
			sd.finish = c.ticks(2000)
		case FinishReset:
			sd.finish = c.ticks(4000)
		}
		s.sd[k] = sd
	}
}

// dv returns the current round's set values.
func (s *State) dv() *setDerived { return &s.sd[s.c.Set&1] }

// rules returns the current round's Set.
func (s *State) rules() *Set { return s.cfg.set(s.c.Set) }

// Config returns the match rules.
func (s *State) Config() Config { return s.cfg }

// Rules returns the Set the current round is played under (Config.SP or
// Config.MP) and which one it is (SetSP or SetMP).
func (s *State) Rules() (Set, int) { return *s.rules(), int(s.c.Set & 1) }

// Arena returns the side of the current round's arena, micrometres.
func (s *State) Arena() int64 { return s.dv().arena }

// TurnDelay returns the current round's turn delays in ticks, rounded up:
// from the last turn to the other side, and from the last turn to the same
// side.
func (s *State) TurnDelay() (other, same int64) {
	d := s.dv()
	return (d.turnDelay + SubTicks - 1) / SubTicks, (d.turnDelaySame + SubTicks - 1) / SubTicks
}

// DeadWallTicks returns how long after its death a dead cycle's walls start
// to sink from sight in the current round, in ticks, or -1 when they stay:
// they are drawn sinking for half a second from then (Armagetron's
// RenderNormal), and stop being deadly 0.2 s into it.
func (s *State) DeadWallTicks() int64 { return s.dv().sinkWall }

// DeadlyWallTicks returns how long after its death a dead cycle's walls
// still kill in the current round, in ticks, or -1 when they always do: a
// wall is there for whoever steers around it until then.
func (s *State) DeadlyWallTicks() int64 { return s.dv().deadWall }

// WallsLength returns the current round's trail length, <= 0 for infinite.
func (s *State) WallsLength() int64 { return s.dv().wallsLength }

// Tick returns the number of ticks stepped so far: Step applies the events of
// tick Tick() and then Tick() grows by one.
func (s *State) Tick() int64 { return s.c.Tick }

// Phase returns the round's phase and the tick at which a Prepare or Over phase ends.
func (s *State) Phase() (Phase, int64) { return s.c.Phase, s.c.PhaseEnd }

// Round returns the number of rounds started in the current match, and the match number.
func (s *State) Round() (round, match int64) { return s.c.Round, s.c.Match }

// Winner returns the team that won the last decided round, or -1. While every
// player is on a team of their own (TEAM_MAX_PLAYERS 1) a team is its player's id.
func (s *State) Winner() int { return int(s.c.Winner) }

// Teams returns how many teams spawned in the current round.
func (s *State) Teams() int64 { return s.c.Teams }

// ExplosionRadius returns the current round's EXPLOSION_RADIUS: how far a
// dying cycle's blast cuts, micrometres.
func (s *State) ExplosionRadius() int64 { return s.dv().explosion }

// TeamScore returns team t's score in the current match.
func (s *State) TeamScore(t int) int64 { return s.c.TeamScore[t] }

// TeamRound returns the points team t made in the current round.
func (s *State) TeamRound(t int) int64 { return s.c.TeamRound[t] }

// MatchOver reports that the round is over and the match has reached its
// limits (LIMIT_ROUNDS or LIMIT_SCORE): the next round starts a new match,
// with the scores reset, so this is the moment to show the final standings.
func (s *State) MatchOver() bool { return s.c.Phase == PhaseOver && s.matchOver() }

// LimitRounds returns LIMIT_ROUNDS of the current round's set.
func (s *State) LimitRounds() int64 { return s.rules().LimitRounds }

// Cycle returns a copy of player slot id.
func (s *State) Cycle(id int) Cycle { return s.c.Cycles[id] }

// WallCount returns how many walls the current round has laid (closed segments;
// each living cycle also has one open segment from TurnX,TurnY to X,Y).
func (s *State) WallCount() int { return int(s.c.WallCount - s.c.RoundWallStart) }

// RoundWalls returns the current round's closed walls. The slice aliases the
// state: read it before the next Step or Restore and do not modify it.
func (s *State) RoundWalls() []Wall {
	return s.walls[s.c.RoundWallStart-s.wallBase : s.c.WallCount-s.wallBase]
}

// RoundHoles returns the holes explosions have blown into the current
// round's trails, in the order they were made, aliasing the state like
// RoundWalls.
func (s *State) RoundHoles() []Hole {
	return s.holes[s.c.RoundHoleStart-s.holeBase : s.c.HoleCount-s.holeBase]
}

// WallVisible reports whether any of wall w still stands (its owner's walls
// have not vanished after death, and finite trails have not receded past it)
// and returns that part, holes included: WallPieces splits it at its holes.
func (s *State) WallVisible(w Wall) (Wall, bool) { return s.visible(w) }

// expNeg returns e^(-a/b) in Unit, with integers only: halve the exponent until
// it is small, sum a short Taylor series, then square back.
func expNeg(a, b int64) int64 {
	const scale = 1_000_000_000
	halvings := 0
	for a*8 > b {
		b *= 2
		halvings++
	}
	// Keep a and b small enough that the series' products stay in range.
	for b > 1<<40 {
		a, b = a/2, b/2
	}
	sum, term := int64(scale), int64(scale)
	for n := int64(1); n < 12; n++ {
		term = -term * a / (b * n)
		sum += term
	}
	for ; halvings > 0; halvings-- {
		sum = sum * sum / scale
	}
	return sum / (scale / Unit)
}
