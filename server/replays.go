package server

import (
	"fmt"
	"hash/fnv"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"webtron/history"
	"webtron/replay"
	"webtron/room"
	"webtron/sim"
)

// replayWriter writes replay files on a goroutine of its own, so a slow disk
// never delays a room's tick: rooms hand records over without blocking, and
// Shutdown waits for the queue to drain. The same goroutine prunes old files
// (replaycatalog.go).
type replayWriter struct {
	dir       string
	keep      time.Duration // files older than this are deleted
	maxBytes  int64         // and the oldest beyond this total
	log       *slog.Logger
	metrics   *metrics
	jobs      chan replayJob
	wg        sync.WaitGroup
	once      sync.Once
	written   atomic.Int64
	changed   func() // told when files were written or pruned (the catalog's index)
	lastPrune time.Time
}

type replayJob struct {
	path string
	file *replay.File
}

func newReplayWriter(cfg *Config, log *slog.Logger, m *metrics, changed func()) *replayWriter {
	w := &replayWriter{dir: cfg.DataDir, keep: cfg.ReplayKeep, maxBytes: cfg.ReplayMaxBytes, log: log, metrics: m,
		jobs: make(chan replayJob, 256), changed: changed}
	w.wg.Add(1)
	go w.run()
	return w
}

func (w *replayWriter) run() {
	defer w.wg.Done()
	w.prune(time.Now())
	tk := time.NewTicker(pruneIdle)
	defer tk.Stop()
	for {
		select {
		case j, ok := <-w.jobs:
			if !ok {
				return
			}
			w.write(j)
			if time.Since(w.lastPrune) >= pruneEvery {
				w.prune(time.Now())
			}
		case <-tk.C:
			w.prune(time.Now())
		}
	}
}

func (w *replayWriter) write(j replayJob) {
	if err := replay.WriteFile(j.path, j.file); err != nil {
		w.metrics.replays.WithLabelValues("failed").Inc()
		w.log.Error("server: writing replay", "path", j.path, "err", err)
		return
	}
	w.metrics.replays.WithLabelValues("written").Inc()
	w.written.Add(1)
	w.notify()
}

// notify tells the catalog that files changed, when something listens.
func (w *replayWriter) notify() {
	if w.changed != nil {
		w.changed()
	}
}

// submit queues a file; when the writer is far behind the file is dropped
// and counted rather than making the room wait.
func (w *replayWriter) submit(path string, f *replay.File) {
	if w.dir == "" {
		return
	}
	select {
	case w.jobs <- replayJob{path, f}:
	default:
		w.metrics.replays.WithLabelValues("dropped").Inc()
		w.log.Warn("server: replay writer behind, dropping", "path", path)
	}
}

// round queues one finished round of room name. Its file name is what the
// replay's id is made of (replayID).
func (w *replayWriter) round(name string, n int64, rec history.RoundRecord, names []string) {
	now := time.Now()
	path := filepath.Join(w.dir, replaysDir, dirName(name), fmt.Sprintf("%d-%d%s", now.UnixMilli(), n, replay.Ext))
	w.submit(path, &replay.File{Kind: replay.KindRound, Room: name, Round: n, Created: now, Names: names, Record: rec})
}

// humanRode reports whether a human rode in the round rec records. Rounds
// of bots alone are not written (issue 22): they filled the lobby's Recent
// rounds with seconds-long draws nobody played, and nobody watches them
// again. A record that does not decode is written, for its reader to say
// what is wrong with it.
func humanRode(rec history.RoundRecord) bool {
	s, err := sim.UnmarshalState(rec.Start)
	if err != nil {
		return true
	}
	var human [sim.MaxPlayers]bool
	for i := range human {
		c := s.Cycle(i)
		if c.InRound && c.Human {
			return true
		}
		human[i] = c.Present && c.Human
	}
	for _, te := range rec.Events {
		p := int(te.Ev.Player)
		if p >= sim.MaxPlayers {
			continue
		}
		switch te.Ev.Kind {
		case sim.EvJoin:
			human[p] = te.Ev.Arg&sim.JoinHuman != 0
		case sim.EvSpawn:
			if human[p] {
				return true // spawned into the countdown
			}
		}
	}
	return false
}

// desync queues the reproduction of a client's hash mismatch.
func (w *replayWriter) desync(name string, rec history.RoundRecord, names []string, d room.Desync) {
	now := time.Now()
	path := filepath.Join(w.dir, desyncsDir, dirName(name), fmt.Sprintf("%d-p%d-t%d%s", now.UnixMilli(), d.Player, d.Tick, replay.Ext))
	w.submit(path, &replay.File{Kind: replay.KindDesync, Room: name, Created: now, Names: names, Record: rec,
		Desync: &replay.Desync{Player: d.Player, Tick: d.Tick, Client: d.Client, Want: d.Want}})
}

// crash queues the round in progress of a room that panicked, for
// `webtron replay` to play back up to its last confirmed tick.
func (w *replayWriter) crash(name string, rec history.RoundRecord, names []string) string {
	now := time.Now()
	path := filepath.Join(w.dir, crashesDir, dirName(name), fmt.Sprintf("%d-t%d%s", now.UnixMilli(), rec.EndTick, replay.Ext))
	w.submit(path, &replay.File{Kind: replay.KindRound, Room: name, Created: now, Names: names, Record: rec})
	return path
}

// close waits until every queued file is written.
func (w *replayWriter) close() {
	w.once.Do(func() { close(w.jobs) })
	w.wg.Wait()
}

// dirName makes a room name safe as one path element: letters, digits, '-',
// '_' and '.' stay, anything else becomes '_' (and a leading dot too, so no
// name is hidden or climbs out with ".."). A name that had to change gets a
// hash of the original, so "a b" and "a_b" keep separate directories.
func dirName(room string) string {
	var b strings.Builder
	for i, r := range room {
		switch {
		case r == '.' && i == 0, r > 0x7f:
			b.WriteByte('_')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.String() == room {
		return room
	}
	h := fnv.New32a()
	h.Write([]byte(room))
	return fmt.Sprintf("%s-%08x", b.String(), h.Sum32())
}
