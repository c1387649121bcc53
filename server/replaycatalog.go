package server

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"webtron/replay"
	"webtron/sim"
)

// Where replays, desync dumps and crash dumps live under Config.DataDir, one directory per
// room (dirName).
const (
	replaysDir = "replays"
	desyncsDir = "desyncs"
	crashesDir = "crashes"
)

// Pruning defaults: a month of rounds, within half a gigabyte. A round of
// eight players for five minutes is tens of kilobytes, so the budget holds
// thousands of rounds and a small server's disk never fills.
const (
	DefaultReplayKeep     = 30 * 24 * time.Hour
	DefaultReplayMaxBytes = 512 << 20
)

// pruneEvery bounds how often writes trigger a prune (each walks the data
// directory); pruneIdle is how often a server that writes nothing prunes.
// Between two prunes the total may exceed the budget by what was written.
const (
	pruneEvery = 10 * time.Second
	pruneIdle  = time.Hour
	// staleTemp is how old a temporary file (a write a crash interrupted)
	// must be before a prune removes it.
	staleTemp = time.Hour
)

// storedFile is one replay or dump on disk, for pruning.
type storedFile struct {
	path string
	size int64
	mod  time.Time
}

// prune deletes files older than keep, then the oldest until the rest fit in
// maxBytes; temporary files left by an interrupted write go once stale. It
// runs on the writer's goroutine, so it never races a write.
func (w *replayWriter) prune(now time.Time) {
	w.lastPrune = now
	if w.dir == "" {
		return
	}
	var files []storedFile
	var total int64
	var dirs []string
	for _, top := range []string{replaysDir, desyncsDir, crashesDir} {
		rooms, _ := os.ReadDir(filepath.Join(w.dir, top))
		for _, rd := range rooms {
			if !rd.IsDir() {
				continue
			}
			dir := filepath.Join(w.dir, top, rd.Name())
			dirs = append(dirs, dir)
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				fi, err := e.Info()
				if err != nil || !fi.Mode().IsRegular() {
					continue
				}
				p := filepath.Join(dir, e.Name())
				if strings.HasPrefix(e.Name(), replay.TempPrefix) {
					if now.Sub(fi.ModTime()) > staleTemp {
						os.Remove(p)
					}
					continue
				}
				if !strings.HasSuffix(e.Name(), replay.Ext) {
					continue
				}
				files = append(files, storedFile{p, fi.Size(), fi.ModTime()})
				total += fi.Size()
			}
		}
	}
	slices.SortFunc(files, func(a, b storedFile) int { return a.mod.Compare(b.mod) })
	removed := 0
	for _, f := range files {
		if now.Sub(f.mod) <= w.keep && total <= w.maxBytes {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.log.Warn("server: pruning replays", "path", f.path, "err", err)
			continue
		}
		total -= f.size
		removed++
	}
	for _, d := range dirs {
		os.Remove(d) // only succeeds when empty
	}
	if removed > 0 {
		w.notify()
		w.metrics.replays.WithLabelValues("pruned").Add(float64(removed))
		w.log.Info("server: pruned replays", "files", removed, "bytes_left", total)
	}
}

// A replay's id names its file: "<unix ms>-<round>-<room directory>", e.g.
// 1717171717171-3-lobby for replays/lobby/1717171717171-3.wtr. It sorts by
// time, fits in a URL path segment, and maps back to exactly one path.
func replayID(dir, file string) (string, bool) {
	base, ok := strings.CutSuffix(file, replay.Ext)
	ms, n, ok2 := strings.Cut(base, "-")
	if !ok || !ok2 || !digits(ms) || !digits(n) || !validDir(dir) {
		return "", false
	}
	return base + "-" + dir, true
}

// parseReplayID returns the room directory and file name of an id, or false
// for anything replayID would not have made.
func parseReplayID(id string) (dir, file string, ok bool) {
	ms, rest, ok1 := strings.Cut(id, "-")
	n, dir, ok2 := strings.Cut(rest, "-")
	if !ok1 || !ok2 || !digits(ms) || !digits(n) || !validDir(dir) {
		return "", "", false
	}
	return dir, ms + "-" + n + replay.Ext, true
}

func digits(s string) bool {
	if s == "" || len(s) > 19 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validDir accepts what dirName makes: one path element of letters, digits,
// '-', '_' and '.', not starting with a dot.
func validDir(s string) bool {
	if s == "" || len(s) > 255 || s[0] == '.' {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// ReplayInfo is one entry of /api/replays. The JSON keys are a contract with
// the browser's list of recent rounds.
type ReplayInfo struct {
	ID        string    `json:"id"`
	Room      string    `json:"room"`
	Round     int64     `json:"round"`
	Created   time.Time `json:"created"`
	CreatedMs int64     `json:"createdMs"`
	// StartTick and EndTick are the room's ticks the round spans, the
	// ticks a live page sees: a page that just watched a round finds its
	// replay by them (the summary's "watch again").
	StartTick int64          `json:"startTick"`
	EndTick   int64          `json:"endTick"`
	Ticks     int64          `json:"ticks"`
	Seconds   float64        `json:"seconds"`
	Players   []ReplayPlayer `json:"players"`
	// Winner is the winning team (sim.State.Winner: the player's slot when
	// every one plays for themselves), -1 for a draw or a round not decided
	// (Decided says which); WinnerName its name, or its members' names
	// joined by ", " in a team round.
	Winner     int    `json:"winner"`
	WinnerName string `json:"winnerName"`
	Decided    bool   `json:"decided"`
	Bytes      int64  `json:"bytes"`
	Version    int    `json:"version"`
	// Damaged files fail their checks (checksum, structure; for version 1,
	// whose result the file does not state, the re-simulation's hashes):
	// they are listed so that people see a round existed, never served.
	Damaged bool   `json:"damaged"`
	Problem string `json:"problem,omitempty"`
	// Old marks a damaged entry whose only fault is its age: another
	// version of the game's rules played it (replay.ErrRules).
	Old bool `json:"old,omitempty"`
}

// ReplayPlayer is one seat of a listed round.
type ReplayPlayer struct {
	Slot int    `json:"slot"`
	Name string `json:"name"`
	Bot  bool   `json:"bot"`
}

// replayCatalog lists the replays under the data directory for /api/replays.
// It keeps an index of every file there (the summaries of the ones read so
// far), by room directory and in all, newest first: each file is read and
// checked once while its size and time stay the same, and a listing by room
// walks only that room's entries. (A cache of 4,096 entries, cleared when
// full, read every file again for listings of rooms in turn past it: 0.8
// CPU-seconds a request, issue 21.) The index holds what the disk holds,
// which pruning bounds (--replay-max-bytes): some hundreds of bytes a file.
type replayCatalog struct {
	dir      string        // DataDir/replays, "" when the server writes none
	listings chan struct{} // one token per listing running (maxListings)

	mu    sync.Mutex
	read  time.Time              // when the directories were last read; zero: never, or to do again
	rooms map[string]*catalogDir // by room directory
	all   []*catalogEntry        // every file, newest first
}

// catalogDir is one room directory's entries, newest first, as of its
// modification time.
type catalogDir struct {
	mod, read time.Time
	files     []*catalogEntry
}

// catalogEntry is one file of the index; its summary once read (under the
// catalog's mu).
type catalogEntry struct {
	listed
	described bool
	size      int64
	mod       time.Time
	info      ReplayInfo
}

// rescanEvery bounds how often listings read the directories again (the
// server's own writes mark them to read at the next listing); dirSlack is
// how recent a directory's time must be for it to be read again anyway,
// since a file system with coarse times may give a later change the same
// time.
const (
	rescanEvery = time.Second
	dirSlack    = 2 * time.Second
)

// Listing limits: the default and the most a client may ask for; and the
// listings run at once, each waiting at most listWait for its turn.
const (
	defaultReplayList = 50
	maxReplayList     = 500
	maxListings       = 2
	listWait          = 2 * time.Second
)

func newReplayCatalog(dataDir string) *replayCatalog {
	c := &replayCatalog{rooms: map[string]*catalogDir{}, listings: make(chan struct{}, maxListings)}
	if dataDir != "" {
		c.dir = filepath.Join(dataDir, replaysDir)
	}
	return c
}

// listed is a replay file found on disk, before it is read.
type listed struct {
	id, dir, file string
	ms            int64
}

// newer orders listings newest first.
func newer(a, b *catalogEntry) int { return newerListed(&a.listed, &b.listed) }

func newerListed(a, b *listed) int {
	if c := cmp.Compare(b.ms, a.ms); c != 0 {
		return c
	}
	return strings.Compare(b.id, a.id)
}

// changed marks the directories to be read again at the next listing: the
// replay writer calls it when it has written or pruned files.
func (c *replayCatalog) changed() {
	c.mu.Lock()
	c.read = time.Time{}
	c.mu.Unlock()
}

// List returns the newest limit replays, newest first; a room other than ""
// keeps only that room's.
func (c *replayCatalog) List(limit int, room string) []ReplayInfo {
	out := []ReplayInfo{}
	root, err := c.open()
	if err != nil {
		return out
	}
	defer root.Close()
	c.mu.Lock()
	if now := time.Now(); c.read.IsZero() || now.Sub(c.read) >= rescanEvery {
		c.rescan(root, now)
	}
	cands := c.all
	if room != "" {
		cands = nil
		if d := c.rooms[dirName(room)]; d != nil {
			cands = d.files
		}
	}
	c.mu.Unlock()
	for _, e := range cands {
		if len(out) == limit {
			break
		}
		// Rooms whose names differ may share a directory (dirName): the
		// summaries, read once, tell them apart without reading the files.
		if room != "" {
			if info, ok := c.summary(root, e, false); !ok || !info.Damaged && info.Room != room {
				continue
			}
		}
		if info, ok := c.summary(root, e, true); ok && (room == "" || info.Damaged || info.Room == room) {
			out = append(out, info)
		}
	}
	return out
}

// rescan reads the room directories that changed since it last did, keeping
// the entries of the files still there. Called with c.mu held.
func (c *replayCatalog) rescan(root *os.Root, now time.Time) {
	c.read = now
	rooms, _ := fs.ReadDir(root.FS(), ".")
	seen := map[string]bool{}
	changed := false
	for _, rd := range rooms {
		fi, err := rd.Info()
		if err != nil || !fi.IsDir() || !validDir(rd.Name()) {
			continue
		}
		name := rd.Name()
		seen[name] = true
		if d := c.rooms[name]; d != nil && d.mod.Equal(fi.ModTime()) && d.read.Sub(d.mod) > dirSlack {
			continue
		}
		c.rooms[name] = c.readDir(root, name, fi.ModTime(), now)
		changed = true
	}
	for name := range c.rooms {
		if !seen[name] {
			delete(c.rooms, name)
			changed = true
		}
	}
	if changed {
		c.all = c.all[:0:0]
		for _, d := range c.rooms {
			c.all = append(c.all, d.files...)
		}
		slices.SortFunc(c.all, newer)
	}
}

// readDir lists one room directory, the entries of files already known kept
// with their summaries. Called with c.mu held.
func (c *replayCatalog) readDir(root *os.Root, name string, mod, now time.Time) *catalogDir {
	known := map[string]*catalogEntry{}
	if d := c.rooms[name]; d != nil {
		for _, e := range d.files {
			known[e.id] = e
		}
	}
	d := &catalogDir{mod: mod, read: now}
	ents, _ := fs.ReadDir(root.FS(), name)
	for _, de := range ents {
		id, ok := replayID(name, de.Name())
		if !ok || !de.Type().IsRegular() {
			continue
		}
		e := known[id]
		if e == nil {
			ms, _ := strconv.ParseInt(id[:strings.IndexByte(id, '-')], 10, 64)
			e = &catalogEntry{listed: listed{id, name, de.Name(), ms}}
		}
		d.files = append(d.files, e)
	}
	slices.SortFunc(d.files, newer)
	return d
}

// open opens the replays directory so that no name can reach outside it.
func (c *replayCatalog) open() (*os.Root, error) {
	if c.dir == "" {
		return nil, fs.ErrNotExist
	}
	return os.OpenRoot(c.dir)
}

// summary returns an entry's summary, reading and checking the file the
// first time; with check, the file's size and time are compared with the
// summary's first (a file changed since is read again), and false means
// the file has gone.
func (c *replayCatalog) summary(root *os.Root, e *catalogEntry, check bool) (ReplayInfo, bool) {
	c.mu.Lock()
	info, described, size, mod := e.info, e.described, e.size, e.mod
	c.mu.Unlock()
	if described && !check {
		return info, true
	}
	fi, err := root.Stat(path.Join(e.dir, e.file))
	if err != nil || !fi.Mode().IsRegular() {
		return ReplayInfo{}, false
	}
	if described && size == fi.Size() && mod.Equal(fi.ModTime()) {
		return info, true
	}
	info, ok := c.describeFile(root, e.listed, fi)
	if ok {
		c.mu.Lock()
		e.described, e.size, e.mod, e.info = true, fi.Size(), fi.ModTime(), info
		c.mu.Unlock()
	}
	return info, ok
}

// info returns the summary of the file l names: its index entry's, or, for
// a file the index has not seen yet, one read now.
func (c *replayCatalog) info(root *os.Root, l listed) (ReplayInfo, bool) {
	c.mu.Lock()
	var e *catalogEntry
	if d := c.rooms[l.dir]; d != nil {
		i, found := slices.BinarySearchFunc(d.files, &catalogEntry{listed: l}, newer)
		if found {
			e = d.files[i]
		}
	}
	c.mu.Unlock()
	if e == nil {
		e = &catalogEntry{listed: l}
	}
	return c.summary(root, e, true)
}

// describeFile reads and checks one file; false when it has gone meanwhile.
func (c *replayCatalog) describeFile(root *os.Root, l listed, fi fs.FileInfo) (ReplayInfo, bool) {
	b, err := readReplay(root, l.dir, l.file)
	if errors.Is(err, fs.ErrNotExist) {
		return ReplayInfo{}, false
	}
	info := describeBytes(l, b, err)
	info.Bytes = fi.Size()
	return info, true
}

// describeBytes is the summary of the file l names, whose bytes are b
// (or whose reading failed with err).
func describeBytes(l listed, b []byte, err error) ReplayInfo {
	info := ReplayInfo{ID: l.id, Bytes: int64(len(b)), Winner: -1, Created: time.UnixMilli(l.ms).UTC(), CreatedMs: l.ms}
	if err == nil {
		err = describe(&info, b)
	}
	if err != nil {
		info.Damaged, info.Problem, info.Old = true, err.Error(), errors.Is(err, replay.ErrRules)
	}
	return info
}

// readReplay reads one regular file of at most replay.MaxFileSize bytes.
func readReplay(root *os.Root, dir, file string) ([]byte, error) {
	f, err := root.Open(path.Join(dir, file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", fs.ErrNotExist)
	}
	b, err := io.ReadAll(io.LimitReader(f, replay.MaxFileSize+1))
	if err == nil && len(b) > replay.MaxFileSize {
		err = fmt.Errorf("%w: larger than any replay", replay.ErrNotReplay)
	}
	return b, err
}

// describe checks a file's bytes and fills info from them.
func describe(info *ReplayInfo, b []byte) error {
	f, err := replay.Unmarshal(b)
	if err != nil {
		return err
	}
	if f.Kind != replay.KindRound {
		return fmt.Errorf("replay: a %v file where rounds are kept", f.Kind)
	}
	st, err := sim.UnmarshalState(f.Record.Start)
	if err != nil {
		return f.Explain(fmt.Errorf("replay: start snapshot: %w", err))
	}
	r := &f.Record
	info.Room, info.Round, info.Version = f.Room, f.Round, int(f.Version)
	info.Created, info.CreatedMs = f.Created.UTC(), f.Created.UnixMilli()
	info.StartTick, info.EndTick = r.StartTick, r.EndTick
	info.Ticks = r.EndTick - r.StartTick
	info.Seconds = float64(info.Ticks) / float64(st.Config().TickRate)
	info.Decided, info.Winner = r.Decided, r.Winner
	if f.Version < 2 { // the file does not say how the round ended: re-simulate
		s, err := replay.Verify(f)
		if err != nil {
			return err
		}
		info.Decided, info.Winner = s.Decided, s.Winner
	}
	if !info.Decided {
		info.Winner = -1
	}
	for slot, name := range f.Names {
		if name != "" {
			info.Players = append(info.Players, ReplayPlayer{Slot: slot, Name: name, Bot: slot < len(r.Bots) && r.Bots[slot]})
		}
	}
	// The winner is a team: a player's slot while every one plays for
	// themselves, else the team's members as the round's start dealt them.
	if set, _ := st.Rules(); info.Winner >= 0 && set.TeamMaxPlayers > 1 {
		var names []string
		for slot, name := range f.Names {
			if name != "" && int(st.Cycle(slot).Team) == info.Winner {
				names = append(names, name)
			}
		}
		info.WinnerName = strings.Join(names, ", ")
	} else if info.Winner >= 0 && info.Winner < len(f.Names) {
		info.WinnerName = f.Names[info.Winner]
	}
	return nil
}

// serveReplays answers GET /api/replays?limit=N&room=NAME: the newest rounds
// first, of one room when it is named.
func (s *Server) serveReplays(w http.ResponseWriter, r *http.Request) {
	limit := defaultReplayList
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			http.Error(w, "limit: a positive number", http.StatusBadRequest)
			return
		}
		limit = min(n, maxReplayList)
	}
	// A listing that reads many files is work for a core: a few at once,
	// the others wait their turn a moment, then are told to come back.
	select {
	case s.catalog.listings <- struct{}{}:
		defer func() { <-s.catalog.listings }()
	case <-time.After(listWait):
		w.Header().Set("Retry-After", "1")
		http.Error(w, "busy listing replays: try again", http.StatusServiceUnavailable)
		return
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.listReplays(limit, r.URL.Query().Get("room")))
}

// noReplay answers 404 for a replay that is not there, or an id that names
// none: the two are not told apart.
func noReplay(w http.ResponseWriter) { http.Error(w, "no such replay", http.StatusNotFound) }

// openReplay opens the catalogue for the replay id names, or answers 404
// (noReplay) and reports false. The caller closes root.
func (s *Server) openReplay(w http.ResponseWriter, id string) (root *os.Root, dir, file string, ok bool) {
	if dir, file, ok = parseReplayID(id); ok {
		var err error
		root, err = s.catalog.open()
		ok = err == nil
	}
	if !ok {
		noReplay(w)
	}
	return root, dir, file, ok
}

// serveReplay answers GET /api/replays/{id} with the file, checked first: a
// damaged file is refused (422) so that no page plays it.
func (s *Server) serveReplay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.store != nil && !s.spooled(id) {
		s.store.serve(w, r, id)
		return
	}
	root, dir, file, ok := s.openReplay(w, id)
	if !ok {
		return
	}
	defer root.Close()
	ms, _ := strconv.ParseInt(id[:strings.IndexByte(id, '-')], 10, 64)
	info, ok := s.catalog.info(root, listed{id, dir, file, ms})
	if !ok {
		noReplay(w)
		return
	}
	b, err := readReplay(root, dir, file)
	if errors.Is(err, fs.ErrNotExist) {
		noReplay(w)
		return
	}
	if err == nil && !info.Damaged {
		_, err = replay.Unmarshal(b) // the checksum again: the file may have changed since it was listed
	} else if err == nil {
		err = errors.New(info.Problem)
	}
	sendReplay(w, id, b, err, info.Old)
}

// sendReplay answers with a replay's bytes, or 422 with why they cannot be
// played (err; old: another version of the game's rules played it).
func sendReplay(w http.ResponseWriter, id string, b []byte, err error, old bool) {
	if err != nil {
		why := "replay damaged: " + err.Error()
		if old {
			why = err.Error() // not damage: the game changed
		}
		http.Error(w, why, http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+id+replay.Ext+`"`)
	// A replay never changes; it may only be pruned.
	w.Header().Set("Cache-Control", "public, max-age=86400, immutable")
	w.Write(b)
}

// serveReplayPage answers GET /replay/{id}, a link to one round: the page
// (which plays it, or says why it cannot: a damaged file is the page's to
// report) when the file exists, 404 when it does not, so that a mistyped or
// pruned link says so at once.
func (s *Server) serveReplayPage(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Web == nil {
		noReplay(w)
		return
	}
	id := r.PathValue("id")
	if !s.spooled(id) && (s.store == nil || !s.store.idx.has(id)) {
		noReplay(w)
		return
	}
	// The page reads the id from its own URL; index.html's <base href="/">
	// keeps its assets where they are.
	page := r.Clone(r.Context())
	page.URL.Path, page.URL.RawPath = "/", ""
	s.cfg.Web.ServeHTTP(w, page)
}

// spooled reports whether the replay id names is a file in the replays
// directory (a single node's rounds; in a cluster, those not stored yet).
func (s *Server) spooled(id string) bool {
	dir, file, ok := parseReplayID(id)
	if !ok {
		return false
	}
	root, err := s.catalog.open()
	if err != nil {
		return false
	}
	defer root.Close()
	fi, err := root.Stat(path.Join(dir, file))
	return err == nil && fi.Mode().IsRegular()
}
