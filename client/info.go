package client

import (
	"slices"
	"time"

	"webtron/clock"
	"webtron/proto"
)

// Info is what a HUD shows; see Session.Info.
type Info struct {
	Tick              int64
	TickRate          int64
	PingMs, LeadMs    float64
	CharityMs         float64
	CharityMode       string
	EventsSent        int64
	EventsReceived    int64
	Rollbacks         int64
	Postponed         int64
	LastRollbackDepth int64
	Players           []PlayerInfo
}

// PlayerInfo is one roster entry with its perceived lag.
type PlayerInfo struct {
	ID                        int
	Name                      string
	Bot, Spectator, Connected bool
	Score                     int64
	LatencyMs, LeadMs         float64 // published one-way latency o_i and lead L_i
	// PredictedLagMs is U_you(i) = o_i + o_you + L_you - L_i (netcode.md
	// section 3): how far behind its real position player i is drawn. The
	// mind reader's extra lead is left out on both sides: every browser runs
	// it, so it cancels; a bot has none, so against a bot ours counts. 0 for
	// yourself, and never below 0. A spectator counts its own latency and
	// lead as o_you and L_you.
	PredictedLagMs float64
	// MeasuredLagMs is the median of the lags measured on i's recent events.
	MeasuredLagMs float64
	// MeasuredLagN is how many events that median is over (at most 64).
	MeasuredLagN int
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Info returns the HUD's numbers.
func (s *Session) Info() Info {
	st := s.Stats()
	in := Info{
		TickRate: s.rate, PingMs: ms(s.offset.RTT()), LeadMs: ms(s.lead + s.extra),
		EventsSent: st.EventsSent, EventsReceived: st.EventsReceived, Rollbacks: st.Rollbacks,
		Postponed: st.Postponed, LastRollbackDepth: st.LastRollbackDepth,
	}
	if s.tl != nil {
		in.Tick = s.tl.Present()
	}
	switch s.roster.Charity.Mode {
	case proto.CharityAuto:
		in.CharityMode = "auto"
	case proto.CharityFixed:
		in.CharityMode = "fixed"
	default:
		in.CharityMode = "off"
	}
	in.CharityMs = float64(s.roster.Charity.Value) / 1000
	// A spectator's own: the server publishes no latency nor lead for one.
	oYou, lYou := s.offset.RTT()/2, s.lead
	for _, p := range s.roster.Players {
		if int(p.ID) == s.you && !p.Spectator {
			oYou, lYou = fromUs(int64(p.Latency)), fromUs(int64(p.Lead))
		}
	}
	for _, p := range s.roster.Players {
		pi := PlayerInfo{ID: int(p.ID), Name: p.Name, Bot: p.Bot, Spectator: p.Spectator, Connected: p.Connected,
			Score: int64(p.Score), LatencyMs: ms(fromUs(int64(p.Latency))), LeadMs: ms(fromUs(int64(p.Lead)))}
		if !p.Spectator && int(p.ID) != s.you {
			oi, li := fromUs(int64(p.Latency)), fromUs(int64(p.Lead))
			pred := clock.PerceivedLag(oi, oYou, li, lYou)
			if p.Bot {
				// A bot has no mind-reader lead to cancel ours.
				pred += s.extra
			}
			// An event that arrives before its tick is due is drawn on
			// time: the view shows no lag, not a negative one.
			pi.PredictedLagMs = ms(max(pred, 0))
			if int(p.ID) < len(s.lagRing) {
				pi.MeasuredLagMs = ms(s.lagRing[p.ID].median())
				pi.MeasuredLagN = min(s.lagRing[p.ID].n, len(s.lagRing[p.ID].v))
			}
		}
		in.Players = append(in.Players, pi)
	}
	return in
}

// lagRing keeps the last measured lags of one remote player.
type lagRing struct {
	v [64]time.Duration
	n int
}

func (r *lagRing) add(d time.Duration) {
	r.v[r.n%len(r.v)] = d
	r.n++
}

func (r *lagRing) median() time.Duration {
	k := min(r.n, len(r.v))
	if k == 0 {
		return 0
	}
	tmp := slices.Clone(r.v[:k])
	slices.Sort(tmp)
	return tmp[k/2]
}
