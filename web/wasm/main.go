//go:build js && wasm

// Command wasm is the browser's game core: the same simulation and netcode as
// the server and the bots (package webtron/client), compiled to WebAssembly.
// It runs in a Web Worker (web/src/worker) beside the connection; the page
// draws the frames it makes. JavaScript owns the transport, the clock and the
// input events; it calls the functions this program installs as
// globalThis.webtronCore (see web/src/core/core.ts for the typed side):
//
//	start({name, room, token?: Uint8Array, spectate, mindReader, map?})  new session
//	hello(nowMs) -> Uint8Array                  the first message for the socket
//	receive(u8: Uint8Array, nowMs, arrivedMs) -> string|null   one binary message; error text
//	update(nowMs) -> Uint8Array[]               Session.Advance(nowMs), then Exchange at a fresh reading of
//	                                            performance.now(): the simulation's own time is no network time;
//	                                            returns the messages to send, drained (as outgoing)
//	exchange(nowMs) -> Uint8Array[]             Session.Exchange alone: answers the server's ping at once, cheaply;
//	                                            returns the messages to send, as update
//	frame(out: Uint8Array|null) -> Uint8Array|null   the frame (webtron/web/view) of the last update,
//	                                            written into out, or into a new larger array; null before Welcome
//	started() -> bool                           the Welcome arrived
//	outgoing() -> Uint8Array[]                  messages to send, drained
//	press(kind, nowMs, queueLatencyMs)          kind: 1 left, 2 right, 3 brake on, 4 brake off
//	chat(text)
//	info() -> string                            JSON, see appendInfo
//	notices() -> string                         JSON array of {kind: "chat"|"error", code, text}, drained
//	token() -> Uint8Array|null                  reconnect token from the Welcome
//
// Every function returns at once: nothing here blocks or waits for the
// network, so the callbacks never deadlock the single JavaScript thread.
// Times are performance.now() milliseconds, a monotonic clock. A function
// that panics returns an Error (name WebtronCorePanic) instead of ending the
// program (recoverJS); the loader throws it to the caller.
package main

import (
	"runtime"
	"strconv"
	"syscall/js"
	"time"

	"webtron/client"
	"webtron/proto"
	"webtron/sim"
	"webtron/web/view"
)

// core is the one session the page plays; start replaces it.
type core struct {
	sess    *client.Session
	enc     view.Encoder
	out     [][]byte
	notices []byte // JSON objects, comma-separated, drained by notices()
	spent   int64  // microseconds the last update took
	funcs   []js.Func
	// Looked up once: a lookup by name decodes the name in JavaScript and
	// makes a js.Value with a finalizer, every frame.
	now        js.Value // performance.now, bound
	uint8Array js.Value // the Uint8Array constructor
	array      js.Value // the Array constructor
	noMessages js.Value // an empty array, what outgoing returns most frames (nobody changes it)
}

var c core

func main() {
	c.install()
	// The loader waits for this call rather than polling for webtronCore.
	if ready := js.Global().Get("webtronCoreReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // keep the exported functions alive
}

// install sets globalThis.webtronCore.
func (c *core) install() {
	perf := js.Global().Get("performance")
	c.now = perf.Get("now").Call("bind", perf)
	c.uint8Array = js.Global().Get("Uint8Array")
	c.array = js.Global().Get("Array")
	c.noMessages = c.array.New()
	c.funcs = export("webtronCore", map[string]func(args []js.Value) any{
		"start":    c.start,
		"hello":    c.hello,
		"receive":  c.receive,
		"frame":    c.frameJS,
		"update":   c.update,
		"exchange": c.exchange,
		"started":  c.started,
		"outgoing": c.outgoing,
		"press":    c.press,
		"chat":     c.chat,
		"info":     c.info,
		"notices":  c.drainNotices,
		"token":    c.token,
	})
}

// ms converts performance.now() milliseconds to the session's clock.
func ms(v js.Value) time.Duration { return time.Duration(v.Float() * float64(time.Millisecond)) }

func (c *core) start(args []js.Value) any {
	o := args[0]
	opt := client.Options{
		Name:       o.Get("name").String(),
		Room:       o.Get("room").String(),
		Spectate:   o.Get("spectate").Truthy(),
		MindReader: o.Get("mindReader").Truthy(),
	}
	if m := o.Get("map"); m.Type() == js.TypeString {
		opt.Map = m.String()
	}
	if t := o.Get("token"); t.Type() == js.TypeObject && t.Length() > 0 {
		opt.Token = make([]byte, t.Length())
		js.CopyBytesToGo(opt.Token, t)
	}
	c.sess = client.New(opt)
	c.sess.OnChat = c.onChat
	c.out = c.out[:0]
	c.notices = c.notices[:0]
	c.enc.Reset()
	return nil
}

func (c *core) hello(args []js.Value) any {
	if c.sess == nil {
		return nil
	}
	return c.bytesJS(c.sess.Hello(ms(args[0])))
}

func (c *core) receive(args []js.Value) any {
	if c.sess == nil {
		return "not started"
	}
	// A fresh slice per message: the session may keep what it decodes.
	msg := make([]byte, args[0].Length())
	js.CopyBytesToGo(msg, args[0])
	now := ms(args[1])
	arrived := now
	if len(args) > 2 && args[2].Type() == js.TypeNumber {
		arrived = ms(args[2]) // MessageEvent.timeStamp: same clock as performance.now()
	}
	err := c.sess.ReceiveAt(arrived, now, msg)
	if err == nil {
		return nil
	}
	// The server's reason for closing comes back as the session's result;
	// the page needs its code to decide whether reconnecting can help (a
	// full room, a taken name: no).
	if e := protoError(err); e != nil {
		text := e.Text
		if text == "" {
			text = "The server closed the connection: " + e.Code.String()
		}
		c.notice("error", int64(e.Code), text)
	}
	return err.Error()
}

// onChat queues a chat line for the page (from is a player id, 255 for a spectator).
func (c *core) onChat(from int, text string) { c.notice("chat", int64(from), text) }

// notice appends {"kind":kind,"code":code,"text":text} to the notices; for a
// chat line the code is the sender.
func (c *core) notice(kind string, code int64, text string) {
	if len(c.notices) > 0 {
		c.notices = append(c.notices, ',')
	}
	c.notices = append(c.notices, `{"kind":"`...)
	c.notices = append(c.notices, kind...)
	c.notices = append(c.notices, `","code":`...)
	c.notices = strconv.AppendInt(c.notices, code, 10)
	c.notices = append(c.notices, `,"text":`...)
	c.notices = appendJSONString(c.notices, text)
	c.notices = append(c.notices, '}')
}

// frameJS writes the frame of the last update into the Uint8Array it was
// given, so that the worker hands the same buffer back and forth with the
// page; a frame that does not fit gets a new array with room to grow. The
// frame must reach the page whole: the encoder counts its walls as
// delivered. Encoding is kept apart from update so that what update queued
// (a ping stamped with its time) is sent before the frame is made.
func (c *core) frameJS(args []js.Value) any {
	if c.sess == nil {
		return nil
	}
	st := c.sess.State()
	if st == nil {
		return nil // no Welcome yet
	}
	var flags int32
	if len(c.notices) > 0 {
		flags |= view.FlagNotices
	}
	b := c.enc.Frame(st, c.sess.You(), c.spent, flags)
	out := args[0]
	if out.Type() != js.TypeObject || out.Length() < len(b) {
		out = c.uint8Array.New(max(len(b)*3/2, 64<<10))
	}
	js.CopyBytesToJS(out, b)
	return out
}

func (c *core) update(args []js.Value) any {
	if c.sess != nil {
		// The update's time is read off performance.now, which the caller
		// read just before: time.Now here cost two more calls into
		// JavaScript, and the runtime's own clock calls are a quarter of
		// the worker's time per frame already (CDP profile).
		t0 := ms(args[0])
		c.sess.Advance(t0)
		t1 := ms(c.now.Invoke())
		c.spent = (t1 - t0).Microseconds()
		c.sess.Exchange(t1)
	}
	return c.outgoing(nil)
}

func (c *core) exchange(args []js.Value) any {
	if c.sess != nil {
		c.sess.Exchange(ms(args[0]))
	}
	return c.outgoing(nil)
}

func (c *core) started(_ []js.Value) any { return c.sess != nil && c.sess.Started() }

func (c *core) outgoing(_ []js.Value) any {
	if c.sess == nil {
		return c.noMessages
	}
	c.out = c.sess.Outgoing(c.out[:0])
	if len(c.out) == 0 {
		return c.noMessages
	}
	arr := c.array.New(len(c.out))
	for i, m := range c.out {
		arr.SetIndex(i, c.bytesJS(m))
	}
	clear(c.out) // drop references so the messages can be collected
	return arr
}

func (c *core) press(args []js.Value) any {
	kind := sim.EventKind(args[0].Int())
	if c.sess == nil || !kind.PlayerInput() {
		return nil
	}
	c.sess.Press(ms(args[1]), kind, ms(args[2]))
	return nil
}

func (c *core) chat(args []js.Value) any {
	if c.sess != nil {
		c.sess.Chat(args[0].String())
	}
	return nil
}

func (c *core) info(_ []js.Value) any {
	if c.sess == nil {
		return "null"
	}
	return string(appendInfo(nil, c.sess.Info()))
}

func (c *core) drainNotices(_ []js.Value) any {
	s := "[" + string(c.notices) + "]"
	c.notices = c.notices[:0]
	return s
}

func (c *core) token(_ []js.Value) any {
	if c.sess == nil || len(c.sess.Token()) == 0 {
		return nil
	}
	return c.bytesJS(c.sess.Token())
}

func (c *core) bytesJS(b []byte) js.Value {
	u := c.uint8Array.New(len(b))
	js.CopyBytesToJS(u, b)
	return u
}

// export sets globalThis[global] to an object of the given functions and
// returns their js.Funcs, which must stay referenced for as long as the page
// may call them. A function that panics returns an Error instead (recoverJS).
func export(global string, fns map[string]func(args []js.Value) any) []js.Func {
	api := js.Global().Get("Object").New()
	var funcs []js.Func
	for name, f := range fns {
		fn := js.FuncOf(func(_ js.Value, args []js.Value) (v any) {
			defer recoverJS(name, &v)
			return f(args)
		})
		funcs = append(funcs, fn)
		api.Set(name, fn)
	}
	js.Global().Set(global, api)
	return funcs
}

// recoverJS turns a panic in the exported function name into the call's
// result: a JavaScript Error named WebtronCorePanic, its goStack saying
// where, which the loader throws to the caller (web/src/core/core.ts). A
// panic let out of a js.FuncOf ends the Go program, and with it every later
// call: the page was left with a dead core and no word of why. As in
// coder/websocket's wsjs, nothing that crosses the boundary takes the
// program down.
func recoverJS(name string, v *any) {
	r := recover()
	if r == nil {
		return
	}
	e := js.Global().Get("Error").New("webtron core: " + name + ": " + panicText(r))
	e.Set("name", "WebtronCorePanic")
	buf := make([]byte, 4096)
	e.Set("goStack", string(buf[:runtime.Stack(buf, false)]))
	*v = e
}

// panicText is what a panic says. Not fmt: it would add 400 KB to the
// core (web/build's budget).
func panicText(r any) string {
	switch r := r.(type) {
	case error:
		return r.Error()
	case string:
		return r
	}
	return "a panic of another kind"
}

// protoError is the *proto.Error in err's chain, as errors.As finds it
// (depth first through Unwrap), or nil. Not errors.As: it links
// internal/reflectlite, 55 KB of the core (12 KB of brotli) for this one
// call (web/build's TestCoreLeavesOut).
func protoError(err error) *proto.Error {
	switch e := err.(type) {
	case *proto.Error:
		return e
	case interface{ Unwrap() error }:
		return protoError(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, w := range e.Unwrap() {
			if p := protoError(w); p != nil {
				return p
			}
		}
	}
	return nil
}
