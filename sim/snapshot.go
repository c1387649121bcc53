package sim

import "errors"

// Snapshot is a saved State. Saving and restoring copy one fixed-size value, so
// they cost the same with 20 walls or 20,000: walls are only ever appended
// during a round, so a snapshot records how many there were, and Restore drops
// the newer ones.
//
// A snapshot stays valid while the state it was taken from only moves forward
// or is restored to a snapshot older than it. Once the state is restored to an
// older snapshot and stepped with other events, snapshots taken after that older
// one describe walls that no longer exist: the caller (the history ring) must
// discard them, as GGRS discards frames after a rollback.
type Snapshot struct {
	c     core
	valid bool
}

// Tick returns the tick the snapshot was taken at (the state's Tick()).
func (sn *Snapshot) Tick() int64 { return sn.c.Tick }

// Valid reports whether the snapshot holds a saved state.
func (sn *Snapshot) Valid() bool { return sn.valid }

// Save copies the state into sn. It never allocates.
func (s *State) Save(sn *Snapshot) {
	sn.c = s.c
	sn.valid = true
}

// ErrSnapshot is returned by Restore when a snapshot cannot be restored into
// this state: empty, from before the walls this state still keeps, or newer
// than its walls.
var ErrSnapshot = errors.New("sim: snapshot cannot be restored")

// Restore puts the state back to sn. The cost is proportional to the walls laid
// since sn, never to the walls in the arena.
func (s *State) Restore(sn *Snapshot) error {
	c := &sn.c
	if !sn.valid || c.RoundWallStart < s.wallBase || c.WallCount > s.wallBase+int64(len(s.walls)) || c.RoundWallStart > c.WallCount ||
		c.RoundHoleStart < s.holeBase || c.HoleCount > s.holeBase+int64(len(s.holes)) {
		return ErrSnapshot
	}
	if c.RoundWallStart != s.grid.start {
		// Across a round start: index the snapshot's round afresh.
		s.grid.reset(c.RoundWallStart)
		for idx := c.RoundWallStart; idx < c.WallCount; idx++ {
			s.grid.add(&s.walls[idx-s.wallBase], idx)
		}
	} else {
		for idx := s.grid.count - 1; idx >= c.WallCount; idx-- {
			s.grid.pop(&s.walls[idx-s.wallBase], idx)
		}
		for idx := s.grid.count; idx < c.WallCount; idx++ {
			s.grid.add(&s.walls[idx-s.wallBase], idx)
		}
	}
	s.walls = s.walls[:c.WallCount-s.wallBase]
	s.holes = s.holes[:c.HoleCount-s.holeBase]
	s.c = *c
	s.blastStamp = 0
	return nil
}

// Hash returns a stable 64-bit hash of the whole state: every field of every
// cycle, the round, the random state, and (through a running hash kept as walls
// are laid) every wall. Equal histories give equal hashes on every platform.
func (s *State) Hash() uint64 {
	s.hasher = hasher{h: 0xcbf29ce484222325} // a field, not a local: passed as an interface, a local would escape
	s.c.visit(&s.hasher)
	s.visitZones(&s.hasher)
	return finalize(s.hasher.h)
}

// mix folds one word into a running hash (a multiply-rotate round in the style
// of xxHash: cheap, and every input bit reaches every output bit).
func mix(h, v uint64) uint64 {
	h ^= v * 0x9fb21c651e98df25
	h = (h << 31) | (h >> 33)
	return h * 0xc2b2ae3d27d4eb4f
}

func finalize(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// visitor sees every field of the core in one fixed order; hashing, encoding
// and decoding share that order so a new field cannot be forgotten in one of them.
type visitor interface {
	i64(*int64)
	u64(*uint64)
	u8(*uint8)
	i8(*int8)
	flag(*bool)
}

func (c *core) visit(v visitor) {
	v.i64(&c.Tick)
	v.u8((*uint8)(&c.Phase))
	v.u8(&c.Set)
	v.i64(&c.PhaseEnd)
	v.i64(&c.PlayStart)
	v.i64(&c.Round)
	v.i64(&c.Match)
	v.i8(&c.Winner)
	v.i8(&c.Wish)
	v.i64(&c.Started)
	v.i64(&c.Teams)
	v.i64(&c.LastDeath)
	v.i64(&c.NoHuman)
	v.i64(&c.ZoneTick)
	v.i64(&c.ZoneX)
	v.i64(&c.ZoneY)
	v.i64(&c.RoundWallStart)
	v.i64(&c.WallCount)
	v.i64(&c.RoundHoleStart)
	v.i64(&c.HoleCount)
	v.u64(&c.WallHash)
	v.u64(&c.Rng)
	for i := range c.TeamScore {
		v.i64(&c.TeamScore[i])
	}
	for i := range c.TeamRound {
		v.i64(&c.TeamRound[i])
	}
	for i := range c.Cycles {
		c.Cycles[i].visit(v)
	}
}

func (c *Cycle) visit(v visitor) {
	v.flag(&c.Present)
	v.flag(&c.Human)
	v.u8(&c.Machine)
	v.flag(&c.InRound)
	v.flag(&c.Alive)
	v.flag(&c.Braking)
	v.u8(&c.Dir)
	v.u8(&c.Team)
	v.i8(&c.Killer)
	v.u8((*uint8)(&c.Cause))
	v.i8(&c.Enemy)
	for _, p := range [...]*int64{&c.X, &c.Y, &c.Speed, &c.Sub, &c.RubberUsed, &c.Brake, &c.TurnX, &c.TurnY,
		&c.Odo, &c.SegOdo, &c.SegTick, &c.LastLeft, &c.LastRight, &c.DeathTick, &c.Latency, &c.EnemyTick,
		&c.Score, &c.Kills, &c.Deaths, &c.RoundScore} {
		v.i64(p)
	}
	v.u64(&c.Queue)
	v.u8(&c.QueueLen)
}

type hasher struct{ h uint64 }

func (h *hasher) i64(p *int64)  { h.h = mix(h.h, uint64(*p)) }
func (h *hasher) u64(p *uint64) { h.h = mix(h.h, *p) }
func (h *hasher) u8(p *uint8)   { h.h = mix(h.h, uint64(*p)) }
func (h *hasher) i8(p *int8)    { h.h = mix(h.h, uint64(*p)) }
func (h *hasher) flag(p *bool) {
	b := uint64(0)
	if *p {
		b = 1
	}
	h.h = mix(h.h, b)
}
