//go:build js && wasm

package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"syscall/js"
	"testing"
	"time"

	"webtron/history"
	"webtron/replay"
	"webtron/room"
	"webtron/sim"
	"webtron/web/view"
)

// botRound is a finished round of three bots, as a replay file.
func botRound(t *testing.T) []byte {
	t.Helper()
	var rec history.RoundRecord
	var names []string
	cfg := room.Config{Seed: 4, Bots: 3, Seats: 3, Sim: sim.DefaultConfig()}
	cfg.Sim.ArenaSize = 100 * sim.Meter // short rounds
	cfg.OnRound = func(r history.RoundRecord, n []string) {
		if names == nil && r.Decided {
			rec, names = r, n
		}
	}
	r, err := room.New("wasm", cfg, 0, room.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); names == nil && now < 30*time.Minute; now += r.TickDuration() {
		r.Tick(now)
	}
	if names == nil {
		t.Fatal("no round decided")
	}
	b, err := replay.Marshal(&replay.File{Kind: replay.KindRound, Room: "wasm", Round: 1, Created: time.UnixMilli(1_700_000_000_000), Names: names, Record: rec})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func call(name string, args ...any) js.Value {
	return js.Global().Get("webtronReplay").Call(name, args...)
}

func u8(b []byte) js.Value {
	u := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u, b)
	return u
}

// TestReplayAPI drives webtronReplay as the page does: open, load between
// frames, seek, step, frames in the renderer's layout, the state for the
// HUD, and a bot's view refused.
func TestReplayAPI(t *testing.T) {
	raw := botRound(t)
	if v := call("open", u8(raw[:len(raw)-1])); v.IsNull() {
		t.Fatal("a truncated file opened")
	}
	if v := call("open", u8(raw)); !v.IsNull() {
		t.Fatalf("open: %s", v.String())
	}
	for call("load", 5000).Bool() == false {
	}
	var info struct {
		Room        string `json:"room"`
		TickRate    int64  `json:"tickRate"`
		Start, End  int64
		Loaded      int64 `json:"loaded"`
		DecidedTick int64 `json:"decidedTick"`
		Winner      int   `json:"winner"`
		Damaged     *string
		Players     []struct {
			Slot  int    `json:"slot"`
			Name  string `json:"name"`
			Bot   bool   `json:"bot"`
			Sight bool   `json:"sight"`
		}
	}
	if err := json.Unmarshal([]byte(call("info").String()), &info); err != nil {
		t.Fatal(err)
	}
	if info.Room != "wasm" || info.TickRate != 120 || info.Loaded < info.End || info.DecidedTick < info.Start ||
		info.Damaged != nil || len(info.Players) != 3 || !info.Players[0].Bot || info.Players[0].Sight {
		t.Fatalf("info %+v", info)
	}
	mid := (info.Start + info.End) / 2
	if v := call("seek", mid); !v.IsNull() {
		t.Fatalf("seek: %s", v.String())
	}
	if v := call("step", -3); !v.IsNull() {
		t.Fatalf("step: %s", v.String())
	}
	fr := call("frame", js.Null())
	if again := call("frame", fr); !again.Equal(fr) {
		t.Fatal("a frame that fits was not written into the array given")
	}
	b := make([]byte, fr.Length())
	js.CopyBytesToGo(b, fr)
	word := func(i int) int32 { return int32(binary.LittleEndian.Uint32(b[4*i:])) }
	if word(view.HMagic) != view.Magic || int64(word(view.HTick)) != mid-3 || word(view.HYou) != -1 {
		t.Fatalf("frame: magic %x tick %d you %d", word(view.HMagic), word(view.HTick), word(view.HYou))
	}
	if err := call("seek", info.End); !err.IsNull() {
		t.Fatal(err.String())
	}
	var st struct {
		Tick   int64 `json:"tick"`
		View   int   `json:"view"`
		Scores []struct {
			Slot   int  `json:"slot"`
			Deaths int  `json:"deaths"`
			Alive  bool `json:"alive"`
		}
		Kills []struct {
			Tick   int64 `json:"tick"`
			Victim int   `json:"victim"`
			Killer int   `json:"killer"`
		}
	}
	if err := json.Unmarshal([]byte(call("state").String()), &st); err != nil {
		t.Fatal(err)
	}
	if st.Tick != info.End || st.View != -1 || len(st.Scores) != 3 || len(st.Kills) < 2 {
		t.Fatalf("state %+v", st)
	}
	// The state's hash is the one the file records at that tick.
	f, err := replay.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range f.Record.Hashes[len(f.Record.Hashes)/2:][:3] {
		if err := call("seek", h.Tick); !err.IsNull() {
			t.Fatal(err.String())
		}
		var hs struct {
			Tick int64  `json:"tick"`
			Hash string `json:"hash"`
		}
		json.Unmarshal([]byte(call("state").String()), &hs)
		if want := fmt.Sprintf("%016x", h.Hash); hs.Tick != h.Tick || hs.Hash != want {
			t.Errorf("state at tick %d: tick %d hash %s, the file's %s", h.Tick, hs.Tick, hs.Hash, want)
		}
	}
	if v := call("setView", info.Players[0].Slot); v.IsNull() {
		t.Fatal("a bot's view was shown")
	}
	if v := call("seek", info.End+1); v.IsNull() {
		t.Fatal("a seek past the end succeeded")
	}
}

// TestReplayAPIDamaged: a file whose history no longer gives its hashes
// opens (its checksum is right) and is reported damaged once loaded.
func TestReplayAPIDamaged(t *testing.T) {
	f, err := replay.Unmarshal(botRound(t))
	if err != nil {
		t.Fatal(err)
	}
	// Every turn from the round's first quarter on goes the other way.
	evs := f.Record.Events
	for i := len(evs) / 4; i < len(evs); i++ {
		switch evs[i].Ev.Kind {
		case sim.EvTurnLeft:
			evs[i].Ev.Kind = sim.EvTurnRight
		case sim.EvTurnRight:
			evs[i].Ev.Kind = sim.EvTurnLeft
		}
	}
	b, err := replay.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if v := call("open", u8(b)); !v.IsNull() {
		t.Fatalf("open: %s", v.String())
	}
	for !call("load", 5000).Bool() {
	}
	var info struct{ Damaged *string }
	if err := json.Unmarshal([]byte(call("info").String()), &info); err != nil {
		t.Fatal(err)
	}
	if info.Damaged == nil {
		t.Fatal("a changed history was not found damaged")
	}
}
