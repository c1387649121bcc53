package view

import (
	"encoding/binary"
	"slices"
	"testing"

	"webtron/bot"
	"webtron/sim"
)

// reader decodes frames the way web/src/core does: it keeps a wall list,
// truncates it to WallFrom and appends the records.
type reader struct {
	walls [][WallWords]int32
}

func (r *reader) apply(t *testing.T, b []byte) (hdr []int32) {
	t.Helper()
	if len(b)%4 != 0 {
		t.Fatalf("frame of %d bytes is not whole words", len(b))
	}
	w := make([]int32, len(b)/4)
	for i := range w {
		w[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	if w[HMagic] != Magic {
		t.Fatalf("magic %x", w[HMagic])
	}
	from, n := int(w[HWallFrom]), int(w[HWallN])
	if from > len(r.walls) {
		t.Fatalf("wall from %d beyond the %d walls the reader has", from, len(r.walls))
	}
	off := HeaderWords + int(w[HCycles])*CycleWords + int(w[HExplN])*ExplWords + int(w[HHoleN])*HoleWords
	if want := off + n*WallWords + int(w[HMapN])*MapWords + int(w[HMapZoneN])*ZoneWords; len(w) != want {
		t.Fatalf("frame has %d words, want %d", len(w), want)
	}
	r.walls = r.walls[:from]
	for k := range n {
		r.walls = append(r.walls, [WallWords]int32(w[off+k*WallWords:]))
	}
	return w
}

func (r *reader) check(t *testing.T, s *sim.State) {
	t.Helper()
	walls := s.RoundWalls()
	if len(r.walls) != len(walls) {
		t.Fatalf("tick %d: reader has %d walls, state %d", s.Tick(), len(r.walls), len(walls))
	}
	for i, wl := range walls {
		want := [WallWords]int32{int32(wl.X1 / 1000), int32(wl.Y1 / 1000), int32(wl.X2 / 1000), int32(wl.Y2 / 1000), int32(wl.Odo / 1000), int32(wl.Owner)}
		if r.walls[i] != want {
			t.Fatalf("tick %d: wall %d = %v, want %v", s.Tick(), i, r.walls[i], want)
		}
	}
}

// newGame seats players bots in a state of the default settings (seed 7).
func newGame(tb testing.TB, players int) (*sim.State, []*bot.Bot) {
	tb.Helper()
	return newGameWith(tb, sim.DefaultConfig(), 7, players, 3)
}

// newGameWith seats players bots, bot p seeded p+botSeed, in a state of cfg
// and seed.
func newGameWith(tb testing.TB, cfg sim.Config, seed uint64, players int, botSeed uint64) (*sim.State, []*bot.Bot) {
	tb.Helper()
	s, err := sim.NewState(cfg, seed)
	if err != nil {
		tb.Fatal(err)
	}
	bots := make([]*bot.Bot, players)
	for p := range bots {
		bots[p] = bot.New(p, uint64(p)+botSeed)
	}
	s.Step(bot.Joins(players))
	return s, bots
}

// TestFrameTracksWalls follows a whole match of bots across round starts: the
// reader's walls always equal the state's after each frame.
func TestFrameTracksWalls(t *testing.T) {
	s, bots := newGame(t, 8)
	var e Encoder
	var r reader
	rounds := int64(0)
	for k := 0; k < 100_000 && rounds < 3; k++ {
		bot.Play(s, bots, 1)
		r.apply(t, e.Frame(s, 2, 0, 0))
		r.check(t, s)
		rounds, _ = s.Round()
	}
	if rounds < 2 {
		t.Fatalf("only %d rounds in the test game: it does not cross a round start", rounds)
	}
}

// TestFrameAfterRollback restores an older snapshot and replays with other
// events, which replaces the tail of the wall list with different walls of
// possibly the same count: only a comparison can notice.
func TestFrameAfterRollback(t *testing.T) {
	s, bots := newGame(t, 4)
	for s.WallCount() < 40 {
		bot.Play(s, bots, 1)
	}
	var e Encoder
	var r reader
	var snap sim.Snapshot
	s.Save(&snap)
	saved := s.WallCount()
	// Lay a few walls after the snapshot, so that the replay below has a
	// tail to rewrite.
	for k := 0; k < 60 || (s.WallCount() < saved+3 && k < 5000); k++ {
		bot.Play(s, bots, 1)
	}
	if s.WallCount() < saved+3 {
		t.Fatalf("the bots laid %d walls after the snapshot, want 3 at least: the test checks nothing", s.WallCount()-saved)
	}
	replay := s.Tick() - snap.Tick()
	r.apply(t, e.Frame(s, 0, 0, 0))
	r.check(t, s)
	before := s.WallCount()
	if err := s.Restore(&snap); err != nil {
		t.Fatal(err)
	}
	// Replay with player 0 turning left every 15 ticks instead of its bot.
	for k := range replay {
		var evs []sim.Event
		for p, b := range bots {
			if p == 0 {
				if k%15 == 0 {
					evs = append(evs, sim.Event{Kind: sim.EvTurnLeft, Player: 0, Seq: uint32(k)})
				}
				continue
			}
			evs = b.Decide(s, evs)
		}
		s.Step(evs)
	}
	h := r.apply(t, e.Frame(s, 0, 0, 0))
	r.check(t, s)
	if int(h[HWallFrom]) >= before {
		t.Fatalf("rollback resent from wall %d, past the old count %d: the changed tail went unnoticed", h[HWallFrom], before)
	}
	// Nothing changed since: the next frame sends no wall.
	if h := r.apply(t, e.Frame(s, 0, 0, 0)); h[HWallN] != 0 || int(h[HWallFrom]) != s.WallCount() {
		t.Fatalf("idle frame sent walls %d from %d", h[HWallN], h[HWallFrom])
	}
}

// TestFrameCapsWalls joins late with a small cap: the reader catches up over
// several frames.
func TestFrameCapsWalls(t *testing.T) {
	s, bots := newGame(t, 8)
	for s.WallCount() < 100 {
		bot.Play(s, bots, 1)
	}
	e := Encoder{MaxWalls: 16}
	var r reader
	frames := 0
	for len(r.walls) < s.WallCount() {
		h := r.apply(t, e.Frame(s, -1, 0, 0))
		if h[HWallN] > 16 {
			t.Fatalf("frame sent %d walls, cap 16", h[HWallN])
		}
		frames++
	}
	r.check(t, s)
	if frames < s.WallCount()/16 {
		t.Fatalf("caught up with %d walls in %d frames", s.WallCount(), frames)
	}
}

// TestFrameCycles checks one cycle record and the header against the state.
func TestFrameCycles(t *testing.T) {
	s, bots := newGame(t, 3)
	for {
		if ph, _ := s.Phase(); ph == sim.PhasePlay && s.Tick()%50 == 0 {
			break
		}
		bot.Play(s, bots, 1)
	}
	var e Encoder
	var r reader
	w := r.apply(t, e.Frame(s, 1, 1234, FlagNotices))
	if w[HTick] != int32(s.Tick()) || w[HYou] != 1 || w[HPhase] != int32(sim.PhasePlay) || w[HUpdateMicros] != 1234 || w[HFlags] != FlagNotices {
		t.Fatalf("header %v", w[:HeaderWords])
	}
	if w[HArena] != int32(s.Arena()/1000) || w[HTickRate] != 120 || w[HCycles] != sim.MaxPlayers {
		t.Fatalf("header config words %v", w[:HeaderWords])
	}
	c := s.Cycle(1)
	rec := w[HeaderWords+CycleWords : HeaderWords+2*CycleWords]
	wantFlags := int32(CyclePresent | CycleInRound | CycleAlive | CycleWalls)
	if rec[0] != wantFlags || rec[1] != int32(c.Dir) || rec[2] != int32(c.X/1000) || rec[3] != int32(c.Y/1000) || rec[6] != int32(c.Speed/1000) {
		t.Fatalf("cycle record %v for %+v", rec, c)
	}
	if empty := w[HeaderWords+5*CycleWords]; empty != 0 {
		t.Fatalf("empty slot has flags %d", empty)
	}
}

// TestFrameDeadWallsVanish: a dead cycle's walls flag clears after the delay.
func TestFrameDeadWallsVanish(t *testing.T) {
	s, bots := newGame(t, 4)
	var e Encoder
	var r reader
	dead := -1
	for range 20000 {
		bot.Play(s, bots, 1)
		for i := range 4 {
			if c := s.Cycle(i); c.InRound && !c.Alive && s.Tick() > c.DeathTick+s.DeadWallTicks()+s.Config().TickRate/2 { // sunk from sight
				dead = i
			}
		}
		if ph, _ := s.Phase(); dead >= 0 && ph == sim.PhasePlay {
			break
		}
		dead = -1
	}
	if dead < 0 {
		t.Fatal("no cycle died long enough before the round ended: the test checks nothing")
	}
	w := r.apply(t, e.Frame(s, 0, 0, 0))
	if f := w[HeaderWords+dead*CycleWords]; f&CycleWalls != 0 || f&CycleInRound == 0 {
		t.Fatalf("dead cycle %d long after death has flags %b", dead, f)
	}
}

func BenchmarkFrame16(b *testing.B) {
	s, bots := newGame(b, 16)
	for s.WallCount() < 500 {
		bot.Play(s, bots, 1)
	}
	var e Encoder
	e.Frame(s, 0, 0, 0)
	b.ResetTimer()
	for range b.N {
		e.Frame(s, 0, 0, 0)
	}
}

// TestFrameDeathCause: the record carries the simulation's death cause, the
// team and whether a person rides: cycles that ride straight on die against
// the rim; in a bots' game every death has a cause.
func TestFrameDeathCause(t *testing.T) {
	s, _ := newGame(t, 2)
	var e Encoder
	for k := 0; k < 100_000 && (s.Cycle(0).Alive || s.Cycle(1).Alive || s.Tick() < 10); k++ {
		s.Step(nil)
	}
	w := (&reader{}).apply(t, e.Frame(s, 0, 0, 0))
	for i := range 2 {
		if got := w[HeaderWords+i*CycleWords+CCause]; got != int32(sim.CauseRim) {
			t.Errorf("cycle %d rode straight on and died with cause %d, want %d (rim)", i, got, sim.CauseRim)
		}
	}

	s, bots := newGame(t, 8)
	e, deaths := Encoder{}, 0
	for k := 0; k < 50_000 && deaths < 40; k++ {
		bot.Play(s, bots, 1)
		w := (&reader{}).apply(t, e.Frame(s, 0, 0, 0))
		e.Reset()
		for i := range 8 {
			rec, c := w[HeaderWords+i*CycleWords:], s.Cycle(i)
			if rec[CCause] != int32(c.Cause) || rec[CTeam] != int32(c.Team) || (rec[CFlags]&CycleHuman != 0) != c.Human {
				t.Fatalf("tick %d: cycle %d record cause %d team %d flags %b, state %+v", s.Tick(), i, rec[CCause], rec[CTeam], rec[CFlags], c)
			}
			dead := c.InRound && !c.Alive
			if dead && c.DeathTick == s.Tick()-1 {
				deaths++
				if c.Cause == sim.CauseNone {
					t.Fatalf("tick %d: cycle %d died without a cause", s.Tick(), i)
				}
			}
		}
	}
	if deaths < 10 {
		t.Fatalf("only %d deaths seen", deaths)
	}
}

// TestFrameTeamsAndZone plays bots in teams of two with a win zone that opens
// early, until a zone has opened and explosions have cut holes, and checks
// every frame's team, zone, explosion and hole words against the state: the
// renderer draws exactly these.
func TestFrameTeamsAndZone(t *testing.T) {
	cfg := sim.DefaultConfig()
	set := cfg.MP
	set.TeamMaxPlayers = 2
	set.WinZoneMinRoundTimeMs, set.WinZoneMinLastDeathMs = 3000, 0
	cfg.Both(set)
	s, bots := newGameWith(t, cfg, 11, 6, 5)
	var e Encoder
	var r reader
	var zones, blasts, holed, teamWins int
	for k := 0; k < 200_000 && (zones == 0 || blasts == 0 || holed == 0 || teamWins == 0); k++ {
		bot.Play(s, bots, 1)
		w := r.apply(t, e.Frame(s, 0, 0, 0))
		if w[HTeamMax] != 2 || w[HTeams] != int32(s.Teams()) || w[HExplosionRadius] != int32(s.ExplosionRadius()/1000) {
			t.Fatalf("tick %d: team max %d teams %d explosion radius %d", s.Tick(), w[HTeamMax], w[HTeams], w[HExplosionRadius])
		}
		for tm := range sim.MaxPlayers {
			if w[HTeamScore+tm] != int32(s.TeamScore(tm)) {
				t.Fatalf("tick %d: team %d score %d, state %d", s.Tick(), tm, w[HTeamScore+tm], s.TeamScore(tm))
			}
		}
		if ph, _ := s.Phase(); ph == sim.PhaseOver && s.Winner() >= 0 && w[HWinner] == int32(s.Winner()) {
			mates := 0
			for i := range 6 {
				if c := s.Cycle(i); c.InRound && int(c.Team) == s.Winner() {
					mates++
				}
			}
			if mates == 2 {
				teamWins++
			}
		}
		x, y, rad, open := s.Zone()
		if (w[HZoneOpen] == 1) != open || w[HZoneX] != int32(x/1000) || w[HZoneY] != int32(y/1000) || w[HZoneRadius] != int32(rad/1000) {
			t.Fatalf("tick %d: zone words %v, state %d %d %d %v", s.Tick(), w[HZoneX:HZoneOpen+1], x, y, rad, open)
		}
		if open {
			zones++
		}
		off := HeaderWords + sim.MaxPlayers*CycleWords
		n := 0
		for i := range sim.MaxPlayers {
			br, age, ok := s.Blast(i)
			if !ok {
				continue
			}
			c := s.Cycle(i)
			rec := w[off+n*ExplWords:]
			if n >= int(w[HExplN]) || rec[EOwner] != int32(i) || rec[EX] != int32(c.X/1000) || rec[EY] != int32(c.Y/1000) ||
				rec[ERadius] != int32(br/1000) || rec[EAge] != int32(age) {
				t.Fatalf("tick %d: explosion %d of %d record %v, want cycle %d at %d,%d radius %d age %d", s.Tick(), n, w[HExplN], rec[:ExplWords], i, c.X, c.Y, br, age)
			}
			if age == 0 && br <= 0 {
				t.Fatalf("tick %d: cycle %d exploded with radius %d", s.Tick(), i, br)
			}
			n++
			blasts++
		}
		if n != int(w[HExplN]) {
			t.Fatalf("tick %d: %d explosion records, %d blasts", s.Tick(), w[HExplN], n)
		}
		// Every hole of the state lies inside one merged record of its
		// owner; the records of an owner are disjoint and sorted.
		off += n * ExplWords
		recs := w[off : off+int(w[HHoleN])*HoleWords]
		for k := HoleWords; k < len(recs); k += HoleWords {
			if p := recs[k-HoleWords:]; recs[k+HoOwner] < p[HoOwner] || recs[k+HoOwner] == p[HoOwner] && recs[k+HoFrom] <= p[HoTo] {
				t.Fatalf("tick %d: hole records %v and %v overlap or are out of order", s.Tick(), p[:HoleWords], recs[k:k+HoleWords])
			}
		}
		for _, h := range s.RoundHoles() {
			in := false
			for k := 0; k < len(recs); k += HoleWords {
				in = in || recs[k+HoOwner] == int32(h.Owner) && recs[k+HoFrom] <= int32(h.From/1000) && recs[k+HoTo] >= int32(h.To/1000)
			}
			if !in {
				t.Fatalf("tick %d: hole %+v in no record of %v", s.Tick(), h, recs)
			}
		}
		if len(recs) > 0 {
			holed++
		}
	}
	if zones == 0 || blasts == 0 || holed == 0 || teamWins == 0 {
		t.Fatalf("frames with an open zone %d, explosions %d, holes %d, a team of two winning %d: want each", zones, blasts, holed, teamWins)
	}
}

// TestFrameDeadWallsStay: with WALLS_STAY_UP_DELAY negative a dead cycle's
// walls stand for the rest of the round: its walls flag stays set, and the
// header says they never vanish.
func TestFrameDeadWallsStay(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.SP.WallsStayUpDelayMs, cfg.MP.WallsStayUpDelayMs = -1, -1
	s, bots := newGameWith(t, cfg, 7, 4, 3)
	var e Encoder
	long := 0
	for k := 0; k < 50_000 && long < 100; k++ {
		bot.Play(s, bots, 1)
		w := (&reader{}).apply(t, e.Frame(s, 0, 0, 0))
		e.Reset()
		if w[HDeadWallTicks] != -1 {
			t.Fatalf("dead wall ticks %d, want -1", w[HDeadWallTicks])
		}
		for i := range 4 {
			c := s.Cycle(i)
			if f := w[HeaderWords+i*CycleWords]; c.InRound && !c.Alive && f&CycleWalls == 0 {
				t.Fatalf("tick %d: cycle %d dead since %d lost its walls", s.Tick(), i, c.DeathTick)
			} else if c.InRound && !c.Alive && s.Tick()-c.DeathTick > 10*120 {
				long++
			}
		}
	}
	if long < 100 {
		t.Fatalf("only %d frames with a cycle dead for over 10 s", long)
	}
}

// TestFrameMap checks that a frame carries an Armagetron map's walls after
// the trails, in millimetres, and none on the square.
func TestFrameMap(t *testing.T) {
	cfg := sim.DefaultConfig()
	u := int64(sim.Unit)
	cfg.Map = &sim.Map{Axes: 4, Spawns: []sim.MapSpawn{{X: 255 * u, Y: 50 * u, Dir: 1}, {X: 245 * u, Y: 450 * u, Dir: 3}},
		Walls: []sim.MapWall{{X1: 0, Y1: 250 * u, X2: 250 * u, Y2: 500 * u}, {X1: 250 * u, Y1: 500 * u, X2: 500 * u, Y2: 250 * u},
			{X1: 500 * u, Y1: 250 * u, X2: 250 * u, Y2: 0}, {X1: 250 * u, Y1: 0, X2: 0, Y2: 250 * u}}}
	set := cfg.MP
	cfg.Both(set) // SIZE_FACTOR 0: a map unit is a metre
	s, bots := newGameWith(t, cfg, 1, 2, 1)
	bot.Play(s, bots, 600)
	var e Encoder
	var r reader
	w := r.apply(t, e.Frame(s, 0, 0, 0))
	if w[HMapN] != 4 {
		t.Fatalf("MapN %d, want 4", w[HMapN])
	}
	m := w[len(w)-4*MapWords:]
	if [4]int32(m[4:8]) != [4]int32{250_000, 500_000, 500_000, 250_000} {
		t.Fatalf("second map wall %v", m[4:8])
	}
	sq, _ := newGame(t, 2)
	if w := r.apply(t, e.Frame(sq, 0, 0, 0)); w[HMapN] != 0 {
		t.Fatalf("the square sends %d map walls", w[HMapN])
	}
}

// TestFrameAxes: on a map of 8 axes each cycle record says 8 (the page
// turns a model by dir x 360/axes degrees), and the slanted walls go by
// their ends; the square says 4.
func TestFrameAxes(t *testing.T) {
	cfg := sim.DefaultConfig()
	u := int64(sim.Unit)
	cfg.Map = &sim.Map{Axes: 8, Spawns: []sim.MapSpawn{{X: 250 * u, Y: 50 * u, Dir: 1}, {X: 250 * u, Y: 450 * u, Dir: 5}},
		Walls: []sim.MapWall{{X1: 0, Y1: 0, X2: 0, Y2: 500 * u}, {X1: 0, Y1: 500 * u, X2: 500 * u, Y2: 500 * u},
			{X1: 500 * u, Y1: 500 * u, X2: 500 * u, Y2: 0}, {X1: 500 * u, Y1: 0, X2: 0, Y2: 0}}}
	cfg.Both(cfg.MP)
	s, bots := newGameWith(t, cfg, 1, 2, 1)
	for k := 0; k < 6000 && slantedWalls(s) == 0; k++ {
		bot.Play(s, bots, 1)
	}
	var e Encoder
	var r reader
	w := r.apply(t, e.Frame(s, 0, 0, 0))
	for i := 0; i < 2; i++ {
		rec := w[HeaderWords+i*CycleWords:]
		if rec[CAxes] != 8 || rec[CDir] != int32(s.Cycle(i).Dir) {
			t.Fatalf("cycle %d: axes %d dir %d, want 8 and %d", i, rec[CAxes], rec[CDir], s.Cycle(i).Dir)
		}
	}
	slanted := 0
	off := HeaderWords + int(w[HCycles])*CycleWords + int(w[HExplN])*ExplWords + int(w[HHoleN])*HoleWords
	for k := 0; k < int(w[HWallN]); k++ {
		if rec := w[off+k*WallWords:]; rec[WX1] != rec[WX2] && rec[WY1] != rec[WY2] {
			slanted++
		}
	}
	if slanted == 0 {
		t.Fatalf("%d walls sent, none slanted", w[HWallN])
	}
	sq, _ := newGame(t, 2)
	if w := r.apply(t, e.Frame(sq, 0, 0, 0)); w[HeaderWords+CAxes] != 4 {
		t.Fatalf("the square says %d axes", w[HeaderWords+CAxes])
	}
}

// slantedWalls counts the round's walls off the axes.
func slantedWalls(s *sim.State) int {
	n := 0
	for _, w := range s.RoundWalls() {
		if w.X1 != w.X2 && w.Y1 != w.Y2 {
			n++
		}
	}
	return n
}

// TestFrameZones checks the map zone records: a fortress's place, radius,
// effect, state, owner and conquest as the simulation has them.
func TestFrameZones(t *testing.T) {
	cfg := sim.DefaultConfig()
	u := int64(sim.Unit)
	cfg.Map = &sim.Map{Axes: 4, Spawns: []sim.MapSpawn{{X: 255 * u, Y: 50 * u, Dir: 1}, {X: 245 * u, Y: 450 * u, Dir: 3}},
		Walls: []sim.MapWall{{X1: 0, Y1: 0, X2: 0, Y2: 500 * u}, {X1: 0, Y1: 500 * u, X2: 500 * u, Y2: 500 * u},
			{X1: 500 * u, Y1: 500 * u, X2: 500 * u, Y2: 0}, {X1: 500 * u, Y1: 0, X2: 0, Y2: 0}},
		Zones: []sim.MapZone{{Effect: sim.ZoneFortress, X: 250 * u, Y: 50 * u, Radius: 40 * u}, {Effect: sim.ZoneDeath, X: 400 * u, Y: 400 * u, Radius: 5 * u}}}
	cfg.Both(cfg.MP)
	s, bots := newGameWith(t, cfg, 1, 2, 1)
	bot.Play(s, bots, 700)
	var e Encoder
	var r reader
	w := r.apply(t, e.Frame(s, 0, 0, 0))
	if w[HMapZoneN] != 2 {
		t.Fatalf("MapZoneN %d, want 2", w[HMapZoneN])
	}
	z := w[len(w)-2*ZoneWords:]
	x, y, radius, effect, st, conquered, _ := s.MapZone(0)
	if z[ZX] != int32(x/1000) || z[ZY] != int32(y/1000) || z[ZRadius] != int32(radius/1000) || z[ZEffect] != int32(effect) ||
		z[ZState] != int32(st.State) || z[ZOwner] != int32(st.Owner) || z[ZConquered] != int32(conquered) || st.Owner < 0 {
		t.Fatalf("zone record %v, want %d %d %d %d %+v %d", z[:ZoneWords], x, y, radius, effect, st, conquered)
	}
	if z[ZoneWords+ZEffect] != sim.ZoneDeath {
		t.Fatalf("second zone's effect %d", z[ZoneWords+ZEffect])
	}
}

// TestMergeHolesIncremental: holes appended a few at a time, many at once,
// taken away by a rollback and laid again otherwise, or by a new round,
// merge to what merging all of them afresh gives (sortMerge of a copy).
func TestMergeHolesIncremental(t *testing.T) {
	rng := uint64(1)
	next := func(n int) int {
		rng = rng*6364136223846793005 + 1442695040888963407
		return int(rng>>33) % n
	}
	var e Encoder
	var holes []sim.Hole
	for step := range 3000 {
		switch r := next(20); {
		case r == 0: // a new round
			holes = holes[:0]
		case r <= 2 && len(holes) > 0: // a rollback takes the tail away
			holes = holes[:next(len(holes))]
		}
		adds := 1 + next(4)
		if next(50) == 0 {
			adds = 200 // a reader catching up
		}
		for range adds {
			from := int64(next(3000)) * 1000
			holes = append(holes, sim.Hole{Owner: uint8(next(6)), From: from, To: from + int64(next(40))*1000})
		}
		got := e.mergeHoles(holes)
		want := sortMerge(slices.Clone(holes))
		want = want[:min(len(want), MaxHoles)]
		if len(got) != len(want) {
			t.Fatalf("step %d: %d merged holes, want %d", step, len(got), len(want))
		}
		for k := range want {
			if got[k].Owner != want[k].Owner || got[k].From != want[k].From || got[k].To != want[k].To {
				t.Fatalf("step %d: merged hole %d is %+v, want %+v", step, k, got[k], want[k])
			}
		}
	}
}

// BenchmarkFrame32 encodes a frame of 32 bots' round after every step, late
// in a round with thousands of walls and the holes of many explosions.
func BenchmarkFrame32(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.Both(cfg.MP) // the 500 m arena
	s, bots := newGameWith(b, cfg, 7, 32, 3)
	var snap sim.Snapshot
	for len(s.RoundHoles()) < 300 || s.WallCount() < 1000 {
		bot.Play(s, bots, 1)
		if ph, _ := s.Phase(); ph == sim.PhaseOver {
			b.Fatalf("the round ended with %d walls and %d holes", s.WallCount(), len(s.RoundHoles()))
		}
	}
	s.Save(&snap)
	var e Encoder
	e.Frame(s, 0, 0, 0)
	b.ResetTimer()
	for k := range b.N {
		if k%240 == 0 { // two seconds on, go back: the walls and holes of a round late in play
			b.StopTimer()
			s.Restore(&snap)
			b.StartTimer()
		}
		b.StopTimer()
		bot.Play(s, bots, 1)
		b.StartTimer()
		e.Frame(s, 0, 0, 0)
	}
}
