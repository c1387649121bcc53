// Package clock keeps the clocks of the netcode in step (docs: netcode.md,
// sections 2 and 3): it estimates round-trip times, clock offsets and jitter
// from ping/pong exchanges, decides how far each client's clock leads the
// server's and how far back the server accepts its events (the ping charity
// policy), and steers a client's clock toward its lead by time dilation.
//
// It is pure: every time is a parameter (a time.Duration on the caller's
// clock), nothing reads the wall clock, nothing starts a goroutine or
// allocates on the tick path, so the server, the client compiled to
// WebAssembly and the lab's virtual network share it unchanged.
//
// The server, per client i, feeds its own pings to an RTTFilter, and every
// ServerPingInterval runs:
//
//	oneWays[i], jitters[i] = filter[i].OneWay(), filter[i].Jitter()
//	policy.ComputeInto(targets, leniencies, oneWays, jitters)
//	lead, changed := smoother[i].Update(now, targets[i]) // send lead when changed
//	leniency := Leniency(oneWays[i], floor[i].Update(now, lead), jitters[i])
//
// (leniency equals leniencies[i] once the client has settled on its lead.)
//
// The client feeds its pings to an OffsetEstimator and the server's per-event
// reports to a LateFeedback, and before each frame runs:
//
//	target := offset.ServerTime(local) + lead + feedback.Adjustment()
//	rate, jump := dilation.Correct(simTime - target)
package clock

import "time"

// MaxJitterMargin bounds the leniency added for jitter: the margin is a
// "small jitter allowance" (netcode.md, section 3), not a second charity.
const MaxJitterMargin = 50 * time.Millisecond

// JitterMargin returns the leniency the server adds for a link with the given
// jitter (RTTFilter.Jitter): twice the mean deviation above the floor RTT,
// covering most delayed events of a link whose delay varies.
//
// The margin enters the leniency only, never the leads: the leads come from
// the floor RTT, so the perceived lags U_j(i), which depend on the leads
// alone, are the same with and without jitter, and the invariant
// U_j(i) + U_i(j) = RTT_i + RTT_j holds with the floor RTTs. The lowest-ping
// player's leniency is this margin instead of exactly 0.
func JitterMargin(jitter time.Duration) time.Duration {
	return min(max(2*jitter, 0), MaxJitterMargin)
}

// Leniency returns λ, how far back the server accepts events of a client with
// one-way latency oneWay whose clock leads by lead: the o - L of section 3
// plus JitterMargin(jitter). Both rules give λ = o - L, so this serves both.
// Pass the lowest lead the client may still be running at (LeadFloor) while
// it dilates toward a higher one, so that its events are not postponed
// meanwhile.
func Leniency(oneWay, lead, jitter time.Duration) time.Duration {
	return max(oneWay-lead, 0) + JitterMargin(jitter)
}

// PerceivedLag returns U_j(i), how stale player i's state is in player j's
// view: j's present minus the newest time for which j knows i's inputs
// (netcode.md, section 3). Only the difference of the leads counts; the sum
// U_j(i) + U_i(j) = 2(o_i + o_j) whatever the leads.
func PerceivedLag(oi, oj, li, lj time.Duration) time.Duration {
	return oi + oj + lj - li
}

// Policy is a room's ping charity policy (netcode.md, section 3). The server
// computes it centrally because it alone knows every RTT; it sends each client
// its target lead and publishes every o_i and L_i so that clients can draw
// lag-o-meters with PerceivedLag. The zero value is charity 0, our rule and
// the default cap.
type Policy struct {
	// Charity is the room's setting: fixed, auto or 0.
	Charity Charity
	// Cap bounds the charity in every mode; zero means DefaultCharityCap.
	Cap time.Duration
	// Rule picks our formulas or Armagetron's, for comparison in the lab.
	Rule Rule
}

// Compute returns each client's lead and leniency for the given one-way
// latencies (RTT/2 from RTTFilter.OneWay), without jitter margins: the exact
// formulas of section 3. It allocates; ComputeInto does not.
func (p Policy) Compute(oneWays []time.Duration) (leads, leniencies []time.Duration) {
	leads = make([]time.Duration, len(oneWays))
	leniencies = make([]time.Duration, len(oneWays))
	p.ComputeInto(leads, leniencies, oneWays, nil)
	return leads, leniencies
}

// ComputeInto writes each client's lead and leniency into leads and
// leniencies, which must be as long as oneWays. jitters, if not nil, is as
// long too and adds JitterMargin(jitters[i]) to leniency i. Negative one-way
// latencies count as 0. It panics if the lengths differ or the rule is
// unknown: both are programming errors, never input.
func (p Policy) ComputeInto(leads, leniencies, oneWays, jitters []time.Duration) {
	n := len(oneWays)
	if len(leads) != n || len(leniencies) != n || (jitters != nil && len(jitters) != n) {
		panic("clock: Policy.ComputeInto: slice lengths differ")
	}
	if n == 0 {
		return
	}
	oMin, oMax := max(oneWays[0], 0), max(oneWays[0], 0)
	for _, o := range oneWays[1:] {
		oMin, oMax = min(oMin, max(o, 0)), max(oMax, o)
	}
	c := p.Charity.Amount(oMin, oMax, p.Cap)
	for i, o := range oneWays {
		o = max(o, 0)
		switch p.Rule {
		case RuleWebtron:
			leads[i] = max(oMin, o-c)
		case RuleArmagetron:
			leads[i] = max(0, o-(oMin+c))
		default:
			panic("clock: Policy.ComputeInto: unknown " + p.Rule.String())
		}
		var j time.Duration
		if jitters != nil {
			j = jitters[i]
		}
		leniencies[i] = Leniency(o, leads[i], j)
	}
}

// Defaults of Smoother and LeadFloor.
const (
	// DefaultSmoothThreshold is the least change of a target lead worth
	// sending. The floor RTT moves by a millisecond or two as the window
	// slides; each such change would be a message and a dilation, for a
	// lag difference nobody sees.
	DefaultSmoothThreshold = 2 * time.Millisecond

	// DefaultSmoothInterval is the least time between two published values
	// of one lead: the client gets time to dilate toward one target before
	// it is given the next, and a flapping link costs a roster update every
	// 300 ms at most. An RTT that goes up often does so in two steps (pings
	// in flight across the change see half of it), so this interval adds
	// to the time a lead takes to settle after a slower route: in the lab's
	// TestLeadSettlesAfterRTTStep 1.86 s, where 500 ms made it 2.07 s, over
	// the 2 s netcode.md promises.
	DefaultSmoothInterval = 300 * time.Millisecond

	// DefaultSettle is how long a client may take to reach a higher lead:
	// the largest change Dilation closes without a jump (its
	// DefaultJumpThreshold, 250 ms) takes 2.5 s at 10 %, plus the message's
	// travel and the last milliseconds. The usual 50 ms take about 1 s.
	DefaultSettle = 3 * time.Second
)

// Smoother turns a target lead, recomputed by the server as RTTs change,
// into the published lead it sends to the client: it publishes a new value
// only when it differs from the last by at least Threshold, and at most once
// per Interval. Step changes (an RTT step, a player joining) pass at once as
// one change; sub-threshold wandering never does. The server keeps one per
// client. The zero value uses the defaults.
type Smoother struct {
	Threshold time.Duration // zero means DefaultSmoothThreshold
	Interval  time.Duration // zero means DefaultSmoothInterval

	value, at time.Duration
	set       bool
}

// Update offers a new target at now and returns the published lead, and
// whether it changed (and must be sent). The first target is published as is.
func (s *Smoother) Update(now, target time.Duration) (lead time.Duration, changed bool) {
	d := target - s.value
	if d < 0 {
		d = -d
	}
	if s.set && (d < orDefault(s.Threshold, DefaultSmoothThreshold) ||
		now-s.at < orDefault(s.Interval, DefaultSmoothInterval)) {
		return s.value, false
	}
	s.value, s.at, s.set = target, now, true
	return s.value, true
}

// Value returns the published lead, zero before the first Update.
func (s *Smoother) Value() time.Duration { return s.value }

// Reset forgets the published lead, for a client that reconnects.
func (s *Smoother) Reset() { *s = Smoother{Threshold: s.Threshold, Interval: s.Interval} }

// LeadFloor tracks the lowest lead a client may still be running at, for the
// server's leniency. A client reaches a new lead by dilation, not at once: for
// up to Settle after the server raised its lead it still runs nearer the old
// one, so its events arrive later than the new lead implies, by up to the
// raise. Leniency computed from the floor instead of the published lead
// covers that; when the lead goes down the client's events only arrive
// earlier, so the floor follows at once.
type LeadFloor struct {
	Settle time.Duration // zero means DefaultSettle

	value time.Duration // the floor
	last  time.Duration // the lead of the previous Update
	since time.Duration // when the lead last went up
	set   bool
}

// Update takes the published lead at now and returns the floor. The floor
// rises to the lead once Settle has passed since its last raise; a second
// raise meanwhile restarts the wait, as it restarts the client's dilation.
func (f *LeadFloor) Update(now, lead time.Duration) time.Duration {
	if !f.set || lead > f.last {
		f.since = now
	}
	if !f.set || lead <= f.value || now-f.since >= orDefault(f.Settle, DefaultSettle) {
		f.value = lead
	}
	f.last, f.set = lead, true
	return f.value
}

// Reset forgets the floor, for a client that reconnects.
func (f *LeadFloor) Reset() { *f = LeadFloor{Settle: f.Settle} }
