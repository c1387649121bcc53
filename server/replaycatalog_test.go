package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"webtron/headless"
	"webtron/history"
	"webtron/replay"
	"webtron/room"
	"webtron/web"
)

// recorded is one round of three bots on a virtual clock, as the server
// would write it.
var recorded struct {
	once  sync.Once
	rec   history.RoundRecord
	names []string
}

func recordedFile(t testing.TB, roomName string, created time.Time) *replay.File {
	t.Helper()
	recorded.once.Do(func() {
		got := false
		r, err := room.New("rec", room.Config{Sim: *fastRules(), Seed: 5, Bots: 3, Seats: 3, OnRound: func(rec history.RoundRecord, names []string) {
			if !got && rec.Decided && rec.Winner >= 0 {
				recorded.rec, recorded.names, got = rec, names, true
			}
		}}, 0, room.Discard)
		if err != nil {
			panic(err)
		}
		for now := time.Duration(0); !got && now < 10*time.Minute; now += r.TickDuration() {
			r.Tick(now)
		}
	})
	if recorded.names == nil {
		t.Fatal("no round won in 10 minutes")
	}
	return &replay.File{Kind: replay.KindRound, Room: roomName, Round: 1, Created: created, Names: recorded.names, Record: recorded.rec}
}

// writeReplay writes f where the server would and returns its id.
func writeReplay(t *testing.T, data string, f *replay.File, v1 bool) string {
	t.Helper()
	ms := f.Created.UnixMilli()
	dir := dirName(f.Room)
	path := filepath.Join(data, replaysDir, dir, itoa(ms)+"-1"+replay.Ext)
	b, err := replay.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if v1 {
		b = asVersion1(t, b)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	id, ok := replayID(dir, filepath.Base(path))
	if !ok {
		t.Fatalf("no id for %s", path)
	}
	return id
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// asVersion1 rewrites a file as the version-1 writer wrote it: its sections
// without the version-2 ones (tags 7 on).
func asVersion1(t *testing.T, b []byte) []byte {
	t.Helper()
	const header = len(replay.Magic) + 5
	out := append([]byte(replay.Magic), 1, 0, 0, 0, 0)
	body := b[header : len(b)-4]
	for len(body) > 0 {
		tag := body[0]
		n, k := binary.Uvarint(body[1:])
		if k <= 0 || uint64(len(body)-1-k) < n {
			t.Fatal("bad section")
		}
		sec := body[:1+k+int(n)]
		if tag < 7 {
			out = append(out, sec...)
		}
		body = body[len(sec):]
	}
	binary.LittleEndian.PutUint32(out[len(replay.Magic)+1:], uint32(len(out)+4))
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestReplayList: /api/replays lists rounds newest first with their room,
// players, winner and length; a damaged file is listed as damaged and never
// served; a version-1 file is listed with the result its re-simulation gives.
func TestReplayList(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, func(c *Config) { c.DataDir = data })
	t0 := time.UnixMilli(1_700_000_000_000)
	f := recordedFile(t, "lobby", t0)
	oldest := writeReplay(t, data, f, true)
	f2 := recordedFile(t, "a b", t0.Add(time.Minute))
	middle := writeReplay(t, data, f2, false)
	damaged := writeReplay(t, data, recordedFile(t, "lobby", t0.Add(2*time.Minute)), false)
	dmPath := filepath.Join(data, replaysDir, "lobby", itoa(t0.Add(2*time.Minute).UnixMilli())+"-1"+replay.Ext)
	raw, _ := os.ReadFile(dmPath)
	raw[len(raw)/2] ^= 0x10
	os.WriteFile(dmPath, raw, 0o644)
	os.WriteFile(filepath.Join(data, replaysDir, "lobby", "notes.txt"), []byte("not a replay"), 0o644)

	base := "http" + strings.TrimPrefix(s.url, "ws")
	var list []ReplayInfo
	if code := getJSON(t, base+"/api/replays", &list); code != 200 {
		t.Fatalf("status %d", code)
	}
	if len(list) != 3 || list[0].ID != damaged || list[1].ID != middle || list[2].ID != oldest {
		t.Fatalf("list %+v, want %s, %s, %s", list, damaged, middle, oldest)
	}
	rec := &f.Record
	for _, e := range list[1:] {
		// Version 1 does not say who the bots were.
		if e.Damaged || !e.Decided || e.Winner != rec.Winner || e.WinnerName != f.Names[rec.Winner] || len(e.Players) != 3 || e.Players[0].Bot != (e.Version > 1) ||
			e.Ticks != rec.EndTick-rec.StartTick || e.Seconds != float64(e.Ticks)/120 {
			t.Errorf("entry %+v", e)
		}
	}
	if list[1].Room != "a b" || list[1].Version != replay.Version || list[2].Version != 1 || !list[2].Created.Equal(t0) {
		t.Errorf("room %q version %d, version %d created %v", list[1].Room, list[1].Version, list[2].Version, list[2].Created)
	}
	if !list[0].Damaged || !strings.Contains(list[0].Problem, "checksum") {
		t.Errorf("damaged entry %+v", list[0])
	}
	var one []ReplayInfo
	if getJSON(t, base+"/api/replays?limit=1", &one); len(one) != 1 || one[0].ID != damaged {
		t.Errorf("limit 1: %+v", one)
	}
	if code, _ := get(t, base+"/api/replays?limit=x"); code != 400 {
		t.Errorf("limit=x: status %d", code)
	}

	code, b := get(t, base+"/api/replays/"+middle)
	want, _ := replay.Marshal(f2)
	if code != 200 || !bytes.Equal(b, want) {
		t.Errorf("file: status %d, %d bytes, want %d", code, len(b), len(want))
	}
	if code, b := get(t, base+"/api/replays/"+damaged); code != 422 {
		t.Errorf("damaged file: status %d %s", code, b)
	}
	for _, id := range []string{"1-2-nowhere", "1-2-..", "1-2-.hidden", "x-2-lobby", "1-2", "..%2f..%2fetc", "1-2-lobby%2f..%2f.."} {
		if code, _ := get(t, base+"/api/replays/"+id); code != 404 {
			t.Errorf("%s: status %d", id, code)
		}
	}
}

// TestReplayListWithoutData: a server that writes no replays lists none.
func TestReplayListWithoutData(t *testing.T) {
	s := newTestServer(t, nil)
	var list []ReplayInfo
	if code := getJSON(t, "http"+strings.TrimPrefix(s.url, "ws")+"/api/replays", &list); code != 200 || list == nil || len(list) != 0 {
		t.Fatalf("status %d, list %v", code, list)
	}
}

// TestReplayIDs: ids map to exactly one path and back, and nothing else
// parses.
func TestReplayIDs(t *testing.T) {
	for _, room := range []string{"lobby", "a b", "..", ".x", "ünï", "-", "x-1-2"} {
		dir := dirName(room)
		id, ok := replayID(dir, "1700000000000-12"+replay.Ext)
		d, f, ok2 := parseReplayID(id)
		if !ok || !ok2 || d != dir || f != "1700000000000-12"+replay.Ext {
			t.Errorf("room %q: id %q -> %q %q", room, id, d, f)
		}
	}
	for _, bad := range []string{"", "1", "1-2", "1-2-", "a-2-x", "1-b-x", "1-2-x/y", "1-2-..", "1-2-.x", "1-2-x\\y", "1-2-x y"} {
		if _, _, ok := parseReplayID(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestPrune: files past the age limit go, then the oldest until the rest fit
// the size budget; a temporary file goes once stale.
func TestPrune(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, nil)
	now := time.Now()
	mk := func(rel string, size int, age time.Duration) string {
		p := filepath.Join(data, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, make([]byte, size), 0o644)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
		return p
	}
	files := []string{
		mk("replays/a/1-1.wtr", 100, 40*24*time.Hour), // too old
		mk("replays/a/2-1.wtr", 100, 5*time.Hour),     // oldest within age: over budget
		mk("desyncs/a/3-p1-t5.wtr", 100, 4*time.Hour), // over budget
		mk("replays/b/4-1.wtr", 100, 3*time.Hour),
		mk("replays/b/5-1.wtr", 100, 2*time.Hour),
		mk("replays/b/.tmp-1.part", 10, 2*time.Hour),    // stale temporary file
		mk("replays/b/.tmp-2.part", 10, time.Minute),    // a write in progress
		mk("replays/b/notes.txt", 10, 100*24*time.Hour), // not ours
	}
	w := &replayWriter{dir: data, keep: 30 * 24 * time.Hour, maxBytes: 250, log: quiet, metrics: s.metrics}
	w.prune(now)
	for i, gone := range []bool{true, true, true, false, false, true, false, false} {
		if _, err := os.Stat(files[i]); (err != nil) != gone {
			t.Errorf("%s: gone %v, want %v", files[i], err != nil, gone)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "desyncs", "a")); err == nil {
		t.Error("an emptied room directory remains")
	}
}

// TestServerListsItsRounds: a round played on the server is listed with its
// players (the human by name, bots as bots) and served as a version-2 file
// that holds the human's network figures and every event's timing.
func TestServerListsItsRounds(t *testing.T) {
	data := t.TempDir()
	s := newTestServer(t, func(c *Config) { c.DataDir = data; c.Bots = 2 })
	a := player(t, s.url, headless.Options{Name: "alice", Room: "listed", BrakeEvery: 300 * time.Millisecond})
	drive(t, a)
	base := "http" + strings.TrimPrefix(s.url, "ws")
	var list []ReplayInfo
	for deadline := time.Now().Add(30 * time.Second); len(list) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no round listed in 30 s")
		}
		getJSON(t, base+"/api/replays", &list)
	}
	e := list[0]
	humans, bots := 0, 0
	for _, p := range e.Players {
		switch {
		case p.Name == "alice" && !p.Bot:
			humans++
		case p.Bot:
			bots++
		}
	}
	if e.Room != "listed" || e.Damaged || humans != 1 || bots != 2 || e.Version != replay.Version {
		t.Fatalf("entry %+v", e)
	}
	code, b := get(t, base+"/api/replays/"+e.ID)
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	f, err := replay.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := replay.Verify(f)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Decided != e.Decided || sum.Winner != e.Winner {
		t.Errorf("listed decided %v winner %d, re-simulated %v %d", e.Decided, e.Winner, sum.Decided, sum.Winner)
	}
	r := &f.Record
	if len(r.Timing) != len(r.Events) || len(r.Net) == 0 {
		t.Fatalf("%d timings for %d events, %d net samples", len(r.Timing), len(r.Events), len(r.Net))
	}
}

// TestReplayListByRoom: ?room= keeps one room's rounds, each with the room
// ticks it spans (a live page finds the round it just watched by them).
func TestReplayListByRoom(t *testing.T) {
	data := t.TempDir()
	t0 := time.UnixMilli(1_700_000_000_000)
	a := writeReplay(t, data, recordedFile(t, "a b", t0), false)
	writeReplay(t, data, recordedFile(t, "other", t0.Add(time.Minute)), false)
	// The files first: the server prunes empty directories as it starts.
	s := newTestServer(t, func(c *Config) { c.DataDir = data })
	base := "http" + strings.TrimPrefix(s.url, "ws")
	var list []ReplayInfo
	if code := getJSON(t, base+"/api/replays?room=a+b", &list); code != 200 {
		t.Fatalf("status %d", code)
	}
	rec := recordedFile(t, "a b", t0).Record
	if len(list) != 1 || list[0].ID != a || list[0].StartTick != rec.StartTick || list[0].EndTick != rec.EndTick || rec.EndTick <= rec.StartTick {
		t.Fatalf("room a b: %+v, want %s spanning %d to %d", list, a, rec.StartTick, rec.EndTick)
	}
	if getJSON(t, base+"/api/replays?room=nowhere", &list); len(list) != 0 {
		t.Errorf("room nowhere: %+v", list)
	}
	if getJSON(t, base+"/api/replays", &list); len(list) != 2 {
		t.Errorf("all rooms: %d entries", len(list))
	}
}

// TestReplayPage: /replay/ID is the page (the client plays the round the
// URL names), with its assets reachable from that path; an id with no file
// behind it is 404.
func TestReplayPage(t *testing.T) {
	data := t.TempDir()
	page := fstest.MapFS{
		"index.html": {Data: []byte(`<!doctype html><base href="/"><script src="app.js"></script>`)},
		"app.js":     {Data: []byte("replay page")},
	}
	id := writeReplay(t, data, recordedFile(t, "lobby", time.UnixMilli(1_700_000_000_000)), false)
	s := newTestServer(t, func(c *Config) { c.DataDir = data; c.Web = web.NewHandler(page) })
	base := "http" + strings.TrimPrefix(s.url, "ws")
	code, b := get(t, base+"/replay/"+id+"?t=4.5&follow=x")
	if code != 200 || !bytes.Contains(b, []byte(`<base href="/">`)) {
		t.Errorf("/replay/%s: status %d, %q", id, code, b)
	}
	for _, bad := range []string{"1-1-lobby", "1700000000000-2-lobby", "1700000000000-1-nowhere", "x", "1-2-..", "..%2f..%2fetc"} {
		if code, b := get(t, base+"/replay/"+bad); code != 404 {
			t.Errorf("/replay/%s: status %d, %q", bad, code, b)
		}
	}
}

// TestReplayOtherRules: a round another version of the game's rules played
// is listed as such (damaged, old, the reason) and refused with that reason,
// not as damage.
func TestReplayOtherRules(t *testing.T) {
	data := t.TempDir()
	f := recordedFile(t, "lobby", time.UnixMilli(1_700_000_000_000))
	id := writeReplay(t, data, f, false)
	path := filepath.Join(data, replaysDir, "lobby", "1700000000000-1"+replay.Ext)
	b, _ := os.ReadFile(path)
	// The rules section comes last: tag, length 1, the version.
	if b[len(b)-7] != 11 || b[len(b)-6] != 1 {
		t.Fatalf("the file does not end with its rules section: % x", b[len(b)-8:])
	}
	b[len(b)-5] += 1
	b = binary.LittleEndian.AppendUint32(b[:len(b)-4], crc32.ChecksumIEEE(b[:len(b)-4]))
	os.WriteFile(path, b, 0o644)
	s := newTestServer(t, func(c *Config) { c.DataDir = data })
	base := "http" + strings.TrimPrefix(s.url, "ws")
	var list []ReplayInfo
	getJSON(t, base+"/api/replays", &list)
	if len(list) != 1 || !list[0].Damaged || !list[0].Old || !strings.Contains(list[0].Problem, "newer version of the game") {
		t.Fatalf("list %+v", list)
	}
	code, body := get(t, base+"/api/replays/"+id)
	if code != 422 || strings.Contains(string(body), "damaged") || !strings.Contains(string(body), "newer version of the game") {
		t.Errorf("status %d: %s", code, body)
	}
}

// TestReplayListIndexed: every file is read and checked once, however the
// listings by room follow one another; a file whose size and time have not
// changed is never read again. The cache it replaces held 4,096 entries and
// was cleared when full, so listings of rooms in turn past that read every
// file again each time (0.8 CPU-seconds a request). The files here are
// rewritten under the catalog, size and time kept, so that a second read
// would show: their problem changes.
func TestReplayListIndexed(t *testing.T) {
	data := t.TempDir()
	const rooms, per = 10, 420 // 4,200 files in all
	junk := func(second bool) []byte {
		if second { // a replay's magic, then no version this build reads
			return append([]byte(replay.Magic), bytes.Repeat([]byte("y"), 24-len(replay.Magic))...)
		}
		return bytes.Repeat([]byte("x"), 24) // not a replay at all
	}
	var paths []string
	for r := range rooms {
		dir := filepath.Join(data, replaysDir, fmt.Sprint("r", r))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range per {
			p := filepath.Join(dir, fmt.Sprintf("%d-1%s", 1_700_000_000_000+r*per+i, replay.Ext))
			if err := os.WriteFile(p, junk(false), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	c := newReplayCatalog(data)
	first := map[string]string{}
	for r := range rooms {
		for _, e := range c.List(maxReplayList, fmt.Sprint("r", r)) {
			first[e.ID] = e.Problem
		}
	}
	if len(first) != rooms*per {
		t.Fatalf("listed %d files, want %d", len(first), rooms*per)
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, junk(true), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
	reread := 0
	for r := range rooms {
		for _, e := range c.List(maxReplayList, fmt.Sprint("r", r)) {
			if e.Problem != first[e.ID] {
				reread++
			}
		}
	}
	if reread > 0 {
		t.Fatalf("%d of %d unchanged files read again by the second round of listings", reread, rooms*per)
	}
}

// TestReplayListingsBounded: listings run maxListings at a time; one that
// cannot have its turn within listWait is told to come back (503,
// Retry-After) instead of piling up work.
func TestReplayListingsBounded(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.DataDir = t.TempDir() })
	base := "http" + strings.TrimPrefix(s.url, "ws")
	for range maxListings {
		s.catalog.listings <- struct{}{} // listings running
	}
	start := time.Now()
	resp, err := http.Get(base + "/api/replays")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("with %d listings running: status %d, Retry-After %q; want 503 and a Retry-After", maxListings, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if d := time.Since(start); d < listWait {
		t.Errorf("refused after %v, before its %v wait", d, listWait)
	}
	<-s.catalog.listings // one ends
	var list []ReplayInfo
	if code := getJSON(t, base+"/api/replays", &list); code != http.StatusOK {
		t.Fatalf("with a turn free: status %d", code)
	}
}
