package client

import (
	"slices"
	"time"

	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// Update moves the client's clock to local time now (dilated toward the
// target lead, jumping only when far off), simulates up to the present
// (rolling back first if the history changed), and queues pings and hash
// reports. Call it once per frame. It is Advance and Exchange at the same
// time now.
func (s *Session) Update(now time.Duration) {
	s.Advance(now)
	s.Exchange(now)
}

// Advance is the first half of Update: the clock and the simulation. A host
// that measures time finely calls Exchange after it with a fresh reading, so
// that the simulation's work (a rollback can take milliseconds in a browser)
// is neither counted in the round trip of the ping Exchange sends nor left
// out of how long the server's ping was held.
func (s *Session) Advance(now time.Duration) {
	if !s.started {
		// On a datagram link the hello or the welcome may be lost: say it again.
		if s.hello != nil && now-s.helloAt >= helloRetry {
			s.helloAt = now
			s.out = append(s.out, s.hello)
		}
		return
	}
	s.simTime += s.rateNow.Scale(now - s.lastNow)
	s.lastNow = now
	target := s.offset.ServerTime(now) + s.lead + s.extra + s.feedback.Adjustment()
	s.lastErr = s.simTime - target
	rate, jump := s.dil.Correct(s.lastErr)
	if jump {
		s.simTime = target
	}
	s.rateNow = rate
	present := int64(s.simTime / s.dt)
	depth, err := s.tl.Advance(min(present, s.tl.Present()+maxCatchUp))
	if err == nil {
		if depth > 0 {
			s.stats.LastRollbackDepth = depth
		}
	} else {
		// The history needs a replay beyond our window: ask the server for a
		// fresh snapshot rather than guessing.
		if now-s.askedResync > time.Second {
			s.askedResync = now
			s.queue(&proto.ResendRequest{First: proto.ResyncSeq, Last: proto.ResyncSeq})
		}
	}
}

// Exchange is the second half of Update: it answers the server's pings,
// sends the client's own ping when one is due, the hash reports, and the
// proposals that went unanswered too long.
func (s *Session) Exchange(now time.Duration) {
	if !s.started {
		return
	}
	answered := len(s.answers) > 0
	for _, a := range s.answers {
		s.answerPing(a, now)
	}
	s.answers = s.answers[:0]
	// The client's ping rides with its answer to the server's ping when
	// half an interval has passed: one packet to the server instead of two,
	// and the server answers with its next heartbeat, again one packet. The
	// server pings with every heartbeat (every 200 ms in play, 1 s in a
	// quiet room), so a ping of the client's own goes only when the server
	// has been silent for lonePing intervals.
	if since := now - s.lastPing; since >= lonePing*s.opt.Ping || answered && since >= s.opt.Ping/2 {
		s.lastPing = now
		s.pingID++
		s.pings[s.pingID%uint32(len(s.pings))] = pingSent{id: s.pingID, at: now}
		s.queue(&proto.Ping{ID: s.pingID, Time: us(now)})
	}
	s.reportHashes()
	s.resendProposals(now)
	s.tl.Finalize(s.finalAll)
}

// lonePing is how many ping intervals pass without a server ping before
// the client pings on its own.
const lonePing = 8

// settledErr is how close to its target a clock counts as settled.
const settledErr = 2 * time.Millisecond

// helloRetry is how long a client waits for its welcome before saying hello again.
const helloRetry = time.Second

// resendProposals proposes again what the server has not answered after two
// round trips: on a datagram link the proposal or its answer was lost. The
// server refuses a true duplicate, and the broadcast (resent on request)
// carries the final tick.
func (s *Session) resendProposals(now time.Duration) {
	wait := max(2*s.offset.RTT(), 50*time.Millisecond) + 100*time.Millisecond
	var due []uint32
	for seq, p := range s.pending {
		if now-p.sentAt >= wait {
			due = append(due, seq)
		}
	}
	slices.Sort(due) // map order is random; the lab's runs must repeat exactly
	for _, seq := range due {
		p := s.pending[seq]
		p.sentAt = now
		p.resent = true
		s.sawLoss(now)
		s.queue(&proto.Propose{Events: []proto.Proposal{{Seq: seq, Tick: uint64(p.tick), Kind: p.ev.Kind, Arg: p.ev.Arg}}})
	}
}

// reportHashes sends the hash of each confirmed tick at the hash interval:
// confirmed ticks only, as GGRS learned (predicted ones give false alarms).
func (s *Session) reportHashes() {
	if s.you < 0 {
		return
	}
	every := s.tl.HashEvery()
	for s.nextHash <= s.finalAll && s.nextHash <= s.tl.Present() {
		if h, ok := s.tl.PredictedHash(s.nextHash); ok {
			s.queue(&proto.HashReport{Tick: uint64(s.nextHash), Hash: h})
		}
		s.nextHash += every
	}
}

// Press takes a key press at local time now. kind is EvTurnLeft,
// EvTurnRight, EvBrakeOn or EvBrakeOff; queueLatency is how long the platform
// held the input before handing it over (browser: performance.now() minus
// event.timeStamp). The event is applied at once (prediction) and proposed to
// the server.
//
// A turn carries the instant it was pressed within its tick (sim.SubTicks),
// so that the cycle turns where it was then. With the mind reader that
// instant is the moment the key went down, now - queueLatency (at most
// MaxBackdate ticks back), in the tick that holds it: local input latency is
// zero. The tick starts up to a tick before that moment, so the lead grows
// by a tick plus the queue latency for the backdated event still to reach
// the server in time (netcode.md section 4). Without it a press lands on
// the next tick, so a turn is made exactly a tick after the core saw the
// key.
//
// Brakes act on whole ticks: without the mind reader one lands on the next
// tick, so its latency spreads over (0, 1] tick; with it the press counts
// from now - tickDuration/2 - queueLatency, which centres that latency on
// zero.
func (s *Session) Press(now time.Duration, kind sim.EventKind, queueLatency time.Duration) {
	if !s.started || s.you < 0 || !kind.PlayerInput() {
		return
	}
	turn := kind == sim.EvTurnLeft || kind == sim.EvTurnRight
	at := s.clockAt(now)
	var tick int64
	var arg int32
	switch {
	case s.opt.MindReader:
		queueLatency = max(0, min(queueLatency, 100*time.Millisecond))
		// The lead follows the measured queue latency, smoothed.
		want := s.dt + queueLatency
		s.extra += (want - s.extra) / 8
		if turn {
			back := min(queueLatency, time.Duration(s.opt.MaxBackdate)*s.dt)
			tick, arg = s.instant(at - back)
		} else {
			tick = int64((at-s.dt/2-queueLatency)/s.dt) + 1
			tick = max(tick, int64(at/s.dt)+1-s.opt.MaxBackdate)
		}
	case turn:
		tick, arg = s.instant(at + s.dt)
	default:
		tick = int64(at/s.dt) + 1
	}
	if tick < s.finalAll {
		tick, arg = s.finalAll, 0
	}
	s.seq++
	ev := sim.Event{Kind: kind, Player: uint8(s.you), Seq: s.seq, Arg: arg}
	// The timeline cannot refuse it: tick is finalAll or later, the
	// confirmed state never passes finalAll (Finalize), and the seq is new.
	// Were it refused all the same, the press goes unproposed: the server
	// could not take an input at a tick it has called final either.
	if ok, err := s.tl.Insert(history.TickEvent{Tick: tick, Ev: ev}); !ok || err != nil {
		return
	}
	s.pending[s.seq] = &proposal{ev: ev, tick: tick, sentAt: now}
	s.stats.EventsSent++
	prop := &proto.Propose{Events: []proto.Proposal{{Seq: s.seq, Tick: uint64(tick), Kind: kind, Arg: arg}}}
	s.queue(prop)
	if now < s.lossyUntil {
		// On a lossy link a lost proposal is proposed again two round trips
		// later, postponed, and seen late by everyone (issue 14): a second
		// copy, in a datagram of its own (proto.Packer), makes that a loss
		// of both. The server takes the first copy to arrive and lets the
		// second go unanswered.
		s.queue(prop)
	}
	if s.OnLocal != nil {
		s.OnLocal(ev, tick, at-queueLatency) // when the key really went down
	}
}

// instant returns the tick that holds time t of the session's clock, and
// where in it t lies as a turn's Arg (sim.TurnArg: rounded to the nearest
// 1/SubTicks, the next tick's start when that rounds up).
func (s *Session) instant(t time.Duration) (int64, int32) {
	tick := int64(t / s.dt)
	in := t - time.Duration(tick)*s.dt
	if in < 0 {
		tick, in = tick-1, in+s.dt
	}
	arg, carry := sim.TurnArg(int64(in), int64(s.dt))
	return tick + carry, arg
}

// when returns the time of the session's clock at which event te happens:
// its tick's start, and for a turn the instant within the tick it carries.
func (s *Session) when(te history.TickEvent) time.Duration {
	return time.Duration(te.Tick)*s.dt + s.dt*time.Duration(te.Ev.At())/sim.SubTicks
}

// Chat queues a chat line.
func (s *Session) Chat(text string) {
	if s.started && len(text) > 0 && len(text) <= proto.MaxChatLen {
		s.queue(&proto.Chat{Text: text})
	}
}
