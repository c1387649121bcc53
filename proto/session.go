package proto

// Hello opens a session; it is the first message a client sends. The server
// answers with a Welcome, or with an Error and a close.
type Hello struct {
	Name string // display name, at most MaxNameLen bytes of UTF-8
	Room string // room to join (created on demand), at most MaxRoomLen bytes
	// Token is the reconnect token of an earlier Welcome, to take back the
	// same player (and score) after a dropped connection; empty for a new one.
	Token    []byte
	Spectate bool // join as a spectator: no cycle, no proposals
	// ClientTime (µs, client clock) comes back in Welcome.ClientTime: the
	// handshake is then the first clock sample, before any Ping. The
	// server advances it by the time it held the Hello (as a Pong reports
	// a ping's hold), so that a slow join is no round trip.
	ClientTime int64
	// Map is the map a room opened by this Hello plays (an id of the
	// server's GET /api/maps); empty: the server's default. A room that is
	// open already keeps its own. It goes last, after flag bit 1, so that a
	// Hello without one is encoded as before the field existed.
	Map string
}

// Type returns TypeHello.
func (*Hello) Type() Type { return TypeHello }

func (m *Hello) encode(w *writer) {
	w.str("player name", m.Name, MaxNameLen)
	w.str("room name", m.Room, MaxRoomLen)
	w.bytes("reconnect token", m.Token, MaxTokenLen)
	w.flags(m.Spectate, m.Map != "")
	w.varint(m.ClientTime)
	if m.Map != "" {
		w.str("map", m.Map, MaxMapLen)
	}
}

func (m *Hello) decode(r *reader) {
	m.Name = r.str("player name", MaxNameLen)
	m.Room = r.str("room name", MaxRoomLen)
	m.Token = r.bytes("reconnect token", MaxTokenLen)
	f := r.flags("hello flags", 2)
	m.Spectate = f&1 != 0
	m.ClientTime = r.varint("hello client time")
	if f&2 != 0 {
		// One encoding per Hello: a map flag says a map follows.
		if m.Map = r.str("map", MaxMapLen); m.Map == "" && r.err == nil {
			r.invalid("hello map flag set without a map")
		}
	}
}

// History is what a client needs to rebuild the room's state: a snapshot made
// by the simulation and every accepted event after it. It is the same
// artifact for joining (Welcome), recovering from a desync (Resync), replays
// and bug reports.
type History struct {
	Tick     uint64 // the snapshot's tick, as the simulation defines it
	Snapshot []byte // opaque to this package, at most MaxSnapshotLen bytes
	// Seq is the newest Accepted broadcast whose events Events includes:
	// the client expects Seq+1 next, and ignores Accepted messages up to Seq.
	Seq    uint64
	Events []TickEvent // accepted events after the snapshot, at most MaxHistoryEvents
}

func (h *History) encode(w *writer) {
	w.uvarint(h.Tick)
	w.uvarint(h.Seq)
	w.bytes("snapshot", h.Snapshot, MaxSnapshotLen)
	encodeTickEvents(w, "history events", h.Tick, h.Events, MaxHistoryEvents)
}

func (h *History) decode(r *reader) {
	h.Tick = r.uvarint("snapshot tick")
	h.Seq = r.uvarint("history seq")
	h.Snapshot = r.bytes("snapshot", MaxSnapshotLen)
	h.Events = decodeTickEvents(r, "history events", h.Tick, MaxHistoryEvents)
}

// Welcome accepts a Hello and carries everything the client needs to start
// playing: its identity, the clocks, the room's history and its roster.
type Welcome struct {
	Player    uint8 // the client's player id (a spectator's roster id)
	Spectator bool  // the client only watches: it must not Propose
	// Token lets the client reclaim Player by sending it in a later Hello.
	Token    []byte
	TickRate uint32 // ticks per second, 1..MaxTickRate
	// Tick and ServerTime (µs, server clock) are the server's clock when it
	// sent the Welcome; with ClientTime (the Hello's, advanced by the time
	// the server held the Hello) they give the first RTT and clock-offset
	// sample.
	Tick       uint64
	ServerTime int64
	ClientTime int64
	History    History
	Roster     Roster // includes the room's charity mode and value
}

// Type returns TypeWelcome.
func (*Welcome) Type() Type { return TypeWelcome }

func (m *Welcome) encode(w *writer) {
	if m.TickRate == 0 || m.TickRate > MaxTickRate {
		w.fail(invalidErr(tickRateRange(m.TickRate)))
		return
	}
	w.u8(m.Player)
	w.flags(m.Spectator)
	w.bytes("reconnect token", m.Token, MaxTokenLen)
	w.u32(m.TickRate)
	w.uvarint(m.Tick)
	w.varint(m.ServerTime)
	w.varint(m.ClientTime)
	m.History.encode(w)
	m.Roster.encode(w)
}

func (m *Welcome) decode(r *reader) {
	m.Player = r.u8("welcome player")
	m.Spectator = r.flags("welcome flags", 1)&1 != 0
	m.Token = r.bytes("reconnect token", MaxTokenLen)
	m.TickRate = r.u32("tick rate")
	if r.err == nil && (m.TickRate == 0 || m.TickRate > MaxTickRate) {
		r.invalid(tickRateRange(m.TickRate))
	}
	m.Tick = r.uvarint("welcome tick")
	m.ServerTime = r.varint("welcome server time")
	m.ClientTime = r.varint("welcome client time")
	m.History.decode(r)
	m.Roster.decode(r)
}

// Resync replaces a client's history after its HashReport disagreed with the
// server's: the client drops its state and rebuilds from this one.
type Resync struct {
	History History
}

// Type returns TypeResync.
func (*Resync) Type() Type { return TypeResync }

func (m *Resync) encode(w *writer) { m.History.encode(w) }
func (m *Resync) decode(r *reader) { m.History.decode(r) }

// Chat is one line of chat. A client's From is ignored: the server sets it
// from the connection before relaying, so nobody can speak for another.
type Chat struct {
	From uint8
	Text string // at most MaxChatLen bytes of UTF-8
}

// Type returns TypeChat.
func (*Chat) Type() Type { return TypeChat }

func (m *Chat) encode(w *writer) {
	w.u8(m.From)
	w.str("chat text", m.Text, MaxChatLen)
}

func (m *Chat) decode(r *reader) {
	m.From = r.u8("chat from")
	m.Text = r.str("chat text", MaxChatLen)
}

func tickRateRange(rate uint32) string {
	return "tick rate " + utoa(uint64(rate)) + " out of range 1.." + utoa(MaxTickRate)
}
