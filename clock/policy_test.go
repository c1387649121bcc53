package clock

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// halves returns the one-way latencies RTT/2 of the given RTTs.
func halves(rtts ...time.Duration) []time.Duration {
	o := make([]time.Duration, len(rtts))
	for i, r := range rtts {
		o[i] = r / 2
	}
	return o
}

// The seed's example (netcode.md, section 3): pings 60 and 160 ms, no jitter.
// u12 is what the 60-ms player sees of the other, u21 the reverse.
func TestPerceivedLagTwoPlayers(t *testing.T) {
	tests := []struct {
		name     string
		p        Policy
		u12, u21 time.Duration
		leads    []time.Duration
		lens     []time.Duration
	}{
		{"ours, charity 0", Policy{}, 60 * ms, 160 * ms, []time.Duration{30 * ms, 80 * ms}, []time.Duration{0, 0}},
		{"ours, 25ms", Policy{Charity: FixedCharity(25 * ms)}, 85 * ms, 135 * ms, []time.Duration{30 * ms, 55 * ms}, []time.Duration{0, 25 * ms}},
		{"ours, 50ms", Policy{Charity: FixedCharity(50 * ms)}, 110 * ms, 110 * ms, []time.Duration{30 * ms, 30 * ms}, []time.Duration{0, 50 * ms}},
		{"ours, 100ms", Policy{Charity: FixedCharity(100 * ms)}, 110 * ms, 110 * ms, []time.Duration{30 * ms, 30 * ms}, []time.Duration{0, 50 * ms}},
		{"ours, auto", Policy{Charity: AutoCharity}, 110 * ms, 110 * ms, []time.Duration{30 * ms, 30 * ms}, []time.Duration{0, 50 * ms}},
		{"armagetron, C=30", Policy{Rule: RuleArmagetron}, 60 * ms, 160 * ms, []time.Duration{0, 50 * ms}, []time.Duration{30 * ms, 30 * ms}},
		{"armagetron, C=50", Policy{Rule: RuleArmagetron, Charity: FixedCharity(20 * ms)}, 80 * ms, 140 * ms, []time.Duration{0, 30 * ms}, []time.Duration{30 * ms, 50 * ms}},
		{"armagetron, C=80", Policy{Rule: RuleArmagetron, Charity: FixedCharity(50 * ms)}, 110 * ms, 110 * ms, []time.Duration{0, 0}, []time.Duration{30 * ms, 80 * ms}},
		{"armagetron, auto", Policy{Rule: RuleArmagetron, Charity: AutoCharity}, 110 * ms, 110 * ms, []time.Duration{0, 0}, []time.Duration{30 * ms, 80 * ms}},
	}
	o := halves(60*ms, 160*ms)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leads, lens := tt.p.Compute(o)
			if !slices.Equal(leads, tt.leads) || !slices.Equal(lens, tt.lens) {
				t.Errorf("Compute = leads %v, leniencies %v; want %v, %v", leads, lens, tt.leads, tt.lens)
			}
			u12 := PerceivedLag(o[1], o[0], leads[1], leads[0])
			u21 := PerceivedLag(o[0], o[1], leads[0], leads[1])
			if u12 != tt.u12 || u21 != tt.u21 {
				t.Errorf("U = %v/%v, want %v/%v", u12, u21, tt.u12, tt.u21)
			}
		})
	}
}

func TestAutoCharityAveragesEveryPair(t *testing.T) {
	rtts := []time.Duration{20 * ms, 100 * ms, 180 * ms}
	o := halves(rtts...)
	for _, rule := range []Rule{RuleWebtron, RuleArmagetron} {
		leads, _ := Policy{Charity: AutoCharity, Rule: rule}.Compute(o)
		for i := range o {
			for j := range o {
				if i == j {
					continue
				}
				if got, want := PerceivedLag(o[i], o[j], leads[i], leads[j]), (rtts[i]+rtts[j])/2; got != want {
					t.Errorf("%v: U_%d(%d) = %v, want %v", rule, j, i, got, want)
				}
			}
		}
	}
}

// randomRoom returns 2 to 8 one-way latencies of up to 300 ms and a charity.
func randomRoom(rng *rand.Rand) ([]time.Duration, Charity) {
	o := make([]time.Duration, 2+rng.IntN(7))
	for i := range o {
		o[i] = time.Duration(rng.Int64N(int64(300 * ms)))
	}
	switch rng.IntN(4) {
	case 0:
		return o, AutoCharity
	case 1:
		return o, Charity{}
	}
	return o, FixedCharity(time.Duration(rng.Int64N(int64(400 * ms))))
}

// The invariant of section 3: U_j(i) + U_i(j) = RTT_i + RTT_j whatever the
// leads, for both rules, any room and any charity, with and without jitter.
func TestPerceivedLagInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		o, c := randomRoom(rng)
		jit := make([]time.Duration, len(o))
		for i := range jit {
			jit[i] = time.Duration(rng.Int64N(int64(20 * ms)))
		}
		for _, rule := range []Rule{RuleWebtron, RuleArmagetron} {
			leads := make([]time.Duration, len(o))
			lens := make([]time.Duration, len(o))
			Policy{Charity: c, Rule: rule}.ComputeInto(leads, lens, o, jit)
			for i := range o {
				for j := range o {
					sum := PerceivedLag(o[i], o[j], leads[i], leads[j]) + PerceivedLag(o[j], o[i], leads[j], leads[i])
					if want := 2*o[i] + 2*o[j]; sum != want {
						t.Fatalf("%v %v %v: U_%d(%d)+U_%d(%d) = %v, want RTT sum %v", rule, c, o, j, i, i, j, sum, want)
					}
				}
			}
		}
	}
}

// Our rule gives every pair the same perceived lag as Armagetron's with the
// same charity, and never needs more total leniency (netcode.md, section 3).
func TestOurRuleNeedsNoMoreLeniency(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		o, c := randomRoom(rng)
		ours, oursLen := Policy{Charity: c}.Compute(o)
		theirs, theirsLen := Policy{Charity: c, Rule: RuleArmagetron}.Compute(o)
		oMin := slices.Min(o)
		var sumOurs, sumTheirs time.Duration
		for i := range o {
			for j := range o {
				if a, b := PerceivedLag(o[i], o[j], ours[i], ours[j]), PerceivedLag(o[i], o[j], theirs[i], theirs[j]); a != b {
					t.Fatalf("%v %v: U_%d(%d) ours %v, Armagetron %v", c, o, j, i, a, b)
				}
			}
			sumOurs += oursLen[i]
			sumTheirs += theirsLen[i]
			if oursLen[i] < 0 || oursLen[i] > c.Amount(oMin, slices.Max(o), 0) {
				t.Fatalf("%v %v: leniency %d = %v, outside [0, c]", c, o, i, oursLen[i])
			}
			if o[i] == oMin && oursLen[i] != 0 {
				t.Fatalf("%v %v: lowest-ping player %d gets leniency %v, want 0", c, o, i, oursLen[i])
			}
		}
		if sumOurs > sumTheirs {
			t.Fatalf("%v %v: total leniency ours %v > Armagetron %v", c, o, sumOurs, sumTheirs)
		}
	}
}

func TestComputeIntoJitterMargin(t *testing.T) {
	o := halves(60*ms, 160*ms, 90*ms)
	jit := []time.Duration{2 * ms, 0, 40 * ms}
	p := Policy{Charity: FixedCharity(20 * ms)}
	wantLeads, base := p.Compute(o)
	leads := make([]time.Duration, len(o))
	lens := make([]time.Duration, len(o))
	p.ComputeInto(leads, lens, o, jit)
	if !slices.Equal(leads, wantLeads) {
		t.Errorf("leads with jitter %v, without %v: the margin must not move leads", leads, wantLeads)
	}
	margins := []time.Duration{4 * ms, 0, MaxJitterMargin}
	for i := range o {
		if lens[i] != base[i]+margins[i] {
			t.Errorf("leniency %d = %v, want %v + %v", i, lens[i], base[i], margins[i])
		}
	}
	if n := testing.AllocsPerRun(100, func() { p.ComputeInto(leads, lens, o, jit) }); n != 0 {
		t.Errorf("ComputeInto allocates %v times, want 0", n)
	}
	p.ComputeInto(nil, nil, nil, nil) // an empty room is fine
	defer func() {
		if recover() == nil {
			t.Errorf("ComputeInto with short leads did not panic")
		}
	}()
	p.ComputeInto(leads[:1], lens, o, nil)
}

func TestSmoother(t *testing.T) {
	steps := []struct {
		now, target time.Duration
		want        time.Duration
		changed     bool
	}{
		{0, 30 * ms, 30 * ms, true},                 // first value passes
		{100 * ms, 31 * ms, 30 * ms, false},         // below threshold
		{200 * ms, 80 * ms, 30 * ms, false},         // too soon after the last change
		{500 * ms, 80 * ms, 80 * ms, true},          // a step passes as one change
		{700 * ms, 30 * ms, 80 * ms, false},         // rate limited
		{time.Second, 30 * ms, 30 * ms, true},       // and back
		{3 * time.Second, 31 * ms, 30 * ms, false},  // wandering never passes
		{4 * time.Second, 32 * ms, 32 * ms, true},   // the threshold does
		{5 * time.Second, 32 * ms, 32 * ms, false},  // no change, nothing to send
		{6 * time.Second, 33500000, 32 * ms, false}, // 1.5 ms
		{7 * time.Second, 29900000, 29900000, true}, // 2.1 ms the other way
	}
	var s Smoother
	for _, st := range steps {
		got, changed := s.Update(st.now, st.target)
		if got != st.want || changed != st.changed || s.Value() != got {
			t.Errorf("Update(%v, %v) = %v, %v; want %v, %v", st.now, st.target, got, changed, st.want, st.changed)
		}
	}
	s.Reset()
	if got, changed := s.Update(8*time.Second, 0); got != 0 || !changed {
		t.Errorf("after Reset: Update = %v, %v; want 0, true", got, changed)
	}
}

func TestLeadFloor(t *testing.T) {
	const s = DefaultSettle
	steps := []struct {
		now, lead time.Duration
		want      time.Duration
	}{
		{0, 30 * ms, 30 * ms},
		{time.Second, 80 * ms, 30 * ms},                 // raised: the client still runs near 30
		{time.Second + s - ms, 80 * ms, 30 * ms},        // not settled yet
		{time.Second + s, 80 * ms, 80 * ms},             // settled
		{time.Second + s + ms, 60 * ms, 60 * ms},        // lowered: follows at once
		{10 * time.Second, 120 * ms, 60 * ms},           // raised again
		{11 * time.Second, 130 * ms, 60 * ms},           // and again: the wait restarts
		{10*time.Second + s, 130 * ms, 60 * ms},         // Settle after the first raise
		{11*time.Second + s, 130 * ms, 130 * ms},        // Settle after the last
		{11*time.Second + s + ms, 130 * ms, 130 * ms},   // steady
		{11*time.Second + s + 2*ms, 100 * ms, 100 * ms}, // down again
	}
	var f LeadFloor
	for _, st := range steps {
		if got := f.Update(st.now, st.lead); got != st.want {
			t.Errorf("Update(%v, %v) = %v, want %v", st.now, st.lead, got, st.want)
		}
	}
	floor := f.Update(20*time.Second, 130*ms) // 100ms until settled
	if got, want := Leniency(80*ms, floor, 3*ms), 6*ms; got != want {
		t.Errorf("Leniency(80ms, %v, 3ms) = %v, want %v (never negative, plus margin)", floor, got, want)
	}
	f.Reset()
	if got := f.Update(30*time.Second, 90*ms); got != 90*ms {
		t.Errorf("after Reset: Update = %v, want 90ms", got)
	}
}

func ExamplePolicy_Compute() {
	o := []time.Duration{30 * time.Millisecond, 80 * time.Millisecond} // pings 60 and 160 ms
	for _, p := range []Policy{{}, {Charity: AutoCharity}, {Charity: AutoCharity, Rule: RuleArmagetron}} {
		leads, lens := p.Compute(o)
		fmt.Printf("%-10v %-4v leads %v leniencies %v U %v/%v\n", p.Rule, p.Charity, leads, lens,
			PerceivedLag(o[1], o[0], leads[1], leads[0]), PerceivedLag(o[0], o[1], leads[0], leads[1]))
	}
	// Output:
	// webtron    0    leads [30ms 80ms] leniencies [0s 0s] U 60ms/160ms
	// webtron    auto leads [30ms 30ms] leniencies [0s 50ms] U 110ms/110ms
	// armagetron auto leads [0s 0s] leniencies [30ms 80ms] U 110ms/110ms
}
