package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"webtron/history"
	"webtron/room"
	"webtron/sim"
)

// played is one real round, recorded by a room of bots on a virtual clock.
var played struct {
	once  sync.Once
	rec   history.RoundRecord
	names []string
	err   error
}

func playedRound(t testing.TB) (history.RoundRecord, []string) {
	t.Helper()
	played.once.Do(func() {
		var got bool
		r, err := room.New("test", room.Config{Seed: 7, Bots: 4, Seats: 4, OnRound: func(rec history.RoundRecord, names []string) {
			if !got && rec.EndTick-rec.StartTick > 1000 {
				played.rec, played.names, got = rec, names, true
			}
		}}, 0, room.Discard)
		if err != nil {
			played.err = err
			return
		}
		dt := r.TickDuration()
		for now := time.Duration(0); !got && now < 10*time.Minute; now += dt {
			if err := r.Tick(now); err != nil {
				played.err = err
				return
			}
		}
		if !got {
			played.err = errors.New("no round finished in 10 minutes")
		}
	})
	if played.err != nil {
		t.Fatal(played.err)
	}
	return played.rec, played.names
}

// sampleFile is a file of the played round; tests may change it freely.
func sampleFile(t testing.TB) *File {
	rec, names := playedRound(t)
	rec.Events = slices.Clone(rec.Events)
	rec.Hashes = slices.Clone(rec.Hashes)
	rec.Timing = slices.Clone(rec.Timing)
	rec.Net = slices.Clone(rec.Net)
	rec.Bots = slices.Clone(rec.Bots)
	names = slices.Clone(names)
	return &File{Kind: KindRound, Room: "lobby", Round: 3, Created: time.UnixMilli(1_700_000_000_123), Names: names, Record: rec}
}

func TestRoundTripAndVerify(t *testing.T) {
	f := sampleFile(t)
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "replays", "lobby", "1-3"+Ext)
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := stored(f)
	if !reflect.DeepEqual(*g, want) {
		g.Record, want.Record = history.RoundRecord{}, history.RoundRecord{}
		t.Fatalf("round trip differs:\n got %+v\nwant %+v\n(records not shown)", *g, want)
	}
	if len(g.Record.Timing) != len(g.Record.Events) || len(g.Record.Net) == 0 && len(g.Record.Timing) == 0 {
		t.Fatalf("%d timings for %d events, %d net samples", len(g.Record.Timing), len(g.Record.Events), len(g.Record.Net))
	}
	s, err := Verify(g)
	if err != nil {
		t.Fatal(err)
	}
	if s.HashesChecked < 2 || len(s.Players) != 4 || !s.Decided || s.Events != len(f.Record.Events) {
		t.Fatalf("summary %+v", s)
	}
	if s.FinalHash != f.Record.Hashes[len(f.Record.Hashes)-1].Hash {
		t.Fatalf("final hash %016x, recorded %016x", s.FinalHash, f.Record.Hashes[len(f.Record.Hashes)-1].Hash)
	}
	var out bytes.Buffer
	s.Print(&out, g)
	t.Logf("%d bytes, %d events, %d hashes\n%s", len(b), len(f.Record.Events), len(f.Record.Hashes), out.String())
}

// stored is f as a file keeps it: names without trailing free slots, times
// to the microsecond, and the version written.
func stored(f *File) File {
	want := *f
	want.Version = Version
	want.Names = trimNames(f.Names)
	r := &want.Record
	r.Timing = append([]history.EventTiming(nil), r.Timing...)
	for i := range r.Timing {
		t := &r.Timing[i]
		t.Arrived, t.Accepted, t.Broadcast = t.Arrived.Truncate(time.Microsecond), t.Accepted.Truncate(time.Microsecond), t.Broadcast.Truncate(time.Microsecond)
	}
	r.Net = append([]history.NetSample(nil), r.Net...)
	for i := range r.Net {
		n := &r.Net[i]
		n.Lead, n.Leniency, n.OneWay, n.Jitter = n.Lead.Truncate(time.Microsecond), n.Leniency.Truncate(time.Microsecond), n.OneWay.Truncate(time.Microsecond), n.Jitter.Truncate(time.Microsecond)
		n.Ahead = n.Ahead.Truncate(time.Microsecond)
	}
	return want
}

// trimNames drops trailing free slots, which the file does not keep.
func trimNames(names []string) []string {
	n := len(names)
	for n > 0 && names[n-1] == "" {
		n--
	}
	return append(make([]string, 0, 32), names[:n]...)
}

func TestEveryCorruptedByteIsDetected(t *testing.T) {
	b, err := Marshal(sampleFile(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x5a
		_, err := Unmarshal(c)
		if err == nil {
			t.Fatalf("byte %d corrupted: no error", i)
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotReplay) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrTruncated) {
			t.Fatalf("byte %d: unclassified error %v", i, err)
		}
	}
}

func TestTruncatedFile(t *testing.T) {
	b, err := Marshal(sampleFile(t))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n += 1 + n/8 {
		_, err := Unmarshal(b[:n])
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrNotReplay) {
			t.Fatalf("prefix of %d bytes: %v", n, err)
		}
	}
	if _, err := Unmarshal(append(bytes.Clone(b), 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
}

func TestVerifyFindsTamperedHistory(t *testing.T) {
	f := sampleFile(t)
	g := *f
	g.Record.Events = append([]history.TickEvent(nil), f.Record.Events...)
	// Move one turn a tick later: the file is well-formed, the history differs.
	for i, te := range g.Record.Events {
		if te.Ev.Kind.ServerOnly() || te.Tick+1 >= g.Record.EndTick || (i+1 < len(g.Record.Events) && g.Record.Events[i+1].Tick == te.Tick) {
			continue
		}
		if te.Ev.Kind <= 4 {
			g.Record.Events[i].Tick++
			break
		}
	}
	b, err := Marshal(&g)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(h); !errors.Is(err, ErrMismatch) {
		t.Fatalf("tampered history verified: %v", err)
	}
}

func TestDesyncDump(t *testing.T) {
	f := sampleFile(t)
	mid := f.Record.Hashes[len(f.Record.Hashes)/2]
	f.Kind = KindDesync
	f.Desync = &Desync{Player: 1, Tick: mid.Tick, Client: ^mid.Hash, Want: mid.Hash}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Verify(g)
	if err != nil {
		t.Fatal(err)
	}
	if !s.DesyncChecked || s.DesyncHash != mid.Hash {
		t.Fatalf("desync not reproduced: %+v", s)
	}
	if _, err := Marshal(&File{Kind: KindDesync, Record: f.Record}); err == nil {
		t.Fatal("desync dump without its desync was written")
	}
}

// seal wraps a section body in a valid header and checksum, so the fuzzer
// reaches the section parser instead of stopping at the checksum.
func seal(body []byte) []byte {
	b := append([]byte(Magic), Version, 0, 0, 0, 0)
	b = append(b, body...)
	binary.LittleEndian.PutUint32(b[len(Magic)+1:], uint32(len(b)+4))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func FuzzUnmarshal(f *testing.F) {
	b, err := Marshal(sampleFile(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[headerLen : len(b)-4])
	f.Add([]byte(Magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, seal(data)} {
			g, err := Unmarshal(in)
			if err != nil {
				continue
			}
			// What the reader accepts, the writer writes back the same.
			out, err := Marshal(g)
			if err != nil {
				t.Fatalf("accepted file does not re-encode: %v", err)
			}
			h, err := Unmarshal(out)
			if err != nil {
				t.Fatalf("re-encoded file does not decode: %v", err)
			}
			h.Version = g.Version // a version-1 file is written back as the current version
			if !reflect.DeepEqual(g, h) {
				t.Fatalf("re-encoding changed the file")
			}
			if g.Record.EndTick-g.Record.StartTick < 5000 {
				Verify(g) // must not panic, whatever the content
			}
		}
	})
}

func TestSealedSamplesParse(t *testing.T) {
	b, err := Marshal(sampleFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(seal(b[headerLen:len(b)-4]), b) {
		t.Fatal("seal does not rebuild the file")
	}
}

// TestVerifyTeamWinner: in a round played in teams of two the winner is a
// team, and the summary prints it with its members' names.
func TestVerifyTeamWinner(t *testing.T) {
	rules := sim.DefaultConfig()
	rules.SP.TeamMaxPlayers, rules.MP.TeamMaxPlayers = 2, 2
	var f *File
	r, err := room.New("teams", room.Config{Seed: 3, Bots: 4, Seats: 4, Sim: rules, OnRound: func(rec history.RoundRecord, names []string) {
		if f == nil && rec.Decided && rec.Winner >= 0 {
			f = &File{Kind: KindRound, Room: "teams", Round: 1, Created: time.UnixMilli(1_700_000_000_000), Names: slices.Clone(names), Record: rec}
		}
	}}, 0, room.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); f == nil && now < 20*time.Minute; now += r.TickDuration() {
		if err := r.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	if f == nil {
		t.Fatal("no round was won in 20 minutes")
	}
	s, err := Verify(f)
	if err != nil {
		t.Fatal(err)
	}
	team := s.Team(s.Winner)
	if s.TeamMax != 2 || s.Winner != f.Record.Winner || len(team) != 2 {
		t.Fatalf("team max %d, winner %d (recorded %d) with members %+v; want a team of two", s.TeamMax, s.Winner, f.Record.Winner, team)
	}
	var out bytes.Buffer
	s.Print(&out, f)
	want := fmt.Sprintf("winner: team %d: player %d %q player %d %q\n", s.Winner+1, team[0].Slot, team[0].Name, team[1].Slot, team[1].Name)
	if !strings.Contains(out.String(), want) {
		t.Fatalf("printed\n%s\nwant the line %q", out.String(), want)
	}
}
