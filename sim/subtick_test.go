package sim

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

// cornerErrors presses n turns at seeded random instants (a random tick of
// the next four and a random point within it, to 1/2^32 of a tick) for a
// cycle riding east at a constant speed (metres per second) and returns,
// in micrometres, the largest and the mean distance between the corner and
// where the cycle was at that instant (speed x time, exactly, in rationals):
// with the instant sent as the event's Arg (TurnArg), and snapped to the
// start of its tick as before sub-tick turns (Arg 0).
func cornerErrors(t *testing.T, speed int64, n int, seed uint64) (maxNow, meanNow, maxSnap, meanSnap float64) {
	t.Helper()
	cfg := testConfig()
	cfg.BaseSpeed = min(speed, 200) * Meter
	cfg.DecayAbove = 0 // above CYCLE_SPEED's bound of 200 m/s the speed holds
	s := playing(t, cfg, 1)
	const x0, y0 = 50, 250
	place(s, 0, x0, y0, 0, speed*Meter)
	var sn Snapshot
	s.Save(&sn)
	const den = 1 << 32
	rng := seed
	var sumNow, sumSnap big.Rat
	var worstNow, worstSnap big.Rat
	for range n {
		rng = splitmix(rng)
		k, num := int64(rng>>32%4), int64(rng&(den-1))
		// Exactly where the cycle was: x0 + speed x (k + num/den) ticks.
		exact := new(big.Rat).SetFrac(big.NewInt(speed*Meter), big.NewInt(den*cfg.TickRate))
		exact.Mul(exact, big.NewRat(k*den+num, 1))
		exact.Add(exact, big.NewRat(x0*Meter, 1))
		arg, carry := TurnArg(num, den)
		for _, snap := range []bool{false, true} {
			if err := s.Restore(&sn); err != nil {
				t.Fatal(err)
			}
			tick, a := k+carry, arg
			if snap {
				tick, a = k, 0
			}
			steps(s, int(tick))
			s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1, Arg: a}})
			c := &s.c.Cycles[0]
			if c.Dir != 1 || c.TurnY != y0*Meter {
				t.Fatalf("%d m/s, press at %d+%d/2^32: dir %d, corner (%d,%d): want a turn to the north on y=%d m", speed, k, num, c.Dir, c.TurnX, c.TurnY, y0)
			}
			// The wall up to the corner (none when it is where the cycle was placed).
			if n := len(s.walls); c.TurnX != x0*Meter {
				if n == 0 || s.walls[n-1].X1 != x0*Meter || s.walls[n-1].X2 != c.TurnX || s.walls[n-1].Y2 != c.TurnY {
					t.Fatalf("%d m/s, press at %d+%d/2^32: corner (%d,%d), %d walls: want the last one up to the corner", speed, k, num, c.TurnX, c.TurnY, n)
				}
			}
			d := new(big.Rat).Sub(big.NewRat(c.TurnX, 1), exact)
			d.Abs(d)
			sum, worst := &sumNow, &worstNow
			if snap {
				sum, worst = &sumSnap, &worstSnap
			}
			sum.Add(sum, d)
			if d.Cmp(worst) > 0 {
				worst.Set(d)
			}
		}
	}
	f := func(r *big.Rat) float64 { v, _ := r.Float64(); return v }
	mean := func(r *big.Rat) float64 { return f(new(big.Rat).Quo(r, big.NewRat(int64(n), 1))) }
	return f(&worstNow), mean(&sumNow), f(&worstSnap), mean(&sumSnap)
}

// TestSubTickCorners measures where turns pressed at random instants put
// their corners (docs/physics.md prints its table): in Armagetron, whose
// cycles move in continuous time, a turn happens where it was pressed; here
// the corner may be off by the rounding of the instant to 1/SubTicks of a
// tick (half of that at most) and the micrometre, which must stay within
// 1 cm at any speed up to MaxSpeed at 120 Hz.
func TestSubTickCorners(t *testing.T) {
	t.Log("| speed | presses | largest error | mean error | snapped to the tick: largest | mean |")
	t.Log("|---|---|---|---|---|---|")
	for _, speed := range []int64{30, 50, 100, 500} {
		const n = 500
		maxNow, meanNow, maxSnap, meanSnap := cornerErrors(t, speed, n, uint64(speed))
		t.Logf("| %d m/s | %d | %.2f mm | %.2f mm | %.1f mm | %.1f mm |", speed, n, maxNow/1000, meanNow/1000, maxSnap/1000, meanSnap/1000)
		// Half of 1/SubTicks of a tick's travel, and a micrometre.
		bound := float64(speed*Meter)/float64(2*SubTicks*DefaultConfig().TickRate) + 1
		if maxNow > bound || maxNow >= 10_000 {
			t.Errorf("%d m/s: corners up to %.0f um from where the turn was pressed, want within %.0f um and 1 cm", speed, maxNow, bound)
		}
	}
}

// TestTurnArgRounds checks the press instant's rounding to 1/SubTicks, with
// the carry to the next tick's start.
func TestTurnArgRounds(t *testing.T) {
	for _, c := range []struct {
		num, den     int64
		arg          int32
		carry        int64
		instantTicks string
	}{
		{0, 1, 0, 0, "0"},
		{1, 2, 128, 0, "1/2"},
		{1, 512, 1, 0, "1/512 (half-way rounds up)"},
		{1, 513, 0, 0, "1/513"},
		{511, 512, 0, 1, "511/512 (the next tick's start)"},
		{1021, 1024, 255, 0, "1021/1024"},
	} {
		arg, carry := TurnArg(c.num, c.den)
		if arg != c.arg || carry != c.carry {
			t.Errorf("TurnArg at %s of a tick: %d carry %d, want %d carry %d", c.instantTicks, arg, carry, c.arg, c.carry)
		}
	}
}

// TestTurnDelayFromInstants checks that the turn delay counts from the
// instant a turn was made, as Armagetron's does: gCycleMovement::DoTurn
// (0.2.9.2.3 gCycleMovement.cpp line 3361) makes a turn when GetNextTurn,
// the last turn's time plus CYCLE_DELAY (line 1101), is at or before the
// cycle's time, and stores that time as the turn's (line 3527); a turn
// pressed earlier is queued and made exactly when it becomes possible
// (Timestep, line 2616: "simulate exactly to the time of the next turn").
func TestTurnDelayFromInstants(t *testing.T) {
	const v = 30 * Meter
	tickTravel := v / DefaultConfig().TickRate
	for _, c := range []struct {
		second int32 // the second press's Arg, 12 ticks (CYCLE_DELAY) after the first
		queued bool
	}{{99, true}, {100, false}, {200, false}} {
		s := playing(t, testConfig(), 1)
		place(s, 0, 100, 250, 0, v)
		start := s.Tick()
		s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1, Arg: 100}})
		cy := &s.c.Cycles[0]
		if cy.LastLeft != start*SubTicks+100 || cy.TurnX != 100*Meter+tickTravel*100/SubTicks {
			t.Fatalf("first turn at 100/256: made at %d, corner x %d; want %d, %d", cy.LastLeft, cy.TurnX, start*SubTicks+100, 100*Meter+tickTravel*100/SubTicks)
		}
		steps(s, 11)
		s.Step([]Event{{Kind: EvTurnRight, Player: 0, Seq: 2, Arg: c.second}})
		want := max(int64(c.second), 100)
		if got := cy.LastRight - (start+12)*SubTicks; got != want || cy.Dir != 0 || cy.QueueLen != 0 {
			t.Fatalf("second press at 12 ticks + %d/256: made at +%d/256 dir %d queue %d; want +%d/256 dir 0 (queued %v)",
				c.second, got, cy.Dir, cy.QueueLen, want, c.queued)
		}
		// The second corner is where the cycle was at that instant: on the
		// northward leg, at the speed the first turn left it with.
		if cy.TurnX != 100*Meter+tickTravel*100/SubTicks {
			t.Fatalf("second corner at x %d, want on the first corner's line", cy.TurnX)
		}
	}
}

// TestTurnTooLate checks that a cycle rides to the instant of its turn
// against the walls: with no rubber (CYCLE_RUBBER 0; gCycleMovement.cpp line
// 3928, "simulate ... the crash into the next wall") a turn pressed after
// the cycle would have reached the wall ahead comes too late, and one
// pressed before turns short of it; with rubber, the rubber holds it back
// until the turn, and is spent for it.
func TestTurnTooLate(t *testing.T) {
	for _, c := range []struct {
		rubber int64
		arg    int32
		alive  bool
	}{{0, 200, false}, {0, 50, true}, {Meter, 200, true}} {
		cfg := testConfig()
		cfg.Rubber = c.rubber
		s := playing(t, cfg, 2)
		place(s, 0, 100, 250, 0, 30*Meter) // 0.25 m a tick
		place(s, 1, 400, 50, 0, 30*Meter)
		// A wall 0.1 m ahead, reached 0.4 of the tick in.
		s.addWall(Wall{X1: 100*Meter + Meter/10, Y1: 240 * Meter, X2: 100*Meter + Meter/10, Y2: 260 * Meter, Owner: 1})
		s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1, Arg: c.arg}})
		cy := &s.c.Cycles[0]
		if wall := int64(100*Meter + Meter/10); cy.Alive != c.alive || cy.X > wall || cy.Alive && cy.X == wall {
			t.Fatalf("rubber %d, turn at %d/256: alive %v at x %d, want alive %v, not past the wall", c.rubber, c.arg, cy.Alive, cy.X, c.alive)
		}
		if c.alive && (cy.Dir != 1 || (cy.RubberUsed > 0) != (c.rubber > 0)) {
			t.Fatalf("rubber %d, turn at %d/256: dir %d rubber used %d; want a turn, rubber spent only when the wall held it", c.rubber, c.arg, cy.Dir, cy.RubberUsed)
		}
		if c.rubber > 0 {
			// Held back, it closed the gap as in Armagetron over the time
			// to the turn (not the whole tick): to g*e^(-RubberSpeed*dt).
			dt := float64(c.arg) / SubTicks / float64(cfg.TickRate)
			want := float64(Meter/10) * math.Exp(-float64(cfg.RubberSpeed)/Unit*dt)
			if got := float64(100*Meter + Meter/10 - cy.TurnX); math.Abs(got-want) > 100 {
				t.Fatalf("rubber, turn at %d/256: the corner %.0f um from the wall, want %.0f", c.arg, got, want)
			}
		}
	}
}

// TestCrossingAfterTurn checks that the order of arrival at a crossing
// counts a move from its cycle's turn within the tick: cycle 0 turns north
// half-way through the tick and reaches the crossing about 0.71 into it,
// after cycle 1, which passes it at 0.5; so cycle 0 is the one held back
// (by rubber) and cycle 1 rides on. Counted as a fraction of cycle 0's move
// alone (0.42), cycle 0 would have been first.
func TestCrossingAfterTurn(t *testing.T) {
	s := playing(t, testConfig(), 2)
	place(s, 0, 100, 250, 0, 30*Meter)
	const cx = 100*Meter + Meter/8 // where cycle 0 turns: 0.125 m on
	const cy = 250*Meter + Meter/20
	place(s, 1, 0, 0, 2, 30*Meter)
	c1 := &s.c.Cycles[1]
	c1.X, c1.Y = cx+Meter/8, cy // reaches x = cx half-way through the tick, heading west
	c1.TurnX, c1.TurnY = c1.X, c1.Y
	s.Step([]Event{{Kind: EvTurnLeft, Player: 0, Seq: 1, Arg: SubTicks / 2}})
	c0 := &s.c.Cycles[0]
	if c0.TurnX != cx || c0.Dir != 1 {
		t.Fatalf("cycle 0: corner at x %d dir %d, want %d, 1", c0.TurnX, c0.Dir, cx)
	}
	if !c0.Alive || !c1.Alive || c0.Y >= cy || c0.RubberUsed == 0 || c1.X >= cx || c1.RubberUsed != 0 {
		t.Fatalf("cycle 0 at y %d (alive %v, rubber %d), cycle 1 at x %d (alive %v, rubber %d): want cycle 0 held back short of y %d, cycle 1 past x %d",
			c0.Y, c0.Alive, c0.RubberUsed, c1.X, c1.Alive, c1.RubberUsed, cy, cx)
	}
}

// TestEventAt checks which instant an event's Arg names: a turn's, clamped
// to its tick; none for other kinds (their Arg means something else).
func TestEventAt(t *testing.T) {
	for _, c := range []struct {
		ev   Event
		want int32
	}{
		{Event{Kind: EvTurnLeft, Arg: 77}, 77},
		{Event{Kind: EvTurnRight, Arg: -5}, 0},
		{Event{Kind: EvTurnRight, Arg: 1000}, SubTicks - 1},
		{Event{Kind: EvLatency, Arg: 60_000}, 0},
		{Event{Kind: EvBrakeOn, Arg: 9}, 0},
	} {
		if got := c.ev.At(); got != c.want {
			t.Errorf("%+v: At %d, want %d", c.ev, got, c.want)
		}
	}
}

// ExampleTurnArg shows a press a third of the way into its tick.
func ExampleTurnArg() {
	arg, carry := TurnArg(1, 3)
	fmt.Println(arg, carry)
	// Output: 85 0
}
