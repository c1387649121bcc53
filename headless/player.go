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
	"net/http"
	"sync"
	"time"

	"webtron/client"
	"webtron/internal/drive"
)

// Options configures one headless player.
type Options struct {
	URL        string // ws://host:port, with or without the /ws path
	Name, Room string
	Token      []byte // reconnect token from an earlier session
	Spectate   bool
	Seed       uint64 // the bot's seed; also its key-press timing
	MindReader bool
	// BrakeEvery, when > 0, adds brake taps at this mean interval: bots turn
	// only a few times a minute, and the taps give the lag measurements
	// more samples, as in the lab.
	BrakeEvery time.Duration
	// Idle connects and keeps the session going without ever pressing a key.
	Idle   bool
	Header http.Header // extra handshake headers (Origin)
	// Transport is WebSocket (the default) or WebTransport, which falls back
	// to the WebSocket as the browser does (Player.Transport tells which).
	Transport string
	// Fallback is how long the WebTransport attempt may take before the
	// WebSocket is used instead (default 1 s, as the browser).
	Fallback time.Duration
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
}

// ErrDropped wraps the reason a server closed a connection.
var ErrDropped = errors.New("headless: dropped by server")

// Dial connects, says hello and starts reading. Frames are driven by Run.
func Dial(ctx context.Context, opt Options) (*Player, error) {
	l, err := dialLink(ctx, opt)
	if err != nil {
		return nil, err
	}
	p := &Player{opt: opt, link: l, start: time.Now(), welcomed: make(chan struct{}), done: make(chan struct{})}
	p.sess = client.New(client.Options{Name: opt.Name, Room: opt.Room, Token: opt.Token, Spectate: opt.Spectate, MindReader: opt.MindReader})
	p.drv = drive.New(p.sess, drive.Options{Seed: opt.Seed, BrakeEvery: opt.BrakeEvery})
	p.drv.Idle = opt.Idle
	hello := p.sess.Hello(p.now())
	if err := l.write([][]byte{hello}); err != nil {
		l.closeNow()
		return nil, fmt.Errorf("headless: hello: %w", err)
	}
	go p.readLoop()
	return p, nil
}

func (p *Player) now() time.Duration { return time.Since(p.start) }

func (p *Player) readLoop() {
	defer close(p.done)
	buf := make([]byte, 0, 4096)
	for {
		msg, err := p.link.read(buf[:0])
		if err != nil {
			p.fail(err)
			return
		}
		buf = msg
		// Timed at its arrival, not when a frame in progress lets go of the
		// session (as the browser stamps messages in its worker).
		at := p.now()
		p.mu.Lock()
		err = p.sess.ReceiveAt(at, p.now(), msg)
		if p.welcome == 0 && p.sess.Started() {
			p.welcome = len(msg)
			close(p.welcomed)
		}
		p.mu.Unlock()
		if err != nil {
			if errors.Is(err, client.ErrClosed) {
				err = fmt.Errorf("%w: %w", ErrDropped, err)
			}
			p.fail(err)
			p.link.closeNow()
			return
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
		p.fail(err)
	}
}

// Transport returns the transport the player connected over.
func (p *Player) Transport() string { return p.link.transport() }
