// Package lab runs a Webtron server room and N headless clients on the
// virtual network (package vnet), much faster than real time, and measures
// what netcode.md section 5 defines: perceived lag per ordered pair, local
// input latency, server rollback, postponed events, bandwidth and desyncs.
// `webtron lab` prints its Report; the netcode tests assert on it.
package lab

import (
	"errors"
	"fmt"
	"time"

	"webtron/client"
	"webtron/clock"
	"webtron/history"
	"webtron/internal/drive"
	"webtron/proto"
	"webtron/room"
	"webtron/sim"
	"webtron/vnet"
)

// Options describes one experiment.
type Options struct {
	Pings    []time.Duration // RTT of each client's link; client ids follow this order from 1
	Jitter   time.Duration   // per message, each direction
	Loss     float64         // 0..1, per message
	Datagram bool            // unreliable datagrams instead of a reliable stream
	// Twice, with Datagram, sends each Accepted broadcast twice, as the
	// server's WebTransport link does on a path that loses packets
	// (server/webtransport.go): each copy is lost on its own.
	Twice        bool
	Charity      clock.Charity
	CharityCap   time.Duration
	Rule         clock.Rule
	MindReader   bool
	QueueLatency time.Duration // simulated browser input-queue latency
	Duration     time.Duration // game time
	Seed         uint64
	TickRate     int64
	Frame        time.Duration // client update interval (default 1/240 s)
	Bots         int           // server bots besides the clients (default 0)
	// JoinLate, when >0, holds the last client back until this time (a
	// client that joins mid-round).
	JoinLate time.Duration
	// Corrupt, when >0, damages the first client's state at this time so that
	// its hashes stop matching and the server must resync it.
	Corrupt time.Duration
	// RTTStep, when set, changes the first client's RTT to StepTo at this time.
	RTTStep time.Duration
	StepTo  time.Duration
	// DesyncHook, when set, sees every desync the server detects.
	DesyncHook func(room.Desync)
	// Rules, when set, replaces the default rules (arena, speeds, round
	// timings); its TickRate is replaced by TickRate.
	Rules *sim.Config
	// OnRound, when set, receives the room's record of every round, as the
	// server would write it to a replay.
	OnRound func(rec history.RoundRecord, names []string)
	// OnFrame, when set, sees client id's session after each of its frames
	// (Update) at time now: what its screen would show.
	OnFrame func(id int, s *client.Session, now time.Duration)
}

// Validate reports the first unusable option.
func (o *Options) Validate() error {
	switch {
	case len(o.Pings) == 0 || len(o.Pings) > 16:
		return errors.New("lab: need 1 to 16 clients (--ping)")
	case o.Loss < 0 || o.Loss >= 1:
		return errors.New("lab: loss must be in [0%, 100%)")
	case o.Jitter < 0 || o.Duration <= 0:
		return errors.New("lab: jitter must be >= 0 and duration > 0")
	}
	for _, p := range o.Pings {
		if p < 0 || p > 2*time.Second {
			return fmt.Errorf("lab: ping %v out of range 0..2s", p)
		}
	}
	return nil
}

// player is one headless client on the network.
type player struct {
	id      int // 1-based, as in the report
	node    vnet.NodeID
	sess    *client.Session
	drv     *drive.Player
	presses []drive.Press
	out     [][]byte
	inputs  []time.Duration // local input latency
	turns   []time.Duration // local input latency of the turns alone
	up      int64           // bytes sent
}

type experiment struct {
	opt     Options
	net     *vnet.Net
	server  vnet.NodeID
	room    *room.Room
	players []*player
	byNode  map[vnet.NodeID]*player
	dt      time.Duration
	errs    []error
	rounds  int64
	probe   func(x *experiment) // called every probeEvery, for tests that watch a run
}

// Run performs the experiment and returns its report.
func Run(opt Options) (*Report, error) { return run(opt, nil) }

const probeEvery = 10 * time.Millisecond

func run(opt Options, probe func(*experiment)) (*Report, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.TickRate == 0 {
		opt.TickRate = 120
	}
	if opt.Frame <= 0 {
		opt.Frame = time.Second / 240
	}
	x := &experiment{opt: opt, net: vnet.New(opt.Seed), byNode: map[vnet.NodeID]*player{}, probe: probe}
	x.dt = time.Second / time.Duration(opt.TickRate)
	if err := x.setup(); err != nil {
		return nil, err
	}
	if x.probe != nil {
		var tick func()
		tick = func() { x.probe(x); x.net.After(probeEvery, tick) }
		x.net.After(probeEvery, tick)
	}
	x.net.RunFor(opt.Duration)
	// Let what is in flight land before counting: no new presses.
	for _, p := range x.players {
		if p.drv != nil {
			p.drv.Idle = true
		}
	}
	x.net.RunFor(drain)
	if len(x.errs) > 0 {
		return nil, errors.Join(x.errs...)
	}
	return x.report(), nil
}

func (x *experiment) setup() error {
	cfg := sim.DefaultConfig()
	if x.opt.Rules != nil {
		cfg = *x.opt.Rules
	}
	cfg.TickRate = x.opt.TickRate
	policy := clock.Policy{Charity: x.opt.Charity, Cap: x.opt.CharityCap, Rule: x.opt.Rule}
	x.server = x.net.AddNode(nil)
	var err error
	x.room, err = room.New("lab", room.Config{Sim: cfg, Seed: x.opt.Seed, Policy: policy, Bots: x.opt.Bots,
		Seats: len(x.opt.Pings) + x.opt.Bots, OnRound: func(rec history.RoundRecord, names []string) {
			x.rounds++
			if x.opt.OnRound != nil {
				x.opt.OnRound(rec, names)
			}
		},
		OnDesync: func(d room.Desync) { x.desync(d) }}, 0, labTransport{x})
	if err != nil {
		return err
	}
	x.net.SetHandler(x.server, x.serverReceive)
	mode := vnet.Stream
	if x.opt.Datagram {
		mode = vnet.Datagram
	}
	for i, rtt := range x.opt.Pings {
		p := &player{id: i + 1}
		p.node = x.net.AddNode(nil)
		x.byNode[p.node] = p
		x.net.SetHandler(p.node, func(from vnet.NodeID, msg []byte) { x.clientReceive(p, msg) })
		x.net.SetLink(x.server, p.node, vnet.Profile{Mode: mode, Latency: rtt / 2, Jitter: x.opt.Jitter, Loss: x.opt.Loss})
		x.players = append(x.players, p)
		start := time.Duration(i) * time.Millisecond
		if x.opt.JoinLate > 0 && i == len(x.opt.Pings)-1 {
			start = x.opt.JoinLate
		}
		x.net.At(start, func() { x.join(p) })
	}
	var tick func()
	tick = func() {
		if err := x.room.Tick(x.net.Now()); err != nil {
			x.errs = append(x.errs, err)
			return
		}
		x.net.After(x.dt, tick)
	}
	x.net.At(x.dt/2, tick)
	if x.opt.RTTStep > 0 {
		x.net.At(x.opt.RTTStep, func() {
			p := x.players[0]
			x.net.SetLink(x.server, p.node, vnet.Profile{Mode: mode, Latency: x.opt.StepTo / 2, Jitter: x.opt.Jitter, Loss: x.opt.Loss})
		})
	}
	if x.opt.Corrupt > 0 {
		x.net.At(x.opt.Corrupt, func() { corrupt(x.players[0].sess) })
	}
	return nil
}

func (x *experiment) join(p *player) {
	p.sess = client.New(client.Options{Name: fmt.Sprintf("lab%d", p.id), Room: "lab", MindReader: x.opt.MindReader})
	p.drv = drive.New(p.sess, drive.Options{Seed: x.opt.Seed + uint64(p.id)*31, BrakeEvery: brakeEvery, QueueLatency: x.opt.QueueLatency})
	p.sess.OnLocal = func(ev sim.Event, tick int64, at time.Duration) {
		// A turn happens at the instant within its tick that it carries.
		d := time.Duration(tick)*x.dt + x.dt*time.Duration(ev.At())/sim.SubTicks - at
		p.inputs = append(p.inputs, d)
		if ev.Kind == sim.EvTurnLeft || ev.Kind == sim.EvTurnRight {
			p.turns = append(p.turns, d)
		}
	}
	x.send(p, p.sess.Hello(x.net.Now()))
	var frame func()
	frame = func() {
		x.update(p)
		x.net.After(x.opt.Frame, frame)
	}
	x.net.After(x.opt.Frame, frame)
}

func (x *experiment) send(p *player, b []byte) {
	p.up += int64(len(b))
	x.net.Send(p.node, x.server, b)
}

func (x *experiment) flush(p *player) {
	p.out = p.sess.Outgoing(p.out[:0])
	for _, b := range p.out {
		x.send(p, b)
	}
}

func (x *experiment) clientReceive(p *player, msg []byte) {
	if err := p.sess.Receive(x.net.Now(), msg); err != nil {
		x.errs = append(x.errs, fmt.Errorf("client %d: %w", p.id, err))
	}
	x.flush(p)
}

// drain is how long a run goes on without presses after Duration, so that
// every proposal is answered before the counts are taken.
const drain = 2 * time.Second

// brakeEvery is the mean interval of the lab's extra brake taps.
const brakeEvery = 300 * time.Millisecond

// update runs one client frame (package drive): each key press the bot
// wants happens at its moment on the virtual clock.
func (x *experiment) update(p *player) {
	p.presses = p.drv.Frame(x.net.Now(), p.presses[:0])
	if x.opt.OnFrame != nil {
		x.opt.OnFrame(p.id, p.sess, x.net.Now())
	}
	for _, pr := range p.presses {
		x.net.After(pr.After, func() {
			p.drv.Press(x.net.Now(), pr.Kind)
			x.flush(p)
		})
	}
	x.flush(p)
}

func (x *experiment) serverReceive(from vnet.NodeID, msg []byte) {
	m, err := proto.Decode(msg)
	if err != nil {
		x.errs = append(x.errs, fmt.Errorf("server: client %d sent a bad message: %w", from, err))
		return
	}
	if e := x.room.Receive(room.ConnID(from), m, x.net.Now()); e != nil {
		x.errs = append(x.errs, fmt.Errorf("server: closing client %d: %w", from, e))
	}
}

// labTransport carries the room's messages over the virtual network. No lab
// client ever reconnects, so a close only tells the client, which stops.
type labTransport struct{ x *experiment }

func (t labTransport) Send(c room.ConnID, b []byte) {
	if t.x.opt.Datagram && t.x.opt.Twice && len(b) > 0 && proto.Type(b[0]) == proto.TypeAccepted {
		t.x.net.Send(t.x.server, vnet.NodeID(c), b)
	}
	t.x.net.Send(t.x.server, vnet.NodeID(c), b)
}

func (t labTransport) Close(c room.ConnID, why *proto.Error) {
	b, err := proto.Marshal(why)
	if err != nil {
		panic("lab: encoding the room's own close reason: " + err.Error())
	}
	t.x.net.Send(t.x.server, vnet.NodeID(c), b)
}

// corrupt damages a client's predicted history behind the server's back, as a
// bug or a cosmic ray would: an event the server never accepted, in the past.
func corrupt(s *client.Session) {
	if s == nil || s.Timeline() == nil {
		return
	}
	tl := s.Timeline()
	for p := 0; p < sim.MaxPlayers; p++ {
		if tl.State().Cycle(p).Alive {
			tl.Insert(history.TickEvent{Tick: tl.Present() - 1, Ev: sim.Event{Kind: sim.EvTurnLeft, Player: uint8(p), Seq: 1 << 31}})
			return
		}
	}
	tl.Insert(history.TickEvent{Tick: tl.Present() - 1, Ev: sim.Event{Kind: sim.EvJoin, Player: sim.MaxPlayers - 1}})
}

// desync hands a desync to DesyncHook, for debugging a failing run.
func (x *experiment) desync(d room.Desync) {
	if x.opt.DesyncHook != nil {
		x.opt.DesyncHook(d)
	}
}
