package sim

// move is one cycle's travel during the current tick, from (X0,Y0) to
// (X1,Y1), from the instant from/SubTicks of the tick (its last turn this
// tick, 0 without one) to its end.
type move struct {
	X0, Y0, X1, Y1 int64
	Len            int64 // distance travelled, micrometres
	Dead           bool  // dies this tick
	Why            DeathCause
	active         bool
	from           int64
}

// crossing is a collision between two cycles' moves within one tick, at the
// instant N/D of the tick when the later of the two gets there.
type crossing struct {
	a, b int   // a gets there later; b dies too when both is set
	both bool  // same instant or head-on
	X, Y int64 // where
	N, D int64 // when a (the later) arrives, as the fraction N/D of the tick
	// how far along its move each of a and b meets the point (set on a
	// slanted map, whose rounded points tell nothing: crossSlant)
	da, db int64
}

// moveCycles advances every living cycle by one tick: the turns of this tick
// at their instants (see turns), speed, then movement against the walls as
// they stood once the turns were made (with rubber), then collisions between
// this tick's moves. Working in these phases makes the outcome independent
// of cycle order.
func (s *State) moveCycles() {
	s.live, s.liveOK = s.others(-1), true // every query of the turns and plans meets the same living cycles
	s.corners = s.corners[:0]
	p := 0 // s.presses, in canonical order, are by player
	for i := range s.c.Cycles {
		m := &s.moves[i]
		*m = move{}
		n := p
		for n < len(s.presses) && s.presses[n].id == i {
			n++
		}
		if s.c.Cycles[i].Alive {
			s.turns(i, s.presses[p:n], m)
		}
		p = n
	}
	s.layCorners()
	s.indexOpen()
	for i := range s.c.Cycles {
		if s.c.Cycles[i].Alive {
			s.accelerate(i)
			s.plan(i, &s.moves[i])
		}
	}
	s.liveOK, s.openOK = false, false
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
			s.kill(i, m.Why)
		}
	}
}

// accelerate updates speed, brake reservoir and rubber for one tick, and
// notes the walls the side sensors see as enemy influence.
//
// Deviation: Armagetron integrates acceleration continuously; we apply the sum
// of this tick's accelerations once (explicit Euler at the tick rate), which at
// 120 Hz differs from the exact relaxation by well under 1 %.
func (s *State) accelerate(i int) {
	c := &s.c.Cycles[i]
	cfg := &s.cfg
	d := s.dv()
	c.RubberUsed = c.RubberUsed * s.d.rubberDecayT / (s.d.rubberDecayT + 1)

	var acc int64 // micrometres per second squared
	if c.Speed < d.baseSpeed {
		acc = (d.baseSpeed - c.Speed) * cfg.DecayBelow / Unit
	} else {
		acc = -(c.Speed - d.baseSpeed) * cfg.DecayAbove / Unit
	}
	left, right := s.sensors(c.X, c.Y, c.Dir, i)
	acc += s.sideAccel(i, left, right)
	for _, h := range [2]*hit{&left, &right} {
		// gEnemyInfluence::AddSensor: far walls count as built earlier, by
		// the time the sensor's ray (sqrt 2 x across) takes at speed. (Not
		// worked out, a division, when it cannot count: one's own wall, or
		// one built before the influence the cycle has.)
		if h.gap != noHit && h.owner >= 0 && h.owner != i && c.Speed > 0 && (c.Enemy < 0 || h.built > c.EnemyTick) {
			s.influence(i, h.owner, h.built-h.gap*sqrt2/Unit*cfg.TickRate/c.Speed)
		}
	}
	if c.Braking && c.Brake > 0 {
		acc -= d.brake // a negative CYCLE_BRAKE makes this a turbo
		c.Brake = max(0, c.Brake-s.d.brakeDrain)
	} else if !c.Braking {
		c.Brake = min(Unit, c.Brake+s.d.brakeRefill)
	}
	c.Speed = min(d.maxSpeed, max(d.minSpeed, c.Speed+acc/cfg.TickRate))
}

// sideAccel is the wall acceleration of cycle i from what its sensors met
// (gCycleMovement::CalculateAcceleration): a parallel wall at distance D
// across adds CYCLE_ACCEL x (1/(D+OFFSET) - 1/(NEAR+OFFSET)), times
// SPEED_FACTOR's multiplier and CYCLE_ACCEL_SELF, _TEAM, _ENEMY or _RIM by
// whose wall it is; with walls on both sides the sum is multiplied by
// CYCLE_ACCEL_SLINGSHOT when one is the cycle's own and CYCLE_ACCEL_TUNNEL
// otherwise.
func (s *State) sideAccel(i int, left, right hit) int64 {
	cfg := &s.cfg
	total, both, own := int64(0), true, false
	for _, h := range [2]*hit{&left, &right} {
		if h.gap == noHit || h.perp {
			both = false
			continue
		}
		f := cfg.AccelEnemy
		switch {
		case h.owner == OwnerRim:
			f = cfg.AccelRim
		case h.owner == i:
			f, own = cfg.AccelSelf, true
		case s.c.Cycles[h.owner].Team == s.c.Cycles[i].Team:
			f = cfg.AccelTeam
		}
		total += s.wallAccel(h.gap) * f / Unit
	}
	if both {
		if own {
			total = total * cfg.AccelSlingshot / Unit
		} else {
			total = total * cfg.AccelTunnel / Unit
		}
	}
	return total
}

// wallAccel is Armagetron's grinding bonus for a wall d away:
// CYCLE_ACCEL * (1/(d+OFFSET) - 1/(NEAR+OFFSET)), times the speed multiplier,
// in micrometres/s^2, bounded by 1000 m/s^2.
func (s *State) wallAccel(d int64) int64 {
	near, off := s.cfg.WallNear, s.cfg.AccelOffset
	if d > near {
		return 0
	}
	a := s.cfg.Accel * ((near - d) * Meter / (d + off)) / (near + off)
	return min(a, 1000*Meter) * s.dv().speedMult / Unit
}

// plan moves cycle i for the rest of the tick (from its last turn, m.from)
// as far as the walls standing then let it (reach), and notes its death
// when it rides into one.
func (s *State) plan(i int, m *move) {
	c := &s.c.Cycles[i]
	total := c.Speed*(SubTicks-m.from) + c.Sub
	unit := SubTicks * s.cfg.TickRate
	c.Sub = total % unit
	m.active = true
	m.X0, m.Y0 = c.X, c.Y
	var ln *line
	if s.dirs != nil {
		ln = &line{c.TurnX, c.TurnY, c.Odo - c.SegOdo}
	}
	travel, h := s.reach(i, c.X, c.Y, ln, c.Dir, total/unit, SubTicks-m.from)
	if h.gap != noHit && travel >= h.gap {
		m.Dead, m.Why = true, CauseWall
		switch h.owner {
		case OwnerRim:
			m.Why = CauseRim
		case i:
			m.Why = CauseOwnWall
		default:
			s.influence(i, h.owner, h.built) // the wall it hit (gCycle::PassEdge)
		}
	}
	m.Len = travel
	if s.dirs != nil {
		m.X1, m.Y1 = s.along(c.TurnX, c.TurnY, c.Dir, c.Odo-c.SegOdo+travel)
		return
	}
	fx, fy, _, _ := frame(c.Dir)
	m.X1, m.Y1 = c.X+fx*travel, c.Y+fy*travel
}

// reach returns how far of dist cycle i at (x,y) heading dir may travel in
// the time span/SubTicks of a tick, and the wall ahead (h.gap noHit for none
// near): when travel reaches h.gap it rides into that wall. Rubber spends
// what it denies. On a slanted map the ray is cast along ln, the line the
// cycle rides on (slant.go); nil on the axes.
//
// Rubber, as Armagetron does it: once the gap g to the wall ahead is small
// (under about speed/RubberSpeed), the cycle may only close it to
// g*e^(-RubberSpeed*dt) in the time dt; the travel it is denied is counted
// as rubber used (see spend), and a cycle that has used more than its
// rubber rides on into the wall.
func (s *State) reach(i int, x, y int64, ln *line, dir uint8, dist, span int64) (travel int64, h hit) {
	shrink := s.shrink(span)
	// Look as far as the rubber zone in front of this move reaches: the
	// exponential approach starts at gap dist/(1-k).
	look := dist*Unit/max(1, Unit-shrink) + dist + Meter
	if ln != nil {
		h = s.rayLine(ln.x, ln.y, ln.t0, dir, look, i)
	} else {
		h = s.ray(x, y, dir, look, i)
	}
	travel = dist
	if h.gap != noHit {
		// Armagetron runs its rubber only while some is left (gCycleMovement
		// TimestepCore, 0.2.9.2.3 gCycleMovement.cpp line 3738:
		// rubber_granted > rubber); with none granted (CYCLE_RUBBER 0) or
		// none left, and past the moment it runs out within a step (line
		// 3928: "simulate ... the crash into the next wall"), the cycle
		// rides on at its speed and dies on arriving at the wall.
		keep := h.gap * shrink / Unit
		if s.rubberLeft(i) && h.gap-dist < keep && !s.spend(i, dist-(h.gap-keep)) {
			travel = h.gap - keep
		}
		travel = min(travel, h.gap)
	}
	return travel, h
}

// shrink returns e^(-RubberSpeed*dt) in Unit for dt span/SubTicks of a
// tick: a cycle that turns within a tick rides its two parts of it under
// the rubber's approach as one ride of the whole tick would be.
func (s *State) shrink(span int64) int64 {
	if span >= SubTicks {
		return s.d.rubberShrink
	}
	return expNeg(s.cfg.RubberSpeed*span/SubTicks, s.cfg.TickRate*Unit)
}

// rubberLeft reports whether cycle i has rubber to spend: Armagetron's
// rubber_granted > rubber, where a CYCLE_RUBBER at or below zero grants only
// what latency adds (sg_RubberValues).
func (s *State) rubberLeft(i int) bool {
	c := &s.c.Cycles[i]
	granted := s.cfg.Rubber
	if granted <= 0 {
		granted += c.Latency * s.cfg.PingRubber / Unit
	}
	return granted > c.RubberUsed
}

// spend counts denied travel against cycle i's rubber and reports whether the
// rubber is used up. With CYCLE_PING_RUBBER, latency makes rubber more
// effective (sg_RubberValues): denied travel costs
// travel x rubber / (rubber + latency x CYCLE_PING_RUBBER); with CYCLE_RUBBER
// at or below zero the latency term adds to the reservoir instead.
func (s *State) spend(i int, denied int64) bool {
	c := &s.c.Cycles[i]
	bonus := c.Latency * s.cfg.PingRubber / Unit // micrometres: seconds of latency x CYCLE_PING_RUBBER metres
	reservoir := s.cfg.Rubber
	if reservoir > 0 {
		c.RubberUsed += denied * reservoir / (reservoir + bonus)
	} else {
		reservoir += bonus
		c.RubberUsed += denied
	}
	return c.RubberUsed > reservoir
}
