//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"strings"
	"syscall/js"
	"testing"

	"webtron/internal/errwrap"
	"webtron/proto"
)

// isError reports whether v is a JavaScript Error.
func isError(v js.Value) bool {
	return v.Type() == js.TypeObject && v.InstanceOf(js.Global().Get("Error"))
}

// TestExportRecovers: a panic in an exported function comes back to its
// JavaScript caller as an Error naming the function and the panic, and the
// Go program lives on: the next call is answered (without the recover the
// panic ends the program, and this test with it).
func TestExportRecovers(t *testing.T) {
	export("webtronTestPanics", map[string]func(args []js.Value) any{
		"boom": func(args []js.Value) any { panic("kaboom " + args[0].String()) },
		"ok":   func(args []js.Value) any { return args[0].Int() + 1 },
	})
	api := js.Global().Get("webtronTestPanics")
	v := api.Call("boom", "now")
	if !isError(v) {
		t.Fatalf("boom returned %v, want an Error", v)
	}
	msg := v.Get("message").String()
	if !strings.Contains(msg, "boom") || !strings.Contains(msg, "kaboom now") {
		t.Errorf("message %q does not name the function and the panic", msg)
	}
	if v.Get("name").String() != "WebtronCorePanic" {
		t.Errorf("name %q", v.Get("name").String())
	}
	if st := v.Get("goStack").String(); !strings.Contains(st, "export_test.go") {
		t.Errorf("goStack %q does not show where it panicked", st)
	}
	if got := api.Call("ok", 41); got.Type() != js.TypeNumber || got.Int() != 42 {
		t.Fatalf("after the panic ok(41) = %v, want 42", got)
	}
}

// TestCorePanicIsError: the real core, called as a broken page might (press
// and receive with no arguments index past them), returns Errors instead of
// taking the program down, and still plays on.
func TestCorePanicIsError(t *testing.T) {
	if js.Global().Get("webtronCore").IsUndefined() {
		c.install() // main, which installs it in the page, does not run in tests
	}
	core := js.Global().Get("webtronCore")
	opt := js.Global().Get("Object").New()
	opt.Set("name", "tester")
	opt.Set("room", "arena")
	core.Call("start", opt)
	for _, fn := range []string{"press", "receive"} {
		v := core.Call(fn)
		if !isError(v) {
			t.Fatalf("%s() returned %v, want an Error", fn, v)
		}
		if msg := v.Get("message").String(); !strings.Contains(msg, fn) || !strings.Contains(msg, "index out of range") {
			t.Errorf("%s(): message %q", fn, msg)
		}
	}
	if h := core.Call("hello", 0); h.Type() != js.TypeObject || h.Length() == 0 {
		t.Fatalf("hello after the panics: %v", h)
	}
}

// TestProtoError: protoError finds what errors.As finds, through one and
// many wrapped errors.
func TestProtoError(t *testing.T) {
	pe := &proto.Error{Code: proto.CloseRoomFull, Text: "full"}
	other := &proto.Error{Code: proto.CloseBadToken}
	for _, err := range []error{
		nil,
		errors.New("plain"),
		pe,
		errwrap.Wrap(pe, "detail"),
		errors.Join(errors.New("first"), errwrap.New("second", pe), other),
		errwrap.New("outer", errors.Join(errors.New("x"), other)),
	} {
		var want *proto.Error
		errors.As(err, &want)
		if got := protoError(err); got != want {
			t.Errorf("protoError(%v) = %v, errors.As finds %v", err, got, want)
		}
	}
}

// TestServerCloseNotice: the server's Error message, which the session
// returns wrapped, reaches the page as a notice with its close code and text.
func TestServerCloseNotice(t *testing.T) {
	if js.Global().Get("webtronCore").IsUndefined() {
		c.install()
	}
	core := js.Global().Get("webtronCore")
	opt := js.Global().Get("Object").New()
	opt.Set("name", "tester")
	opt.Set("room", "arena")
	core.Call("start", opt)
	core.Call("notices") // drain
	msg, err := proto.Marshal(&proto.Error{Code: proto.CloseRoomFull, Text: "the room is full"})
	if err != nil {
		t.Fatal(err)
	}
	if res := core.Call("receive", c.bytesJS(msg), 0, 0); res.Type() != js.TypeString {
		t.Fatalf("receive returned %v, want the error's text", res)
	}
	var notices []struct {
		Kind string `json:"kind"`
		Code int    `json:"code"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(core.Call("notices").String()), &notices); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || notices[0].Kind != "error" || notices[0].Code != int(proto.CloseRoomFull) || notices[0].Text != "the room is full" {
		t.Fatalf("notices %+v, want one error with code %d and the server's text", notices, proto.CloseRoomFull)
	}
}

// TestUpdateReturnsOutgoing: update and exchange return the messages queued
// to send (an array, empty when there are none), as outgoing does, so that
// the worker needs no second call per frame.
func TestUpdateReturnsOutgoing(t *testing.T) {
	if js.Global().Get("webtronCore").IsUndefined() {
		c.install()
	}
	core := js.Global().Get("webtronCore")
	opt := js.Global().Get("Object").New()
	opt.Set("name", "tester")
	opt.Set("room", "arena")
	core.Call("start", opt)
	for _, fn := range []string{"update", "exchange"} {
		v := core.Call(fn, 0)
		if !js.Global().Get("Array").Call("isArray", v).Bool() {
			t.Fatalf("%s(0) returned %v, want an array of messages", fn, v)
		}
	}
}
