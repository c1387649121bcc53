package headless

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"webtron/client"
	"webtron/sim"
)

// Frame runs one client frame (package drive): the clock and the
// simulation advance, the bot decides on each new tick, and each key it
// wants goes down at its moment within the next tick, on a timer.
func (p *Player) Frame() {
	if p.stopped() {
		return
	}
	p.mu.Lock()
	p.presses = p.drv.Frame(p.now(), p.presses[:0])
	for _, pr := range p.presses {
		time.AfterFunc(pr.After, func() { p.press(pr.Kind) })
	}
	p.mu.Unlock()
	p.flush()
}

func (p *Player) press(kind sim.EventKind) {
	if p.stopped() {
		return
	}
	p.mu.Lock()
	p.drv.Press(p.now(), kind)
	p.mu.Unlock()
	p.flush()
}

// Lags returns a copy of the perceived lags measured so far, by remote
// player slot: only other players' key presses count.
func (p *Player) Lags() map[int][]time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[int][]time.Duration, len(p.drv.Lags()))
	for slot, v := range p.drv.Lags() {
		out[slot] = slices.Clone(v)
	}
	return out
}

func (p *Player) stopped() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// WaitWelcome waits until the server's Welcome has arrived.
func (p *Player) WaitWelcome(ctx context.Context) error {
	select {
	case <-p.welcomed:
		return nil
	case <-p.done:
		if err := p.Err(); err != nil {
			return err
		}
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed when the connection has ended.
func (p *Player) Done() <-chan struct{} { return p.done }

// Err returns why the connection ended: nil while it runs or after Close,
// an error wrapping ErrDropped when the server closed it with a reason.
func (p *Player) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if errors.Is(p.err, errClosed) {
		return nil
	}
	return p.err
}

// Close ends the session with a normal closure and waits for the reader.
func (p *Player) Close() error {
	p.mu.Lock()
	if p.err == nil {
		p.err = errClosed
	}
	p.mu.Unlock()
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	p.wmu.Lock()
	l := p.link
	p.wmu.Unlock()
	err := l.close()
	<-p.done
	return err
}

// Inspect runs fn on the session, which nothing else touches meanwhile.
func (p *Player) Inspect(fn func(s *client.Session)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn(p.sess)
}

// Name returns the player's display name as configured.
func (p *Player) Name() string { return p.opt.Name }

// Room returns the room the player asked for.
func (p *Player) Room() string { return p.opt.Room }

// Run drives the players' frames every frame interval (default 1/240 s)
// until ctx is done, on one worker per CPU: frames of a thousand players
// cost less spread over a few goroutines than with a timer each.
func Run(ctx context.Context, players []*Player, frame time.Duration) {
	if frame <= 0 {
		frame = time.Second / 240
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(players)))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(frame)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				for i := w; i < len(players); i += workers {
					players[i].Frame()
				}
			}
		}()
	}
	wg.Wait()
}
