package lab

import (
	"fmt"
	"math"
	"testing"
	"time"

	"webtron/clock"
	"webtron/internal/stats"
)

const ms = time.Millisecond

func runT(t *testing.T, o Options) *Report {
	t.Helper()
	if o.Duration == 0 {
		o.Duration = 60 * time.Second
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Desyncs != 0 || r.Lost != 0 {
		t.Errorf("desyncs %d, lost events %d: want none", r.Desyncs, r.Lost)
	}
	if r.Events < 100 {
		t.Errorf("only %d events: the measurement has too few samples", r.Events)
	}
	return r
}

func pair(t *testing.T, r *Report, viewer, peer int) PairRow {
	t.Helper()
	for _, p := range r.Pairs {
		if p.Viewer == viewer && p.Peer == peer {
			return p
		}
	}
	t.Fatalf("no pair %d<-%d in %+v", viewer, peer, r.Pairs)
	return PairRow{}
}

// lagTolerance is how far a measured p50 may be from what the model
// expects on a run without jitter: each client's clock rests anywhere within
// the dilation's dead band of its target lead (clock.DefaultDeadBand), so a
// pair's lag may be off by twice that, plus half a millisecond for the
// median of samples that fall on a tick grid. A half-tick bias (4.2 ms)
// does not fit.
var lagTolerance = 2*stats.Ms(clock.DefaultDeadBand) + 0.5

// expectedP50 is the measured p50 of U the model expects for a pair whose
// formula gives predicted: the formula itself with the mind reader, which
// puts each event at the moment of its key press; without it an event lands
// on the tick after the press, on average half a tick later, and is seen
// that much sooner after its tick (netcode.md section 4).
func expectedP50(predicted float64, mind bool, tickRate int64) float64 {
	if mind {
		return predicted
	}
	return predicted - 1000/float64(tickRate)/2
}

// TestPerceivedLagTable checks the charity table of issue 4: pings 60 and 160,
// no jitter. The measured p50 must be what the model expects within
// lagTolerance, and the formula must give the documented values.
func TestPerceivedLagTable(t *testing.T) {
	for _, c := range []struct {
		charity        string
		rule           clock.Rule
		want12, want21 float64 // U_1(2), U_2(1)
	}{
		{"0", clock.RuleWebtron, 60, 160},
		{"25ms", clock.RuleWebtron, 85, 135},
		{"50ms", clock.RuleWebtron, 110, 110},
		{"auto", clock.RuleWebtron, 110, 110},
		{"20ms", clock.RuleArmagetron, 80, 140},  // C = o_min + c = 50
		{"50ms", clock.RuleArmagetron, 110, 110}, // C = 80
	} {
		for _, mind := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/%s/mind=%v", c.rule, c.charity, mind), func(t *testing.T) {
				ch, err := clock.ParseCharity(c.charity)
				if err != nil {
					t.Fatal(err)
				}
				r := runT(t, Options{Pings: []time.Duration{60 * ms, 160 * ms}, Charity: ch, Rule: c.rule, MindReader: mind})
				for _, x := range []struct {
					v, p int
					want float64
				}{{1, 2, c.want12}, {2, 1, c.want21}} {
					got := pair(t, r, x.v, x.p)
					if math.Abs(got.Predicted-x.want) > 0.5 {
						t.Errorf("U_%d(%d) predicted %.1f ms, want %.1f", x.v, x.p, got.Predicted, x.want)
					}
					if want := expectedP50(got.Predicted, mind, r.TickRate); math.Abs(got.P50-want) > lagTolerance {
						t.Errorf("U_%d(%d) measured p50 %.2f ms, expected %.2f (predicted %.1f): off by more than %.1f ms",
							x.v, x.p, got.P50, want, got.Predicted, lagTolerance)
					}
				}
			})
		}
	}
}

// TestOurRuleRollsBackLess compares the two rules at equal perceived lags.
func TestOurRuleRollsBackLess(t *testing.T) {
	ours := runT(t, Options{Pings: []time.Duration{60 * ms, 160 * ms}, Charity: clock.FixedCharity(50 * ms), Rule: clock.RuleWebtron})
	arma := runT(t, Options{Pings: []time.Duration{60 * ms, 160 * ms}, Charity: clock.FixedCharity(50 * ms), Rule: clock.RuleArmagetron})
	t.Logf("server rollback p50/p95: ours %.1f/%.1f ms, armagetron %.1f/%.1f ms", ours.Rollback.P50, ours.Rollback.P95, arma.Rollback.P50, arma.Rollback.P95)
	if ours.Rollback.P95 >= arma.Rollback.P95 {
		t.Errorf("our rule's rollback p95 %.1f ms is not below Armagetron's %.1f ms", ours.Rollback.P95, arma.Rollback.P95)
	}
}

// TestAutoThreePlayers: with auto charity every pair sees the average of
// their two pings, and the invariant holds.
func TestAutoThreePlayers(t *testing.T) {
	pings := []time.Duration{20 * ms, 100 * ms, 180 * ms}
	for _, mind := range []bool{true, false} {
		// Seed 2: in seed 1's run without the mind reader player 1 dies in
		// the first round and sits out the rest of the minute, too few of its
		// events (33) for a median.
		r := runT(t, Options{Pings: pings, Charity: clock.AutoCharity, MindReader: mind, Seed: 2})
		for _, p := range r.Pairs {
			want := float64(pings[p.Viewer-1]+pings[p.Peer-1]) / 2 / float64(ms)
			if math.Abs(p.Predicted-want) > 0.5 || math.Abs(p.P50-expectedP50(want, mind, r.TickRate)) > lagTolerance {
				t.Errorf("mind reader %v: U_%d(%d): predicted %.1f, measured %.2f, want %.1f (the average)", mind, p.Viewer, p.Peer, p.Predicted, p.P50, want)
			}
		}
	}
}

// TestInvariant: for every pair and any charity, U_j(i) + U_i(j) = RTT_i + RTT_j
// within one tick plus jitter, measured.
func TestInvariant(t *testing.T) {
	tick := 1000.0 / 120
	for _, c := range []string{"0", "30ms", "auto"} {
		ch, _ := clock.ParseCharity(c)
		pings := []time.Duration{40 * ms, 90 * ms, 220 * ms}
		r := runT(t, Options{Pings: pings, Charity: ch, Jitter: 4 * ms, Seed: 3})
		for _, a := range r.Pairs {
			if a.Viewer > a.Peer {
				continue
			}
			b := pair(t, r, a.Peer, a.Viewer)
			sum := float64(pings[a.Viewer-1]+pings[a.Peer-1]) / float64(ms)
			if math.Abs(a.P50+b.P50-sum) > tick+4+2 {
				t.Errorf("charity %s: U_%d(%d)+U_%d(%d) = %.1f+%.1f, want %.1f", c, a.Viewer, a.Peer, a.Peer, a.Viewer, a.P50, b.P50, sum)
			}
		}
	}
}

// TestInputLatency: with the mind reader the local input latency centres on
// zero and spreads over about a tick; without it, it centres on half a tick.
// Turns carry their instant within the tick: with the mind reader they
// happen when the key went down, without it exactly a tick later, to the
// rounding of 1/256 of a tick (16 us).
func TestInputLatency(t *testing.T) {
	tick := 1000.0 / 120
	round := tick/512 + 0.001
	on := runT(t, Options{Pings: []time.Duration{60 * ms, 160 * ms}, MindReader: true})
	if math.Abs(on.Input.P50) > 0.1*tick || on.Input.P95-on.Input.P05 < 0.7*tick || on.Input.P95-on.Input.P05 > 1.1*tick {
		t.Errorf("mind reader on: input latency p05/p50/p95 %.2f/%.2f/%.2f ms, want p50 ~0 and a spread of ~1 tick", on.Input.P05, on.Input.P50, on.Input.P95)
	}
	if ti := on.TurnInput; math.Abs(ti.P05) > round || math.Abs(ti.P95) > round {
		t.Errorf("mind reader on: turns' input latency p05/p50/p95 %.3f/%.3f/%.3f ms, want 0 within %.3f", ti.P05, ti.P50, ti.P95, round)
	}
	off := runT(t, Options{Pings: []time.Duration{60 * ms, 160 * ms}, MindReader: false})
	if math.Abs(off.Input.P50-tick/2) > 0.1*tick {
		t.Errorf("mind reader off: input latency p50 %.2f ms, want about half a tick (%.2f)", off.Input.P50, tick/2)
	}
	if ti := off.TurnInput; math.Abs(ti.P05-tick) > round || math.Abs(ti.P95-tick) > round {
		t.Errorf("mind reader off: turns' input latency p05/p50/p95 %.3f/%.3f/%.3f ms, want a tick (%.3f) within %.3f", ti.P05, ti.P50, ti.P95, tick, round)
	}
}

// The netcode property tests of issue 3: any latency, jitter and loss profile,
// on a reliable stream and on datagrams; every client's finalized state equals
// the server's (the server resyncs and counts any mismatch), nothing is lost.
func TestNetcodeProperties(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"20and300", Options{Pings: []time.Duration{20 * ms, 300 * ms}, Charity: clock.AutoCharity}},
		{"8jitterloss-stream", Options{Pings: []time.Duration{30 * ms, 50 * ms, 80 * ms, 100 * ms, 120 * ms, 150 * ms, 200 * ms, 250 * ms}, Jitter: 50 * ms, Loss: 0.05, Charity: clock.AutoCharity}},
		{"8jitterloss-datagram", Options{Pings: []time.Duration{30 * ms, 50 * ms, 80 * ms, 100 * ms, 120 * ms, 150 * ms, 200 * ms, 250 * ms}, Jitter: 50 * ms, Loss: 0.05, Datagram: true, Charity: clock.AutoCharity}},
		{"join-mid-round", Options{Pings: []time.Duration{60 * ms, 160 * ms, 100 * ms}, JoinLate: 20 * time.Second, Bots: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runT(t, c.o)
			if r.Resyncs != 0 {
				t.Errorf("%d resyncs: want none", r.Resyncs)
			}
		})
	}
}

// TestLossLeavesLagsOnPrediction: 8 players on one lossy datagram link
// (80 ms RTT, 5 ms jitter, 5 % loss, as scripts/transport-compare.sh runs
// the real thing; the server sends each Accepted twice, as on WebTransport):
// the p99 of perceived lag over the prediction is within 2 ticks (issue
// 14's goal), and the median of every pair within 3/4 of a tick. Before,
// a lost proposal was proposed again two round trips later and postponed:
// everyone saw it late (p99 23-25 ms over); and its lateness raised the
// proposer's lead through the heartbeat's margin, so that each client's
// lags drifted off the prediction by its own count of lost proposals (up
// to 14 ms at the median).
func TestLossLeavesLagsOnPrediction(t *testing.T) {
	tick := 1000.0 / 120
	for seed := uint64(1); seed <= 3; seed++ {
		r := runT(t, Options{Pings: []time.Duration{80 * ms, 80 * ms, 80 * ms, 80 * ms, 80 * ms, 80 * ms, 80 * ms, 80 * ms},
			Jitter: 5 * ms, Loss: 0.05, Datagram: true, Twice: true, Charity: clock.AutoCharity, Seed: seed})
		if r.LagExcess.P99 > 2*tick {
			t.Errorf("seed %d: perceived lag p99 %.1f ms over the prediction, want within 2 ticks (%.1f ms)", seed, r.LagExcess.P99, 2*tick)
		}
		worst := 0.0
		for _, p := range r.Pairs {
			if d := math.Abs(p.P50 - p.Predicted); d > worst {
				worst = d
			}
			if d := p.P50 - p.Predicted; math.Abs(d) > tick*3/4 {
				t.Errorf("seed %d: U_%d(%d) p50 %.1f ms, predicted %.1f ms: off by %.1f ms", seed, p.Viewer, p.Peer, p.P50, p.Predicted, d)
			}
		}
		t.Logf("seed %d: p99 over the prediction %.1f ms; worst |p50 - predicted| %.1f ms; %d of %d events postponed",
			seed, r.LagExcess.P99, worst, r.Postponed, r.Events)
	}
}

// TestCorruptedClientResynced damages one client's state: the server must see
// its hash differ, resync it, and the game goes on without further desyncs.
func TestCorruptedClientResynced(t *testing.T) {
	r, err := Run(Options{Pings: []time.Duration{60 * ms, 160 * ms}, Duration: 40 * time.Second, Seed: 2, Corrupt: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Desyncs < 1 || r.Resyncs < 1 {
		t.Fatalf("corrupted client: desyncs %d resyncs %d, want at least one of each", r.Desyncs, r.Resyncs)
	}
	if r.Desyncs > 2 {
		t.Errorf("%d desyncs: the resync did not repair the client", r.Desyncs)
	}
}

// TestDeterministic: the lab is a model, so the same seed gives the same run.
func TestDeterministic(t *testing.T) {
	o := Options{Pings: []time.Duration{60 * ms, 160 * ms}, Jitter: 5 * ms, Loss: 0.02, Duration: 20 * time.Second, Seed: 9}
	a, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if a.Events == 0 {
		t.Fatal("no events: two empty runs would compare equal")
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("two runs with one seed differ:\n%v\n%v", a, b)
	}
}

// TestLeadSettlesAfterRTTStep steps one link's RTT from 60 to 160 ms and back
// (issue 4): the client's real lead (its clock minus the true server time on
// the virtual clock) must settle on the new target within 2 s.
func TestLeadSettlesAfterRTTStep(t *testing.T) {
	for _, c := range []struct{ from, to time.Duration }{{60 * ms, 160 * ms}, {160 * ms, 60 * ms}} {
		t.Run(fmt.Sprintf("%v-to-%v", c.from, c.to), func(t *testing.T) {
			step := 10 * time.Second
			var settled time.Duration = -1
			var maxDil float64
			var prevLead, prevAt time.Duration
			probe := func(x *experiment) {
				p := x.players[0]
				if p.sess == nil || !p.sess.Started() {
					return
				}
				now := x.net.Now()
				lead := p.sess.Clock(now) - now
				if prevAt > 0 && now > 3*time.Second {
					// The client's clock runs at most 10 % fast or slow.
					rate := float64((lead-prevLead)+(now-prevAt)) / float64(now-prevAt)
					maxDil = math.Max(maxDil, math.Abs(rate-1))
				}
				prevLead, prevAt = lead, now
				// Charity 0: the target lead is the one-way latency o = RTT/2.
				target := c.from / 2
				if now >= step {
					target = c.to / 2
				}
				if testing.Verbose() && now >= step-time.Second && now%(200*ms) == 0 {
					t.Logf("t=%v lead %v target %v", now, lead, target)
				}
				ok := (lead - target).Abs() <= 2*ms
				switch {
				case now < step:
				case ok && settled < 0:
					settled = now - step
				case !ok:
					settled = -1
				}
			}
			_, err := run(Options{Pings: []time.Duration{c.from, 100 * ms}, Duration: step + 5*time.Second, Seed: 4,
				RTTStep: step, StepTo: c.to}, probe)
			if err != nil {
				t.Fatal(err)
			}
			if settled < 0 || settled > 2*time.Second {
				t.Fatalf("lead settled %v after the step, want within 2 s", settled)
			}
			if maxDil > 0.1001 {
				t.Errorf("clock dilation reached %.1f %%, want at most 10 %%", 100*maxDil)
			}
			t.Logf("settled within 2 ms of the target %v after the step; largest dilation %.1f %%", settled, 100*maxDil)
		})
	}
}
