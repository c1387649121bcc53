package server

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	dto "github.com/prometheus/client_model/go"

	"webtron/proto"
	"webtron/room"
	"webtron/sim"
)

// These tests run a room goroutine with connections that have no socket, on
// synctest's fake clock: minutes of room time pass in milliseconds, and the
// timers (idle, empty room, send queues) fire exactly.

func newBareServer(t *testing.T, mutate func(*Config)) *Server {
	cfg := Config{Logger: quiet, Rules: fastRules(), Seed: 1}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// join attaches a socketless connection to a room as the reader would.
func join(t *testing.T, s *Server, roomName, name string) *conn {
	c := newConn(s, nil, nil)
	h, why := s.attach(c, roomName)
	if why != nil {
		t.Fatalf("attach: %v", why.text)
	}
	h.deliver(inbound{c: c, msg: &proto.Hello{Name: name, Room: roomName}})
	return c
}

// leave ends a socketless connection as the reader would.
func leave(s *Server, c *conn) {
	c.close(reasonClient)
	c.host.deliverLeave(c)
	s.detach(c)
}

// drain empties a connection's queue as a writer would, until done.
func drain(c *conn, done <-chan struct{}) {
	go func() {
		for {
			select {
			case <-c.send:
				c.lastRecv.Store(int64(c.srv.now())) // and answers, like a live client
			case <-done:
				return
			}
		}
	}()
}

func shutdown(t *testing.T, s *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyRoomIsReclaimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newBareServer(t, func(c *Config) { c.Bots = 1 })
		c := join(t, s, "r", "alice")
		stop := make(chan struct{})
		drain(c, stop)
		time.Sleep(time.Second)
		leave(s, c)
		close(stop)
		// The player keeps its seat for the reconnect grace (30 s), then the
		// room waits EmptyRoomTTL (30 s) for someone to come back.
		time.Sleep(55 * time.Second)
		if n := len(s.Rooms()); n != 1 {
			t.Fatalf("%d rooms after 55 s, want the room still open", n)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if n := len(s.Rooms()); n != 0 {
			t.Fatalf("%d rooms after 65 s, want it reclaimed", n)
		}
		shutdown(t, s)
	})
}

func TestIdleConnectionIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newBareServer(t, func(c *Config) { c.SendQueue = 8192 })
		c := join(t, s, "r", "sleepy")
		time.Sleep(s.cfg.IdleTimeout - time.Second)
		if c.closing() {
			t.Fatal("closed before the idle timeout")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if !c.closing() || c.why.label != "idle" {
			t.Fatalf("closing %v, reason %q", c.closing(), c.why.label)
		}
		leave(s, c)
		shutdown(t, s)
	})
}

// TestSlowReaderIsDropped: a connection whose queue fills is dropped; the
// room's ticks stay on time and a reading client carries on.
func TestSlowReaderIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newBareServer(t, func(c *Config) { c.SendQueue = 8; c.Bots = 2 })
		slow := join(t, s, "r", "slow")
		fast := join(t, s, "r", "fast")
		stop := make(chan struct{})
		drain(fast, stop)
		// A quiet room's heartbeats are a second apart: ten seconds fill
		// the queue with them and the bots' broadcasts.
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if !slow.closing() || slow.why.label != "slow_reader" {
			t.Fatalf("slow reader: closing %v, reason %q", slow.closing(), slow.why.label)
		}
		if fast.closing() {
			t.Fatalf("reading client closed: %q", fast.why.label)
		}
		var tick int64
		var connected map[string]bool
		s.inspect(t, "r", func(r *room.Room) {
			tick = r.Now()
			connected = map[string]bool{}
			for _, p := range r.RosterNow().Players {
				connected[p.Name] = p.Connected
			}
		})
		if want := int64(s.now() / (time.Second / time.Duration(s.cfg.TickRate))); tick < want-1 {
			t.Fatalf("room at tick %d, want %d: a slow reader delayed it", tick, want)
		}
		if connected["slow"] || !connected["fast"] {
			t.Fatalf("roster connected flags: %v", connected)
		}
		close(stop)
		leave(s, slow)
		leave(s, fast)
		shutdown(t, s)
	})
}

// TestRoomSleepsBetweenDues: a room wakes only when something is due, not at
// every tick: without bots about 9 times a second (maxQuietSleep, heartbeats,
// leads), with 7 bots 12-17 times, when one of them acts as well (room.TestBotsAhead checks
// that their inputs still go out at their ticks), and a message that wakes it
// in between finds it caught up with the present tick.
func TestRoomSleepsBetweenDues(t *testing.T) {
	for _, tc := range []struct {
		bots     int
		min, max uint64 // wake-ups in a second
	}{{7, 10, 60}, {0, 5, 16}} {
		t.Run(fmt.Sprintf("bots=%d", tc.bots), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newBareServer(t, func(cfg *Config) { cfg.Bots = tc.bots })
				c := join(t, s, "r", "alice")
				stop := make(chan struct{})
				drain(c, stop)
				wakes := func() uint64 {
					var d dto.Metric
					if err := s.metrics.tickLateness.Write(&d); err != nil {
						t.Fatal(err)
					}
					return d.GetHistogram().GetSampleCount()
				}
				// Past the first round's countdown: the bots are riding.
				time.Sleep(6 * time.Second)
				synctest.Wait()
				s.inspect(t, "r", func(r *room.Room) {
					if ph, _ := r.State().Phase(); ph != sim.PhasePlay {
						t.Fatalf("round in phase %v, want play", ph)
					}
				})
				for range 3 {
					before := wakes()
					time.Sleep(time.Second)
					synctest.Wait()
					n := wakes() - before
					t.Logf("%d wake-ups in a second", n)
					if n < tc.min || n > tc.max {
						t.Errorf("%d wake-ups in a second, want %d-%d", n, tc.min, tc.max)
					}
				}
				// Messages at every third of a tick: the room has run every
				// tick due when it handles them.
				for i := range 9 {
					time.Sleep(time.Second/time.Duration(s.cfg.TickRate)/3 + time.Duration(i)*time.Microsecond)
					s.inspect(t, "r", func(r *room.Room) {
						if now := s.now(); now < r.NextTick()-r.TickDuration() || now >= r.NextTick() {
							t.Errorf("at %v the room is at tick %d, next due at %v: not caught up", now, r.Now(), r.NextTick())
						}
					})
				}
				close(stop)
				shutdown(t, s)
			})
		})
	}
}

// TestJoinListedAtOnce: a join shows in /api/rooms as soon as the room has
// handled it, not at the room's next wake-up (up to 200 ms later): the
// lobby listed a room its newcomer was already playing in as empty.
func TestJoinListedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newBareServer(t, func(c *Config) { c.Bots = 1 })
		a := join(t, s, "r", "alice")
		stop := make(chan struct{})
		drain(a, stop)
		time.Sleep(time.Second)
		synctest.Wait()
		b := join(t, s, "r", "bob")
		drain(b, stop)
		synctest.Wait() // bob's Hello handled; the clock has not moved
		if r := s.Rooms(); len(r) != 1 || r[0].Players != 2 {
			t.Fatalf("rooms %+v right after bob's join, want r with 2 players", r)
		}
		leave(s, b)
		synctest.Wait()
		if r := s.Rooms(); len(r) != 1 || r[0].Players != 1 {
			t.Fatalf("rooms %+v right after bob left, want r with 1 player", r)
		}
		leave(s, a)
		close(stop)
		shutdown(t, s)
	})
}
