package lab

import (
	"testing"
	"time"

	"webtron/client"
	"webtron/sim"
)

// TestTurnLandsWherePressed: a turn a client presses between ticks reaches
// the server and its peer with the instant it was pressed within its tick,
// and the corner, in the peer's copy of the server's history, is where the
// cycle was at that instant (within 1 cm): with the mind reader the moment
// the key went down, without it exactly a tick later.
func TestTurnLandsWherePressed(t *testing.T) {
	for _, mind := range []bool{true, false} {
		var (
			pressed, seen bool
			frames        int
			instant       time.Duration // when the turn should happen, on client 1's clock
			dir           uint8
			want          [2]int64 // where cycle 1 was then
			gotTick       int64
			gotArg        int32
			corner        [2]int64
			me            = -1
		)
		dt := time.Second / 120
		onFrame := func(id int, s *client.Session, now time.Duration) {
			st := s.State()
			if st == nil {
				return
			}
			if ph, _ := st.Phase(); ph != sim.PhasePlay {
				return
			}
			switch {
			case id == 1 && !pressed:
				me = s.You()
				c := st.Cycle(me)
				if frames++; frames < 240 || !c.Alive || st.Tick()-c.LastTurn() < 30 {
					return // a second into the round, the turn delay long past
				}
				// The state is at the start of the present tick; the clock
				// has moved on within it.
				clk := s.Clock(now)
				instant = clk
				if !mind {
					instant += dt
				}
				ride := c.Speed * int64(instant-time.Duration(st.Tick())*dt) / int64(time.Second)
				ahead := [4][2]int64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}[c.Dir&3] // east, north, west, south
				want, dir = [2]int64{c.X + ahead[0]*ride, c.Y + ahead[1]*ride}, c.Dir
				s.Press(now, sim.EvTurnLeft, 0)
				pressed = true
			case id == 2 && pressed && !seen && me >= 0:
				for _, te := range s.Timeline().Log.From(0) {
					if int(te.Ev.Player) == me && te.Ev.Kind == sim.EvTurnLeft && te.Tick < st.Tick() {
						c := st.Cycle(me)
						gotTick, gotArg = te.Tick, te.Ev.Arg
						corner, seen = [2]int64{c.TurnX, c.TurnY}, true
						if max(c.LastLeft, c.LastRight) != te.Tick*sim.SubTicks+int64(te.Ev.At()) || c.Dir != (dir+1)&3 {
							t.Errorf("mind reader %v: the turn at %d+%d/256 was not made then (last turns %d, %d; dir %d)", mind, te.Tick, te.Ev.Arg, c.LastLeft, c.LastRight, c.Dir)
						}
					}
				}
			}
		}
		r, err := Run(Options{Pings: []time.Duration{60 * ms, 160 * ms}, MindReader: mind, Duration: 8 * time.Second, Seed: 1, OnFrame: onFrame})
		if err != nil {
			t.Fatal(err)
		}
		if !seen {
			t.Fatalf("mind reader %v: the peer never saw the turn (pressed %v; %d events, %d postponed)", mind, pressed, r.Events, r.Postponed)
		}
		at := time.Duration(gotTick)*dt + dt*time.Duration(gotArg)/sim.SubTicks
		if gotArg == 0 || (at-instant).Abs() > dt/sim.SubTicks/2+time.Microsecond {
			t.Errorf("mind reader %v: the turn arrived at %d + %d/256 (%v), want %v, within the tick", mind, gotTick, gotArg, at, instant)
		}
		d := max(abs(corner[0]-want[0]), abs(corner[1]-want[1]))
		t.Logf("mind reader %v: pressed for %v, arrived at tick %d + %d/256; corner (%d, %d) um, %d um from where the cycle was then", mind, instant, gotTick, gotArg, corner[0], corner[1], d)
		if d > 10_000 {
			t.Errorf("mind reader %v: corner (%d, %d), want (%d, %d) within 1 cm", mind, corner[0], corner[1], want[0], want[1])
		}
	}
}

func abs(v int64) int64 { return max(v, -v) }
