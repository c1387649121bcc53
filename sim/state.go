package sim

// Phase is where a round stands.
type Phase uint8

// Round phases. A State starts Waiting; a round goes Prepare -> Play -> Over
// and the next one starts by itself while enough players are present.
const (
	PhaseWaiting Phase = iota // fewer than Config.MinPlayers present: nothing moves
	PhasePrepare              // countdown: cycles stand on their spawn points
	PhasePlay                 // cycles move; the round ends when at most one is left
	PhaseOver                 // round decided; the winner is shown until PhaseEnd
)

// maxTurnQueue bounds Config.TurnQueue; the queue lives in a fixed array so a
// snapshot stays a flat copy.
const maxTurnQueue = 4

// Cycle is one player slot: who is there, and the cycle it drives this round.
type Cycle struct {
	Present bool  // a player holds this slot
	InRound bool  // spawned in the current round
	Alive   bool  // in the round and not crashed
	Braking bool  // brake held
	Human   bool  // joined as a human player (EvJoin's Arg has JoinHuman), not a bot
	Dir     uint8 // 0 east (+x), 1 north (+y), 2 west, 3 south
	Team    uint8 // team this round; teammates share a win and score no kills on each other
	Killer  int8  // who is credited with its death this round: player id, -1 none
	Cause   DeathCause

	X, Y         int64 // position, micrometres
	Speed        int64 // micrometres per second
	Sub          int64 // remainder of Speed/TickRate carried to the next tick, so distance never drifts
	RubberUsed   int64 // micrometres of denied travel, decaying
	Brake        int64 // reservoir, 0..Unit
	TurnX, TurnY int64 // where the open wall segment (the one being laid now) starts
	Odo          int64 // distance driven this round; finite trails are cut by it
	SegOdo       int64 // Odo at TurnX, TurnY
	LastTurn     int64 // tick of the last turn
	DeathTick    int64 // tick of death this round (walls vanish after Config.DeadWallDelayMs)

	Queue    [maxTurnQueue]int8 // pending turns: +1 left, -1 right
	QueueLen uint8

	Score, Kills, Deaths int64
}

// Wall is a closed, straight, axis-aligned trail segment. Walls are only ever
// appended during a round, which is what makes snapshots cheap: a snapshot
// records how many walls there were, never the walls themselves.
type Wall struct {
	X1, Y1, X2, Y2 int64 // from (X1,Y1), where it was started, to (X2,Y2)
	Odo            int64 // owner's odometer at (X1,Y1), for finite trails
	Owner          uint8
}

// core is everything that Snapshot copies. It is a flat value: no slices, no
// pointers, so a copy is one memmove of a fixed size.
type core struct {
	Tick     int64
	Phase    Phase
	PhaseEnd int64 // tick at which Prepare or Over ends
	Round    int64 // rounds started in this match
	Match    int64 // matches started
	Winner   int8  // winner of the last decided round, -1 for none
	Started  int64 // cycles that spawned in this round

	// LastDeath is the tick of the round's latest death (its start before
	// any), and NoHuman the tick from which no human cycle has been alive
	// while a human is present (-1 while that is not so): FINISH_TYPE ends
	// the round some time after the later of the two.
	LastDeath, NoHuman int64

	RoundWallStart int64  // global index of this round's first wall
	WallCount      int64  // global index one past the newest wall
	WallHash       uint64 // running hash of every wall appended, so Hash is O(1) in walls
	Rng            uint64 // spawn shuffling

	Cycles [MaxPlayers]Cycle
}

// State is the whole simulation. The zero value is not usable: call NewState.
type State struct {
	c   core
	cfg Config
	d   derived

	// walls holds this round's and the previous round's walls: rolling back
	// across a round start needs the old ones, nothing needs older ones.
	// walls[i] has global index wallBase+i.
	walls    []Wall
	wallBase int64
	grid     grid

	// scratch for Step, kept here so a tick allocates nothing.
	moves     [MaxPlayers]move
	crossings []crossing
	evBuf     []Event
	hasher    hasher
}

// derived are Config values turned into per-tick integers once.
type derived struct {
	turnDelay                  int64 // ticks
	deadWall                   int64 // ticks
	prepare                    int64 // ticks
	roundOver                  int64 // ticks
	finishExpress, finishReset int64 // ticks a round goes on once no human is alive
	minSpeed                   int64
	brakeDrain                 int64 // reservoir per tick
	brakeRefill                int64
	rubberShrink               int64 // e^(-RubberSpeed/TickRate) in Unit
	rubberDecayT               int64 // RubberDecayMs in ticks
	lookahead                  int64 // longest ray a tick needs, micrometres
}

// NewState returns a fresh state in PhaseWaiting with no players, or an error
// if cfg fails Validate.
func NewState(cfg Config, seed uint64) (*State, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &State{cfg: cfg}
	s.derive()
	s.c.Rng = seed ^ 0x9e3779b97f4a7c15
	s.c.Winner = -1
	for i := range s.c.Cycles {
		s.c.Cycles[i].Killer = -1
	}
	s.grid.init(cfg.ArenaSize)
	return s, nil
}

func (s *State) derive() {
	c := &s.cfg
	s.d = derived{
		turnDelay:     c.ticks(c.TurnDelayMs),
		deadWall:      c.ticks(c.DeadWallDelayMs),
		prepare:       c.ticks(c.PrepareMs),
		roundOver:     c.ticks(c.RoundOverMs),
		finishExpress: c.ticks(2000),
		finishReset:   c.ticks(4000),
		minSpeed:      c.BaseSpeed * c.MinSpeedPct / 100,
		brakeDrain:    c.BrakeDrain / c.TickRate,
		brakeRefill:   c.BrakeRefill / c.TickRate,
		rubberShrink:  expNeg(c.RubberSpeed, c.TickRate),
		rubberDecayT:  max(1, c.RubberDecayMs*c.TickRate/1000),
	}
	// A tick never needs to look further than the fastest possible move plus
	// the rubber zone in front of it (gap/(1-k) where the exponential approach
	// starts), so rays and sensors stay inside a few grid cells.
	fastest := 2*c.BaseSpeed + c.StartSpeed + 20*Meter
	step := fastest/c.TickRate + 1
	s.d.lookahead = step*Unit/max(1, Unit-s.d.rubberShrink) + step + Meter
}

// Config returns the match rules.
func (s *State) Config() Config { return s.cfg }

// Tick returns the number of ticks stepped so far: Step applies the events of
// tick Tick() and then Tick() grows by one.
func (s *State) Tick() int64 { return s.c.Tick }

// Phase returns the round's phase and the tick at which a Prepare or Over phase ends.
func (s *State) Phase() (Phase, int64) { return s.c.Phase, s.c.PhaseEnd }

// Round returns the number of rounds started in the current match, and the match number.
func (s *State) Round() (round, match int64) { return s.c.Round, s.c.Match }

// Winner returns the winner of the last decided round, or -1.
func (s *State) Winner() int { return int(s.c.Winner) }

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

// WallVisible reports whether wall w still stands (its owner's walls have not
// vanished after death) and returns the part of it that stands: with finite
// trails the tail recedes as the owner drives on.
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
