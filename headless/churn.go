package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"webtron/client"
	"webtron/internal/xorshift"
	"webtron/proto"
)

// ChurnOptions configures Churn: players who come and go at random, as
// people do, instead of a swarm that connects once and stays.
type ChurnOptions struct {
	SwarmOptions
	// Session is the mean time a player stays (exponentially distributed);
	// between sessions a player is away for a uniform 0..Session.
	Session time.Duration
}

// ChurnReport counts what the coming and going saw. JSON field names are a
// contract, like Report's.
type ChurnReport struct {
	URL            string         `json:"url"`
	Seats          int            `json:"seats"`
	DurationS      float64        `json:"duration_s"`
	Sessions       int64          `json:"sessions"`        // sessions that got a Welcome
	Reconnects     int64          `json:"reconnects"`      // of them, ones that came back with a token
	Transports     map[string]int `json:"transports"`      // sessions by transport
	Failed         int64          `json:"failed"`          // dials or Welcomes that failed
	Full           int64          `json:"room_full"`       // joins refused because every seat was taken (not a failure: seats are held for players who may come back)
	Dropped        int64          `json:"dropped"`         // sessions the server ended
	Desyncs        int64          `json:"desyncs"`         // resyncs received
	ProtocolErrors int64          `json:"protocol_errors"` // malformed or unexpected messages
	EventsSent     int64          `json:"events_sent"`
	Errors         []string       `json:"errors,omitempty"` // the first few
}

// Check returns an error when the run saw anything a soak must fail on.
func (r *ChurnReport) Check() error {
	if r.Desyncs > 0 || r.ProtocolErrors > 0 || r.Failed > 0 || r.Dropped > 0 || r.Sessions == 0 {
		return fmt.Errorf("headless: %d sessions: %d desyncs, %d protocol errors, %d failed to connect, %d dropped",
			r.Sessions, r.Desyncs, r.ProtocolErrors, r.Failed, r.Dropped)
	}
	return nil
}

// Print writes the report as a few lines of text.
func (r *ChurnReport) Print(w io.Writer) {
	fmt.Fprintf(w, "%d seats over %.0f s: %d sessions (%d with a reconnect token), transports %v\n",
		r.Seats, r.DurationS, r.Sessions, r.Reconnects, r.Transports)
	fmt.Fprintf(w, "failed %d, refused for a full room %d, dropped %d, desyncs %d, protocol errors %d, events sent %d\n",
		r.Failed, r.Full, r.Dropped, r.Desyncs, r.ProtocolErrors, r.EventsSent)
	for _, e := range r.Errors {
		fmt.Fprintln(w, "  "+e)
	}
}

// Churn runs o.Count seats for o.Duration. Each seat joins one of o.Rooms
// rooms, plays for a random while, leaves, stays away for a random while
// and joins again: half the time as the same player with its reconnect
// token (taking its seat back if the room still holds it), half the time as
// a newcomer with a new name. The rooms see humans join and leave at every
// moment of a round, so their rounds switch between the single-player and
// the multiplayer rules as the count of humans crosses one.
func Churn(ctx context.Context, o ChurnOptions) (*ChurnReport, error) {
	if o.Count < 1 || o.Session <= 0 {
		return nil, fmt.Errorf("headless: churn needs players (%d) and a session length (%v)", o.Count, o.Session)
	}
	o.defaults("churn-", "churn-")
	r := &ChurnReport{URL: o.URL, Seats: o.Count, Transports: map[string]int{}}
	var mu sync.Mutex // guards r
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	var newcomers atomic.Int64
	for i := range o.Count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := seat{o: &o, rng: xorshift.New(o.Seed + uint64(i)*7919 + 1), i: i, r: r, mu: &mu, newcomers: &newcomers}
			s.run(runCtx)
		}()
	}
	wg.Wait()
	r.DurationS = time.Since(start).Seconds()
	return r, nil
}

// seat is one place a person comes back to.
type seat struct {
	o         *ChurnOptions
	rng       xorshift.Rand
	i         int
	r         *ChurnReport
	mu        *sync.Mutex
	newcomers *atomic.Int64
}

func (s *seat) run(ctx context.Context) {
	var token []byte
	name := fmt.Sprintf("%s%d", s.o.Prefix, s.i+1)
	room := s.o.Room
	if room == "" {
		room = fmt.Sprintf("%s%d", s.o.RoomPrefix, s.i%s.o.Rooms+1)
	}
	// Start spread over the first session, not all at once.
	if !sleep(ctx, s.uniform(s.o.Session)) {
		return
	}
	for ctx.Err() == nil {
		if s.rng.Uint64()%2 == 0 {
			token = nil
			name = fmt.Sprintf("%s%d-%d", s.o.Prefix, s.i+1, s.newcomers.Add(1))
		}
		token = s.session(ctx, name, room, token)
		if !sleep(ctx, s.uniform(s.o.Session)) {
			return
		}
	}
}

// session plays one visit and returns the token to come back with.
func (s *seat) session(ctx context.Context, name, room string, token []byte) []byte {
	opt := Options{URL: s.o.URL, Name: name, Room: room, Token: token, Seed: s.rng.Uint64() | 1,
		BrakeEvery: s.o.BrakeEvery, MindReader: s.o.MindReader, Header: s.o.Header, Transport: s.o.Transport, Fallback: s.o.Fallback}
	dctx, cancel := context.WithTimeout(ctx, s.o.Welcome)
	p, err := Dial(dctx, opt)
	if err == nil {
		if err = p.WaitWelcome(dctx); err != nil {
			p.Close()
		}
	}
	cancel()
	var refusal *proto.Error
	if err != nil && token != nil && errors.As(err, &refusal) && refusal.Code == proto.CloseBadToken {
		// The room let the seat go (a player who never rode gives it back at
		// once; the others after the reconnect grace): join as a newcomer,
		// as the page does.
		return s.session(ctx, name, room, nil)
	}
	if err != nil && errors.As(err, &refusal) && refusal.Code == proto.CloseRoomFull {
		s.note(func(r *ChurnReport) { r.Full++ })
		return nil
	}
	if err != nil {
		if ctx.Err() == nil {
			s.note(func(r *ChurnReport) {
				r.Failed++
				r.addError(fmt.Sprintf("%s joining %s: %v", name, room, err))
			})
		}
		return nil
	}
	stay, stop := context.WithTimeout(ctx, s.exponential(s.o.Session))
	go func() {
		select {
		case <-p.Done(): // the server ended it: stop playing at once
			stop()
		case <-stay.Done():
		}
	}()
	Run(stay, []*Player{p}, s.o.Frame)
	stop()
	var st client.Stats
	var next []byte
	p.Inspect(func(cs *client.Session) { st, next = cs.Stats(), cs.Token() })
	dropped := p.Err()
	p.Close()
	s.note(func(r *ChurnReport) {
		r.Sessions++
		if token != nil {
			r.Reconnects++
		}
		r.Transports[p.Transport()]++
		r.Desyncs += st.Resyncs
		r.ProtocolErrors += st.ProtocolErrors
		r.EventsSent += st.EventsSent
		if dropped != nil && !(errors.Is(dropped, ErrDropped) && strings.Contains(dropped.Error(), "shut")) {
			r.Dropped++
			r.addError(fmt.Sprintf("%s in %s: %v", name, room, dropped))
		}
	})
	return append([]byte(nil), next...)
}

func (s *seat) note(fn func(*ChurnReport)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.r)
}

func (r *ChurnReport) addError(e string) {
	if len(r.Errors) < 10 {
		r.Errors = append(r.Errors, e)
	}
}

// uniform returns a duration in [0, d).
func (s *seat) uniform(d time.Duration) time.Duration {
	return time.Duration(s.rng.Uint64() % uint64(d))
}

// exponential returns a duration exponentially distributed with mean d, at
// least a second: a player who leaves before the Welcome has settled tests
// nothing a shorter wait would not.
func (s *seat) exponential(d time.Duration) time.Duration {
	u := float64(s.rng.Uint64()>>11|1) / (1 << 53) // (0, 1)
	return max(time.Duration(-math.Log(u)*float64(d)), time.Second)
}

// sleep waits d unless ctx ends first, and reports whether it waited.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
