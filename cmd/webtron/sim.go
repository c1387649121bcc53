package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"webtron/aamap"
	"webtron/bot"
	"webtron/settings"
	"webtron/sim"
)

func init() {
	commands["sim"] = command{summary: "play a headless game: seeded bots, or scripted players (--events); prints the final hash or --json", run: runSim}
}

// simFlags are sim's flags.
type simFlags struct {
	players, bots      int
	ticks              int64
	seed               uint64
	tickRate           int64
	quiet, asJSON      bool
	events, settingsAt string
	mapFile            string
	skill              string
	survival           bool
}

// runSim plays a headless game and prints a summary. Without --events,
// --players bots play for --ticks ticks from --seed, and the final state hash
// in hex is the last line, which tests compare across platforms (native,
// GOAMD64 levels, WebAssembly). With --events FILE, --players scripted
// players (humans, each a team of its own) follow FILE's inputs beside
// --bots bots: a scenario runner for server operators, tests and bug reports.
func runSim(args []string) error { return simTo(os.Stdout, args) }

// simTo is runSim writing to w.
func simTo(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	var f simFlags
	fs.IntVar(&f.players, "players", 8, "players: bots, or with --events the scripted players (1..32)")
	fs.IntVar(&f.bots, "bots", 0, "with --events: bots beside the scripted players")
	fs.Int64Var(&f.ticks, "ticks", 12000, "without --events: ticks to simulate; with --events: the last tick simulated (ticks count from 0, the countdown included)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed (spawns and bots)")
	fs.Int64Var(&f.tickRate, "tick-rate", 0, "ticks per second (default: the settings', 120)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the hash")
	fs.BoolVar(&f.asJSON, "json", false, "print the outcome as JSON (see docs/physics.md, scenario runner)")
	fs.StringVar(&f.events, "events", "", "JSON lines of scripted inputs: {\"tick\": 600, \"player\": 0, \"kind\": \"left\"}; kinds left, right, brake_on, brake_off")
	fs.StringVar(&f.settingsAt, "settings", "", "Armagetron-format settings file (webtron settings lists them)")
	fs.StringVar(&f.mapFile, "map-file", "", "Armagetron map to play (MAP_FILE; wins over the settings file's): a path, or a resource path among Armagetron's included maps")
	fs.StringVar(&f.skill, "skill", "100", "bots' skill, Armagetron's AI_IQ 1..100: one for every bot, or a comma-separated list, one per bot; an entry rider seats a scripted rider that turns only at walls")
	fs.BoolVar(&f.survival, "survival", false, "print each player's finished rounds, time alive in them and wins (measures the bots' skill: docs/performance.md)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	scripted := 0
	if f.events != "" {
		scripted = f.players
	} else {
		f.bots = f.players
	}
	switch {
	case f.players < 1 || f.players > sim.MaxPlayers:
		return fmt.Errorf("--players must be 1..%d, got %d", sim.MaxPlayers, f.players)
	case f.bots < 0 || scripted+f.bots > sim.MaxPlayers:
		return fmt.Errorf("--bots must be 0..%d beside %d players, got %d", sim.MaxPlayers-scripted, scripted, f.bots)
	case f.ticks < 0:
		return errors.New("--ticks must not be negative")
	case f.survival && (f.quiet || f.asJSON):
		return errors.New("--survival prints a table: not with --quiet or --json")
	}
	skills, err := parseSkills(f.skill, f.bots)
	if err != nil {
		return err
	}
	cfg := sim.DefaultConfig()
	mapFile, mapDir := f.mapFile, "" // --map-file wins over the settings file's MAP_FILE
	if f.settingsAt != "" {
		file, err := settings.Load(f.settingsAt)
		if err != nil {
			return err
		}
		for _, w := range file.Warnings {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
		cfg = file.Sim
		if f.mapFile == "" && file.MapFile != "" {
			mapFile, mapDir = file.MapFile, filepath.Dir(f.settingsAt)
		}
	}
	if mapFile != "" {
		_, warnings, err := aamap.LoadInto(&cfg, mapFile, mapDir)
		if err != nil {
			return fmt.Errorf("MAP_FILE: %w", err)
		}
		for _, w := range warnings {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
	}
	if f.tickRate > 0 {
		cfg.TickRate = f.tickRate
	}
	var script map[int64][]sim.Event
	if f.events != "" {
		// Scripted players are humans on teams of their own.
		cfg.SP.TeamMaxPlayers, cfg.MP.TeamMaxPlayers = 1, 1
		if script, err = readEvents(f.events, scripted); err != nil {
			return err
		}
	}
	s, err := sim.NewState(cfg, f.seed)
	if err != nil {
		return err
	}
	bots := make([]*bot.Bot, f.bots)
	var evs []sim.Event
	for p := 0; p < scripted; p++ {
		evs = append(evs, sim.Event{Kind: sim.EvJoin, Player: uint8(p), Arg: sim.JoinHuman})
	}
	for k := range bots {
		p := scripted + k
		if skills[k] == 0 {
			bots[k] = bot.NewRider(p)
		} else {
			bots[k] = bot.NewSkill(p, f.seed+uint64(p), skills[k])
		}
		evs = append(evs, sim.Event{Kind: sim.EvJoin, Player: uint8(p)})
	}
	last := f.ticks - 1 // without --events, --ticks counts ticks
	if script != nil {
		last = f.ticks
	}
	rec := newRecorder(scripted + f.bots)
	var live bot.Survival
	for t := int64(0); t <= last; t++ {
		for _, b := range bots {
			evs = b.Decide(s, evs)
		}
		evs = append(evs, script[t]...)
		s.Step(evs)
		evs = evs[:0]
		rec.observe(s, t)
		live.Observe(s)
	}
	if f.asJSON {
		return rec.write(w, s, last)
	}
	if f.survival {
		for p := 0; p < scripted+f.bots; p++ {
			who := "scripted"
			if k := p - scripted; k >= 0 && skills[k] == 0 {
				who = "rider"
			} else if k >= 0 {
				who = fmt.Sprintf("skill %d", skills[k])
			}
			fmt.Fprintf(w, "survival player %2d  %-9s  rounds %4d  alive %9.2f s  mean %6.2f s  wins %4d\n", p, who,
				live.Rounds[p], float64(live.Alive[p])/float64(cfg.TickRate), float64(live.MeanLife(p, cfg.TickRate))/1000, live.Wins[p])
		}
	}
	if !f.quiet {
		round, match := s.Round()
		fmt.Fprintf(w, "ticks %d  match %d  round %d  walls %d\n", s.Tick(), match, round, s.WallCount())
		for p := 0; p < scripted+f.bots; p++ {
			c := s.Cycle(p)
			fmt.Fprintf(w, "player %2d  score %4d  kills %3d  deaths %3d\n", p, c.Score, c.Kills, c.Deaths)
		}
	}
	fmt.Fprintf(w, "%016x\n", s.Hash())
	return nil
}

// parseSkills reads --skill for n bots: one skill for all, or one each;
// 0 stands for a rider.
func parseSkills(list string, n int) ([]int, error) {
	parts := strings.Split(list, ",")
	if len(parts) != 1 && len(parts) != n {
		return nil, fmt.Errorf("--skill %s: %d entries for %d bots (give one, or one per bot)", list, len(parts), n)
	}
	out := make([]int, n)
	for i := range out {
		e := strings.TrimSpace(parts[min(i, len(parts)-1)])
		if e == "rider" {
			continue
		}
		k, err := strconv.Atoi(e)
		if err != nil || k < bot.MinSkill || k > bot.MaxSkill {
			return nil, fmt.Errorf("--skill %s: %q is neither a skill %d..%d nor rider", list, e, bot.MinSkill, bot.MaxSkill)
		}
		out[i] = k
	}
	return out, nil
}

// scriptLine is one line of an --events file.
type scriptLine struct {
	Tick   *int64       `json:"tick"`
	Player *int         `json:"player"`
	Kind   *string      `json:"kind"`
	At     *json.Number `json:"at"` // a turn's instant within its tick, 0 <= at < 1
}

// readEvents reads an --events file into events by tick. Each player's
// events get sequence numbers in the file's order, which orders a player's
// events within a tick.
func readEvents(path string, players int) (map[int64][]sim.Event, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--events: %w", err)
	}
	defer fh.Close()
	kinds := map[string]sim.EventKind{"left": sim.EvTurnLeft, "right": sim.EvTurnRight, "brake_on": sim.EvBrakeOn, "brake_off": sim.EvBrakeOff}
	out := map[int64][]sim.Event{}
	seq := make([]uint32, players)
	sc := bufio.NewScanner(fh)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var l scriptLine
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("--events %s:%d: %v", path, line, err)
		}
		switch {
		case l.Tick == nil || l.Player == nil || l.Kind == nil:
			return nil, fmt.Errorf("--events %s:%d: want {\"tick\", \"player\", \"kind\"}", path, line)
		case *l.Tick < 0:
			return nil, fmt.Errorf("--events %s:%d: tick %d is negative", path, line, *l.Tick)
		case *l.Player < 0 || *l.Player >= players:
			return nil, fmt.Errorf("--events %s:%d: player %d is not a scripted player (0..%d)", path, line, *l.Player, players-1)
		}
		kind, ok := kinds[*l.Kind]
		if !ok {
			return nil, fmt.Errorf("--events %s:%d: kind %q is not left, right, brake_on or brake_off", path, line, *l.Kind)
		}
		tick, arg := *l.Tick, int32(0)
		if l.At != nil {
			at, ok := new(big.Rat).SetString(l.At.String())
			switch {
			case kind != sim.EvTurnLeft && kind != sim.EvTurnRight:
				return nil, fmt.Errorf("--events %s:%d: at is for turns, not %s", path, line, *l.Kind)
			case !ok || at.Sign() < 0 || at.Cmp(big.NewRat(1, 1)) >= 0 || at.Denom().Cmp(big.NewInt(1e12)) > 0:
				return nil, fmt.Errorf("--events %s:%d: at %s is not an instant within the tick (0 <= at < 1, to 12 decimals at most)", path, line, l.At)
			}
			var carry int64
			arg, carry = sim.TurnArg(at.Num().Int64(), at.Denom().Int64())
			tick += carry
		}
		seq[*l.Player]++
		out[tick] = append(out[tick], sim.Event{Kind: kind, Player: uint8(*l.Player), Seq: seq[*l.Player], Arg: arg})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--events %s: %w", path, err)
	}
	return out, nil
}

// recorder keeps what the JSON outcome reports beyond the final state: each
// player's turns.
type recorder struct {
	turns [][]turnOut
	last  []int64 // last turn tick seen per player
}

type turnOut struct {
	Tick int64   `json:"tick"`
	At   float64 `json:"at"` // the instant within the tick, as a fraction of it (to 1/SubTicks)
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
}

func newRecorder(n int) *recorder {
	r := &recorder{turns: make([][]turnOut, n), last: make([]int64, n)}
	for i := range r.last {
		r.last[i] = -1 << 62
	}
	return r
}

// observe notes the turns executed in tick t: a turn moves the cycle's last
// turn tick and starts its open segment at the corner.
func (r *recorder) observe(s *sim.State, t int64) {
	for p := range r.turns {
		c := s.Cycle(p)
		if lt := c.LastTurn(); lt == t && lt != r.last[p] && c.InRound {
			at := max(c.LastLeft, c.LastRight) - t*sim.SubTicks
			r.turns[p] = append(r.turns[p], turnOut{Tick: t, At: float64(at) / sim.SubTicks, X: metres(c.TurnX), Y: metres(c.TurnY)})
			r.last[p] = lt
		}
	}
}

type deathOut struct {
	Tick   int64   `json:"tick"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Cause  string  `json:"cause"`
	Killer int     `json:"killer"`
}

type playerOut struct {
	ID    int       `json:"id"`
	X     float64   `json:"x"`
	Y     float64   `json:"y"`
	Dir   string    `json:"dir"`
	Speed float64   `json:"speed"`
	Alive bool      `json:"alive"`
	Score int64     `json:"score"`
	Turns []turnOut `json:"turns"`
	Death *deathOut `json:"death"`
}

type simOut struct {
	Ticks   int64       `json:"ticks"`
	Winner  int         `json:"winner"`
	Players []playerOut `json:"players"`
}

// write prints the outcome: `{"ticks", "winner", "players": [...]}`, the
// field names and values being a contract (docs/physics.md).
func (r *recorder) write(w io.Writer, s *sim.State, last int64) error {
	out := simOut{Ticks: last, Winner: s.Winner(), Players: []playerOut{}}
	for p := range r.turns {
		c := s.Cycle(p)
		po := playerOut{ID: p, X: metres(c.X), Y: metres(c.Y), Dir: dirName(c.Dir, s.Axes()), Speed: metres(c.Speed),
			Alive: c.Alive, Score: c.Score, Turns: r.turns[p]}
		if po.Turns == nil {
			po.Turns = []turnOut{}
		}
		if c.InRound && !c.Alive {
			po.Death = &deathOut{Tick: c.DeathTick, X: metres(c.X), Y: metres(c.Y), Cause: c.Cause.String(), Killer: int(c.Killer)}
		}
		out.Players = append(out.Players, po)
	}
	sort.Slice(out.Players, func(i, j int) bool { return out.Players[i].ID < out.Players[j].ID })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// metres converts micrometres to metres (exact to the micrometre).
func metres(um int64) float64 { return float64(um) / sim.Meter }

// dirName names heading d of a map of axes directions in the scenario
// runner's JSON: the compass points on 4 and 8 axes, degrees on others.
func dirName(d uint8, axes int) string {
	switch axes {
	case 4:
		return [...]string{"east", "north", "west", "south"}[d&3]
	case 8:
		return [...]string{"east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"}[d&7]
	}
	// Degrees counter-clockwise from east, to the nearest.
	return strconv.Itoa((int(d)*360+axes/2)/axes) + " degrees"
}
