package clock

import (
	"math/rand/v2"
	"testing"
	"time"
)

const ms = time.Millisecond

// The intervals the filters see when the game runs: the server's pings feed
// the RTTFilter, the client's the OffsetEstimator.
const (
	pingEvery       = ServerPingInterval
	clientPingEvery = ClientPingInterval
)

func TestRTTFilterIgnoresDelayedSamples(t *testing.T) {
	tests := []struct {
		name    string
		samples []time.Duration // one per pingEvery
	}{
		{"clean", []time.Duration{60 * ms, 60 * ms, 60 * ms, 60 * ms}},
		{"isolated spikes", []time.Duration{60 * ms, 60 * ms, 200 * ms, 60 * ms, 60 * ms, 400 * ms, 60 * ms}},
		// Four delayed pings in a row, at the interval the server pings at:
		// the estimate, which sets leads and leniency, must not move.
		{"burst of four", []time.Duration{60 * ms, 150 * ms, 900 * ms, 170 * ms, 180 * ms, 60 * ms, 61 * ms}},
		{"two bursts of four", []time.Duration{60 * ms, 90 * ms, 90 * ms, 90 * ms, 90 * ms, 60 * ms, 150 * ms, 150 * ms, 150 * ms, 150 * ms, 60 * ms}},
		{"every other delayed", []time.Duration{60 * ms, 95 * ms, 60 * ms, 95 * ms, 60 * ms, 95 * ms, 60 * ms, 95 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f RTTFilter
			for k, s := range tt.samples {
				f.Add(time.Duration(k)*pingEvery, s)
				if got := f.RTT(); got != 60*ms {
					t.Fatalf("after sample %d (%v): RTT() = %v, want 60ms", k, s, got)
				}
			}
		})
	}
}

// stepFilter feeds rtt before at step and rttAfter from step on, and returns
// how long after step the estimate first equals rttAfter.
func stepFilter(before, after time.Duration) time.Duration {
	var f RTTFilter
	const step = 3 * time.Second
	for now := time.Duration(0); now < 10*time.Second; now += pingEvery {
		rtt := before
		if now >= step {
			rtt = after
		}
		f.Add(now, rtt)
		if now >= step && f.RTT() == after {
			return now - step
		}
	}
	return -1
}

func TestRTTFilterFollowsSteps(t *testing.T) {
	tests := []struct {
		name          string
		before, after time.Duration
		within        time.Duration // the estimate must follow at most this long after the first new sample
	}{
		// Believed at the fifth sample at the new RTT, four intervals after
		// the first: inside the 2 s the lead has to settle in.
		{"up 60 to 160", 60 * ms, 160 * ms, (DefaultRTTSamples - 1) * pingEvery},
		{"down 160 to 60", 160 * ms, 60 * ms, 0},
		{"up 20 to 300", 20 * ms, 300 * ms, (DefaultRTTSamples - 1) * pingEvery},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stepFilter(tt.before, tt.after)
			if got < 0 || got > tt.within {
				t.Errorf("followed after %v, want within %v", got, tt.within)
			}
		})
	}
}

func TestRTTFilterJitter(t *testing.T) {
	tests := []struct {
		name       string
		sample     func(k int) time.Duration
		lo, hi     time.Duration // range of Jitter() after 200 samples
		wantRTT    time.Duration
		wantOneWay time.Duration
	}{
		{"steady", func(int) time.Duration { return 80 * ms }, 0, 0, 80 * ms, 40 * ms},
		{"alternating +4ms", func(k int) time.Duration { return 80*ms + time.Duration(k%2)*4*ms }, 1900 * time.Microsecond, 2100 * time.Microsecond, 80 * ms, 40 * ms},
		{"one in ten +50ms", func(k int) time.Duration {
			if k%10 == 9 {
				return 130 * ms
			}
			return 80 * ms
		}, 2 * ms, 8 * ms, 80 * ms, 40 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f RTTFilter
			for k := range 200 {
				f.Add(time.Duration(k)*pingEvery, tt.sample(k))
			}
			if got := f.Jitter(); got < tt.lo || got > tt.hi {
				t.Errorf("Jitter() = %v, want in [%v, %v]", got, tt.lo, tt.hi)
			}
			if got := f.RTT(); got != tt.wantRTT {
				t.Errorf("RTT() = %v, want %v", got, tt.wantRTT)
			}
			if got := f.OneWay(); got != tt.wantOneWay {
				t.Errorf("OneWay() = %v, want %v", got, tt.wantOneWay)
			}
		})
	}
}

func TestRTTFilterEdges(t *testing.T) {
	var f RTTFilter
	if f.Samples() != 0 || f.RTT() != 0 {
		t.Fatalf("zero filter: Samples() = %d, RTT() = %v, want 0, 0", f.Samples(), f.RTT())
	}
	f.Add(0, -5*ms)
	if f.Samples() != 0 {
		t.Errorf("negative sample kept: Samples() = %d, want 0", f.Samples())
	}
	// Far more samples than the ring holds, all inside one window.
	f.Keep = rttCap
	for k := range 3 * rttCap {
		f.Add(time.Duration(k)*time.Microsecond, time.Duration(100-k%7)*ms)
	}
	if got, want := f.Samples(), rttCap; got != want {
		t.Errorf("Samples() = %d, want %d", got, want)
	}
	if got := f.RTT(); got != 94*ms {
		t.Errorf("RTT() = %v, want 94ms", got)
	}
	f.Keep = 3
	f.Reset()
	if f.Samples() != 0 || f.RTT() != 0 || f.Jitter() != 0 || f.Keep != 3 {
		t.Errorf("after Reset: %+v, want empty with Keep kept", f)
	}
	for k, s := range []time.Duration{50 * ms, 90 * ms, 90 * ms, 90 * ms} {
		f.Add(time.Duration(k)*pingEvery, s)
	}
	if f.Samples() != 3 || f.RTT() != 90*ms {
		t.Errorf("Keep 3: %d samples, RTT %v; want 3 and 90ms (the 50ms sample left)", f.Samples(), f.RTT())
	}
}

func TestOffsetEstimatorAsymmetricSpikes(t *testing.T) {
	const theta = -3210987654 * time.Nanosecond // serverTime - localTime
	rng := rand.New(rand.NewPCG(7, 11))
	tests := []struct {
		name     string
		up, down func(k int) time.Duration // one-way delays of exchange k
		want     time.Duration
		tol      time.Duration
	}{
		{"symmetric", fixed(30 * ms), fixed(30 * ms), theta, 0},
		{"uplink spikes", spiky(30*ms, 3, 80*ms), fixed(30 * ms), theta, 0},
		{"downlink spikes", fixed(30 * ms), spiky(30*ms, 2, 120*ms), theta, 0},
		// The window holds eight exchanges at the client's ping interval:
		// one clean one among them is enough.
		{"both, one clean in eight", cleanEvery(30*ms, 8, 45*ms), cleanEvery(30*ms, 8, 5*ms), theta, 0},
		// The error is half the difference of the fastest uplink's and the
		// fastest downlink's extra delay: below half the jitter.
		{"random jitter 5ms", jittery(rng, 30*ms, 5*ms), jittery(rng, 30*ms, 5*ms), theta, 5 * ms / 2},
		// A path that is asymmetric all the time is invisible to ping/pong:
		// the estimate is off by half the asymmetry (harmless, see
		// TestAsymmetricPathCancels).
		{"constant asymmetry", fixed(40 * ms), fixed(20 * ms), theta + 10*ms, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e OffsetEstimator
			for k := range 100 {
				sent := time.Duration(k) * clientPingEvery
				ts := sent + theta + tt.up(k)
				received := ts - theta + tt.down(k)
				e.Add(sent, ts, received)
				if k < 20 {
					continue // let the first window fill
				}
				if d := e.Offset() - tt.want; d < -tt.tol || d > tt.tol {
					t.Fatalf("exchange %d: Offset() = %v, want %v ± %v", k, e.Offset(), tt.want, tt.tol)
				}
			}
			if got, want := e.ServerTime(time.Second), time.Second+e.Offset(); got != want {
				t.Errorf("ServerTime(1s) = %v, want %v", got, want)
			}
			// The exchanges cannot narrow the offset below the path's own
			// round trip: the server may have stamped anywhere along it.
			if e.RTT() != 60*ms && tt.tol == 0 || e.Uncertainty() > e.RTT()/2 || e.Uncertainty() < 30*ms {
				t.Errorf("RTT() = %v, Uncertainty() = %v: want 60ms, 30ms <= uncertainty <= RTT/2", e.RTT(), e.Uncertainty())
			}
		})
	}
}

func TestOffsetEstimatorEdges(t *testing.T) {
	var e OffsetEstimator
	if e.Ready() || e.Offset() != 0 {
		t.Fatalf("zero estimator: Ready() = %v, Offset() = %v, want false, 0", e.Ready(), e.Offset())
	}
	e.Add(100*ms, 5*time.Second, 90*ms) // received before sent: dropped
	if e.Ready() {
		t.Errorf("sample with negative RTT kept")
	}
	e.Add(0, 10*time.Second, 50*ms)
	if !e.Ready() || e.Offset() != 10*time.Second-25*ms {
		t.Errorf("Offset() = %v, want %v", e.Offset(), 10*time.Second-25*ms)
	}
	// An exchange that contradicts the first (as after a server clock step):
	// no offset fits both, so the lower-RTT one alone decides.
	e.Add(100*ms, 20*time.Second, 120*ms)
	if want := 20*time.Second - 110*ms; e.Offset() != want || e.Uncertainty() != 10*ms {
		t.Errorf("contradicting samples: Offset() = %v ± %v, want %v ± 10ms", e.Offset(), e.Uncertainty(), want)
	}
}

func fixed(d time.Duration) func(int) time.Duration { return func(int) time.Duration { return d } }

// spiky delays every every-th exchange by extra.
func spiky(base time.Duration, every int, extra time.Duration) func(int) time.Duration {
	return func(k int) time.Duration {
		if k%every == every-1 {
			return base + extra
		}
		return base
	}
}

// cleanEvery delays every exchange by extra except every every-th.
func cleanEvery(base time.Duration, every int, extra time.Duration) func(int) time.Duration {
	return func(k int) time.Duration {
		if k%every == 0 {
			return base
		}
		return base + extra
	}
}

func jittery(rng *rand.Rand, base, j time.Duration) func(int) time.Duration {
	return func(int) time.Duration { return base + time.Duration(rng.Int64N(int64(j))) }
}

// On a path slower one way than the other, RTT/2 is not the uplink's delay
// and the offset estimate is off by half the difference; the two errors
// cancel, so an event reaches the server exactly o - L after its tick, as
// the leniency assumes (netcode.md, section 3).
func TestAsymmetricPathCancels(t *testing.T) {
	const theta = 987654321 * time.Nanosecond // serverTime - localTime
	tests := []struct{ up, down, lead time.Duration }{
		{30 * ms, 30 * ms, 30 * ms},
		{50 * ms, 10 * ms, 30 * ms},
		{5 * ms, 75 * ms, 40 * ms},
		{120 * ms, 40 * ms, 20 * ms}, // charity: lead below o
	}
	for _, tt := range tests {
		var rtt RTTFilter
		var off OffsetEstimator
		for k := range 30 {
			sent := time.Duration(k) * pingEvery
			ts := sent + theta + tt.up
			off.Add(sent, ts, ts-theta+tt.down)
			rtt.Add(sent, tt.up+tt.down)
		}
		local := 5 * time.Second
		tick := off.ServerTime(local) + tt.lead // the client's sim time
		arrival := local + theta + tt.up        // server clock when the event lands
		if got, want := arrival-tick, rtt.OneWay()-tt.lead; got != want {
			t.Errorf("up %v down %v lead %v: event %v late, want o-L = %v", tt.up, tt.down, tt.lead, got, want)
		}
	}
}

// TestOffsetEstimatorLeast: samples a second apart (a quiet room) with a
// one-second window: the newest Least samples still count, so one clean
// exchange keeps the estimate exact through three delayed ones; without
// Least the latest delayed one alone decides.
func TestOffsetEstimatorLeast(t *testing.T) {
	const truth = 7 * time.Second // server time minus local time
	for _, tc := range []struct {
		least int
		want  time.Duration // the estimate's error after the four exchanges
	}{{4, 0}, {0, 20 * ms}} {
		e := OffsetEstimator{Window: time.Second, Least: tc.least}
		// The clean exchange: 10 ms each way. Then three with the uplink 50 ms slower.
		e.Add(0, truth+10*ms, 20*ms)
		for k := 1; k <= 3; k++ {
			sent := time.Duration(k) * time.Second
			e.Add(sent, truth+sent+50*ms, sent+60*ms)
		}
		if got := e.Offset() - truth; got != tc.want {
			t.Errorf("Least %d: offset off by %v, want %v", tc.least, got, tc.want)
		}
	}
}
