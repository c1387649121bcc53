package lab

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"webtron/clock"
)

// ParsePings parses "60,160": round-trip times in milliseconds, one per client.
func ParsePings(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), "ms"))
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v < 0 || v > 2000 {
			return nil, fmt.Errorf("--ping: %q is not a round-trip time in milliseconds (0..2000), as in --ping 60,160", f)
		}
		out = append(out, time.Duration(v*float64(time.Millisecond)))
	}
	return out, nil
}

// ParseLoss parses a percentage such as "2%" (a bare number is a percentage too).
func ParseLoss(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v >= 100 {
		return 0, fmt.Errorf("--loss: %q is not a percentage in [0%%, 100%%), as in --loss 2%%", s)
	}
	return v / 100, nil
}

// ParseRule parses --charity-rule: "ours" (also "webtron") or "armagetron".
func ParseRule(s string) (clock.Rule, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ours", "webtron":
		return clock.RuleWebtron, nil
	case "armagetron":
		return clock.RuleArmagetron, nil
	}
	return 0, fmt.Errorf("--charity-rule: %q is not ours or armagetron", s)
}

// ParseOnOff parses on|off (and true/false).
func ParseOnOff(name, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, fmt.Errorf("--%s: %q is not on or off", name, s)
}

// ParseDuration parses a Go duration such as "5ms" or "120s", naming the flag in errors.
func ParseDuration(name, s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--%s: %q is not a Go duration such as 5ms or 120s", name, s)
	}
	return d, nil
}

func ruleName(r clock.Rule) string {
	if r == clock.RuleArmagetron {
		return "armagetron"
	}
	return "ours"
}
