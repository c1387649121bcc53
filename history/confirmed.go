package history

import "webtron/sim"

// Finalize steps the confirmed state through every tick before `through`: the
// caller guarantees that no event can still land there. Round records are
// cut as rounds start, and the log forgets what neither the confirmed round
// nor the snapshot window can need.
func (t *Timeline) Finalize(through int64) {
	if t.conf == nil {
		t.Log.DropBefore(min(through, t.pred.Tick()) - t.opt.Window)
		return
	}
	through = min(through, t.Present())
	for tick := t.conf.Tick(); tick < through; tick++ {
		t.evBuf = t.Log.AppendAt(t.evBuf[:0], tick)
		before, _ := t.conf.Phase()
		t.conf.Step(t.evBuf)
		next := tick + 1
		if ph, _ := t.conf.Phase(); ph == sim.PhaseOver && before != sim.PhaseOver && !t.roundDecided {
			t.roundDecided, t.roundWinner = true, t.conf.Winner()
		}
		if m, r := t.conf.Round(); m != t.confRound[0] || r != t.confRound[1] {
			t.confRound = [2]int64{m, r}
			t.newRound(next)
		}
		if next%t.opt.HashEvery == 0 {
			h := t.conf.Hash()
			t.roundHash = append(t.roundHash, TickHash{next, h})
			t.confHash[next/t.opt.HashEvery%int64(len(t.confHash))] = hashSlot{next, h}
		}
	}
	// Rollbacks never reach before the confirmed tick, so the predicted state
	// needs nothing older than the snapshot at or before it.
	t.dropped = max(t.dropped, min(t.roundTick, t.conf.Tick()-t.opt.SnapshotEvery))
	t.Log.DropBefore(t.dropped)
}

// newRound closes the previous round's record and snapshots the new round's
// start: the confirmed state after the tick that started it.
func (t *Timeline) newRound(start int64) {
	if t.opt.OnRound != nil {
		evs := t.Log.Range(t.roundTick, start)
		rec := RoundRecord{
			StartTick: t.roundTick, EndTick: start, Start: t.roundSnap,
			Events:  append([]TickEvent(nil), evs...),
			Hashes:  append(t.roundHash, TickHash{start, t.conf.Hash()}),
			Decided: t.roundDecided, Winner: t.winner(),
		}
		t.opt.OnRound(rec)
	}
	t.roundTick = start
	t.roundSnap = t.conf.AppendBinary(nil)
	t.roundHash = nil
	t.roundDecided = false
}

// winner is the confirmed round's winner once decided, else -1.
func (t *Timeline) winner() int {
	if !t.roundDecided {
		return -1
	}
	return t.roundWinner
}

// ConfirmedHash returns the confirmed state's hash at tick (a multiple of
// HashEvery, recently finalized), to check a client's report against.
func (t *Timeline) ConfirmedHash(tick int64) (uint64, bool) {
	if t.conf == nil || tick%t.opt.HashEvery != 0 || tick < 0 {
		return 0, false
	}
	h := t.confHash[tick/t.opt.HashEvery%int64(len(t.confHash))]
	return h.hash, h.tick == tick
}

// Round returns the record of the round in progress on the confirmed state so
// far (for a replay written at shutdown). The slices are copies.
func (t *Timeline) Round() RoundRecord {
	if t.conf == nil {
		return RoundRecord{}
	}
	end := t.conf.Tick()
	return RoundRecord{
		StartTick: t.roundTick, EndTick: end, Start: t.roundSnap,
		Events:  append([]TickEvent(nil), t.Log.Range(t.roundTick, end)...),
		Hashes:  append(append([]TickHash(nil), t.roundHash...), TickHash{end, t.conf.Hash()}),
		Decided: t.roundDecided, Winner: t.winner(),
	}
}

// RoundStart returns the tick at which the confirmed round started and the
// confirmed state then, encoded (shared: do not modify it). A timeline
// starts with its first state as a round's start.
func (t *Timeline) RoundStart() (tick int64, state []byte) { return t.roundTick, t.roundSnap }

// JoinData is what a newcomer or a resynced client needs: the confirmed state
// encoded now, and every event logged at or after its tick (some of them still
// in the server's future). Replaying them brings it to the present.
func (t *Timeline) JoinData() (tick int64, state []byte, events []TickEvent) {
	if t.conf == nil {
		return 0, nil, nil
	}
	tick = t.conf.Tick()
	return tick, t.conf.AppendBinary(nil), append([]TickEvent(nil), t.Log.From(tick)...)
}
