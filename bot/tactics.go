package bot

import "webtron/sim"

// persona is what makes bots differ: drawn once from the seed, so that a room
// of bots is not a room of clones, and a seed always plays the same way.
type persona struct {
	grind   int64 // how far from a trail to turn, so as to run along it that far off
	rim     int64 // how far from the rim to turn (the rim gives no speed)
	lookMs  int64 // how far ahead, in time of travel, the map is watched
	refresh int64 // most ticks between exact rays at a wall still far
	react   int64 // ticks between map updates: the bot's reaction time
	period  int64 // ticks between tactical looks
	aggro   int64 // 0..100: how eagerly it cuts opponents off
	seek    int64 // lateral range within which it moves over to grind a wall
	room    int   // flood-fill budget, cells: pockets smaller than this are avoided
	side    int64 // side of the smallest square of room cells
	tight   int   // room under which it brakes
	wander  int64 // per mille chance per tactical look of a turn for its own sake
	jitter  int64 // weight of chance when choosing between ways
	far     int64 // how far the rays that compare ways look
	thinkMs int64 // time between two looks at the state (0: every tick)
}

func newPersona(b *Bot) persona {
	p := persona{
		// 1.2 m at least: the map keeps a wall on the right side of the cycle
		// only from half a cell (1 m) away.
		grind:   b.between(1200, 2600) * sim.Meter / 1000,
		rim:     b.between(3000, 6000) * sim.Meter / 1000,
		lookMs:  b.between(500, 800),
		refresh: b.between(4, 12),
		react:   b.between(2, 4),
		period:  b.between(12, 36),
		aggro:   b.between(0, 100),
		seek:    b.between(8, 30) * sim.Meter,
		room:    int(b.between(300, 450)),
		tight:   int(b.between(30, 90)),
		wander:  b.between(5, 40),
		jitter:  b.between(4, 40),
		far:     farLook,
	}
	p.square()
	return p
}

// square sets side from the flood-fill budget.
func (p *persona) square() {
	p.side = 0
	for p.side*p.side < int64(p.room) {
		p.side++
	}
}

// dull weakens a persona drawn at full skill to skill k (MinSkill..MaxSkill),
// ability by ability, after Armagetron's AI characters (config/aiplayers.cfg:
// an AI's IQ is the sum of ten abilities of 0..10; its first game is one AI
// of IQ 30, a multiplayer server's AIs have IQ 100):
//   - reaction speed: it looks at the state every thinkMs, up to 0.3 s
//     apart, instead of every tick, so a wall that appears across its way
//     is seen that much later (Armagetron's AI thinks at intervals too,
//     and a slow one tires when it must think fast);
//   - viewing range: the road ahead is watched and ways are compared over
//     less distance, down to half and a third;
//   - closed areas ("loop"): the flood fill that finds pockets has a budget
//     in proportion to k, so a weak bot rides into dead ends;
//   - emergency reaction and tunnels: it brakes in tight spots only in
//     proportion to k;
//   - close combat ("cycle", "close"): no cutting off below 30, then ever
//     more eagerly;
//   - wall tracing ("trace"): no moving over to grind a wall below 20, and
//     turns further from walls, so it rides slower;
//   - and its choices between ways are more random.
//
// At MaxSkill it changes nothing (the golden games of bot/testdata stand).
func (p *persona) dull(k int64) {
	if k >= MaxSkill {
		return
	}
	lack := MaxSkill - k // 1..99
	p.thinkMs = lack * 300 / (MaxSkill - MinSkill)
	p.lookMs = p.lookMs * (MaxSkill + k) / (2 * MaxSkill)
	p.far = farLook * (MaxSkill + 2*k) / (3 * MaxSkill)
	p.room = p.room * int(k) / MaxSkill
	p.square()
	p.tight = p.tight * int(k) / MaxSkill
	p.aggro = p.aggro * max(0, k-30) / (MaxSkill - 30)
	p.seek = p.seek * max(0, k-20) / (MaxSkill - 20)
	p.grind += p.grind * lack / MaxSkill
	p.rim += p.rim * lack / MaxSkill
	p.jitter += lack / 2
}

// tactics is the look taken every persona.period ticks on open road: cut an
// opponent off, leave a road that leads into a pocket, move over to a wall to
// grind it, or now and then turn for no reason but variety.
func (b *Bot) tactics(s *sim.State, me *sim.Cycle, pred, step, tick int64, out []sim.Event) []sim.Event {
	b.nextLook = tick + b.p.period + b.between(0, b.p.period/2)
	b.w.g.forget()
	st := b.assess(s, me, me.X, me.Y, 0, step)
	b.tight = st.room < b.p.tight
	enough := min(st.room, b.p.room*3/4)

	if t, ok := b.toZone(s, me); ok {
		// Riding into the win zone wins the round, and so does taking an
		// enemy's fortress: head for it when the way there is open.
		if t == 0 {
			return out
		}
		if o := b.assess(s, me, me.X, me.Y, t, step); o.score > 0 {
			return b.turn(out, me, t, tick)
		}
	}

	if t, a, ok := b.cutOff(s, me); ok && b.between(0, 99) < b.p.aggro {
		o := b.assess(s, me, me.X, me.Y, t, step)
		if o.score > 0 && o.gap > a+8*sim.Meter && o.room >= enough {
			return b.turn(out, me, t, tick)
		}
	}
	if st.room < b.p.room {
		l := b.assess(s, me, me.X, me.Y, 1, step)
		r := b.assess(s, me, me.X, me.Y, -1, step)
		if r.score > l.score {
			l = r
		}
		if l.score > 0 && l.room > st.room+st.room/4+8 {
			b.tight = l.room < b.p.tight
			return b.turn(out, me, l.turn, tick)
		}
		// A lane too narrow to turn round in, with little room ahead: slow
		// down, so that the turn delay fits in it if it ends in a wall.
		b.tight = b.tight || l.score < 0
	}
	if t, ok := b.seekWall(s, me, pred); ok {
		if o := b.assess(s, me, me.X, me.Y, t, step); o.score > 0 && o.room >= enough {
			return b.turn(out, me, t, tick)
		}
	}
	if int64(b.rand()%1000) < b.p.wander {
		t := int8(1 - 2*int8(b.rand()&1))
		if o := b.assess(s, me, me.X, me.Y, t, step); o.score > 0 && o.room >= b.p.room && o.gap > 40*sim.Meter {
			return b.turn(out, me, t, tick)
		}
	}
	return out
}

// cutOff looks for an opponent whose road ahead this cycle could cross first
// by turning: the wall it leaves across that road forces the opponent to turn
// or die. It returns the turn and the distance to the crossing.
func (b *Bot) cutOff(s *sim.State, me *sim.Cycle) (turn int8, dist int64, ok bool) {
	reach := 10*sim.Meter + b.p.aggro*30*sim.Meter/100
	best := far
	for j := 0; j < sim.MaxPlayers; j++ {
		if j == b.id || b.w.watch&(1<<j) == 0 {
			continue // dead cycles leave the watch list
		}
		c := s.Cycle(j)
		if !c.Alive || c.Team == me.Team || abs(c.X-me.X)+abs(c.Y-me.Y) > 3*reach {
			continue
		}
		for _, t := range [2]int8{1, -1} {
			nd := b.turned(me.Dir, t)
			var a, them int64 // our way to the crossing, and theirs
			switch {
			case b.dirs != nil:
				var cross bool
				if a, them, cross = b.meet(me, &c, nd); !cross {
					continue
				}
			case nd&1 == c.Dir&1:
				continue
			case nd&1 == 0:
				a, them = along(me.X, c.X, nd), along(c.Y, me.Y, c.Dir)
			default:
				a, them = along(me.Y, c.Y, nd), along(c.X, me.X, c.Dir)
			}
			// Get there in well under their time, or the wall is not there yet.
			if a < 2*sim.Meter || a > reach || them <= 0 || them > 2*reach ||
				a*c.Speed*10 >= them*me.Speed*7 || a >= best {
				continue
			}
			turn, dist, ok, best = t, a, true, a
		}
	}
	return turn, dist, ok
}

// meet returns how far me, heading nd, and c, on its way, each have to
// the point where their lines cross, on a map of other Axes: a = cross(r,
// v) / cross(u, v) and them = cross(r, u) / cross(u, v), r from me to c, u
// and v the two headings. cross is false for parallel lines.
func (b *Bot) meet(me, c *sim.Cycle, nd uint8) (a, them int64, cross bool) {
	u, v := &b.dirs[nd], &b.dirs[int(c.Dir)%len(b.dirs)]
	den := (u[0]*v[1] - u[1]*v[0]) / sim.AxisScale // sine x AxisScale
	if den == 0 {
		return 0, 0, false
	}
	rx, ry := c.X-me.X, c.Y-me.Y
	return (rx*v[1] - ry*v[0]) / den, (rx*u[1] - ry*u[0]) / den, true
}

// toZone says how to head for the zone to ride into (target): 0 to ride on
// (it lies ahead), or the turn towards the side it lies on once it is more to
// that side than ahead (so the cycle zigzags towards it, one turn per leg).
// ok is false while there is none.
func (b *Bot) toZone(s *sim.State, me *sim.Cycle) (turn int8, ok bool) {
	x, y, r, open := target(s, me)
	if !open {
		return 0, false
	}
	fx, fy, lx, ly := int64(1), int64(0), int64(0), int64(1)
	switch me.Dir & 3 {
	case 1:
		fx, fy, lx, ly = 0, 1, -1, 0
	case 2:
		fx, fy, lx, ly = -1, 0, 0, -1
	case 3:
		fx, fy, lx, ly = 0, -1, 1, 0
	}
	ahead := (x-me.X)*fx + (y-me.Y)*fy
	side := (x-me.X)*lx + (y-me.Y)*ly
	if b.dirs != nil {
		u := &b.dirs[int(me.Dir)%len(b.dirs)]
		ahead = ((x-me.X)*u[0] + (y-me.Y)*u[1]) / sim.AxisScale
		side = ((y-me.Y)*u[0] - (x-me.X)*u[1]) / sim.AxisScale
	}
	switch {
	case abs(side) < r/2 && ahead > 0:
		return 0, true
	case abs(side) < ahead:
		return 0, true
	case side > 0:
		return 1, true
	default:
		return -1, true
	}
}

// target is the zone worth riding into: the open win zone, else the nearest
// of a map's win zones and its fortresses that an enemy team owns (taking
// one wins the round, gWinZone.cpp).
func target(s *sim.State, me *sim.Cycle) (x, y, r int64, ok bool) {
	if x, y, r, ok = s.Zone(); ok {
		return x, y, r, true
	}
	best := int64(-1)
	for k := 0; ; k++ {
		zx, zy, zr, effect, z, _, more := s.MapZone(k)
		if !more {
			break
		}
		if z.State != sim.ZoneOpen || zr <= 0 || effect == sim.ZoneDeath ||
			effect == sim.ZoneFortress && (z.Owner < 0 || z.Owner == int8(me.Team)) {
			continue
		}
		dx, dy := (zx-me.X)/sim.Meter, (zy-me.Y)/sim.Meter
		if d := dx*dx + dy*dy; best < 0 || d < best {
			best, x, y, r, ok = d, zx, zy, zr, true
		}
	}
	return x, y, r, ok
}

// along returns how far `to` lies from `from` in the sense of heading dir on
// that axis (negative: behind).
func along(from, to int64, dir uint8) int64 {
	if dir&3 >= 2 {
		return from - to
	}
	return to - from
}

// seekWall finds a trail running beside the cycle within persona.seek, when it
// is grinding nothing: turning towards it brings the wall ahead, and the turn
// made close before it (target) sets the cycle running along it.
func (b *Bot) seekWall(s *sim.State, me *sim.Cycle, pred int64) (int8, bool) {
	if l, r := s.Sensors(me.X, me.Y, me.Dir, b.id); l >= 0 || r >= 0 {
		return 0, false
	}
	on := min(pred/2, 20*sim.Meter)
	if on < 10*sim.Meter {
		return 0, false
	}
	first := int8(1 - 2*int8(b.rand()&1))
	for _, t := range [2]int8{first, -first} {
		d := b.turned(me.Dir, t)
		g, owner := s.Ray(me.X, me.Y, d, b.p.seek, b.id)
		if g < b.p.grind+3*b.w.g.cell || owner == sim.OwnerRim {
			continue
		}
		// The wall must run on ahead, or it ends before the cycle gets there.
		qx, qy := b.forward(me.X, me.Y, me.Dir, on)
		if g2, _ := s.Ray(qx, qy, d, b.p.seek+4*sim.Meter, b.id); g2 < 0 || abs(g2-g) > 3*sim.Meter {
			continue
		}
		return t, true
	}
	return 0, false
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
