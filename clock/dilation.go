package clock

import "time"

// Rate is the speed of the client's tick clock in parts per million of real
// time; RateOne is nominal. It is an integer so that the lab's runs, which
// integrate it over thousands of steps, reproduce to the nanosecond on every
// platform (Go may fuse float operations differently per architecture).
type Rate int32

// RateOne is nominal speed.
const RateOne Rate = 1_000_000

// MaxDilation bounds how far Dilation moves the rate from RateOne: 10 %,
// half of what Armagetron allows (LAG_MAX_SPEEDUP_TIMER, 0.2). A game running
// a tenth faster or slower for half a second is hard to notice, a fifth is
// not, and a tenth still closes the 50 ms of an RTT step from 60 to 160 ms in
// half a second.
const MaxDilation Rate = RateOne / 10

// Factor returns the rate as a multiplier of real time, e.g. 1.1.
func (r Rate) Factor() float64 { return float64(r) / float64(RateOne) }

// Scale returns how much the dilated clock advances while d of real time
// passes. It splits d so that the product cannot overflow for any d.
func (r Rate) Scale(d time.Duration) time.Duration {
	const one = time.Duration(RateOne)
	return d/one*time.Duration(r) + d%one*time.Duration(r)/one
}

// Defaults of Dilation, chosen for the lead to settle within 2 s of a
// 50 ms change (issue acceptance; netcode.md section 2).
const (
	// DefaultDeadBand is the lead error that is left alone, so that the rate
	// does not wobble with each new offset sample; the lead settles within
	// it.
	DefaultDeadBand = time.Millisecond

	// DefaultTimeConstant is the error that would call for a 100 % rate
	// change: 10 ms of error already gets the full 10 %, and the last ones
	// decay with a time constant of 100 ms, so a 50 ms change takes about
	// 0.4 s at full speed plus 0.25 s to come within 1 ms.
	DefaultTimeConstant = 100 * time.Millisecond

	// DefaultJumpThreshold is the error above which the clock jumps. At 10 %
	// dilation 250 ms takes 2.5 s to close, longer than the settle budget;
	// beyond it a single visible hitch (and one rollback) beats seconds of
	// wrong lead. Only joins, resyncs and broken links get there.
	DefaultJumpThreshold = 250 * time.Millisecond
)

// Dilation is the client's controller that keeps its simulation clock ahead
// of the server's by the target lead (netcode.md, section 2: "reaches a new
// target by slightly speeding up or slowing down its tick clock ... not by
// jumping, except for large errors"). It is proportional: the rate moves in
// proportion to the error, so it slows down smoothly as it arrives instead of
// overshooting, and it needs no state. The zero value uses the defaults.
type Dilation struct {
	DeadBand      time.Duration // errors within ±DeadBand get RateOne; zero means DefaultDeadBand
	TimeConstant  time.Duration // error/TimeConstant is the rate change; zero means DefaultTimeConstant
	JumpThreshold time.Duration // errors beyond it ask for a jump; zero means DefaultJumpThreshold
}

// Correct takes the lead error, the client's simulation time minus (the
// estimated server time plus the target lead), and returns the rate to run
// the tick clock at until the next call. When jump is true the caller sets
// its simulation time to the target instead (and rolls back or forward), and
// rate is RateOne.
//
// A positive error means the client is too far ahead and must slow down.
// Outside the dead band the whole error counts, not the part beyond the band,
// so the error enters the band in finite time instead of creeping up to it;
// the rate steps by DeadBand/TimeConstant (1 %) there, too little to notice.
func (d Dilation) Correct(leadErr time.Duration) (rate Rate, jump bool) {
	mag := leadErr
	if mag < 0 {
		mag = -mag
	}
	if mag > orDefault(d.JumpThreshold, DefaultJumpThreshold) {
		return RateOne, true
	}
	if mag <= orDefault(d.DeadBand, DefaultDeadBand) {
		return RateOne, false
	}
	tc := orDefault(d.TimeConstant, DefaultTimeConstant)
	change := MaxDilation
	if mag < tc/time.Duration(RateOne/MaxDilation) { // also keeps the product below from overflowing
		change = Rate(mag * time.Duration(RateOne) / tc)
	}
	if leadErr > 0 {
		return RateOne - change, false
	}
	return RateOne + change, false
}

// Defaults of LateFeedback.
const (
	// DefaultFeedbackMaxRaise bounds how much the reports can add to the
	// lead: enough for a slow input path, not enough to hide a broken RTT
	// estimate.
	DefaultFeedbackMaxRaise = 100 * time.Millisecond

	// DefaultFeedbackMaxLower bounds how much they can take away: lowering
	// eats the jitter margin the server granted, so it goes less far.
	DefaultFeedbackMaxLower = 20 * time.Millisecond

	// DefaultFeedbackWide is the spare that counts as wide: a whole interval
	// of events each arriving at least this early lowers the lead.
	DefaultFeedbackWide = 10 * time.Millisecond

	// DefaultFeedbackInterval is how long the client watches the spare before
	// lowering: a few events, and longer than the dilation needs to apply the
	// previous change.
	DefaultFeedbackInterval = time.Second

	// Bounds of one raise, a share of the reported lateness. Reports of
	// events sent before the last raise took effect are still in flight, so
	// a single report must not claim the whole correction.
	feedbackRaiseMin = time.Millisecond
	feedbackRaiseMax = 5 * time.Millisecond
)

// LateFeedback turns the server's per-event reports (netcode.md, section 2:
// "a client whose events keep arriving late raises its lead a little; one with
// a wide margin lowers it") into an adjustment the client adds to the target
// lead the server sets. It corrects what the ping/pong exchanges cannot show:
// delay the events have and the pings do not (a send queue behind a burst, a
// busy browser, the server's input handling), a jitter margin too small for
// the link, an asymmetry that changed within the offset window. (A steady
// asymmetric path needs no correction: see RTTFilter.OneWay.)
//
// It raises quickly (each late event adds half its lateness, 1 to 5 ms) and
// lowers slowly (once per Interval, half the spare beyond Wide, and only
// after an interval with no late event), because a late event costs a
// postponed turn while a little extra lead costs a little staleness. The
// zero value uses the defaults.
type LateFeedback struct {
	MaxRaise time.Duration // upper bound of Adjustment; zero means DefaultFeedbackMaxRaise
	MaxLower time.Duration // -MaxLower is the lower bound; zero means DefaultFeedbackMaxLower
	Wide     time.Duration // spare that counts as wide; zero means DefaultFeedbackWide
	Interval time.Duration // observation interval; zero means DefaultFeedbackInterval

	adj time.Duration
	iv  feedbackInterval
}

// feedbackInterval is what LateFeedback watches during one interval.
type feedbackInterval struct {
	start    time.Duration // when the interval opened
	minSpare time.Duration // least spare reported in it
	spares   int           // on-time reports in it
	late     bool          // it had a late event
	open     bool          // it is open
}

// Report takes one report from the server about one of the client's events,
// received at now: late > 0 means the event arrived that long after the
// window the server allows (its leniency plus jitter allowance) and was
// postponed; late <= 0 means it arrived -late before the window closed.
func (f *LateFeedback) Report(now, late time.Duration) {
	f.roll(now)
	if late > 0 {
		f.iv.late = true
		f.adj = min(f.adj+min(max(late/2, feedbackRaiseMin), feedbackRaiseMax),
			orDefault(f.MaxRaise, DefaultFeedbackMaxRaise))
		return
	}
	if f.iv.spares == 0 || -late < f.iv.minSpare {
		f.iv.minSpare = -late
	}
	f.iv.spares++
}

// roll closes the open interval once it is Interval old, lowering the
// adjustment if every event in it had a wide spare, and opens a new one.
func (f *LateFeedback) roll(now time.Duration) {
	iv := &f.iv
	if iv.open && now-iv.start >= orDefault(f.Interval, DefaultFeedbackInterval) {
		wide := orDefault(f.Wide, DefaultFeedbackWide)
		if !iv.late && iv.spares > 0 && iv.minSpare > wide {
			f.adj = max(f.adj-(iv.minSpare-wide)/2, -orDefault(f.MaxLower, DefaultFeedbackMaxLower))
		}
		iv.open = false
	}
	if !iv.open {
		*iv = feedbackInterval{start: now, open: true}
	}
}

// Adjustment returns what to add to the server's target lead.
func (f *LateFeedback) Adjustment() time.Duration { return f.adj }

// Reset forgets the adjustment, for a new connection. Settings are kept.
func (f *LateFeedback) Reset() { f.adj, f.iv = 0, feedbackInterval{} }
