package proto

import "strconv"

// RefuseReason says why the server refused a proposed event. Values are part
// of the protocol (append, never renumber). Decode accepts values it does not
// know, so that a server may add reasons without breaking older clients:
// every refusal means the same to a client (drop the event), and Text
// explains it to a human.
type RefuseReason uint8

// Refusal reasons.
const (
	RefuseOther         RefuseReason = iota // none of the below; see the text
	RefuseTooFarAhead                       // the tick is further ahead of the server than any lead allows
	RefuseNotYourPlayer                     // the event is for another player, or the client spectates
	RefuseNotAlive                          // the player has no living cycle in the current round
	RefuseDuplicate                         // the sequence number was used for a different event
	RefuseRateLimited                       // too many events too fast
	RefuseInvalidKind                       // unknown kind, or one only the server may create
	_                                       // 7, "invalid argument", was never sent: retired, so that no client reads another meaning into it
	refuseEnd
)

var refuseNames = [refuseEnd]string{"other", "too far ahead", "not your player", "not alive",
	"duplicate", "rate limited", "invalid kind"}

// String returns a short human-readable name.
func (r RefuseReason) String() string {
	if r < refuseEnd && refuseNames[r] != "" {
		return refuseNames[r]
	}
	return "reason " + strconv.Itoa(int(r))
}

// Refused tells the proposer that its event will never be applied, so the
// client undoes its prediction of it and stops resending that Seq.
type Refused struct {
	Seq    uint32 // the proposal's sequence number
	Reason RefuseReason
	Text   string // for humans and logs, at most MaxTextLen bytes; may be empty
}

// Type returns TypeRefused.
func (*Refused) Type() Type { return TypeRefused }

func (m *Refused) encode(w *writer) {
	w.u32(m.Seq)
	w.u8(uint8(m.Reason))
	w.str("refusal text", m.Text, MaxTextLen)
}

func (m *Refused) decode(r *reader) {
	m.Seq = r.u32("refused seq")
	m.Reason = RefuseReason(r.u8("refusal reason"))
	m.Text = r.str("refusal text", MaxTextLen)
}

// CloseCode says why the server is closing a connection. Like RefuseReason,
// unknown values decode, since the Text still explains them.
type CloseCode uint8

// Close codes.
const (
	CloseOther     CloseCode = iota // none of the below; see the text
	CloseProtocol                   // the client sent a malformed or unexpected message
	CloseVersion                    // the client speaks another protocol version
	CloseRoomFull                   // the room has no free player slot
	CloseBadName                    // the name, room name or map is not acceptable
	CloseNameTaken                  // another player in the room has that name
	CloseBadToken                   // the reconnect token is unknown or expired
	CloseReplaced                   // the same player connected again elsewhere
	CloseKicked                     // removed by an operator or for abuse
	CloseTimeout                    // nothing heard from the client for too long
	CloseShutdown                   // the server is stopping
	CloseAddrLimit                  // too many connections, or new rooms, from the client's address
	closeEnd
)

var closeNames = [...]string{"other", "protocol error", "version mismatch", "room full",
	"bad name", "name taken", "bad reconnect token", "replaced by a new connection",
	"kicked", "timeout", "server shutdown", "address limit"}

// String returns a short human-readable name.
func (c CloseCode) String() string {
	if c < closeEnd {
		return closeNames[c]
	}
	return "code " + strconv.Itoa(int(c))
}

// Error is the server's last message on a connection: the reason it is about
// to close it, so the client can tell the player instead of retrying blindly.
// *Error is also a Go error, so a client can return it as the session's end.
type Error struct {
	Code CloseCode
	Text string // for humans, at most MaxTextLen bytes; may be empty
}

// Type returns TypeError.
func (*Error) Type() Type { return TypeError }

// Error describes the close for logs and for display.
func (m *Error) Error() string {
	if m.Text == "" {
		return "proto: server closed the connection: " + m.Code.String()
	}
	return "proto: server closed the connection: " + m.Code.String() + ": " + m.Text
}

func (m *Error) encode(w *writer) {
	w.u8(uint8(m.Code))
	w.str("error text", m.Text, MaxTextLen)
}

func (m *Error) decode(r *reader) {
	m.Code = CloseCode(r.u8("error code"))
	m.Text = r.str("error text", MaxTextLen)
}
