package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"webtron/sim"
)

func TestParseFixed(t *testing.T) {
	for _, c := range []struct {
		in    string
		scale int64
		want  int64
		err   bool
	}{
		{"30", sim.Meter, 30_000_000, false},
		{".1", 1000, 100, false},
		{"0.95", sim.Unit, 950_000, false},
		{"-3", 1, -3, false},
		{"+2.5", 1000, 2500, false},
		{"1e-3", sim.Meter, 1000, false},
		{"1E6", 1000, 1_000_000_000, false},
		{"2.202896", sim.Meter, 2_202_896, false},
		{"0.0000005", sim.Meter, 1, false},   // half a micrometre rounds away from zero
		{"-0.0000005", sim.Meter, -1, false}, // on both sides
		{"0.0000004", sim.Meter, 0, false},
		{"1000000", 1000, 1_000_000_000, false},
		{"abc", 1, 0, true},
		{"1.2.3", 1, 0, true},
		{"", 1, 0, true},
		{".", 1, 0, true},
		{"99999999999999999999", 1, 0, true},
	} {
		got, err := parseFixed(c.in, c.scale)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("parseFixed(%q, %d) = %d, %v; want %d, error %v", c.in, c.scale, got, err, c.want, c.err)
		}
	}
	for _, v := range []int64{0, 1, -1, 950_000, 30_000_000, -2_500_000, 1_000_000_000_000} {
		if got, err := parseFixed(formatFixed(v, sim.Unit), sim.Unit); err != nil || got != v {
			t.Errorf("formatFixed(%d) = %q reads back as %d, %v", v, formatFixed(v, sim.Unit), got, err)
		}
	}
}

// TestArmagetronDedicated reads the gameplay lines of Armagetron's
// settings_dedicated.cfg: Webtron's defaults are those, except FINISH_TYPE
// (Webtron defaults to 0, see docs/physics.md), and the AI settings are
// warned about by name.
func TestArmagetronDedicated(t *testing.T) {
	f, err := Load("testdata/dedicated.cfg")
	if err != nil {
		t.Fatal(err)
	}
	want := sim.DefaultConfig()
	want.SP.FinishType, want.MP.FinishType = sim.FinishReset, sim.FinishFastForward
	if f.Sim != want {
		t.Errorf("rules:\n got %+v\nwant %+v", f.Sim, want)
	}
	joined := strings.Join(f.Warnings, "\n")
	for _, w := range []string{"dedicated.cfg:3: SERVER_NAME: not a Webtron setting", "dedicated.cfg:14: SP_MIN_PLAYERS", "MIN_PLAYERS"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", joined, w)
		}
	}
	if len(f.Warnings) != 3 {
		t.Errorf("%d warnings, want 3: %q", len(f.Warnings), f.Warnings)
	}
}

func TestParse(t *testing.T) {
	f, err := Parse(strings.NewReader(`
# a comment
cycle_speed 40   anything after the value is ignored
  Cycle_Rubber 2.5 # and comments
SP_SIZE_FACTOR 0
FINISH_TYPE 3
BOTS 5
ai_iq 30
   # indented comment
`), "x.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if f.Sim.BaseSpeed != 40*sim.Meter || f.Sim.Rubber != 2_500_000 || f.Sim.SP.SizeFactor != 0 || f.Sim.MP.FinishType != sim.FinishNormal {
		t.Errorf("parsed %+v", f.Sim)
	}
	if f.Server.Bots != 5 || !f.ServerSet["BOTS"] || f.ServerSet["SEATS"] || f.Server.Seats != 8 || f.Server.BotSkill != 30 || !f.ServerSet["AI_IQ"] {
		t.Errorf("server knobs %+v set %v", f.Server, f.ServerSet)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings %q", f.Warnings)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CYCLE_SPEED\n", "x.cfg:1: CYCLE_SPEED has no value"},
		{"\nCYCLE_SPEED fast\n", "x.cfg:2: CYCLE_SPEED fast: not a number"},
		{"CYCLE_SPEED # 30\n", "x.cfg:1: CYCLE_SPEED has no value"},
		{"FINISH_TYPE 1.5\n", "x.cfg:1: FINISH_TYPE 1.5: must be a whole number"},
		{"SEATS 40\n", "x.cfg:1: SEATS 40: must be 1..32"},
		{"AI_IQ 0\n", "x.cfg:1: AI_IQ 0: must be 1..100"},
		{"AI_IQ 101\n", "x.cfg:1: AI_IQ 101: must be 1..100"},
		{"CYCLE_SPEED 9999\n", "CYCLE_SPEED must be"},
		{"SIZE_FACTOR 30\n", "SIZE_FACTOR must be"},
	} {
		_, err := Parse(strings.NewReader(c.in), "x.cfg")
		if err == nil || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestListRoundTrip: what `webtron settings` prints is a settings file that
// reads back to the same rules, and every setting has a meaning.
func TestListRoundTrip(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.BaseSpeed, cfg.MP.TeamMaxPlayers, cfg.SP.WallsLength = 33_300_000, 2, 150*sim.Meter
	srv := DefaultServer()
	srv.Bots, srv.BotSkill = 1, 40
	var b bytes.Buffer
	entries := List(cfg, srv)
	if err := Write(&b, entries); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(&b, "listed")
	if err != nil {
		t.Fatal(err)
	}
	if f.Sim != cfg || f.Server != srv {
		t.Errorf("round trip:\n got %+v %+v\nwant %+v %+v", f.Sim, f.Server, cfg, srv)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Meaning == "" || seen[e.Name] {
			t.Errorf("entry %+v: empty meaning or listed twice", e)
		}
		seen[e.Name] = true
	}
	for _, name := range []string{"CYCLE_SPEED", "CYCLE_RUBBER", "CYCLE_DELAY", "CYCLE_TURN_MEMORY", "SIZE_FACTOR", "SP_SIZE_FACTOR",
		"WIN_ZONE_MIN_ROUND_TIME", "WALLS_STAY_UP_DELAY", "FINISH_TYPE", "SP_FINISH_TYPE", "TEAM_MAX_PLAYERS", "CYCLE_PING_RUBBER", "AI_IQ"} {
		if !seen[name] {
			t.Errorf("%s is not listed", name)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	if _, err := Load(os.DevNull + "/nope"); !errors.Is(err, ErrSettings) {
		t.Fatalf("missing file: %v", err)
	}
}

// countingReader is an endless source of seeded random bytes that counts
// what was read from it.
type countingReader struct {
	rng  *rand.Rand
	read int
}

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.rng.Uint32())
	}
	r.read += len(p)
	return len(p), nil
}

// TestParseRefusesGarbage: random bytes are refused at once, not read to
// their end a warning a line (50 MB of them gave 193,661 warnings, and
// /dev/urandom never ended); a file of names Webtron does not know is
// refused past maxUnknown of them, a stock Armagetron file (some 250 names
// in its settings.cfg) still read.
func TestParseRefusesGarbage(t *testing.T) {
	src := &countingReader{rng: rand.New(rand.NewPCG(1, 2))}
	done := make(chan error, 1)
	go func() {
		_, err := Parse(io.LimitReader(src, 64<<20), "random.cfg")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), "not a settings file") {
			t.Errorf("random bytes: %v, want a settings error saying it is not a settings file", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("random bytes still being read after 10 s")
	}
	if src.read > 1<<20 {
		t.Errorf("read %d bytes of random data before refusing it", src.read)
	}
	unknown := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "NOT_OURS_%d 1\n", i)
		}
		return b.String()
	}
	f, err := Parse(strings.NewReader(unknown(maxUnknown)), "many.cfg")
	if err != nil || len(f.Warnings) != maxUnknown {
		t.Errorf("%d unknown names: %v", maxUnknown, err)
	}
	_, err = Parse(strings.NewReader(unknown(maxUnknown+1)), "many.cfg")
	if want := fmt.Sprintf("many.cfg:%d:", maxUnknown+1); !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), want) {
		t.Errorf("%d unknown names: %v, want an error at line %d", maxUnknown+1, err, maxUnknown+1)
	}
}

// TestLoadRegularFilesOnly: a settings file is a regular file; a device
// (/dev/urandom was read for ever) or a directory is refused by name.
func TestLoadRegularFilesOnly(t *testing.T) {
	for _, path := range []string{"/dev/urandom", os.DevNull, t.TempDir()} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(path)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v, want refused as not a regular file", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still being read after 5 s", path)
		}
	}
}

// TestAIIQ: AI_IQ, Armagetron's bot skill, sets the bots' skill;
// SP_AI_IQ is warned about with the reason (a room has one skill).
func TestAIIQ(t *testing.T) {
	f, err := Parse(strings.NewReader("AI_IQ 45\nSP_AI_IQ 30\n"), "x.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if f.Server.BotSkill != 45 || DefaultServer().BotSkill != 100 {
		t.Errorf("AI_IQ 45: skill %d (default %d)", f.Server.BotSkill, DefaultServer().BotSkill)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "x.cfg:2: SP_AI_IQ: a room's bots have one skill") {
		t.Errorf("warnings %q", f.Warnings)
	}
}

// TestMapFileAndApply checks MAP_FILE (kept as written, for package aamap
// to load) and Apply, which a map's Settings go through: a known rule is
// set, an unknown name or a server knob is a warning, a bad value an error.
func TestMapFileAndApply(t *testing.T) {
	f, err := Parse(strings.NewReader("MAP_FILE Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml\n"), "f")
	if err != nil || f.MapFile != "Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml" {
		t.Fatalf("MAP_FILE: %q, %v", f.MapFile, err)
	}
	if _, err := Parse(strings.NewReader("MAP_FILE\n"), "f"); err == nil {
		t.Error("MAP_FILE without a value was accepted")
	}
	cfg := sim.DefaultConfig()
	if w, err := Apply(&cfg, "win_zone_expansion", "0"); w != "" || err != nil || cfg.WinZoneExpansion != 0 {
		t.Errorf("WIN_ZONE_EXPANSION 0: %q, %v, %d", w, err, cfg.WinZoneExpansion)
	}
	if w, err := Apply(&cfg, "SP_SIZE_FACTOR", "-2"); w != "" || err != nil || cfg.SP.SizeFactor != -2 {
		t.Errorf("SP_SIZE_FACTOR -2: %q, %v, %d", w, err, cfg.SP.SizeFactor)
	}
	for _, name := range []string{"TEAMS_MIN", "MAP_FILE_OVERRIDE", "TICK_RATE"} {
		if w, err := Apply(&cfg, name, "2"); w == "" || err != nil {
			t.Errorf("%s: warning %q, error %v; want a warning", name, w, err)
		}
	}
	if _, err := Apply(&cfg, "CYCLE_SPEED", "fast"); err == nil || !errors.Is(err, ErrSettings) {
		t.Errorf("CYCLE_SPEED fast: %v", err)
	}
}
