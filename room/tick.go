package room

import (
	"time"

	"webtron/clock"
	"webtron/history"
	"webtron/proto"
	"webtron/sim"
)

// Tick advances the room to time now: bots decide and the simulation steps
// tick by tick up to the present (rolling back first if late events came in),
// finality moves on, and the periodic messages go out. It never waits on a
// client.
func (r *Room) Tick(now time.Duration) error {
	r.now = now
	seq0 := r.bcastSeq
	r.holdFinality()
	target := int64((now - r.epoch) / r.dt)
	for r.auth.Now() < target {
		if _, err := r.auth.Tick(r.auth.Now() + 1); err != nil {
			return err
		}
		r.seatBots()
		if err := r.botsDecide(); err != nil {
			return err
		}
	}
	r.journalTick()
	r.handBackDue(now)
	every := r.heartbeatEvery()
	// A heartbeat in its interval's last quarter rides on the events going
	// out anyway (the bots' of the ticks just run, or the latencies below):
	// one packet where there would be two.
	ride := now-r.lastHB >= every-every/heartbeatRide
	hb := now-r.lastHB >= every || ride && r.bcastSeq != seq0
	// Leads and leniencies are recomputed every Ping, and with a heartbeat
	// (which carries the leads) once half of that has passed: at equal
	// intervals the two then share the room's wake-ups instead of each
	// having its own.
	if now-r.lastPolicy >= r.cfg.Ping || hb && now-r.lastPolicy >= r.cfg.Ping/2 {
		r.lastPolicy = now
		r.expire(now)
		r.fillBots()
		r.applyPolicy(now)
	} else if r.rttMoved {
		// An RTT estimate moved: the leads follow now rather than at the
		// next ping, so that a route that got slower costs the client's lead
		// one filter's delay (clock.DefaultRTTSamples) and no more.
		r.applyPolicy(now)
	}
	hb = hb || ride && r.bcastSeq != seq0
	// The heartbeat, the server's pings, the answers to the clients' pings
	// and the periodic roster leave together: one packet to each client
	// where there would be several.
	if hb {
		r.beat(now)
	} else if len(r.pongs) > 0 && now-r.pongs[0].arrived >= maxPongHold {
		r.sendPongs(r.sendTime())
	}
	if r.rosterDirty && now-r.lastRoster >= rosterEvery {
		r.sendRoster(now)
	}
	return nil
}

// heartbeatRide is the part of the heartbeat interval (its last quarter)
// in which a heartbeat leaves early with an event broadcast rather than
// alone at its time. Early heartbeats cost bytes (a heartbeat is about 6
// bytes a player) and pings (each answered by a client packet), so the
// window is short enough that the heartbeats, and the pings with them, come
// at most a third more often; with events every 100 ms or so (a few bots
// steering) nearly every heartbeat rides.
const heartbeatRide = 4

// heartbeatEvery is the heartbeat interval now: the faster one once a
// player's input arrived since the last heartbeat (it has a margin to
// report), the quiet one otherwise.
func (r *Room) heartbeatEvery() time.Duration {
	if r.inputsSinceHeartbeat() {
		return r.cfg.Heartbeat
	}
	return r.cfg.QuietHeartbeat
}

// beat sends the heartbeat with the server's pings, the held pongs and, every
// 2 s, the roster.
func (r *Room) beat(now time.Duration) {
	r.lastHB = now
	r.heartbeat(now)
	sent := r.sendTime()
	r.pingAll(sent)
	r.sendPongs(sent)
	if now-r.lastRoster >= 2*time.Second {
		r.sendRoster(now)
	}
}

// rideHeartbeat sends the heartbeat with the events broadcast since seq0
// (a player's accepted input) when it is in its interval's last quarter,
// or past it: the input makes the faster interval count, so the margin it
// earned reaches its client with its own broadcast.
func (r *Room) rideHeartbeat(seq0 uint64) {
	if every := r.heartbeatEvery(); r.bcastSeq != seq0 && r.now-r.lastHB >= every-every/heartbeatRide {
		r.beat(r.now)
	}
}

// sendRoster broadcasts the roster, a new revision.
func (r *Room) sendRoster(now time.Duration) {
	r.lastRoster = now
	r.rosterDirty = false
	r.rosterRev++
	ro := r.roster()
	r.broadcast(&ro)
}

// rosterEvery spaces the rosters a room sends when its players change.
const rosterEvery = 250 * time.Millisecond

// serverEvent logs events made by the server (joins, leaves, spawns,
// latencies) at the present tick and broadcasts them like any accepted event.
func (r *Room) serverEvent(evs ...sim.Event) {
	for _, ev := range evs {
		r.ahead.logged(history.TickEvent{Tick: r.auth.Now(), Ev: ev})
	}
	r.logServer(evs)
}

// logServer logs evs at the present tick and broadcasts them in one message.
func (r *Room) logServer(evs []sim.Event) {
	acc := &proto.Accepted{}
	for _, ev := range evs {
		t := r.auth.Server(ev)
		r.noteEvent(history.TickEvent{Tick: t, Ev: ev}, t, r.now)
		acc.Events = append(acc.Events, proto.TickEvent{Tick: uint64(t), Event: ev})
	}
	r.broadcastEvents(acc)
}

// applyPolicy recomputes leads and leniencies from the measured RTTs (ping
// charity, netcode.md section 3), smoothly: a published lead only moves when
// the change is worth it.
func (r *Room) applyPolicy(now time.Duration) {
	r.rttMoved = false
	var ids []int
	var oneWays, jitters []time.Duration
	for p, m := range r.members {
		if m != nil && m.bot == nil && m.conn != 0 && m.rtt.Samples() > 0 {
			ids = append(ids, p)
			oneWays = append(oneWays, m.rtt.OneWay())
			jitters = append(jitters, m.rtt.Jitter())
		}
	}
	leads := make([]time.Duration, len(ids))
	lens := make([]time.Duration, len(ids))
	r.cfg.Policy.ComputeInto(leads, lens, oneWays, jitters)
	for k, p := range ids {
		m := r.members[p]
		lead, changed := m.smooth.Update(now, leads[k])
		if changed {
			r.rosterDirty = true
		}
		m.lead = lead
		m.lenient = min(clock.Leniency(oneWays[k], m.floor.Update(now, lead), jitters[k]), r.cfg.MaxLenient)
		r.auth.SetLeniency(p, int64((m.lenient+r.dt-1)/r.dt))
		r.noteNet(p, m, oneWays[k], jitters[k])
	}
	r.rubberLatency(ids, oneWays)
}

// latencyStep is how far a player's ping-rubber latency must move before the
// room tells the simulation: a few milliseconds change rubber by under 2 %.
const latencyStep = 5 * time.Millisecond

// rubberLatency puts each player's ping-rubber latency in the history
// (sim.EvLatency), so that every simulation grants the same rubber.
//
// The latency that counts is the largest perceived lag of another player in
// this player's view, U_i(j) = o_i + o_j + L_i - L_j (docs/netcode.md section
// 3): a wall another player lays reaches this player's screen that late, and
// rubber is what lets a player survive a wall seen late. Bots count with
// o = L = 0, so against bots alone it is o_i + L_i, the round trip when the
// lead is the one-way latency, which is Armagetron's ping. Under ping charity
// the lags are shared, so two players see each other equally late and get
// equal rubber, rather than the low-ping player getting less for a lag it now
// shares.
func (r *Room) rubberLatency(ids []int, oneWays []time.Duration) {
	for k, p := range ids {
		m := r.members[p]
		lat := oneWays[k] + m.lead // U_i(j) for a bot j, and the least of any
		for k2, q := range ids {
			if q != p {
				lat = max(lat, oneWays[k]+oneWays[k2]+m.lead-r.members[q].lead)
			}
		}
		if m.latencySent && (lat-m.latency).Abs() < latencyStep {
			continue
		}
		m.latency, m.latencySent = lat, true
		r.serverEvent(sim.Event{Kind: sim.EvLatency, Player: uint8(p), Arg: int32(min(us(lat), 10_000_000))})
	}
}

// inputsSinceHeartbeat reports whether any player's input was decided since
// the last heartbeat (the heartbeat then has margins to report).
func (r *Room) inputsSinceHeartbeat() bool {
	for _, m := range r.members {
		if m != nil && m.decided {
			return true
		}
	}
	return false
}

// sendTime is the time a message sent now leaves (Config.Clock), never
// before the time the room is handling.
func (r *Room) sendTime() time.Duration {
	if r.cfg.Clock == nil {
		return r.now
	}
	return max(r.cfg.Clock(), r.now)
}

func (r *Room) pingAll(now time.Duration) {
	for _, m := range r.members {
		if m == nil || m.conn == 0 {
			continue
		}
		m.pingID++
		m.pings[m.pingID%uint32(len(m.pings))] = pingSent{id: m.pingID, at: now}
		r.sendMsg(m.conn, &proto.Ping{ID: m.pingID, Time: us(now - r.epoch)})
	}
}

// heartbeat tells everyone the server's clock, each player's final tick and
// target lead.
func (r *Room) heartbeat(now time.Duration) {
	hb := &proto.Heartbeat{Tick: uint64(r.auth.Now()), Time: us(now - r.epoch), Seq: r.bcastSeq}
	s := r.tl.Confirmed() // not the predicted present: a room without bots never simulates it
	for p := range r.members {
		if m := r.members[p]; m != nil || s.Cycle(p).Present {
			hp := proto.HeartbeatPlayer{Player: uint8(p), Final: uint64(max(0, r.auth.Final(p)))}
			if m != nil {
				hp.Lead = uint32(us(m.lead))
				// The least spare of its events since the last heartbeat,
				// negative when one came late: the client's lead feedback.
				hp.Margin = proto.NoMargin
				if m.decided {
					hp.Margin = int32(max(min(us(m.spare), 1<<30), -(1 << 30)))
					m.decided = false
				}
			}
			hb.Players = append(hb.Players, hp)
		}
	}
	r.broadcast(hb)
}

// RosterNow returns the roster as it would be sent now.
func (r *Room) RosterNow() proto.Roster { return r.roster() }

func (r *Room) roster() proto.Roster {
	ro := proto.Roster{Rev: r.rosterRev}
	ch := r.cfg.Policy.Charity
	switch {
	case ch.Auto:
		ro.Charity = proto.Charity{Mode: proto.CharityAuto}
	case ch.Fixed > 0:
		ro.Charity = proto.Charity{Mode: proto.CharityFixed, Value: uint32(us(ch.Fixed))}
	}
	s := r.tl.Confirmed() // scores that can no longer change
	for p, m := range r.members {
		if m == nil {
			continue
		}
		c := s.Cycle(p)
		ro.Players = append(ro.Players, proto.RosterPlayer{
			ID: uint8(p), Name: m.name, Bot: m.bot != nil, Connected: m.bot != nil || m.conn != 0,
			Score: int32(c.Score), Latency: uint32(us(m.rtt.OneWay())), Lead: uint32(us(m.lead)), Leniency: uint32(us(m.lenient)),
		})
	}
	for _, sp := range r.specs {
		if len(ro.Players) < proto.MaxRoster {
			ro.Players = append(ro.Players, proto.RosterPlayer{ID: 255, Name: sp.name, Spectator: true, Connected: true})
		}
	}
	return ro
}
