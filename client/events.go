package client

import (
	"strconv"
	"time"

	"webtron/history"
	"webtron/internal/errwrap"
	"webtron/proto"
	"webtron/sim"
)

// welcome starts the session: clock sample, identity, history.
func (s *Session) welcome(arrival, now time.Duration, m *proto.Welcome) error {
	s.offset.Add(fromUs(m.ClientTime), fromUs(m.ServerTime), arrival)
	s.rate = int64(m.TickRate)
	s.dt = time.Second / time.Duration(m.TickRate)
	s.you = int(m.Player)
	if m.Spectator {
		s.you = -1
	}
	s.token = m.Token
	s.roster = m.Roster
	if err := s.load(m.History); err != nil {
		return err
	}
	s.started = true
	s.lead = s.offset.RTT() / 2 // a first guess until the server's heartbeat says
	s.simTime = s.offset.ServerTime(now) + s.lead
	s.lastNow = now
	s.Update(now)
	return nil
}

// load (re)builds the timeline from a snapshot and the events after it.
func (s *Session) load(h proto.History) error {
	st, err := sim.UnmarshalState(h.Snapshot)
	if err != nil {
		return err
	}
	tl, err := history.New(st, history.Options{Confirmed: s.opt.Confirmed})
	if err != nil {
		return err
	}
	for _, te := range h.Events {
		// Every event of a History is at or after its snapshot's tick: the
		// snapshot holds the ticks before it final. (history.Timeline says
		// so too, with Options.Confirmed; without it the check is here.)
		err := errFinality(int64(te.Tick), st.Tick(), "history event")
		if err == nil {
			_, err = tl.Insert(history.TickEvent{Tick: int64(te.Tick), Ev: te.Event})
		}
		if err != nil {
			return err
		}
	}
	if s.tl != nil {
		tl.Rollbacks, tl.RolledBack = s.tl.Rollbacks, s.tl.RolledBack
	}
	s.tl = tl
	s.bcast = h.Seq
	clear(s.got)
	clear(s.pending)
	s.finalAll = int64(h.Tick)
	for p := range s.final {
		s.final[p] = int64(h.Tick) - 1
	}
	every := tl.HashEvery()
	s.nextHash = (int64(h.Tick)/every + 1) * every
	if s.started {
		s.tl.Advance(min(s.presentAt(s.lastNow), tl.Present()+maxCatchUp))
	}
	return nil
}

// maxCatchUp bounds the ticks one Update simulates, so a tab coming back
// from the background spreads its catching up over frames.
const maxCatchUp = 600

// clockAt is the client's clock (server time plus lead) at local time now.
func (s *Session) clockAt(now time.Duration) time.Duration {
	return s.simTime + s.rateNow.Scale(now-s.lastNow)
}

// presentAt is the client's present tick at local time now.
func (s *Session) presentAt(now time.Duration) int64 { return int64(s.clockAt(now) / s.dt) }

// errFinality is nil for an event at or after tick final; else the error
// of news that contradicts what the server called final (what the event
// is, and both ticks, in its text).
func errFinality(tick, final int64, what string) error {
	if tick >= final {
		return nil
	}
	return errwrap.Wrap(history.ErrFinal, "client: "+what+" at tick "+strconv.FormatInt(tick, 10)+
		", before tick "+strconv.FormatInt(final, 10)+" the server called final")
}

// accepted takes a broadcast's events. One before the confirmed tick is an
// error: the server called that tick final, so the confirmed state (and
// the hashes the client reports) would no longer be the server's; the
// platform ends the connection, and the next Welcome starts afresh.
func (s *Session) accepted(now time.Duration, m *proto.Accepted) error {
	if m.Seq < s.bcast || s.got[m.Seq] {
		return nil // resent, and we had it
	}
	if m.Seq > s.bcast {
		s.got[m.Seq] = true
		if !s.asked[m.Seq-1] {
			s.sawLoss(now)
			s.askFor(s.bcast, m.Seq-1)
		}
	}
	for s.bcast == m.Seq || s.got[s.bcast] {
		delete(s.got, s.bcast)
		s.bcast++
	}
	at := s.clockAt(now)
	for _, te := range m.Events {
		ev := history.TickEvent{Tick: int64(te.Tick), Ev: te.Event}
		if int(ev.Ev.Player) == s.you {
			if p, ok := s.pending[ev.Ev.Seq]; ok {
				s.answered(now, p)
				if p.tick != ev.Tick {
					s.tl.Move(p.entry(), ev.Tick)
				}
				s.forget(ev.Ev.Seq)
				continue
			}
		}
		ok, err := s.tl.Insert(ev)
		if err != nil {
			return errwrap.Wrap(err, "client: broadcast "+strconv.FormatUint(m.Seq, 10)+": event at tick "+strconv.FormatInt(ev.Tick, 10))
		}
		if !ok {
			continue // a resent broadcast we already have
		}
		if int(ev.Ev.Player) != s.you && ev.Ev.Player < sim.MaxPlayers {
			s.stats.EventsReceived++
			// Measured U (netcode.md section 5): the viewer's clock at receipt
			// minus the event's time (a turn's instant within its tick). The
			// clock is not floored to whole ticks, which would bias the
			// measure by half a tick. Only the player's own inputs measure
			// it: the server's events for a player (a join, a ping-rubber
			// latency) are laid at the server's present.
			lag := at - s.when(ev)
			if ev.Ev.Kind.PlayerInput() {
				s.lagRing[ev.Ev.Player].add(lag)
			}
			if s.OnEvent != nil {
				s.OnEvent(ev, lag)
			}
		}
	}
	return nil
}

func (s *Session) postponed(now time.Duration, m *proto.Postponed) {
	s.stats.Postponed++
	if p, ok := s.pending[m.Seq]; ok {
		s.answered(now, p)
	}
	if p, ok := s.pending[m.Seq]; ok && p.tick != int64(m.Tick) {
		s.tl.Move(p.entry(), int64(m.Tick))
		p.tick = int64(m.Tick)
	}
}

// refused undoes a refused proposal. A duplicate refusal comes only for a
// proposal whose fate the server can no longer tell (too old): it is
// dropped too, and if it was in fact accepted, its broadcast brings it back.
func (s *Session) refused(m *proto.Refused) {
	if p, ok := s.pending[m.Seq]; ok { // not an answer given twice
		s.stats.Refused++
		s.tl.Remove(p.entry())
		s.forget(m.Seq)
	}
}

// lossShadow is how long after the answer to a resent proposal the
// heartbeats' margins are not taken: the heartbeat that follows the
// server's decision (within its Heartbeat interval, 200 ms in play) reports
// that proposal's lateness, which is the loss's resend wait, not an error of
// the clock. Taken, it raised the lead by up to 5 ms a lost proposal, and
// the lags this client perceives with it (issue 14: the p99 over the
// prediction through a lossy link).
const lossShadow = 300 * time.Millisecond

// answered notes the server's answer to one of our proposals.
func (s *Session) answered(now time.Duration, p *proposal) {
	if p.resent {
		s.marginsFrom = max(s.marginsFrom, now+lossShadow)
	}
}

// lossInMargin reports whether the margin of a heartbeat arriving now may
// be a resent proposal's: one is still unanswered (its decision may be in
// this heartbeat), or one was answered within lossShadow.
func (s *Session) lossInMargin(now time.Duration) bool {
	if now < s.marginsFrom {
		return true
	}
	for _, p := range s.pending {
		if p.resent {
			return true
		}
	}
	return false
}

func (s *Session) forget(seq uint32) {
	delete(s.pending, seq)
}

// heartbeat takes the newest heartbeat's finality, lead and margins; an
// older one (datagrams reorder) says nothing new and is dropped, or it would
// set a lead the server has since changed.
func (s *Session) heartbeat(now time.Duration, m *proto.Heartbeat) {
	if s.hbSeen && m.Tick <= s.hbTick {
		return
	}
	s.hbSeen, s.hbTick = true, m.Tick
	s.hbSeq = m.Seq
	if m.Seq > s.bcast { // broadcasts were lost on the way (datagrams)
		s.sawLoss(now)
		s.askFor(s.bcast, m.Seq-1)
	}
	all := int64(m.Tick)
	for _, p := range m.Players {
		if p.Player >= sim.MaxPlayers {
			continue
		}
		s.final[p.Player] = max(s.final[p.Player], int64(p.Final))
		all = min(all, int64(p.Final)+1)
		if int(p.Player) == s.you {
			if lead := fromUs(int64(p.Lead)); lead != s.lead {
				// The server has measured the route anew: what the margins
				// corrected for is in the new target now.
				s.lead = lead
				s.feedback.Reset()
			}
			// Only a settled clock learns from the margins: while it is still
			// dilating toward a new lead, late events are expected and the
			// lead is already on its way.
			// Nor does a margin that reports a lost proposal's resend wait.
			if p.Margin != proto.NoMargin && s.lastErr.Abs() <= settledErr && !s.lossInMargin(now) {
				s.feedback.Report(now, -fromUs(int64(p.Margin)))
			}
		}
	}
	// Our own proposals still unanswered may yet be postponed past what the
	// server calls final for us: nothing from their tick on is confirmed.
	for _, p := range s.pending {
		all = min(all, p.tick)
	}
	if s.bcast >= s.hbSeq { // every broadcast the heartbeat covers has arrived
		s.finalAll = max(s.finalAll, all)
	}
}

// lossyFor is how long after the client last saw a loss (a gap in the
// broadcasts or in the server's ping IDs, a ping of its own never
// answered, a proposal it had to propose again) its link counts as lossy.
// Longer than the server's 10 s (server/webtransport.go): the second copies
// hide most of the losses the client would otherwise see. Over a reliable
// stream none of these happens.
const lossyFor = 30 * time.Second

// sawLoss notes a loss at time now.
func (s *Session) sawLoss(now time.Duration) { s.lossyUntil = now + lossyFor }

// askFor requests the broadcasts first..last again, at most a span at once.
func (s *Session) askFor(first, last uint64) {
	last = min(last, first+proto.MaxResendSpan-1)
	s.queue(&proto.ResendRequest{First: first, Last: last})
	clear(s.asked)
	s.asked[last] = true
}

func (s *Session) pong(now time.Duration, m *proto.Pong) {
	for i, p := range s.pings {
		if p.at != 0 && p.id < m.ID {
			// An older ping still unanswered when a newer one's pong comes:
			// it or its pong was lost (the server answers every ping, in
			// order). Pongs are what tell this client about its way up.
			s.sawLoss(now)
			s.pings[i].at = 0
		}
	}
	for i := range s.pings {
		if p := s.pings[i]; p.id == m.ID && p.at != 0 {
			// The server answers at once (Held 0); it is counted all the same.
			s.offset.Add(p.at, fromUs(m.Time), now-fromUs(int64(m.Held)))
			s.pings[i].at = 0
			return
		}
	}
}
