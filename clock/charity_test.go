package clock

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseCharity(t *testing.T) {
	tests := []struct {
		in      string
		want    Charity
		wantErr string // substring of the error; "" means no error
	}{
		{"50ms", FixedCharity(50 * ms), ""},
		{"0.25s", FixedCharity(250 * ms), ""},
		{"1s", FixedCharity(time.Second), ""}, // above the cap: the policy clamps, parsing does not
		{"auto", AutoCharity, ""},
		{" Auto ", AutoCharity, ""},
		{"0", Charity{}, ""},
		{"0s", Charity{}, ""},
		{"", Charity{}, "empty"},
		{"50", Charity{}, `missing unit; write e.g. "50ms"`},
		{"2.5", Charity{}, `"2.5ms"`},
		{"-5ms", Charity{}, "negative"},
		{"fast", Charity{}, `want a duration like "50ms", "auto" or "0"`},
		{"50 ms", Charity{}, "want a duration"},
	}
	for _, tt := range tests {
		got, err := ParseCharity(tt.in)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("ParseCharity(%q) = %v, %v; want %v, nil", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrCharity) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseCharity(%q) error = %v, want ErrCharity containing %q", tt.in, err, tt.wantErr)
		}
	}
}

func TestCharityString(t *testing.T) {
	tests := []struct {
		c    Charity
		want string
	}{
		{Charity{}, "0"},
		{AutoCharity, "auto"},
		{Charity{Auto: true, Fixed: 20 * ms}, "auto"},
		{FixedCharity(50 * ms), "50ms"},
		{FixedCharity(1500 * ms), "1.5s"},
		{FixedCharity(12345 * time.Microsecond), "12.345ms"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

// FuzzParseCharity checks that whatever parses formats to a string that
// parses back to the same mode and amount.
func FuzzParseCharity(f *testing.F) {
	for _, s := range []string{"50ms", "auto", "0", "1h2m3.5s", "7ns", "-1ms", "AUTO", "1e3ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCharity(s)
		if err != nil {
			return
		}
		back, err := ParseCharity(c.String())
		if err != nil || back != c {
			t.Fatalf("ParseCharity(%q) = %v; its String %q parses to %v, %v", s, c, c.String(), back, err)
		}
	})
}

func TestCharityTextVarAndJSON(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c Charity
	fs.TextVar(&c, "charity", Charity{}, "ping charity")
	if err := fs.Parse([]string{"-charity", "auto"}); err != nil || c != AutoCharity {
		t.Errorf("flag -charity auto: %v, %v; want auto, nil", c, err)
	}
	if err := fs.Parse([]string{"-charity", "50"}); err == nil {
		t.Errorf("flag -charity 50: no error, want missing unit")
	}

	var cfg struct{ Charity Charity }
	if err := json.Unmarshal([]byte(`{"Charity":"30ms"}`), &cfg); err != nil || cfg.Charity != FixedCharity(30*ms) {
		t.Errorf("json: %v, %v; want 30ms, nil", cfg.Charity, err)
	}
	out, err := json.Marshal(cfg)
	if err != nil || string(out) != `{"Charity":"30ms"}` {
		t.Errorf("json.Marshal = %s, %v", out, err)
	}
}

func TestCharityAmount(t *testing.T) {
	tests := []struct {
		name            string
		c               Charity
		oMin, oMax, lim time.Duration
		want            time.Duration
	}{
		{"zero", Charity{}, 30 * ms, 80 * ms, 0, 0},
		{"fixed", FixedCharity(25 * ms), 30 * ms, 80 * ms, 0, 25 * ms},
		{"fixed above spread", FixedCharity(100 * ms), 30 * ms, 80 * ms, 0, 100 * ms},
		{"fixed, default cap", FixedCharity(time.Second), 30 * ms, 80 * ms, 0, DefaultCharityCap},
		{"fixed, own cap", FixedCharity(50 * ms), 30 * ms, 80 * ms, 20 * ms, 20 * ms},
		{"auto", AutoCharity, 30 * ms, 80 * ms, 0, 50 * ms},
		{"auto, capped", AutoCharity, 10 * ms, 400 * ms, 0, DefaultCharityCap},
		{"auto, one player", AutoCharity, 80 * ms, 80 * ms, 0, 0},
		{"negative fixed", FixedCharity(-5 * ms), 30 * ms, 80 * ms, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.c.Amount(tt.oMin, tt.oMax, tt.lim); got != tt.want {
			t.Errorf("%s: Amount(%v, %v, %v) = %v, want %v", tt.name, tt.oMin, tt.oMax, tt.lim, got, tt.want)
		}
	}
}

func TestRuleString(t *testing.T) {
	for r, want := range map[Rule]string{RuleWebtron: "webtron", RuleArmagetron: "armagetron", 9: "Rule(9)"} {
		if got := r.String(); got != want {
			t.Errorf("Rule(%d).String() = %q, want %q", r, got, want)
		}
	}
}
