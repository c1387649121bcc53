// Package headless plays Webtron without a browser: client.Session and a
// bot.Bot over a real WebSocket, for load tests (`webtron bots`) and for the
// server's end-to-end tests. One goroutine per connection reads; frames
// (clock, simulation, the bot's decisions) run on a few shared workers, so a
// thousand players fit in one process.
package headless

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"webtron/client"
	"webtron/internal/drive"
	"webtron/proto"
)

// Options configures one headless player.
type Options struct {
	URL        string // ws://host:port, with or without the /ws path
	Name, Room string
	Token      []byte // reconnect token from an earlier session
	Spectate   bool
	Map        string // the map a room this player opens plays (client.Options.Map)
	Seed       uint64 // the bot's seed; also its key-press timing
	MindReader bool
	// BrakeEvery, when > 0, adds brake taps at this mean interval: bots turn
	// only a few times a minute, and the taps give the lag measurements
	// more samples, as in the lab.
	BrakeEvery time.Duration
	// TurnEvery, when its upper bound is > 0, turns by a script instead of
	// the bot (see drive.Options.TurnEvery).
	TurnEvery [2]time.Duration
	// Idle connects and keeps the session going without ever pressing a key.
	Idle   bool
	Header http.Header // extra handshake headers (Origin)
	// Transport is WebSocket (the default) or WebTransport, which falls back
	// to the WebSocket as the browser does (Player.Transport tells which).
	Transport string
	// Fallback is how long the WebTransport attempt may take before the
	// WebSocket is used instead (default 1 s, as the browser).
	Fallback time.Duration
	// Rejoin, when set, makes the player come back by itself, as a page
	// does: a connection that drops, or that the server closes with a
	// reason worth trying again (its node stopping or dying, a room that
	// moved), is dialed again through these URLs in turn (any node of a
	// cluster), after the page's backoff, with the session's reconnect
	// token, as a new session of the same Player.
	Rejoin []string
	// Confirmed keeps the confirmed state too (client.Options.Confirmed),
	// for tests that compare it.
	Confirmed bool
}

// Player is one headless client connection.
type Player struct {
	opt   Options
	link  link
	start time.Time

	mu       sync.Mutex // guards everything below
	sess     *client.Session
	drv      *drive.Player
	presses  []drive.Press
	err      error
	welcome  int // size of the Welcome message
	welcomed chan struct{}

	wmu  sync.Mutex // orders writes
	out  [][]byte
	done chan struct{} // closed when the reader has stopped
	quit chan struct{} // closed by Close

	// Rejoins (Options.Rejoin), guarded by mu: the sessions before this
	// one, the current one's Welcome, and which URL it came through.
	ended    []client.Stats
	started  bool
	welcomes []time.Time
	drops    []time.Time // when each session ended
	via      int         // the reader's: the index in Rejoin of the last URL tried
	url      string      // the current session's URL
}

// ErrDropped wraps the reason a server closed a connection.
var ErrDropped = errors.New("headless: dropped by server")

// Dial connects, says hello and starts reading. Frames are driven by Run.
func Dial(ctx context.Context, opt Options) (*Player, error) {
	l, err := dialLink(ctx, opt)
	if err != nil {
		return nil, err
	}
	p := &Player{opt: opt, link: l, start: time.Now(), welcomed: make(chan struct{}), done: make(chan struct{}), quit: make(chan struct{})}
	if err := p.hello(l, opt.URL, opt.Token); err != nil {
		return nil, err
	}
	go p.readLoop()
	return p, nil
}

// hello starts a session on l with token and says hello on it.
func (p *Player) hello(l link, url string, token []byte) error {
	sess := client.New(client.Options{Name: p.opt.Name, Room: p.opt.Room, Token: token, Spectate: p.opt.Spectate, Map: p.opt.Map, MindReader: p.opt.MindReader, Confirmed: p.opt.Confirmed})
	drv := drive.New(sess, drive.Options{Seed: p.opt.Seed, BrakeEvery: p.opt.BrakeEvery, TurnEvery: p.opt.TurnEvery})
	drv.Idle = p.opt.Idle
	if err := l.write([][]byte{sess.Hello(p.now())}); err != nil {
		l.closeNow()
		return fmt.Errorf("headless: hello: %w", err)
	}
	p.wmu.Lock()
	p.mu.Lock()
	if p.sess != nil {
		p.ended = append(p.ended, p.sess.Stats())
	}
	p.link, p.sess, p.drv, p.started, p.url = l, sess, drv, false, url
	p.mu.Unlock()
	p.wmu.Unlock()
	return nil
}

func (p *Player) now() time.Duration { return time.Since(p.start) }

func (p *Player) readLoop() {
	defer close(p.done)
	for {
		err := p.readSession()
		p.mu.Lock()
		p.drops = append(p.drops, time.Now())
		p.mu.Unlock()
		if !p.rejoinable(err) || !p.rejoin(err) {
			p.fail(err)
			return
		}
	}
}

// readSession reads the current session's messages until it ends, and
// returns why.
func (p *Player) readSession() error {
	buf := make([]byte, 0, 4096)
	l := p.link
	for {
		msg, err := l.read(buf[:0])
		if err != nil {
			return err
		}
		buf = msg
		// Timed at its arrival, not when a frame in progress lets go of the
		// session (as the browser stamps messages in its worker).
		at := p.now()
		p.mu.Lock()
		err = p.sess.ReceiveAt(at, p.now(), msg)
		if !p.started && p.sess.Started() {
			p.started = true
			p.welcomes = append(p.welcomes, time.Now())
			if p.welcome == 0 {
				p.welcome = len(msg)
				close(p.welcomed)
			}
		}
		p.mu.Unlock()
		if err != nil {
			if errors.Is(err, client.ErrClosed) {
				err = fmt.Errorf("%w: %w", ErrDropped, err)
			}
			l.closeNow()
			return err
		}
		// Answers wait for the next frame (pongs say how long they were
		// held), so a frame's messages go out together, as a page's do.
	}
}

// fail records why the session ended; a normal close is no failure.
func (p *Player) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	if p.link.normal(err) && !errors.Is(err, ErrDropped) {
		err = nil
	}
	p.err = err
	if p.err == nil {
		p.err = errClosed
	}
}

var errClosed = errors.New("headless: closed")

// flush sends what the session queued, in order.
func (p *Player) flush() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	p.out = p.sess.Outgoing(p.out[:0])
	p.mu.Unlock()
	if len(p.out) == 0 {
		return
	}
	if err := p.link.write(p.out); err != nil {
		if len(p.opt.Rejoin) > 0 {
			p.link.closeNow() // the reader sees it and rejoins
			return
		}
		p.fail(err)
	}
}

// rejoinBackoff is the page's (web/src/net/socket.ts): the first attempt
// half a second after the drop, then doubling.
var rejoinBackoff = []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}

// rejoinSoon is the first attempt's wait after a close that says to
// rejoin (CloseShutdown), jittered like the others.
const rejoinSoon = 100 * time.Millisecond

// maxRejoins bounds the attempts of one rejoin.
const maxRejoins = 12

// rejoinable reports whether a session that ended with err is worth
// joining again (Options.Rejoin): not one the player closed, nor one the
// server ended with an answer trying again would repeat.
func (p *Player) rejoinable(err error) bool {
	if len(p.opt.Rejoin) == 0 || p.closed() || p.link.normal(err) && !errors.Is(err, ErrDropped) {
		return false
	}
	var pe *proto.Error
	if !errors.As(err, &pe) {
		return true // the connection dropped
	}
	switch pe.Code {
	case proto.CloseOther, proto.CloseShutdown, proto.CloseTimeout, proto.CloseBadToken:
		return true
	}
	return false
}

// rejoin dials again through the next URLs of Options.Rejoin, with the
// session's token (none after a bad-token close, as the page), and starts
// a new session; false when the player was closed or every attempt failed.
func (p *Player) rejoin(why error) bool {
	var token []byte
	if pe := (*proto.Error)(nil); !errors.As(why, &pe) || pe.Code != proto.CloseBadToken {
		p.mu.Lock()
		token = p.sess.Token()
		p.mu.Unlock()
	}
	var pe *proto.Error
	quick := errors.As(why, &pe) && pe.Code == proto.CloseShutdown
	for try := range maxRejoins {
		// The backoff grows with each round through the URLs: a node that
		// cannot be reached (stopping) costs no more than the next one's
		// try.
		round := try / len(p.opt.Rejoin)
		wait := rejoinBackoff[min(round, len(rejoinBackoff)-1)]
		if quick && round == 0 {
			// The server said to rejoin (its room moved, or it stops): at
			// once, as the page does (web/src/net/socket.ts, soon).
			wait = rejoinSoon
		}
		wait = wait * time.Duration(80+rand.IntN(41)) / 100
		select {
		case <-p.quit:
			return false
		case <-time.After(wait):
		}
		p.via = (p.via + 1) % len(p.opt.Rejoin)
		opt := p.opt
		opt.URL = p.opt.Rejoin[p.via]
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l, err := dialLink(ctx, opt)
		cancel()
		if err != nil {
			continue
		}
		if p.hello(l, opt.URL, token) == nil {
			if p.closed() {
				l.closeNow()
				return false
			}
			return true
		}
	}
	return false
}

func (p *Player) closed() bool {
	select {
	case <-p.quit:
		return true
	default:
		return false
	}
}

// Welcomes returns when each session of the player was welcomed: more
// than one when it rejoined (Options.Rejoin).
func (p *Player) Welcomes() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.welcomes...)
}

// URL returns the URL the current session came through: Options.URL, or
// after a rejoin the one of Options.Rejoin it used.
func (p *Player) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Stalls returns, for each session that ended and was followed by
// another (Options.Rejoin), how long the player was without one: from the
// end to the next Welcome.
func (p *Player) Stalls() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Duration
	for _, d := range p.drops {
		for _, w := range p.welcomes {
			if w.After(d) {
				out = append(out, w.Sub(d))
				break
			}
		}
	}
	return out
}

// EndedStats returns the statistics of the sessions before the current one
// (Options.Rejoin), oldest first.
func (p *Player) EndedStats() []client.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]client.Stats(nil), p.ended...)
}

// Transport returns the transport the player connected over.
func (p *Player) Transport() string { return p.link.transport() }
