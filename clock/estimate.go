package clock

import "time"

// The ping intervals the filters are sized for. The server pings each client
// every ServerPingInterval (room.Config.Ping's default) and measures its RTT
// from the answers; the client pings the server every ClientPingInterval
// (client.Options.Ping's default), or sooner when its ping can ride with its
// answer to the server's, for its clock offset. Changing either means
// checking the windows below, whose tests run at these intervals.
const (
	ServerPingInterval = 200 * time.Millisecond
	ClientPingInterval = 250 * time.Millisecond
)

// DefaultRTTSamples is how many of the newest samples the RTT estimate is
// the minimum of. Counted in samples, not in time, so that what it promises
// holds at any ping interval: up to four delayed samples in a row are
// ignored, and an RTT that really went up is believed at its fifth sample.
// At ServerPingInterval that is 800 ms after its first, which leaves the
// lead time to settle within the 2 s netcode.md promises
// (TestLeadSettlesAfterRTTStep).
const DefaultRTTSamples = 5

// rttCap bounds the samples kept, so the filters need no allocation.
const rttCap = 64

// jitterGainShift is log2 of the inverse gain of the jitter average: 1/16,
// the gain of the interarrival jitter of RFC 3550, section 6.4.1, so the
// estimate forgets over about 16 samples, three seconds at
// ServerPingInterval.
const jitterGainShift = 4

// sample is one measurement taken at time at. lo is used by
// OffsetEstimator only: the lowest clock offset the exchange allows.
type sample struct {
	at, rtt, lo time.Duration
}

// ring is a fixed ring of the newest samples, oldest first. Both filters of
// the package keep one; it is plain data and copies whole.
type ring struct {
	buf     [rttCap]sample
	head, n int
}

// expire drops samples older than window before now, and the oldest ones
// beyond keep-1, making room for one more.
func (r *ring) expire(now, window time.Duration, keep int) {
	for r.n > 0 && (now-r.buf[r.head].at >= window || r.n >= keep) {
		r.head = (r.head + 1) % rttCap
		r.n--
	}
}

// expireKeeping makes room for one more sample, dropping those older than
// window unless that would leave fewer than least with the one to come.
func (r *ring) expireKeeping(now, window time.Duration, least int) {
	for r.n > 0 && (r.n >= least && now-r.buf[r.head].at >= window || r.n >= rttCap) {
		r.head = (r.head + 1) % rttCap
		r.n--
	}
}

// push appends s as the newest sample.
func (r *ring) push(s sample) {
	r.buf[(r.head+r.n)%rttCap] = s
	r.n++
}

// minRTT returns the slot of the sample with the lowest RTT, the newest
// among equals (it carries the least clock drift), or -1 when empty.
func (r *ring) minRTT() int {
	best := -1
	for k := 0; k < r.n; k++ {
		i := (r.head + k) % rttCap
		if best < 0 || r.buf[i].rtt <= r.buf[best].rtt {
			best = i
		}
	}
	return best
}

// RTTFilter estimates one link's round-trip time from timestamped ping/pong
// exchanges. The server keeps one per client and measures it itself: that
// value, not one the client reports, sets the client's leniency
// (netcode.md, section 2).
//
// The estimate is the minimum over the last Keep samples. Queues
// and retransmissions only ever add delay, so the lowest recent sample is the
// path's own latency and delayed samples cannot raise it; a decrease is taken
// at once (the new sample is the new minimum), an increase once the last
// faster sample has left the window. A low percentile would tolerate more
// delayed samples, but it follows a step down only once several low samples
// have arrived, and it needs sorting.
//
// Jitter is the mean deviation of the samples above that floor, averaged as
// RFC 3550 averages its interarrival jitter. It feeds the leniency margin
// (JitterMargin), never the leads, so it does not move the perceived lags.
//
// The zero value is ready to use. Methods take the time as a parameter; now
// must not decrease from call to call.
type RTTFilter struct {
	// Keep is how many of the newest samples count (at most 64); zero means
	// DefaultRTTSamples.
	Keep int

	r      ring
	floor  time.Duration
	jitter time.Duration
}

// Add records a round-trip time measured at now (the pong's arrival). The
// server must take the send time from its own record of the ping (by
// sequence number), not from a timestamp the client echoes, or the client
// could report any RTT it likes. Negative samples are dropped.
func (f *RTTFilter) Add(now, rtt time.Duration) {
	if rtt < 0 {
		return
	}
	keep := DefaultRTTSamples
	if f.Keep > 0 {
		keep = min(f.Keep, rttCap)
	}
	f.r.expire(now, maxDuration, keep)
	f.r.push(sample{at: now, rtt: rtt})
	f.floor = f.r.buf[f.r.minRTT()].rtt
	f.jitter += (rtt - f.floor - f.jitter) >> jitterGainShift
}

// RTT returns the current round-trip estimate, zero before the first sample.
func (f *RTTFilter) RTT() time.Duration { return f.floor }

// OneWay returns half the round trip: the o_i of netcode.md, section 3,
// before any jitter margin. On an asymmetric path it is not the uplink's
// delay, and need not be: the client's offset estimate is wrong by the same
// half asymmetry the other way, so its events still arrive exactly o_i - L_i
// late (TestAsymmetricPathCancels).
func (f *RTTFilter) OneWay() time.Duration { return f.floor / 2 }

// Jitter returns the mean deviation of recent samples above RTT.
func (f *RTTFilter) Jitter() time.Duration { return f.jitter }

// Samples returns how many samples the window holds; zero means no estimate.
func (f *RTTFilter) Samples() int { return f.r.n }

// Reset forgets everything, for a reconnect: the old path says nothing
// about the new one. The Keep setting is kept.
func (f *RTTFilter) Reset() { *f = RTTFilter{Keep: f.Keep} }

// maxDuration is a window no sample ages out of.
const maxDuration = time.Duration(1<<63 - 1)

// orDefault returns w, or def when w is not positive: zero-valued settings
// mean the documented default throughout the package.
func orDefault(w, def time.Duration) time.Duration {
	if w <= 0 {
		return def
	}
	return w
}

// DefaultOffsetWindow is how long a ping/pong sample can serve as the offset
// estimate: eight samples at ClientPingInterval. The clock offset does not
// change when the path does (only drift moves it, parts per million), so
// keeping a good sample long rides out long bursts of delayed ones.
const DefaultOffsetWindow = 2 * time.Second

// OffsetEstimator estimates, on the client, serverTime - localTime from
// ping/pong exchanges: the client stamps its ping with its local send time,
// the server answers with its own clock reading ts, the client notes the
// local arrival time (netcode.md, section 2).
//
// The server read ts at some local instant between send and receive, so an
// exchange proves the offset lies in [ts - received, ts - sent], whatever the
// delays were. The estimate is the middle of the intersection of those
// intervals over the window: a delay spike in either direction widens its
// own interval and moves nothing, and the bounds come from the fastest
// uplink and the fastest downlink seen, which need not be the same exchange.
// When the intersection is empty (clock drift over the window, or a server
// clock step) it falls back to NTP's choice, the middle of the lowest-RTT
// exchange. What no estimator can see is a path that is asymmetric all the
// time: the middle is then off by half the asymmetry. That error cancels the
// one of taking RTT/2 as the uplink's delay (see RTTFilter.OneWay), so it
// moves neither the server's view of the client's events nor the perceived
// lags; it only shows if the client's clock is compared with another one.
//
// The zero value is ready to use. Times must not decrease from call to call.
type OffsetEstimator struct {
	// Window is how long a sample counts; zero means DefaultOffsetWindow.
	Window time.Duration
	// Least is how many of the newest samples count whatever their age
	// (0: none beyond the window): a client whose pings grow sparse (they
	// ride with the server's, a second apart in a quiet room) still
	// chooses from several.
	Least int

	r                   ring
	offset, uncertainty time.Duration
	minRTT              time.Duration
}

// Add records one exchange: the local time the ping was sent, the server
// time stamped in the pong, and the local time the pong arrived. Samples
// with a negative round trip are dropped.
func (e *OffsetEstimator) Add(sent, serverTime, received time.Duration) {
	rtt := received - sent
	if rtt < 0 {
		return
	}
	e.r.expireKeeping(received, orDefault(e.Window, DefaultOffsetWindow), e.Least)
	e.r.push(sample{at: received, rtt: rtt, lo: serverTime - received})
	best := e.r.buf[e.r.minRTT()]
	e.minRTT = best.rtt
	lo, hi := best.lo, best.lo+best.rtt
	for k := 0; k < e.r.n; k++ {
		s := e.r.buf[(e.r.head+k)%rttCap]
		lo, hi = max(lo, s.lo), min(hi, s.lo+s.rtt)
	}
	if lo > hi { // no offset fits every exchange: use the best one alone
		lo, hi = best.lo, best.lo+best.rtt
	}
	e.uncertainty = (hi - lo) / 2
	e.offset = lo + e.uncertainty
}

// Offset returns the estimate of serverTime - localTime, zero before the
// first sample.
func (e *OffsetEstimator) Offset() time.Duration { return e.offset }

// ServerTime converts a local clock reading to the estimated server time.
func (e *OffsetEstimator) ServerTime(local time.Duration) time.Duration {
	return local + e.offset
}

// Uncertainty bounds the estimate's error: half the width of the interval
// the exchanges allow, asymmetry included. It is never below half the path's
// round trip (the server may have stamped anywhere along it); the middle is
// usually far closer than that.
func (e *OffsetEstimator) Uncertainty() time.Duration { return e.uncertainty }

// RTT returns the lowest round trip of the window, what the client can
// show as its own ping.
func (e *OffsetEstimator) RTT() time.Duration { return e.minRTT }

// Ready reports whether there is an estimate at all.
func (e *OffsetEstimator) Ready() bool { return e.r.n > 0 }
