//go:build linux

package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"webtron/history"
	"webtron/replay"
	"webtron/room"
	"webtron/sim"
)

// BenchmarkReplayListRooms is issue 21's listing attack: 5,000 rounds (of
// the default rules, as a server writes them) in rooms whose names are not
// path-safe ("a b 0", ...), and /api/replays?room= cycling over their
// directories' own names (which name no room, so every listing comes back
// empty after looking at a whole directory) and the rooms' names: ten
// rooms of 500 rounds, or one of 5,000. It reports the process's CPU time
// per request (cpu-ms/op) beside the wall time, after a first listing of
// every query (first-cpu-ms, all of them together).
//
//	go test -run '^$' -bench ReplayListRooms -benchtime 200x ./server/
func BenchmarkReplayListRooms(b *testing.B) {
	for _, c := range []struct{ rooms, per int }{{10, 500}, {1, 5000}} {
		b.Run(fmt.Sprintf("%dx%d", c.rooms, c.per), func(b *testing.B) { benchListRooms(b, c.rooms, c.per) })
	}
}

// defaultRound is one round of three bots under the default rules.
var defaultRound = sync.OnceValues(func() (history.RoundRecord, []string) {
	var rec history.RoundRecord
	var names []string
	r, err := room.New("rec", room.Config{Sim: sim.DefaultConfig(), Seed: 5, Bots: 3, Seats: 3,
		OnRound: func(got history.RoundRecord, n []string) {
			if names == nil {
				rec, names = got, n
			}
		}}, 0, room.Discard)
	if err != nil {
		panic(err)
	}
	for now := time.Duration(0); names == nil && now < time.Hour; now += r.TickDuration() {
		r.Tick(now)
	}
	return rec, names
})

func benchListRooms(b *testing.B, rooms, per int) {
	data := b.TempDir()
	var queries []string
	t0 := time.UnixMilli(1_700_000_000_000)
	rec, names := defaultRound()
	if names == nil {
		b.Fatal("no round in an hour")
	}
	for r := range rooms {
		name := fmt.Sprint("a b ", r)
		bs, err := replay.Marshal(&replay.File{Kind: replay.KindRound, Room: name, Round: 1, Created: t0, Names: names, Record: rec})
		if err != nil {
			b.Fatal(err)
		}
		dir := filepath.Join(data, replaysDir, dirName(name))
		os.MkdirAll(dir, 0o755)
		for i := range per {
			p := filepath.Join(dir, fmt.Sprintf("%d-%d%s", t0.UnixMilli()+int64(r*per+i), i+1, replay.Ext))
			if err := os.WriteFile(p, bs, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		queries = append(queries, "/api/replays?room="+url.QueryEscape(dirName(name)), "/api/replays?room="+url.QueryEscape(name))
	}
	s := newBenchServer(b, data)
	h := s.Handler()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	get := func(q string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", q, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	// The first listing of each query reads what it lists, once: its cost
	// is reported apart (first-cpu-ms, for all the queries together).
	c0 := cpu()
	for _, q := range queries {
		get(q)
	}
	c1, n := cpu(), 0
	for b.Loop() {
		get(queries[n%len(queries)])
		n++
	}
	b.ReportMetric(float64(c1-c0)/1e6, "first-cpu-ms")
	b.ReportMetric(float64(cpu()-c1)/float64(n)/1e6, "cpu-ms/op")
}

// newBenchServer is a server on data, without a listener.
func newBenchServer(b *testing.B, data string) *Server {
	s, err := New(Config{Logger: quiet, Rules: fastRules(), Seed: 42, DataDir: data})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Shutdown(b.Context()) })
	return s
}
