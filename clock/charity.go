package clock

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// DefaultCharityCap bounds the charity in every mode. Leniency is a cheating
// surface (a client that may backdate can react to what it has already seen)
// and server rollback costs CPU, so it stays at Overwatch's 250 ms rewind cap
// rather than Armagetron's or Source's larger bounds (netcode.md, section 3).
const DefaultCharityCap = 250 * time.Millisecond

// ErrCharity is wrapped by every error of ParseCharity and UnmarshalText.
var ErrCharity = errors.New("clock: invalid charity")

// charityError is ErrCharity followed by detail, as fmt.Errorf("%w...") made
// it, without linking fmt into the wasm client.
type charityError struct{ detail string }

func (e *charityError) Error() string { return ErrCharity.Error() + e.detail }
func (e *charityError) Unwrap() error { return ErrCharity }

func charityErr(detail string) error { return &charityError{detail} }

// Charity is the room setting that moves perceived lag from low-ping players
// to high-ping ones (netcode.md, section 3). The three modes worth offering
// there are a fixed amount, Auto (c = o_max - o_min, so that every pair sees
// each other with the average of their pings), and 0, the zero value: everyone
// sees the world with their own ping, nobody gets leniency beyond the jitter
// margin, and the server never rolls back further than that.
type Charity struct {
	// Auto makes the charity follow the room: o_max - o_min, up to the cap.
	Auto bool
	// Fixed is the charity when Auto is false; 0 means none.
	Fixed time.Duration
}

// AutoCharity is the Auto mode, for literals and comparisons.
var AutoCharity = Charity{Auto: true}

// FixedCharity returns the fixed mode with charity d.
func FixedCharity(d time.Duration) Charity { return Charity{Fixed: d} }

// ParseCharity reads the forms String writes: "auto", "0", or a Go duration
// such as "50ms". A bare number other than 0 is refused rather than guessed
// at: Armagetron's PING_CHARITY counts milliseconds, and "50" read as
// nanoseconds would silently turn charity off.
func ParseCharity(s string) (Charity, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return Charity{}, charityErr(`: empty; want a duration like "50ms", "auto" or "0"`)
	case strings.EqualFold(t, "auto"):
		return AutoCharity, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		if strings.Trim(t, "+-.0123456789") == "" {
			return Charity{}, charityErr(" " + strconv.Quote(s) + ": missing unit; write e.g. " + strconv.Quote(t+"ms"))
		}
		return Charity{}, charityErr(" " + strconv.Quote(s) + `: want a duration like "50ms", "auto" or "0"`)
	}
	if d < 0 {
		return Charity{}, charityErr(" " + strconv.Quote(s) + ": negative")
	}
	return Charity{Fixed: d}, nil
}

// String returns the form ParseCharity reads back: "auto", "0" or e.g. "50ms".
func (c Charity) String() string {
	switch {
	case c.Auto:
		return "auto"
	case c.Fixed == 0:
		return "0"
	}
	return c.Fixed.String()
}

// MarshalText makes Charity usable with flag.TextVar and encoding/json.
func (c Charity) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText is ParseCharity for flag.TextVar and encoding/json.
func (c *Charity) UnmarshalText(b []byte) error {
	v, err := ParseCharity(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Amount returns the charity c for a room whose one-way latencies span
// [oMin, oMax], bounded to [0, limit] (limit <= 0 means DefaultCharityCap).
func (c Charity) Amount(oMin, oMax, limit time.Duration) time.Duration {
	v := c.Fixed
	if c.Auto {
		v = oMax - oMin
	}
	return min(max(v, 0), orDefault(limit, DefaultCharityCap))
}

// Rule says how leads and leniencies follow from the one-way latencies and
// the charity.
type Rule uint8

// The rules. Both give the same perceived lag for every pair (for the same
// effective charity); ours grants less leniency, hence less server rollback
// and a smaller cheating surface (netcode.md, section 3).
const (
	// RuleWebtron: L_i = max(o_min, o_i - c), λ_i = o_i - L_i = min(o_i - o_min, c).
	// Every lead is as large as the charity allows; the lowest-ping player
	// needs no leniency at all.
	RuleWebtron Rule = iota
	// RuleArmagetron: C = o_min + c, L_i = max(0, o_i - C), λ_i = min(o_i, C),
	// what Armagetron's source does with sn_pingCharityServer.
	RuleArmagetron
)

// String names the rule as configuration and logs spell it.
func (r Rule) String() string {
	switch r {
	case RuleWebtron:
		return "webtron"
	case RuleArmagetron:
		return "armagetron"
	}
	return "Rule(" + strconv.Itoa(int(r)) + ")"
}
