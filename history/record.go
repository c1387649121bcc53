package history

import "time"

// RoundRecord is everything needed to replay one round: the confirmed state at
// its start, every event from then to its end, and hashes along the way. The
// timeline fills the history and the outcome; package room adds what the
// server measured (Bots, Net, Timing), which the history itself never needs
// and which a replay viewer uses to show what each player saw.
type RoundRecord struct {
	StartTick, EndTick int64
	Start              []byte // sim.State.AppendBinary at StartTick
	Events             []TickEvent
	Hashes             []TickHash
	// Decided reports that the round was decided on the confirmed state
	// within the record (its phase reached Over), and Winner by whom: a
	// player slot, or -1 for a draw. A record cut short is not decided.
	Decided bool
	Winner  int

	// Bots marks the player slots a server bot held during the round; nil
	// when unknown.
	Bots []bool
	// Net holds each human player's network figures as the server set and
	// measured them, in tick order: a sample for everyone at StartTick, then
	// one whenever a figure changed. Nil when unknown.
	Net []NetSample
	// Timing is parallel to Events (same length and order) when known: when
	// the server received, accepted and broadcast each event.
	Timing []EventTiming
}

// NetSample is one player's network figures from Tick on: the lead the server
// asked for, the leniency it granted, and the one-way latency (half the
// windowed minimum of the round trip) and jitter it measured (netcode.md,
// sections 2 and 3); and Ahead, how far the player's clock actually ran
// ahead of the server's, as its answers to the server's pings showed (its
// real lead: the one asked for, the mind reader's and any correction).
type NetSample struct {
	Tick     int64
	Player   uint8
	Lead     time.Duration
	Leniency time.Duration
	OneWay   time.Duration
	Jitter   time.Duration
	Ahead    time.Duration
}

// EventTiming is when the server handled one event, on its own clock as time
// since the room's tick 0 (tick t is due at t times the tick duration).
type EventTiming struct {
	// Asked is the tick the proposer asked for: the event's tick unless the
	// server postponed it. Server-made events ask for the tick they land at.
	Asked int64
	// Arrived is when the proposal reached the server; Accepted when the
	// server decided on it; Broadcast when the decision left for every
	// client. Server-made events arrive when they are made.
	Arrived, Accepted, Broadcast time.Duration
}
