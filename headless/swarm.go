package headless

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// SwarmOptions describes a load: Count players spread over Rooms rooms.
type SwarmOptions struct {
	URL          string
	Count, Rooms int
	// Room, when set, puts every player in this one room, so that several
	// processes can meet there.
	Room       string
	Map        string        // the map (a server's /api/maps id) of the rooms the players open; "": the server's default
	Prefix     string        // player names are Prefix1..PrefixN ("bot-")
	RoomPrefix string        // room names are RoomPrefix1..RoomPrefixR ("bots-")
	Duration   time.Duration // how long to play once everyone is in
	Frame      time.Duration // frame interval (1/240 s)
	BrakeEvery time.Duration // see Options.BrakeEvery
	MindReader bool
	Seed       uint64
	Parallel   int           // dials at once (16)
	Welcome    time.Duration // how long to wait for each Welcome (15 s)
	Header     http.Header
	Transport  string           // see Options.Transport
	Idle       bool             // the players never press a key (see Options.Idle)
	TurnEvery  [2]time.Duration // scripted turns instead of the bot (see Options.TurnEvery)
	Fallback   time.Duration    // see Options.Fallback
	Rejoin     []string         // see Options.Rejoin: the players come back by themselves through these
	// Progress, when set, receives a line now and then.
	Progress func(format string, args ...any)
}

// defaults fills the options left zero: names and room names from the
// prefixes given, one room, 16 dials at once, 15 s for a Welcome.
func (o *SwarmOptions) defaults(prefix, roomPrefix string) {
	o.Rooms = max(o.Rooms, 1)
	if o.Prefix == "" {
		o.Prefix = prefix
	}
	if o.RoomPrefix == "" {
		o.RoomPrefix = roomPrefix
	}
	if o.Parallel <= 0 {
		o.Parallel = 16
	}
	if o.Welcome <= 0 {
		o.Welcome = 15 * time.Second
	}
}

// Swarm runs a load and returns its report. Players that cannot connect are
// counted, not fatal: a server that holds 900 of 1000 is a result too.
func Swarm(ctx context.Context, o SwarmOptions) (*Report, error) {
	if o.Count < 1 {
		return nil, fmt.Errorf("headless: need at least one player, got %d", o.Count)
	}
	o.defaults("bot-", "bots-")
	progress := o.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	players := make([]*Player, o.Count)
	errs := make([]error, o.Count)
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	began := time.Now()
	for i := range players {
		opt := Options{URL: o.URL, Name: fmt.Sprintf("%s%d", o.Prefix, i+1), Seed: o.Seed + uint64(i)*7919 + 1,
			BrakeEvery: o.BrakeEvery, MindReader: o.MindReader, Header: o.Header, Transport: o.Transport, Idle: o.Idle, TurnEvery: o.TurnEvery, Fallback: o.Fallback}
		opt.Room, opt.Rejoin, opt.Map = o.Room, o.Rejoin, o.Map
		if opt.Room == "" {
			opt.Room = fmt.Sprintf("%s%d", o.RoomPrefix, i%o.Rooms+1)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			dctx, cancel := context.WithTimeout(ctx, o.Welcome)
			defer cancel()
			p, err := Dial(dctx, opt)
			if err == nil {
				if err = p.WaitWelcome(dctx); err != nil {
					p.Close()
				}
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", opt.Name, err)
				return
			}
			players[i] = p
		}()
	}
	wg.Wait()
	var live []*Player
	for _, p := range players {
		if p != nil {
			live = append(live, p)
		}
	}
	progress("connected %d of %d players in %v", len(live), o.Count, time.Since(began).Round(time.Millisecond))

	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	start := time.Now()
	Run(runCtx, live, o.Frame)
	cancel()
	r := collect(o, players, errs, time.Since(start))
	var cw sync.WaitGroup
	for _, p := range live {
		cw.Add(1)
		sem <- struct{}{}
		go func() {
			defer cw.Done()
			defer func() { <-sem }()
			p.Close()
		}()
	}
	cw.Wait()
	return r, nil
}
