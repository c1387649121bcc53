// Package history is Webtron's netcode core, independent of any transport: the
// event log keyed by tick, the timeline that rolls the simulation back and
// replays it when the log changes, and the server's authority that decides at
// which tick each proposed event lands (docs/netcode.md, section 1).
//
// The server, the headless bots, the lab and the browser (through WebAssembly)
// all use this one implementation.
package history

import (
	"sort"

	"webtron/sim"
)

// TickEvent is an event with the tick it is applied at.
type TickEvent struct {
	Tick int64
	Ev   sim.Event
}

// before is the log's total order: by tick, then the simulation's canonical
// order within a tick.
func (a TickEvent) before(b TickEvent) bool {
	if a.Tick != b.Tick {
		return a.Tick < b.Tick
	}
	return a.Ev.Less(b.Ev)
}

// Log holds events sorted by tick. Events mostly arrive in tick order, so an
// insert is an append plus a short shift; lookups are binary searches.
type Log struct {
	evs []TickEvent
}

// Insert adds te unless the same event is already at that tick, and reports
// whether it was added.
func (l *Log) Insert(te TickEvent) bool {
	i := sort.Search(len(l.evs), func(i int) bool { return !l.evs[i].before(te) })
	if i < len(l.evs) && l.evs[i] == te {
		return false
	}
	l.evs = append(l.evs, TickEvent{})
	copy(l.evs[i+1:], l.evs[i:])
	l.evs[i] = te
	return true
}

// Remove deletes te and reports whether it was there.
func (l *Log) Remove(te TickEvent) bool {
	i := sort.Search(len(l.evs), func(i int) bool { return !l.evs[i].before(te) })
	if i == len(l.evs) || l.evs[i] != te {
		return false
	}
	l.evs = append(l.evs[:i], l.evs[i+1:]...)
	return true
}

// index returns the position of the first event at or after tick.
func (l *Log) index(tick int64) int {
	return sort.Search(len(l.evs), func(i int) bool { return l.evs[i].Tick >= tick })
}

// AppendAt appends the events of one tick, in canonical order, to out.
func (l *Log) AppendAt(out []sim.Event, tick int64) []sim.Event {
	for i := l.index(tick); i < len(l.evs) && l.evs[i].Tick == tick; i++ {
		out = append(out, l.evs[i].Ev)
	}
	return out
}

// From returns the events at ticks >= tick. The slice aliases the log: copy it
// before the log changes.
func (l *Log) From(tick int64) []TickEvent { return l.evs[l.index(tick):] }

// Range returns the events with from <= tick < to, aliasing the log.
func (l *Log) Range(from, to int64) []TickEvent { return l.evs[l.index(from):l.index(to)] }

// DropBefore forgets the events at ticks < tick: what no one can need any more.
func (l *Log) DropBefore(tick int64) {
	i := l.index(tick)
	if i == 0 {
		return
	}
	n := copy(l.evs, l.evs[i:])
	clear(l.evs[n:])
	l.evs = l.evs[:n]
}

// Len returns the number of events held.
func (l *Log) Len() int { return len(l.evs) }
