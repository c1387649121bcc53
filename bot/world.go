package bot

import "webtron/sim"

// rebuildEvery is how often, in ticks, the map is drawn afresh when trails have
// a finite length: their tails recede a little every tick, and following that
// wall by wall would cost more than redrawing now and then. Until the redraw,
// the map keeps receded tails as walls, which only makes the bot more careful.
const rebuildEvery = 60

// holeRedraw is the least time, in ticks, between two redraws for new holes.
const holeRedraw = 30

// A cycle's trail matters to the room a bot sees within about nearby of it;
// beyond, the map may lag the trail, but by no more than maxStale ticks.
const (
	nearby   = 48 * sim.Meter
	maxStale = 60
)

// trail follows the open segment a living cycle is laying, so that each tick
// adds only the cells it grew into, and the closed wall it becomes at the next
// turn adds only what is left of it.
type trail struct {
	x0, y0 int64 // start of the segment (the cycle's TurnX, TurnY)
	s      seg   // its place on the map, when marked
	marked bool  // cells s.lo..s.hi are counted on the map
	on     bool
	// A slanted segment (a map of other Axes) is on the map as the
	// staircase from (x0, y0) to (hx, hy), redrawn as its head moves on.
	hx, hy int64
}

// world is the bot's view of the current round, kept in step with a State by
// adding what changed. Anything it cannot follow that way (a rollback, a new
// round, a new state) makes it redraw from scratch, which costs as much as
// the round's walls.
type world struct {
	g      grid
	trails [sim.MaxPlayers]trail
	watch  uint32                // cycles that are alive, or whose walls still stand
	due    [sim.MaxPlayers]int64 // tick from which cycle i is worth reading again

	walls        int   // round walls already on the map
	tick         int64 // tick the map reflects
	round, match int64
	synced       bool
	finite       bool       // trails have a finite length
	drawn        int64      // tick of the last redraw
	deadWall     int64      // ticks a dead cycle's walls stand, -1 for ever
	closing      int64      // fastest two cycles can close on each other, micrometres per tick
	epoch        int64      // breaks in the story (rollbacks, rounds): measurements from before are void
	last         sim.Wall   // newest wall on the map, to notice a rollback
	holes        int        // round holes the map shows
	holesDue     int64      // tick from which new holes redraw the map
	pieces       []sim.Wall // scratch for the standing parts of a wall
}

// attach prepares the map for a state's current round: the arena and the
// trail rules change with the settings set a round is played under.
func (w *world) attach(s *sim.State) {
	cfg := s.Config()
	w.g.init(s.Arena())
	w.finite = s.WallsLength() > 0
	w.deadWall = s.DeadlyWallTicks() // the simulation's own rounding
	w.closing = 4 * sim.MaxSpeed / cfg.TickRate
	w.synced = false
}

// sync brings the map up to the state's current tick if it is more than
// every ticks old. Skipping ticks loses nothing, since walls only grow between
// rollbacks; it only delays news, by at most every-1 ticks. A state that went
// back (a rollback, another round, another state) is redrawn; a rollback is
// recognised by the tick, the wall count, or the newest wall seen changing.
func (w *world) sync(s *sim.State, me *sim.Cycle, every int64) {
	tick := s.Tick()
	round, match := s.Round()
	walls := s.RoundWalls()
	same := w.synced && round == w.round && match == w.match && tick >= w.tick &&
		len(walls) >= w.walls && (w.walls == 0 || walls[w.walls-1] == w.last)
	switch {
	case same && tick < w.tick+every:
		return
	case same && w.finite && tick-w.drawn >= rebuildEvery:
		w.redraw(s)
	case same:
		w.update(s, me, every)
	default:
		w.epoch++
		if s.Arena() != w.g.arena || s.DeadlyWallTicks() != w.deadWall || s.WallsLength() > 0 != w.finite {
			w.attach(s)
		}
		w.redraw(s)
	}
	w.tick, w.round, w.match, w.synced = tick, round, match, true
	if w.walls > 0 {
		w.last = walls[w.walls-1]
	}
}

// update adds the walls closed since the last tick, grows the open segments,
// and takes off the walls of cycles whose wreck has just vanished. Reading a
// cycle is the dearest part with 32 of them, so a cycle far from me (at) is
// read again only when it could have come near, or half a second later.
func (w *world) update(s *sim.State, at *sim.Cycle, every int64) {
	if len(s.RoundHoles()) != w.holes && s.Tick() >= w.holesDue {
		// An explosion blew holes. Until the map is redrawn it shows the
		// walls whole, which only makes the bot more careful, so redraw at
		// most every holeRedraw ticks: a blast grows its holes for 0.2 s.
		w.redraw(s)
		return
	}
	walls := s.RoundWalls()
	for k := w.walls; k < len(walls); k++ {
		if w.holes > 0 {
			// A segment closed with a hole in it: the map has it whole.
			if w.pieces = s.WallPieces(walls[k], w.pieces[:0]); len(w.pieces) != 1 || w.pieces[0] != walls[k] {
				w.redraw(s)
				return
			}
		}
		w.closed(&walls[k])
	}
	w.walls = len(walls)
	tick := s.Tick()
	for i := 0; i < sim.MaxPlayers; i++ {
		if w.watch&(1<<i) == 0 || tick < w.due[i] {
			continue
		}
		c := s.Cycle(i)
		switch {
		case c.Alive:
			w.open(i, &c)
			d := max(abs(c.X-at.X), abs(c.Y-at.Y)) - nearby
			w.due[i] = tick + min(maxStale, max(every, d/w.closing))
		case w.finite || w.deadWall < 0:
			w.watch &^= 1 << i // the periodic redraw takes its walls off, or they stay
		case tick >= c.DeathTick+w.deadWall && w.holes > 0:
			// Its walls are on the map in pieces: draw afresh without them.
			w.redraw(s)
			return
		case tick >= c.DeathTick+w.deadWall:
			w.vanish(walls, i)
		default:
			w.due[i] = c.DeathTick + w.deadWall
		}
	}
}

// redraw builds the map from every wall that stands now.
func (w *world) redraw(s *sim.State) {
	w.g.clear()
	for _, m := range s.MapWalls() {
		w.g.slanted(m[0], m[1], m[2], m[3])
	}
	w.trails = [sim.MaxPlayers]trail{}
	walls := s.RoundWalls()
	for k := range walls {
		w.pieces = s.WallPieces(walls[k], w.pieces[:0])
		for _, v := range w.pieces {
			w.g.stairs(v.X1, v.Y1, v.X2, v.Y2, 1)
		}
	}
	w.walls = len(walls)
	w.holes = len(s.RoundHoles())
	w.holesDue = s.Tick() + holeRedraw
	tick := s.Tick()
	w.watch = 0
	w.due = [sim.MaxPlayers]int64{}
	for i := 0; i < sim.MaxPlayers; i++ {
		c := s.Cycle(i)
		if c.Alive {
			w.open(i, &c)
		}
		if c.Alive || c.InRound && (w.deadWall < 0 || tick < c.DeathTick+w.deadWall) {
			w.watch |= 1 << i
		}
	}
	w.drawn = tick
}

// closed puts a new closed wall on the map; if it is the segment being
// followed, only the part not yet counted.
func (w *world) closed(wl *sim.Wall) {
	t := &w.trails[wl.Owner]
	if wl.X1 != wl.X2 && wl.Y1 != wl.Y2 {
		if t.on && t.x0 == wl.X1 && t.y0 == wl.Y1 {
			t.on = false
			if t.marked {
				w.g.stairs(t.x0, t.y0, t.hx, t.hy, -1)
			}
		}
		w.g.stairs(wl.X1, wl.Y1, wl.X2, wl.Y2, 1)
		return
	}
	sg, ok := w.g.span(wl.X1, wl.Y1, wl.X2, wl.Y2)
	if t.on && t.x0 == wl.X1 && t.y0 == wl.Y1 {
		t.on = false
		if ok && t.marked {
			w.g.bump(sg, t.s.lo, t.s.hi, 1)
			return
		}
	}
	if ok {
		w.g.bump(sg, 1, 0, 1)
	}
}

// open grows cycle i's open segment on the map.
func (w *world) open(i int, c *sim.Cycle) {
	t := &w.trails[i]
	if !t.on || t.x0 != c.TurnX || t.y0 != c.TurnY {
		*t = trail{x0: c.TurnX, y0: c.TurnY, on: true}
	}
	if c.X != c.TurnX && c.Y != c.TurnY {
		// Slanted: its staircase drawn anew as the head moves on (a
		// staircase depends on both ends, not only on the cells they are in).
		g := &w.g
		if t.marked && c.X == t.hx && c.Y == t.hy {
			return
		}
		if t.marked {
			g.stairs(t.x0, t.y0, t.hx, t.hy, -1)
		}
		g.stairs(t.x0, t.y0, c.X, c.Y, 1)
		t.hx, t.hy, t.marked = c.X, c.Y, true
		return
	}
	if t.marked { // most ticks the head is still in a cell already counted
		head := c.X
		if !t.s.horiz {
			head = c.Y
		}
		if h := w.g.col(head); h >= t.s.lo && h <= t.s.hi {
			return
		}
	}
	sg, ok := w.g.span(c.TurnX, c.TurnY, c.X, c.Y)
	if !ok {
		return
	}
	if t.marked {
		w.g.bump(sg, t.s.lo, t.s.hi, 1)
	} else {
		w.g.bump(sg, 1, 0, 1)
	}
	t.s, t.marked = sg, true
}

// vanish takes a dead cycle's walls off the map. They were counted wall by
// wall (its last open segment was closed when it died), so taking them off
// wall by wall leaves every other wall's count as it was.
func (w *world) vanish(walls []sim.Wall, i int) {
	for k := range walls {
		if int(walls[k].Owner) == i {
			w.g.stairs(walls[k].X1, walls[k].Y1, walls[k].X2, walls[k].Y2, -1)
		}
	}
	w.watch &^= 1 << i
	w.trails[i].on = false
}
