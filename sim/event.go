package sim

// EventKind says what an Event does. The numeric values are part of the wire
// protocol and of replay files: append new kinds, never renumber.
type EventKind uint8

// Event kinds. Player kinds come from a client; server kinds are made by the
// server (or the history of a replay) and carry the server's authority.
const (
	EvNone       EventKind = iota // never applied; the zero value is invalid on purpose
	EvTurnLeft                    // turn 90 degrees counter-clockwise (queued under the turn delay; Arg: the instant within the tick, see SubTicks)
	EvTurnRight                   // turn 90 degrees clockwise (Arg as EvTurnLeft's)
	EvBrakeOn                     // start braking (while the reservoir lasts)
	EvBrakeOff                    // stop braking
	EvJoin                        // player enters the room; it plays from the next round (Arg: JoinHuman for a human)
	EvLeave                       // player leaves; a living cycle dies as a suicide
	EvRoundStart                  // server: end the current round now and start a new one (prepare countdown)
	EvSpawn                       // server: put a joined player into the current round during its prepare countdown
	EvLatency                     // server: the latency ping rubber counts for the player (Arg: microseconds)
	evKindCount
)

// String returns a short stable name, used in logs and replay summaries.
func (k EventKind) String() string {
	switch k {
	case EvNone:
		return "none"
	case EvTurnLeft:
		return "left"
	case EvTurnRight:
		return "right"
	case EvBrakeOn:
		return "brake_on"
	case EvBrakeOff:
		return "brake_off"
	case EvJoin:
		return "join"
	case EvLeave:
		return "leave"
	case EvRoundStart:
		return "round_start"
	case EvSpawn:
		return "spawn"
	case EvLatency:
		return "latency"
	}
	return "unknown"
}

// JoinHuman in an EvJoin's Arg marks a human player (bots join with 0):
// FINISH_TYPE and the choice between the single-player and multiplayer
// settings count humans.
const JoinHuman int32 = 1

// JoinArg is an EvJoin's Arg: human (JoinHuman) and the player's machine,
// a number the room gives each address its players connect from (1..255; 0
// for bots and unknown): players of one machine are not enemies
// (ALLOW_ENEMIES_SAME_IP, Cycle.Machine).
func JoinArg(human bool, machine uint8) int32 {
	a := int32(machine) << 8
	if human {
		a |= JoinHuman
	}
	return a
}

// Valid reports whether k is a kind this version of the simulation knows.
func (k EventKind) Valid() bool { return k > EvNone && k < evKindCount }

// ServerOnly reports whether only the server may create events of kind k.
func (k EventKind) ServerOnly() bool { return k == EvRoundStart || k == EvSpawn || k == EvLatency }

// PlayerInput reports whether k is a key press a client may propose (a turn
// or a brake); every other kind is the server's to make.
func (k EventKind) PlayerInput() bool { return k >= EvTurnLeft && k <= EvBrakeOff }

// Event is one input scheduled for one tick. The tick is not part of the event:
// the history keys events by tick, and the server may move an event to a later
// tick (postpone) without changing anything else about it.
type Event struct {
	Kind   EventKind
	Player uint8  // player id, 0..MaxPlayers-1; ignored by EvRoundStart
	Seq    uint32 // the proposing client's sequence number; orders a player's events within a tick
	Arg    int32  // kind-specific argument: a turn's instant (SubTicks), EvJoin's JoinArg, EvLatency's microseconds, else 0
}

// SubTicks is how finely a turn tells the instant it was pressed: a turn
// event's Arg is that instant, in 1/SubTicks of a tick after the start of
// its tick (0..SubTicks-1; other values are taken as the nearest of those),
// and the cycle turns where it was then, as Armagetron's cycles, which move
// in continuous time, do. At 120 Hz and the 500 m/s a cycle may reach, a
// press rounded to the nearest 1/256 of a tick is within 8.2 mm of where it
// was pressed.
const SubTicks = 256

// At returns the instant within its tick at which the event happens, in
// 1/SubTicks of a tick: a turn's Arg, taken as the nearest of
// 0..SubTicks-1, and 0, the tick's start, for every other kind.
func (e Event) At() int32 {
	if e.Kind != EvTurnLeft && e.Kind != EvTurnRight {
		return 0
	}
	return min(max(e.Arg, 0), SubTicks-1)
}

// TurnArg returns the Arg of a turn pressed at the instant frac (0 <= frac
// < 1, as num/den) of its tick: the nearest 1/SubTicks, and the carry of one
// tick when that rounds up to the next tick's start (then Arg is 0).
func TurnArg(num, den int64) (arg int32, carry int64) {
	a := (2*num*SubTicks + den) / (2 * den)
	return int32(a % SubTicks), a / SubTicks
}

// Less is the canonical order of events within one tick: by player, then by the
// player's sequence number, then by kind. Server events sort with their player,
// and EvRoundStart (player ignored) sorts first because its Player is 0 and it
// carries Seq 0. Every machine applies a tick's events in this order, so the
// order in which they arrived never matters.
func (e Event) Less(o Event) bool {
	if e.Player != o.Player {
		return e.Player < o.Player
	}
	if e.Seq != o.Seq {
		return e.Seq < o.Seq
	}
	if e.Kind != o.Kind {
		return e.Kind < o.Kind
	}
	return e.Arg < o.Arg
}

// SortEvents puts events in canonical order in place (insertion sort: a tick
// holds a handful of events, and this must not allocate).
func SortEvents(evs []Event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].Less(evs[j-1]); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}
