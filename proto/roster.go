package proto

import "strconv"

// CharityMode is how a room chooses its ping charity (netcode.md, section 3).
// Unknown values decode: the mode is informative, since the server computes
// every lead and leniency and publishes them.
type CharityMode uint8

// Charity modes.
const (
	CharityOff   CharityMode = iota // c = 0: everyone sees the world with their own ping
	CharityFixed                    // c is a fixed setting
	CharityAuto                     // c = o_max - o_min up to a cap: everyone sees the average ping
	charityEnd
)

var charityNames = [...]string{"off", "fixed", "auto"}

// String returns the mode's name as used in settings.
func (m CharityMode) String() string {
	if m < charityEnd {
		return charityNames[m]
	}
	return "mode " + strconv.Itoa(int(m))
}

// Charity is a room's ping charity setting and the value in effect.
type Charity struct {
	Mode  CharityMode
	Value uint32 // the charity c currently in effect, µs (for CharityAuto, as computed now)
}

// RosterPlayer is one player as every client of the room sees it. Latency,
// Lead and Leniency are published for everyone so that each client can draw
// exact lag-o-meters, U_j(i) = o_i + o_j + L_j - L_i, and check them.
type RosterPlayer struct {
	ID        uint8
	Name      string // at most MaxNameLen bytes of UTF-8
	Bot       bool
	Spectator bool
	Connected bool // false while a disconnected player may still reconnect
	Score     int32
	Latency   uint32 // o_i: one-way latency as the server measures it, µs
	Lead      uint32 // L_i: how far the client's clock should lead the server's, µs
	Leniency  uint32 // λ_i: how far back the server accepts the player's events, µs
}

// Roster is the room's player list and charity. It replaces the previous one
// whole, which makes it idempotent; Rev orders rosters, so a client keeps the
// newest and drops a late duplicate of an older one.
type Roster struct {
	Rev     uint64
	Charity Charity
	Players []RosterPlayer // at most MaxRoster
}

// Type returns TypeRoster.
func (*Roster) Type() Type { return TypeRoster }

const minRosterPlayer = 7 // id, name length, flags, score, latency, lead, leniency

func (m *Roster) encode(w *writer) {
	w.uvarint(m.Rev)
	w.u8(uint8(m.Charity.Mode))
	w.u32(m.Charity.Value)
	w.count("roster players", len(m.Players), MaxRoster)
	for i := range m.Players {
		p := &m.Players[i]
		w.u8(p.ID)
		w.str("player name", p.Name, MaxNameLen)
		w.flags(p.Bot, p.Spectator, p.Connected)
		w.i32(p.Score)
		w.u32(p.Latency)
		w.u32(p.Lead)
		w.u32(p.Leniency)
	}
}

func (m *Roster) decode(r *reader) {
	m.Rev = r.uvarint("roster revision")
	m.Charity.Mode = CharityMode(r.u8("charity mode"))
	m.Charity.Value = r.u32("charity value")
	n := r.count("roster players", MaxRoster, minRosterPlayer)
	if n == 0 {
		return
	}
	m.Players = make([]RosterPlayer, n)
	for i := range m.Players {
		p := &m.Players[i]
		p.ID = r.u8("roster player id")
		p.Name = r.str("player name", MaxNameLen)
		f := r.flags("roster player flags", 3)
		p.Bot, p.Spectator, p.Connected = f&1 != 0, f&2 != 0, f&4 != 0
		p.Score = r.i32("roster score")
		p.Latency = r.u32("roster latency")
		p.Lead = r.u32("roster lead")
		p.Leniency = r.u32("roster leniency")
	}
}
