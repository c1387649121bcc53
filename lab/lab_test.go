package lab

import (
	"encoding/json"
	"testing"
	"time"

	"webtron/clock"
)

func TestLabSmoke(t *testing.T) {
	r, err := Run(Options{Pings: []time.Duration{60 * time.Millisecond, 160 * time.Millisecond}, Charity: clock.FixedCharity(50 * time.Millisecond), Duration: 30 * time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(r, "", " ")
	t.Logf("%s", b)
}
