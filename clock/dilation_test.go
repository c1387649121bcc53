package clock

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestRateScale(t *testing.T) {
	tests := []struct {
		rate Rate
		d    time.Duration
		want time.Duration
	}{
		{RateOne, time.Second, time.Second},
		{RateOne + MaxDilation, time.Second, 1100 * ms},
		{RateOne - MaxDilation, 16666667, 15000000},
		{1_012_345, ms, 1012345},
		{RateOne + MaxDilation, 1000 * time.Hour, 1100 * time.Hour}, // d*rate would overflow int64
		{RateOne, -ms, -ms},
	}
	for _, tt := range tests {
		if got := tt.rate.Scale(tt.d); got != tt.want {
			t.Errorf("Rate(%d).Scale(%v) = %v, want %v", tt.rate, tt.d, got, tt.want)
		}
	}
	if got := (RateOne + MaxDilation).Factor(); got != 1.1 {
		t.Errorf("Factor() = %v, want 1.1", got)
	}
}

func TestDilationCorrect(t *testing.T) {
	tests := []struct {
		name     string
		d        Dilation
		err      time.Duration
		wantRate Rate
		wantJump bool
	}{
		{"on target", Dilation{}, 0, RateOne, false},
		{"dead band edge", Dilation{}, ms, RateOne, false},
		{"dead band, behind", Dilation{}, -ms, RateOne, false},
		{"2ms ahead: 2% slower", Dilation{}, 2 * ms, 980_000, false},
		{"5ms behind: 5% faster", Dilation{}, -5 * ms, 1_050_000, false},
		{"10ms ahead: full 10%", Dilation{}, 10 * ms, 900_000, false},
		{"50ms behind: capped", Dilation{}, -50 * ms, 1_100_000, false},
		{"250ms ahead: still dilates", Dilation{}, 250 * ms, 900_000, false},
		{"251ms ahead: jump", Dilation{}, 251 * ms, RateOne, true},
		{"300ms behind: jump", Dilation{}, -300 * ms, RateOne, true},
		{"custom gain", Dilation{TimeConstant: time.Second, DeadBand: 5 * ms}, 20 * ms, 980_000, false},
		{"custom dead band", Dilation{TimeConstant: time.Second, DeadBand: 5 * ms}, -5 * ms, RateOne, false},
		{"custom jump", Dilation{JumpThreshold: time.Hour}, 40 * time.Minute, 900_000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate, jump := tt.d.Correct(tt.err)
			if rate != tt.wantRate || jump != tt.wantJump {
				t.Errorf("Correct(%v) = %d, %v; want %d, %v", tt.err, rate, jump, tt.wantRate, tt.wantJump)
			}
		})
	}
}

// The rate must never leave [0.9, 1.1] and must slow down more the further
// ahead the client is, for any error.
func TestDilationBoundedAndMonotone(t *testing.T) {
	var d Dilation
	prev := RateOne + MaxDilation
	for e := -DefaultJumpThreshold; e <= DefaultJumpThreshold; e += 37 * time.Microsecond {
		rate, jump := d.Correct(e)
		if jump {
			t.Fatalf("Correct(%v) jumps inside the threshold", e)
		}
		if rate < RateOne-MaxDilation || rate > RateOne+MaxDilation {
			t.Fatalf("Correct(%v) = %d, outside [0.9, 1.1]", e, rate)
		}
		if rate > prev {
			t.Fatalf("Correct(%v) = %d, faster than %d for a smaller error", e, rate, prev)
		}
		prev = rate
	}
}

type report struct{ at, late time.Duration }

// every returns reports every step from 0 up to (not including) end, all with
// the same lateness.
func every(step, end, late time.Duration) []report {
	var rs []report
	for at := time.Duration(0); at < end; at += step {
		rs = append(rs, report{at, late})
	}
	return rs
}

func TestLateFeedback(t *testing.T) {
	tests := []struct {
		name    string
		reports []report
		want    time.Duration
	}{
		{"none", nil, 0},
		{"one 4ms late: half", []report{{0, 4 * ms}}, 2 * ms},
		{"one 30ms late: a little", []report{{0, 30 * ms}}, 5 * ms},
		{"one barely late: at least 1ms", []report{{0, 100 * time.Microsecond}}, ms},
		{"keeps arriving late: bounded", every(50*ms, 5*time.Second, 50*ms), DefaultFeedbackMaxRaise},
		{"narrow spare holds", every(200*ms, 5*time.Second, -5*ms), 0},
		{"wide spare lowers, bounded", every(200*ms, 5*time.Second, -30*ms), -DefaultFeedbackMaxLower},
		{"wide spare, one interval", every(200*ms, 1200*ms, -20*ms), -5 * ms},
		{"one late event blocks lowering", append(every(200*ms, 900*ms, -30*ms), report{950 * ms, 2 * ms}, report{1100 * ms, -30 * ms}), ms},
		{"raise, then lower back", append([]report{{0, 10 * ms}}, every(200*ms, 6*time.Second, -25*ms)[1:]...), -DefaultFeedbackMaxLower},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f LateFeedback
			for _, r := range tt.reports {
				f.Report(r.at, r.late)
			}
			if got := f.Adjustment(); got != tt.want {
				t.Errorf("Adjustment() = %v, want %v", got, tt.want)
			}
			f.Reset()
			if got := f.Adjustment(); got != 0 {
				t.Errorf("Adjustment() after Reset = %v, want 0", got)
			}
		})
	}
}

// Events that take 15 ms longer than the pings (a send queue, a busy
// browser): every event arrives late by that until the client's lead covers
// it. The adjustment must settle where no event is late any more and the
// spare is not wide, although each report only comes back with the next
// heartbeat (every 200 ms, room.DefaultHeartbeat) and a one-way trip later.
func TestLateFeedbackSteadyLateness(t *testing.T) {
	const extra, noise, back = 15 * ms, 3 * ms, 200*ms + 50*ms
	rng := rand.New(rand.NewPCG(3, 5))
	var f LateFeedback
	type pending struct{ at, late time.Duration }
	var inflight []pending
	lateAfter := 0
	for now := time.Duration(0); now < 20*time.Second; now += 10 * ms {
		for len(inflight) > 0 && inflight[0].at <= now {
			f.Report(inflight[0].at, inflight[0].late)
			inflight = inflight[1:]
		}
		if now%(200*ms) == 0 { // an event every 200 ms
			late := extra + time.Duration(rng.Int64N(int64(noise))) - f.Adjustment()
			if late > 0 && now >= 10*time.Second {
				lateAfter++
			}
			inflight = append(inflight, pending{now + back, late})
		}
	}
	if lateAfter > 0 {
		t.Errorf("%d events late in the last 10 s, want 0", lateAfter)
	}
	if got, hi := f.Adjustment(), extra+noise+DefaultFeedbackWide; got < extra || got > hi {
		t.Errorf("Adjustment() = %v, want in [%v, %v]", got, extra, hi)
	}
}
