package bot

import "webtron/sim"

const (
	// far stands for "no wall within range" in gaps.
	far = int64(1) << 60
	// farLook is how far an option's exact ray looks at full skill
	// (persona.far): beyond it a direction is simply open.
	farLook = 100 * sim.Meter
	// roomWeight makes a cell of room (4 m^2 at the finest map) outweigh two
	// metres of open road: room decides survival, the road only comfort.
	roomWeight = 2
	// deadly marks an option that meets a wall before the next turn is allowed.
	deadly = int64(1) << 40
	// maxLag bounds the event delay a bot allows for, in ticks.
	maxLag = 60
)

// drive is one tick's decision for a living cycle. Most ticks it only walks the
// map a few cells ahead; it measures exactly when the map shows something new
// or the measurement is due, and decides a turn at the wall or on a tactical look.
func (b *Bot) drive(s *sim.State, me *sim.Cycle, out []sim.Event) []sim.Event {
	tick := s.Tick()
	if b.epoch != b.w.epoch {
		// A new round or a rollback: what was pending belongs to another story.
		b.epoch = b.w.epoch
		b.want, b.tight, b.hold, b.nextLook, b.pedal = false, false, 0, 0, 0
	}
	if b.want && me.Dir == b.wantDir {
		// Events reach the state late on a network (a server may postpone
		// them): learn by how much, and turn that much earlier.
		b.want, b.lag = false, min(maxLag, max(0, me.LastTurn()-b.sent))
	}
	if b.want && tick >= b.wantTill {
		b.want = false
	}
	step := max(1, me.Speed/b.rate)
	wait := max(b.lag, b.delay-(tick-me.LastTurn())) // ticks before a turn sent now applies
	free := !b.want && me.QueueLen == 0
	look := max(8*sim.Meter, me.Speed*b.p.lookMs/1000)
	// A bot that looks every think ticks must decide at a wall up to
	// think-1 ticks early, since its next look may come too late; it
	// watches at least as far ahead as that decision lies.
	early := (b.think - 1) * step
	if b.think > 1 {
		look = max(look, (wait+b.think)*step+b.target(step))
	}

	g := &b.w.g
	var coarse int64
	if b.dirs == nil {
		skip := g.line(me.TurnX)
		if me.Dir&1 == 1 {
			skip = g.line(me.TurnY)
		}
		coarse = g.ahead(me.X, me.Y, me.Dir, look, skip)
	} else {
		// The map's walk goes along four axes: on a map of others every
		// look casts the exact ray.
		coarse, _ = s.Ray(me.X, me.Y, me.Dir, look, b.id)
		if coarse < 0 {
			coarse = look
		}
	}
	// The map sees every wall to within half a cell: while it shows the road
	// open for `look`, the exact ray (which costs ten map walks) can wait.
	pred, seen := b.predict(me)
	switch {
	case coarse < look && (pred < 0 || tick >= b.nextRay || coarse+g.cell < seen):
		pred = b.measure(s, me, 2*look, coarse, step, tick)
	case pred < 0:
		pred = far
	}
	if free && pred-wait*step-early <= b.target(step)+step && tick >= b.hold {
		out = b.atWall(s, me, pred, wait, step, tick, out)
	} else if free && tick-me.LastTurn() >= b.delay && tick >= b.nextLook {
		out = b.tactics(s, me, pred, step, tick, out)
	}
	return b.brakes(me, tick, out)
}

// predict returns the exact gap ahead as last measured, less the distance
// driven since, and the map's gap at that time less the same: if the map now
// shows a wall nearer than that, something new appeared. pred < 0 means the
// measurement no longer applies (new heading or a redrawn map).
func (b *Bot) predict(me *sim.Cycle) (pred, seen int64) {
	if b.gapDir != me.Dir || b.gapEpoch != b.w.epoch {
		return -1, 0
	}
	driven := me.Odo - b.gapOdo
	pred, seen = far, far
	if b.gap < far {
		pred = b.gap - driven
	}
	if b.seen < far {
		seen = b.seen - driven
	}
	return pred, seen
}

// measure casts the exact ray ahead and schedules the next one: soon when the
// wall is near, rarely when the road is open (the map still watches every tick).
func (b *Bot) measure(s *sim.State, me *sim.Cycle, rng, coarse, step, tick int64) int64 {
	g, owner := s.Ray(me.X, me.Y, me.Dir, rng, b.id)
	if g < 0 {
		g = far
	}
	b.gap, b.gapOwner, b.gapOdo, b.gapDir, b.gapEpoch = g, owner, me.Odo, me.Dir, b.w.epoch
	b.seen = far
	if coarse < rng/2 {
		b.seen = coarse
	}
	next := b.p.refresh
	if g < far {
		next = min(next, max(1, (g-b.target(step))/step/2))
	}
	b.nextRay = tick + next
	return g
}

// target is how far before the wall ahead to turn: close to a trail, to run
// along it in its wall acceleration, further from the rim, which gives none.
func (b *Bot) target(step int64) int64 {
	t := b.p.grind
	if b.gapOwner == sim.OwnerRim {
		t = b.p.rim
	}
	t = max(t, 3*step)
	if b.dirs != nil && len(b.dirs) > 4 {
		// A turn of less than 90 degrees still heads for the wall: make
		// it where the new heading leaves the road the next turn needs
		// (assess's deadly), cos(360/axes) of it across.
		need := step*(max(b.delay, b.lag)+2) + sim.Meter/2 + step
		t = max(t, need*b.dirs[1][0]/sim.AxisScale)
	}
	return t
}

// atWall picks the way to go at the wall ahead; the turn is sent now even if
// the turn delay holds it a few ticks, since it is applied the first tick the
// delay allows.
func (b *Bot) atWall(s *sim.State, me *sim.Cycle, pred, wait, step, tick int64, out []sim.Event) []sim.Event {
	b.hold = tick + 2
	b.w.g.forget()
	// Where the turn will happen: never past the wall (rubber holds the cycle).
	px, py := b.forward(me.X, me.Y, me.Dir, max(0, min(wait*step, pred-sim.Meter/4)))
	st := b.assess(s, me, px, py, 0, step)
	l := b.assess(s, me, px, py, 1, step)
	r := b.assess(s, me, px, py, -1, step)
	best := st
	if l.score > best.score {
		best = l
	}
	if r.score > best.score {
		best = r
	}
	b.tight = best.room < b.p.tight
	if best.turn == 0 {
		return out
	}
	return b.turn(out, me, best.turn, tick)
}

// option is one way to go: straight (turn 0), left (+1) or right (-1).
type option struct {
	turn  int8
	gap   int64 // exact distance to the first wall that way
	room  int   // reachable cells that way, up to the fill budget
	score int64
}

// assess measures one way to go from (px, py) and scores it: room first, then
// open road, then a little chance; a way too short to turn again is deadly.
func (b *Bot) assess(s *sim.State, me *sim.Cycle, px, py int64, turn int8, step int64) option {
	d := b.turned(me.Dir, turn)
	g, _ := s.Ray(px, py, d, b.p.far, b.id)
	if g < 0 {
		g = b.p.far
	}
	o := option{turn: turn, gap: g}
	if g < step*(max(b.delay, b.lag)+2)+sim.Meter/2 {
		// No room counts on a way that ends before the next turn; among such
		// ways only the longest gap, where rubber may still save the cycle.
		o.score = g/sim.Meter - deadly
		return o
	}
	o.room = b.room(px, py, d, g)
	o.score = int64(o.room)*roomWeight + g/sim.Meter + int64(b.rand()%uint64(b.p.jitter+1))
	return o
}

// room floods the map from a cell a little way along direction d. The seed
// lies one cell out, past the border the cycle's own trail snaps to, and at
// least a cell and a half short of the wall ahead, so that it is on the near
// side of that wall's border too.
func (b *Bot) room(px, py int64, d uint8, gap int64) int {
	g := &b.w.g
	var out int64
	switch {
	case gap >= 5*g.cell/2:
		out = g.cell
	case gap > g.cell:
		out = gap / 2
	default:
		return 0
	}
	qx, qy := b.forward(px, py, d, out)
	return g.fill(g.col(qx), g.col(qy), b.p.room, b.p.side)
}

// brakes holds the brake while room is short, so that the turn delay covers
// less road and tighter turns fit, and lets go before the reservoir is empty.
func (b *Bot) brakes(me *sim.Cycle, tick int64, out []sim.Event) []sim.Event {
	if tick < b.pedal {
		return out
	}
	switch {
	case !me.Braking && b.tight && me.Brake > sim.Unit/2:
		out = b.event(out, sim.EvBrakeOn)
	case me.Braking && (!b.tight || me.Brake < sim.Unit/8):
		out = b.event(out, sim.EvBrakeOff)
	default:
		return out
	}
	b.pedal = tick + b.delay
	return out
}

// forward returns the point d micrometres from (x, y) along dir.
func forward(x, y int64, dir uint8, d int64) (int64, int64) {
	switch dir & 3 {
	case 0:
		return x + d, y
	case 1:
		return x, y + d
	case 2:
		return x - d, y
	default:
		return x, y - d
	}
}
