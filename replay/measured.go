package replay

import (
	"encoding/binary"
	"errors"
	"time"

	"webtron/history"
	"webtron/internal/errwrap"
	"webtron/sim"
)

// appendMeasured appends the version-2 sections: the result always, the
// rest when the record has them. w is scratch space.
func appendMeasured(b []byte, r *history.RoundRecord, w []byte) []byte {
	w = w[:0]
	if r.Decided {
		w = append(w, 1)
		w = binary.AppendVarint(w, int64(r.Winner))
	} else {
		w = append(w, 0)
	}
	b = appendSection(b, tagResult, w)

	if r.Bots != nil {
		w = w[:0]
		n := 0
		for _, bot := range r.Bots {
			if bot {
				n++
			}
		}
		w = binary.AppendUvarint(w, uint64(n))
		for p, bot := range r.Bots {
			if bot {
				w = append(w, byte(p))
			}
		}
		b = appendSection(b, tagBots, w)
	}

	if r.Net != nil {
		w = binary.AppendUvarint(w[:0], uint64(len(r.Net)))
		prev := r.StartTick
		for _, s := range r.Net {
			w = binary.AppendVarint(w, s.Tick-prev)
			prev = s.Tick
			w = append(w, s.Player)
			for _, d := range [...]time.Duration{s.Lead, s.Leniency, s.OneWay, s.Jitter} {
				w = binary.AppendUvarint(w, uint64(d/time.Microsecond))
			}
			w = binary.AppendVarint(w, micros(s.Ahead))
		}
		b = appendSection(b, tagNet, w)
	}

	if r.Timing != nil {
		w = binary.AppendUvarint(w[:0], uint64(len(r.Timing)))
		prev := int64(0)
		for i, t := range r.Timing {
			acc := micros(t.Accepted)
			w = binary.AppendUvarint(w, uint64(r.Events[i].Tick-t.Asked))
			w = binary.AppendVarint(w, acc-prev)
			w = binary.AppendUvarint(w, uint64(acc-micros(t.Arrived)))
			w = binary.AppendUvarint(w, uint64(micros(t.Broadcast)-acc))
			prev = acc
		}
		b = appendSection(b, tagTiming, w)
	}
	return b
}

// micros is d in whole microseconds, the unit the file stores.
func micros(d time.Duration) int64 { return int64(d / time.Microsecond) }

// checkMeasured refuses version-2 content the format cannot carry or the
// reader would refuse.
func checkMeasured(r *history.RoundRecord) error {
	switch {
	case r.Decided && (r.Winner < -1 || r.Winner >= sim.MaxPlayers):
		return errors.New("replay: winner out of range")
	case len(r.Bots) > sim.MaxPlayers:
		return errors.New("replay: more bot flags than player slots")
	case r.Timing != nil && len(r.Timing) != len(r.Events):
		return errorString("replay: " + itoa(int64(len(r.Timing))) + " event timings for " + itoa(int64(len(r.Events))) + " events")
	}
	prev := r.StartTick
	for i, s := range r.Net {
		switch {
		case s.Tick < prev || s.Tick > r.EndTick:
			return errorString("replay: net sample " + itoa(int64(i)) + " at tick " + itoa(s.Tick) + " out of order or outside [" + itoa(r.StartTick) + ", " + itoa(r.EndTick) + "]")
		case s.Player >= sim.MaxPlayers:
			return errorString("replay: net sample " + itoa(int64(i)) + " names player " + itoa(int64(s.Player)))
		}
		for _, d := range [...]time.Duration{s.Lead, s.Leniency, s.OneWay, s.Jitter} {
			if d < 0 || micros(d) > maxMicros {
				return errorString("replay: net sample " + itoa(int64(i)) + " has a duration of " + d.String())
			}
		}
		if micros(s.Ahead) > maxMicros || micros(s.Ahead) < -maxMicros {
			return errorString("replay: net sample " + itoa(int64(i)) + " has a clock " + s.Ahead.String() + " ahead")
		}
		prev = s.Tick
	}
	for i, t := range r.Timing {
		tick := r.Events[i].Tick
		switch {
		case t.Asked > tick || tick-t.Asked > MaxTicks:
			return errorString("replay: event " + itoa(int64(i)) + " at tick " + itoa(tick) + " asked for tick " + itoa(t.Asked))
		case micros(t.Arrived) > micros(t.Accepted) || micros(t.Accepted) > micros(t.Broadcast):
			return errorString("replay: event " + itoa(int64(i)) + " arrived " + t.Arrived.String() + ", accepted " + t.Accepted.String() + ", broadcast " + t.Broadcast.String() + ": out of order")
		case micros(t.Arrived) < -maxMicros || micros(t.Broadcast) > maxMicros:
			return errorString("replay: event " + itoa(int64(i)) + " timed out of range")
		}
	}
	return nil
}

// parseMeasured decodes the version-2 sections; secs and seen are indexed
// from tagResult.
func (f *File) parseMeasured(secs [][]byte, seen []bool) error {
	r := &f.Record
	if seen[0] {
		d := reader{b: secs[0]}
		switch d.u8("decided") {
		case 0:
		case 1:
			r.Decided = true
			r.Winner = int(max(min(d.varint("winner"), sim.MaxPlayers), -2))
		default:
			return errwrap.Wrap(ErrCorrupt, "result is neither decided nor undecided")
		}
		if err := d.end("result"); err != nil {
			return err
		}
	}
	if seen[tagBots-tagResult] {
		d := reader{b: secs[tagBots-tagResult]}
		n := d.count("bots", 1)
		r.Bots = make([]bool, sim.MaxPlayers)
		prev := -1
		for i := uint64(0); i < n && d.err == nil; i++ {
			p := int(d.u8("bot slot"))
			if d.err == nil && (p >= sim.MaxPlayers || p <= prev) {
				return errwrap.Wrap(ErrCorrupt, "bot slot "+itoa(int64(p))+" out of order")
			}
			r.Bots[p], prev = true, p
		}
		if err := d.end("bots"); err != nil {
			return err
		}
	}
	if seen[tagNet-tagResult] {
		d := reader{b: secs[tagNet-tagResult]}
		n := d.count("net samples", 7)
		r.Net = make([]history.NetSample, 0, n)
		tick := r.StartTick
		for i := uint64(0); i < n && d.err == nil; i++ {
			tick += d.varint("sample tick")
			s := history.NetSample{Tick: tick, Player: d.u8("sample player")}
			s.Lead, s.Leniency = d.micros("lead"), d.micros("leniency")
			s.OneWay, s.Jitter = d.micros("one-way latency"), d.micros("jitter")
			s.Ahead = time.Duration(max(min(d.varint("ahead"), maxMicros+1), -maxMicros-1)) * time.Microsecond
			r.Net = append(r.Net, s)
		}
		if err := d.end("net"); err != nil {
			return err
		}
	}
	if seen[tagTiming-tagResult] {
		d := reader{b: secs[tagTiming-tagResult]}
		n := d.count("timings", 4)
		if n != uint64(len(r.Events)) {
			return errwrap.Wrap(ErrCorrupt, utoa(n)+" timings for "+itoa(int64(len(r.Events)))+" events")
		}
		r.Timing = make([]history.EventTiming, 0, n)
		acc := int64(0)
		for i := uint64(0); i < n && d.err == nil; i++ {
			var t history.EventTiming
			t.Asked = r.Events[i].Tick - int64(min(d.uvarint("postponed by"), MaxTicks+1))
			acc = max(min(acc+d.varint("accepted"), maxMicros+1), -maxMicros-1)
			t.Accepted = time.Duration(acc) * time.Microsecond
			t.Arrived = t.Accepted - d.micros("arrived before")
			t.Broadcast = t.Accepted + d.micros("broadcast after")
			r.Timing = append(r.Timing, t)
		}
		if err := d.end("timing"); err != nil {
			return err
		}
	}
	return nil
}

// micros reads a non-negative duration in microseconds; one beyond
// maxMicros is kept just out of range, for checkMeasured to refuse.
func (r *reader) micros(field string) time.Duration {
	return time.Duration(min(r.uvarint(field), maxMicros+1)) * time.Microsecond
}
