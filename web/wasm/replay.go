//go:build js && wasm

package main

// The replay viewer's core: package webtron/replay/playback behind
// globalThis.webtronReplay, beside the game's webtronCore (docs/replays.md
// has the whole contract):
//
//	open(u8: Uint8Array) -> string|null   parse and check a replay file; error text
//	load(ticks) -> boolean                run the load pass that far; true once all is loaded
//	info() -> string                      JSON: the round and its players (see appendReplayInfo)
//	seek(tick) -> string|null             show that tick; error text
//	step(n) -> string|null                move n ticks, backward when negative
//	setView(slot) -> string|null          a player's view (-1: overhead); error text
//	frame(out: Uint8Array|null) -> Uint8Array|null   the shown state (webtron/web/view layout, You = the
//	                                      viewed player), written into out or a new larger array, as webtronCore's frame
//	state() -> string                     JSON: tick, view, state hash, scores, kill feed so far, damage (see appendReplayState)
//
// Like webtronCore's, every function returns at once; the page (or its
// worker) drives the clock: at speed s it seeks to start + elapsed*s*tickRate
// each frame, and calls load between frames until it returns true.

import (
	"strconv"
	"syscall/js"

	"webtron/replay/playback"
	"webtron/web/view"
)

// replayCore is the one replay the page plays; open replaces it.
type replayCore struct {
	p     *playback.Player
	enc   view.Encoder
	funcs []js.Func
	buf   []byte
	drift []int64
}

var rc replayCore

func init() {
	rc.funcs = export("webtronReplay", map[string]func(args []js.Value) any{
		"open":    rc.open,
		"load":    rc.load,
		"info":    rc.info,
		"seek":    rc.seek,
		"step":    rc.step,
		"setView": rc.setView,
		"frame":   rc.frameJS,
		"state":   rc.state,
	})
}

// errJS is an error's text for JavaScript, or null.
func errJS(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}

func (c *replayCore) open(args []js.Value) any {
	b := make([]byte, args[0].Length())
	js.CopyBytesToGo(b, args[0])
	p, err := playback.Open(b, playback.Options{})
	if err != nil {
		return err.Error()
	}
	c.p = p
	c.enc.Reset()
	return nil
}

func (c *replayCore) load(args []js.Value) any {
	if c.p == nil {
		return false
	}
	return c.p.Load(int64(max(args[0].Int(), 1)))
}

func (c *replayCore) info(_ []js.Value) any {
	if c.p == nil {
		return "null"
	}
	c.buf = appendReplayInfo(c.buf[:0], c.p)
	return string(c.buf)
}

func (c *replayCore) seek(args []js.Value) any {
	if c.p == nil {
		return "no replay open"
	}
	return errJS(c.p.SeekTick(int64(args[0].Float())))
}

func (c *replayCore) step(args []js.Value) any {
	if c.p == nil {
		return "no replay open"
	}
	return errJS(c.p.Step(int64(args[0].Int())))
}

func (c *replayCore) setView(args []js.Value) any {
	if c.p == nil {
		return "no replay open"
	}
	return errJS(c.p.SetView(args[0].Int()))
}

// frameJS encodes the shown state into the array given, or a new one with
// room to grow when it does not fit, as webtronCore's frame does: the worker
// hands the same buffer back and forth with the page, and the renderer reads
// both the same way. The frame must reach the page whole: the encoder counts
// its walls as delivered.
func (c *replayCore) frameJS(args []js.Value) any {
	if c.p == nil {
		return nil
	}
	b := c.enc.Frame(c.p.ViewState(), c.p.View(), 0, 0)
	out := js.Null()
	if len(args) > 0 {
		out = args[0]
	}
	if out.Type() != js.TypeObject || out.Length() < len(b) {
		out = js.Global().Get("Uint8Array").New(max(len(b)*3/2, 64<<10))
	}
	js.CopyBytesToJS(out, b)
	return out
}

func (c *replayCore) state(_ []js.Value) any {
	if c.p == nil {
		return "null"
	}
	c.buf, c.drift = appendReplayState(c.buf[:0], c.p, c.drift[:0])
	return string(c.buf)
}

// appendReplayInfo writes what does not change while playing:
//
//	{"room":"lobby","round":3,"createdMs":1700000000000,"version":2,
//	 "tickRate":120,"start":1,"end":24879,"loaded":24880,
//	 "players":[{"slot":0,"name":"alice","bot":false,"sight":true},...],
//	 "decidedTick":24500,"winner":3,"damaged":null}
//
// end is the last tick shown, the round's final state; the load pass goes
// one tick further (loaded), to the record's end, to check its last hash.
// decidedTick is -1 until the load pass reaches the decision (winner -1 then,
// or for a draw); sight says whether setView can show that player's view;
// damaged is the error text once a hash did not match: stop playing then.
func appendReplayInfo(b []byte, p *playback.Player) []byte {
	f := p.File()
	start, end := p.Range()
	b = append(b, `{"room":`...)
	b = appendJSONString(b, f.Room)
	b = appendNum(b, "round", float64(f.Round))
	b = appendNum(b, "createdMs", float64(f.Created.UnixMilli()))
	b = appendNum(b, "version", float64(f.Version))
	b = appendNum(b, "tickRate", float64(p.TickRate()))
	b = appendNum(b, "start", float64(start))
	b = appendNum(b, "end", float64(end))
	b = appendNum(b, "loaded", float64(p.Loaded()))
	b = append(b, `,"players":[`...)
	first := true
	for slot, name := range f.Names {
		if name == "" {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"slot":`...)
		b = strconv.AppendInt(b, int64(slot), 10)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, name)
		b = appendBool(b, "bot", slot < len(f.Record.Bots) && f.Record.Bots[slot])
		b = appendBool(b, "sight", p.HasSight(slot))
		b = append(b, '}')
	}
	b = append(b, ']')
	tick, winner, _ := p.Decided()
	b = appendNum(b, "decidedTick", float64(tick))
	b = appendNum(b, "winner", float64(winner))
	b = appendDamage(b, p)
	return append(b, '}')
}

func appendDamage(b []byte, p *playback.Player) []byte {
	b = append(b, `,"damaged":`...)
	if err := p.Damaged(); err != nil {
		return appendJSONString(b, err.Error())
	}
	return append(b, "null"...)
}

// appendReplayState writes what changes from tick to tick:
//
//	{"tick":1234,"view":-1,"loaded":24880,"damaged":null,"hash":"00c0ffee12345678",
//	 "scores":[{"slot":0,"score":3,"kills":1,"deaths":0,"alive":true},...],
//	 "kills":[{"tick":1200,"victim":2,"killer":0,"cause":"wall"},...],
//	 "rollback":0,"drift":[{"slot":1,"mm":1250},...]}
//
// hash is the true state's hash at the tick (sim.State.Hash, 16 hex
// digits: a uint64 does not fit a JavaScript number), the one the file
// records every 60 ticks, so a test can check what the page plays.
// kills lists the kill feed up to the shown tick: killer is who is credited
// (-1 none), cause one of rim, wall, own_wall, collision, left (the
// simulation's names). In a player's view,
// rollback is how many ticks the last step replayed because late news
// reached that player (a correction on their screen), and drift how far
// from its true place that player saw each cycle.
func appendReplayState(b []byte, p *playback.Player, drift []int64) ([]byte, []int64) {
	tick := p.Tick()
	b = append(b, `{"tick":`...)
	b = strconv.AppendInt(b, tick, 10)
	b = appendNum(b, "view", float64(p.View()))
	b = appendNum(b, "loaded", float64(p.Loaded()))
	b = appendDamage(b, p)
	st := p.State()
	b = append(b, `,"hash":"`...)
	h := st.Hash()
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, "0123456789abcdef"[h>>shift&15])
	}
	b = append(b, `","scores":[`...)
	first := true
	for slot, name := range p.File().Names {
		c := st.Cycle(slot)
		if name == "" && !c.Present {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"slot":`...)
		b = strconv.AppendInt(b, int64(slot), 10)
		b = appendNum(b, "score", float64(c.Score))
		b = appendNum(b, "kills", float64(c.Kills))
		b = appendNum(b, "deaths", float64(c.Deaths))
		b = appendBool(b, "alive", c.Alive)
		b = append(b, '}')
	}
	b = append(b, `],"kills":[`...)
	for i, k := range p.Kills() {
		if k.Tick >= tick {
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"tick":`...)
		b = strconv.AppendInt(b, k.Tick, 10)
		b = appendNum(b, "victim", float64(k.Victim))
		b = appendNum(b, "killer", float64(k.Killer))
		b = append(b, `,"cause":`...)
		b = appendJSONString(b, k.Cause.String())
		b = append(b, '}')
	}
	b = append(b, ']')
	rollback := int64(0)
	b = append(b, `,"drift":[`...)
	if s := p.ViewSight(); s != nil {
		rollback = s.LastRollback
		drift = s.Drift(st, drift)
		first = true
		for slot, d := range drift {
			if d < 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"slot":`...)
			b = strconv.AppendInt(b, int64(slot), 10)
			b = appendNum(b, "mm", float64(d/1000))
			b = append(b, '}')
		}
	}
	b = append(b, ']')
	b = appendNum(b, "rollback", float64(rollback))
	return append(b, '}'), drift
}
