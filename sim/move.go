package sim

// move is one cycle's travel during the current tick, from (X0,Y0) to (X1,Y1).
type move struct {
	X0, Y0, X1, Y1 int64
	Len            int64 // distance travelled, micrometres
	Dead           bool  // dies this tick
	Killer         int
	Why            DeathCause
	active         bool
}

// crossing is a collision between two cycles' moves within one tick, at the
// moment N/D of the tick (as a fraction) when the later of the two gets there.
type crossing struct {
	a, b   int   // a dies; b dies too when both is set
	both   bool  // same instant or head-on: both die, nobody scores the kill
	X, Y   int64 // where
	N, D   int64 // when a (the later) arrives, as the fraction N/D of its move
	killer int
}

// moveCycles advances every living cycle by one tick: turns that waited for the
// turn delay, speed, then movement against the walls as they stood at the
// start of the tick (with rubber), then collisions between this tick's moves.
// Working in these phases makes the outcome independent of cycle order.
func (s *State) moveCycles() {
	for i := range s.c.Cycles {
		c := &s.c.Cycles[i]
		m := &s.moves[i]
		*m = move{}
		if !c.Alive {
			continue
		}
		if c.QueueLen > 0 && s.c.Tick-c.LastTurn >= s.d.turnDelay {
			t := c.Queue[0]
			copy(c.Queue[:], c.Queue[1:c.QueueLen])
			c.QueueLen--
			s.applyTurn(i, t)
		}
		s.accelerate(i)
		s.plan(i, m)
	}
	s.crossMoves()
	for i := range s.c.Cycles {
		m := &s.moves[i]
		if !m.active {
			continue
		}
		c := &s.c.Cycles[i]
		c.X, c.Y = m.X1, m.Y1
		c.Odo += m.Len
	}
	for i := range s.c.Cycles {
		if m := &s.moves[i]; m.active && m.Dead {
			s.kill(i, m.Killer, m.Why)
		}
	}
}

// accelerate updates speed, brake reservoir and rubber for one tick.
//
// Deviation: Armagetron integrates acceleration continuously; we apply the sum
// of this tick's accelerations once (explicit Euler at the tick rate), which at
// 120 Hz differs from the exact relaxation by well under 1 %.
func (s *State) accelerate(i int) {
	c := &s.c.Cycles[i]
	cfg := &s.cfg
	c.RubberUsed = c.RubberUsed * s.d.rubberDecayT / (s.d.rubberDecayT + 1)

	var acc int64 // micrometres per second squared
	if c.Speed < cfg.BaseSpeed {
		acc = (cfg.BaseSpeed - c.Speed) * cfg.SpeedUpMilli / 1000
	} else {
		acc = -(c.Speed - cfg.BaseSpeed) * cfg.SlowMilli / 1000
	}
	left, right := s.sensors(c.X, c.Y, c.Dir, i)
	acc += s.wallAccel(left) + s.wallAccel(right)
	if c.Braking && c.Brake > 0 {
		acc -= cfg.BrakeDecel
		c.Brake = max(0, c.Brake-s.d.brakeDrain)
	} else if !c.Braking {
		c.Brake = min(Unit, c.Brake+s.d.brakeRefill)
	}
	c.Speed = max(s.d.minSpeed, c.Speed+acc/cfg.TickRate)
}

// wallAccel is Armagetron's grinding bonus for a wall d away:
// CYCLE_ACCEL * (1/(d+OFFSET) - 1/(NEAR+OFFSET)), in micrometres/s^2.
func (s *State) wallAccel(d int64) int64 {
	near, off := s.cfg.WallNear, s.cfg.WallAccelOffset
	if d > near {
		return 0
	}
	return s.cfg.WallAccel * Meter * ((near - d) * Meter / (d + off)) / (near + off)
}

// plan moves cycle i as far as the walls standing at the start of the tick let
// it, spending rubber when a wall is close ahead.
//
// Rubber, as Armagetron does it: once the gap g to the wall ahead is small
// (under about speed/RubberSpeed), the cycle may only close it to g*e^(-RubberSpeed*dt)
// per step; the travel it is denied is counted as rubber used, and a cycle whose
// used rubber exceeds Config.Rubber dies against the wall.
func (s *State) plan(i int, m *move) {
	c := &s.c.Cycles[i]
	total := c.Speed + c.Sub
	dist := total / s.cfg.TickRate
	c.Sub = total % s.cfg.TickRate
	m.active = true
	m.X0, m.Y0 = c.X, c.Y
	m.Killer = -1

	gap, owner := s.ray(c.X, c.Y, c.Dir, s.d.lookahead, i)
	travel := dist
	if gap != noHit {
		keep := gap * s.d.rubberShrink / Unit
		if gap-dist < keep {
			travel = gap - keep
			c.RubberUsed += dist - travel
			if c.RubberUsed > s.cfg.Rubber {
				travel = gap
				m.Dead, m.Killer, m.Why = true, owner, CauseWall
				switch owner {
				case OwnerRim:
					m.Killer, m.Why = -1, CauseRim
				case i:
					m.Killer, m.Why = -1, CauseOwnWall
				}
			}
		}
	}
	fx, fy, _, _ := frame(c.Dir)
	m.Len = travel
	m.X1, m.Y1 = c.X+fx*travel, c.Y+fy*travel
}
