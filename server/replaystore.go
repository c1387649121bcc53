package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"webtron/cluster"
	"webtron/replay"
)

// In a cluster, finished rounds live in the cluster's replay store
// (cluster.Replays, a JetStream object store replicated like the lease
// bucket), and the node's replays directory is only where a round waits
// until the store has it: the writer writes the file to disk as a single
// node does (a disk never waits on a quorum), the uploader puts it into the
// store with its signed summary and, once a majority of the store's
// replicas holds it, deletes the file. So every node lists and serves every
// node's rounds, a node's disk holds only the rounds not stored yet
// (nothing, while the store answers), and the limits (--replay-keep,
// --replay-max-bytes) hold for the store as a whole: each node prunes the
// store's oldest rounds as its index shows them. Desync and crash dumps
// stay on the node's disk: they are its operator's.

// Timing of the uploader: how long one store request may take, how often a
// round that could not be stored is tried again, and how long a shutting
// node keeps trying to store its last rounds.
const (
	storeOpTimeout = 5 * time.Second
	storeRetry     = 10 * time.Second
	storeFinal     = 5 * time.Second
)

// replayStore is the server's side of the cluster's replay store: the
// uploader, the index of what the store holds, and its pruning.
type replayStore struct {
	s      *Server
	rs     *cluster.Replays
	spool  string // Config.DataDir/replays, "" when the server writes none
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	cancel context.CancelFunc // ends the watch and the uploader's requests
	idx    storeIndex
	// skipped are the files of the spool that are no replay, logged once
	// (the uploader's goroutine only).
	skipped map[string]bool
}

// newReplayStore makes a cluster node's replay store, before the writer
// (which pokes it after each write) starts; startReplayStore opens it once
// the node is in the cluster.
func newReplayStore(s *Server) *replayStore {
	st := &replayStore{s: s, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), skipped: map[string]bool{}}
	st.idx.init()
	if s.cfg.DataDir != "" {
		st.spool = s.catalog.dir
	}
	return st
}

// startReplayStore opens the cluster's replay store and starts the
// uploader and the index's watch.
func (s *Server) startReplayStore() {
	st := s.store
	st.rs = s.cl.node.OpenReplays()
	s.metrics.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: MetricReplaysForged,
		Help: "Objects of the cluster's replay store dropped: not signed with the cluster secret, or bytes not as signed."},
		func() float64 { return float64(st.rs.Forged.Load()) }))
	s.metrics.replays.WithLabelValues("stored")
	ctx, cancel := context.WithCancel(context.Background())
	st.cancel = cancel
	go st.rs.Watch(ctx, st.idx.reset, func(sr cluster.StoredReplay, gone bool) {
		st.idx.update(sr, gone)
		if st.idx.over(time.Now(), s.cfg.ReplayKeep, s.cfg.ReplayMaxBytes) {
			st.poke()
		}
	})
	go st.run(ctx)
}

// MetricReplaysForged counts objects of the replay store that failed their
// signature.
const MetricReplaysForged = "webtron_replays_forged_total"

// poke asks the uploader for a pass (a round written, the store over its
// limits).
func (st *replayStore) poke() {
	select {
	case st.kick <- struct{}{}:
	default:
	}
}

func (st *replayStore) run(ctx context.Context) {
	defer close(st.done)
	select {
	case <-st.rs.Ready():
	case <-st.stop:
		return
	}
	retry := time.NewTicker(storeRetry)
	defer retry.Stop()
	prune := time.NewTicker(pruneIdle)
	defer prune.Stop()
	for {
		st.upload(ctx)
		st.prune(ctx, time.Now())
		select {
		case <-st.stop:
			// What the writer has just written: the rounds the shutdown
			// closed.
			fctx, cancel := context.WithTimeout(ctx, storeFinal)
			st.upload(fctx)
			cancel()
			return
		case <-st.kick:
		case <-retry.C:
		case <-prune.C:
		}
	}
}

// close has the uploader store what the writer has just written (the
// rounds a shutdown closed), for storeFinal at most, and stops it and the
// watch.
func (st *replayStore) close() {
	st.once.Do(func() { close(st.stop) })
	<-st.done
	st.cancel()
}

// upload puts every round waiting in the spool into the store, deleting
// each file the store has acknowledged. It stops at the first failure
// (the store unreachable): the next pass tries again.
func (st *replayStore) upload(ctx context.Context) {
	if st.spool == "" {
		return
	}
	root, err := os.OpenRoot(st.spool)
	if err != nil {
		return
	}
	defer root.Close()
	rooms, _ := fs.ReadDir(root.FS(), ".")
	removed := false
	defer func() {
		if removed {
			st.s.catalog.changed()
		}
	}()
	for _, rd := range rooms {
		if !rd.IsDir() || !validDir(rd.Name()) {
			continue
		}
		files, _ := fs.ReadDir(root.FS(), rd.Name())
		for _, f := range files {
			id, ok := replayID(rd.Name(), f.Name())
			if !ok || !f.Type().IsRegular() {
				continue
			}
			var b []byte
			fi, err := f.Info()
			if err == nil && fi.Size() > replay.MaxFileSize {
				err = fmt.Errorf("%w: larger than any replay", replay.ErrNotReplay) // not read again at every pass
			} else if err == nil {
				b, err = readReplay(root, rd.Name(), f.Name())
			}
			if err != nil {
				// Gone meanwhile (pruned), or no replay (larger than
				// any): not for the store; the writer's prune removes
				// it in time.
				if !errors.Is(err, fs.ErrNotExist) && !st.skipped[id] {
					st.skipped[id] = true
					st.s.log.Warn("server: a file in the replays directory is no replay; left out of the cluster's", "id", id, "err", err)
				}
				continue
			}
			if err := st.store(ctx, b, rd.Name(), f.Name(), id); err != nil {
				if ctx.Err() == nil {
					st.s.log.Warn("server: storing a replay in the cluster; trying again later", "id", id, "err", err)
				}
				return
			}
			root.Remove(path.Join(rd.Name(), f.Name()))
			removed = true
		}
	}
}

// store puts one spooled file's bytes b into the store, under its id or,
// when another round has that id already (two nodes' rounds of one room in
// the same millisecond), a later millisecond's.
func (st *replayStore) store(ctx context.Context, b []byte, dir, file, id string) error {
	ms, _ := strconv.ParseInt(id[:strings.IndexByte(id, '-')], 10, 64)
	l := listed{id: id, dir: dir, file: file, ms: ms}
	for range 10 {
		info := describeBytes(l, b, nil)
		sum, err := json.Marshal(info)
		if err != nil {
			return err
		}
		octx, cancel := context.WithTimeout(ctx, storeOpTimeout)
		err = st.rs.Put(octx, l.id, b, sum)
		cancel()
		if !errors.Is(err, cluster.ErrReplayExists) {
			if err == nil {
				st.s.metrics.replays.WithLabelValues("stored").Inc()
			}
			return err
		}
		l.ms++
		_, n, _ := strings.Cut(strings.TrimSuffix(file, replay.Ext), "-")
		l.file = strconv.FormatInt(l.ms, 10) + "-" + n + replay.Ext
		l.id, _ = replayID(dir, l.file)
	}
	return fmt.Errorf("%w: %s and the next 9 ms", cluster.ErrReplayExists, id)
}

// prune deletes the store's rounds older than --replay-keep, then the
// oldest until the rest fit in --replay-max-bytes. Every node prunes (what
// one deletes, the others find deleted), so the limits hold while any
// node runs.
func (st *replayStore) prune(ctx context.Context, now time.Time) {
	cfg := &st.s.cfg
	victims := st.idx.victims(now, cfg.ReplayKeep, cfg.ReplayMaxBytes)
	n := 0
	for _, id := range victims {
		octx, cancel := context.WithTimeout(ctx, storeOpTimeout)
		err := st.rs.Delete(octx, id)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				st.s.log.Warn("server: pruning the cluster's replays", "id", id, "err", err)
			}
			break
		}
		st.idx.update(cluster.StoredReplay{Name: id}, true)
		n++
	}
	if n > 0 {
		st.s.metrics.replays.WithLabelValues("pruned").Add(float64(n))
		st.s.log.Info("server: pruned the cluster's replays", "rounds", n)
	}
}

// serve answers GET /api/replays/{id} from the store.
func (st *replayStore) serve(w http.ResponseWriter, r *http.Request, id string) {
	if !st.idx.has(id) {
		noReplay(w)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeOpTimeout)
	defer cancel()
	b, sum, err := st.rs.Get(ctx, id)
	switch {
	case errors.Is(err, cluster.ErrReplayNotFound), errors.Is(err, cluster.ErrReplayForged):
		noReplay(w)
		return
	case errors.Is(err, cluster.ErrReplayDamaged):
		sendReplay(w, id, nil, err, false)
		return
	case err != nil:
		st.s.log.Warn("server: reading a replay from the cluster", "id", id, "err", err)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the cluster's replays cannot be read now: try again", http.StatusServiceUnavailable)
		return
	}
	var info ReplayInfo
	if err := json.Unmarshal(sum, &info); err != nil {
		noReplay(w)
		return
	}
	if !info.Damaged {
		_, err = replay.Unmarshal(b)
	} else {
		err = errors.New(info.Problem)
	}
	sendReplay(w, id, b, err, info.Old)
}

// storeEntry is one round of the store's index.
type storeEntry struct {
	listed
	size int64
	info ReplayInfo
}

// storeIndex is what the store holds, as its watch reports it: by id, by
// room directory and in all, newest first, with the bytes in all. It holds
// what the store holds, which pruning bounds: some hundreds of bytes a
// round.
type storeIndex struct {
	mu     sync.Mutex
	synced bool
	byID   map[string]*storeEntry
	rooms  map[string][]*storeEntry
	all    []*storeEntry
	total  int64
}

func (x *storeIndex) init() {
	x.byID, x.rooms = map[string]*storeEntry{}, map[string][]*storeEntry{}
}

func byNewer(a, b *storeEntry) int { return newerListed(&a.listed, &b.listed) }

// entry makes an index entry of a stored replay; false for a name that is
// no replay id (not one of ours, though signed: never listed).
func entryOf(sr cluster.StoredReplay) (*storeEntry, bool) {
	dir, file, ok := parseReplayID(sr.Name)
	if !ok {
		return nil, false
	}
	e := &storeEntry{size: sr.Size}
	e.id, e.dir, e.file = sr.Name, dir, file
	e.ms, _ = strconv.ParseInt(sr.Name[:strings.IndexByte(sr.Name, '-')], 10, 64)
	if json.Unmarshal(sr.Summary, &e.info) != nil {
		return nil, false
	}
	e.info.ID, e.info.Bytes = sr.Name, sr.Size
	return e, true
}

// reset replaces the index with the store's whole content.
func (x *storeIndex) reset(all []cluster.StoredReplay) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.init()
	x.all, x.total = nil, 0
	for _, sr := range all {
		if e, ok := entryOf(sr); ok && x.byID[e.id] == nil {
			x.byID[e.id] = e
			x.rooms[e.dir] = append(x.rooms[e.dir], e)
			x.all = append(x.all, e)
			x.total += e.size
		}
	}
	slices.SortFunc(x.all, byNewer)
	for _, es := range x.rooms {
		slices.SortFunc(es, byNewer)
	}
	x.synced = true
}

// update adds, replaces or (gone) removes one round.
func (x *storeIndex) update(sr cluster.StoredReplay, gone bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if old := x.byID[sr.Name]; old != nil {
		delete(x.byID, old.id)
		x.all = remove(x.all, old)
		x.rooms[old.dir] = remove(x.rooms[old.dir], old)
		if len(x.rooms[old.dir]) == 0 {
			delete(x.rooms, old.dir)
		}
		x.total -= old.size
	}
	if gone {
		return
	}
	e, ok := entryOf(sr)
	if !ok {
		return
	}
	x.byID[e.id] = e
	x.all = insert(x.all, e)
	x.rooms[e.dir] = insert(x.rooms[e.dir], e)
	x.total += e.size
}

func insert(es []*storeEntry, e *storeEntry) []*storeEntry {
	i, _ := slices.BinarySearchFunc(es, e, byNewer)
	return slices.Insert(es, i, e)
}

func remove(es []*storeEntry, e *storeEntry) []*storeEntry {
	if i, found := slices.BinarySearchFunc(es, e, byNewer); found {
		return slices.Delete(es, i, i+1)
	}
	return es
}

func (x *storeIndex) has(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.byID[id] != nil
}

// list returns the newest limit rounds, of one room when room is not "".
func (x *storeIndex) list(limit int, room string) []ReplayInfo {
	x.mu.Lock()
	defer x.mu.Unlock()
	es := x.all
	if room != "" {
		es = x.rooms[dirName(room)]
	}
	var out []ReplayInfo
	for _, e := range es {
		if len(out) == limit {
			break
		}
		// Rooms whose names differ may share a directory (dirName).
		if room == "" || e.info.Damaged || e.info.Room == room {
			out = append(out, e.info)
		}
	}
	return out
}

// over reports whether the store holds more than the limits allow.
func (x *storeIndex) over(now time.Time, keep time.Duration, maxBytes int64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.total > maxBytes || len(x.all) > 0 && now.Sub(time.UnixMilli(x.all[len(x.all)-1].ms)) > keep
}

// victims returns the ids prune deletes: those older than keep, then the
// oldest until the rest fit in maxBytes.
func (x *storeIndex) victims(now time.Time, keep time.Duration, maxBytes int64) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	total := x.total
	for i := len(x.all) - 1; i >= 0; i-- {
		e := x.all[i]
		if now.Sub(time.UnixMilli(e.ms)) <= keep && total <= maxBytes {
			break
		}
		out = append(out, e.id)
		total -= e.size
	}
	return out
}

// listReplays is /api/replays's list: the spool's files (all of a single
// node's rounds) and, in a cluster, the store's rounds, newest first.
func (s *Server) listReplays(limit int, room string) []ReplayInfo {
	local := s.catalog.List(limit, room)
	if s.store == nil {
		return local
	}
	stored := s.store.idx.list(limit, room)
	out := make([]ReplayInfo, 0, min(limit, len(local)+len(stored)))
	seen := map[string]bool{}
	i, j := 0, 0
	for len(out) < limit && (i < len(local) || j < len(stored)) {
		var e ReplayInfo
		if j == len(stored) || i < len(local) && newerListed(idListed(local[i].ID), idListed(stored[j].ID)) <= 0 {
			e, i = local[i], i+1
		} else {
			e, j = stored[j], j+1
		}
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}

// idListed is what newerListed orders a listed id by.
func idListed(id string) *listed {
	ms, _, _ := strings.Cut(id, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return &listed{id: id, ms: n}
}
