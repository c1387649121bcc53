package headless

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"webtron/bot"
	"webtron/client"
	"webtron/sim"
)

// Frame runs one client frame: the clock and the simulation advance, and on
// each new tick the bot decides on the predicted present; every key press it
// wants happens at a random moment within the next tick, as a human's would.
func (p *Player) Frame() {
	if p.stopped() {
		return
	}
	p.mu.Lock()
	now := p.now()
	p.sess.Update(now)
	var presses []sim.EventKind
	var dt time.Duration
	if s := p.sess.State(); s != nil && p.sess.You() >= 0 && !p.opt.Idle && s.Tick() != p.decided {
		p.decided = s.Tick()
		if p.bot == nil {
			p.bot = bot.New(p.sess.You(), p.opt.Seed)
		}
		p.evs = p.bot.Decide(s, p.evs[:0])
		dt = time.Second / time.Duration(s.Config().TickRate)
		if c := s.Cycle(p.sess.You()); c.Alive && p.opt.BrakeEvery > 0 && p.rand()%uint64(max(1, p.opt.BrakeEvery/dt)) == 0 {
			kind := sim.EvBrakeOn
			if c.Braking {
				kind = sim.EvBrakeOff
			}
			p.evs = append(p.evs, sim.Event{Kind: kind})
		}
		for _, ev := range p.evs {
			presses = append(presses, ev.Kind)
		}
	}
	var delays []time.Duration
	for range presses {
		delays = append(delays, time.Duration(p.rand()%uint64(dt)))
	}
	p.mu.Unlock()
	for i, kind := range presses {
		time.AfterFunc(delays[i], func() { p.press(kind) })
	}
	p.flush()
}

func (p *Player) press(kind sim.EventKind) {
	if p.stopped() {
		return
	}
	p.mu.Lock()
	p.sess.Press(p.now(), kind, 0)
	p.mu.Unlock()
	p.flush()
}

func (p *Player) rand() uint64 {
	p.rng ^= p.rng << 13
	p.rng ^= p.rng >> 7
	p.rng ^= p.rng << 17
	return p.rng
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
	err := p.link.close()
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
