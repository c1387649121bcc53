package lab

import (
	"testing"
	"time"

	"webtron/clock"
)

func TestLabDebug(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		r, err := Run(Options{Pings: []time.Duration{60 * time.Millisecond, 160 * time.Millisecond}, Charity: clock.FixedCharity(50 * time.Millisecond), Duration: 60 * time.Second, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d events %d refused %d lost %d desyncs %d rounds %d pairs %+v", seed, r.Events, r.Refused, r.Lost, r.Desyncs, r.Rounds, r.Pairs)
	}
}
