package room

import (
	"testing"
	"time"

	"webtron/proto"
	"webtron/sim"
)

// countTransport counts what a room sends without decoding it: the benchmark
// measures the room, not the test's checks.
type countTransport struct{ msgs, bytes int }

func (c *countTransport) Send(_ ConnID, b []byte)    { c.msgs++; c.bytes += len(b) }
func (c *countTransport) Close(ConnID, *proto.Error) {}

// BenchmarkRoomMinute is scripts/room-cpu.sh's room without the network: one
// human who never answers and 7 bots, for 60 s of play. ns/op is the room's
// own CPU for that minute (the rest of the server's cost is the Go runtime
// waking it and the sockets). every-tick ticks it at every tick time (the
// bots deciding tick by tick); next-due only when room.NextDue says, as the
// server does; steering adds the human's turn twice a second, each making
// the bots decide again from its tick (botAhead).
func BenchmarkRoomMinute(b *testing.B) {
	for _, bc := range []struct {
		name            string
		nextDue, steers bool
	}{{"every-tick", false, false}, {"next-due", true, false}, {"next-due-steering", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			wakes := 0
			for i := 0; i < b.N; i++ {
				tr := &countTransport{}
				r, err := New("bench", Config{Bots: 7, Seats: 8, Seed: uint64(i)}, 0, tr)
				if err != nil {
					b.Fatal(err)
				}
				if e := r.Receive(1, &proto.Hello{Name: "human"}, 0); e != nil {
					b.Fatal(e)
				}
				seq, turn := uint32(0), time.Duration(0)
				for now := time.Duration(0); now < time.Minute; {
					if err := r.Tick(now); err != nil {
						b.Fatal(err)
					}
					wakes++
					if bc.steers && now >= turn {
						turn = now + 500*time.Millisecond
						seq++
						if e := r.Receive(1, &proto.Propose{Events: []proto.Proposal{{Seq: seq, Tick: uint64(r.Now() + 1), Kind: sim.EvTurnLeft + sim.EventKind(seq%2)}}}, now); e != nil {
							b.Fatal(e)
						}
					}
					now = r.NextTick()
					if bc.nextDue {
						now = r.NextDue()
						if bc.steers {
							now = min(now, max(turn, r.NextTick()))
						}
					}
				}
			}
			b.ReportMetric(float64(wakes)/float64(b.N), "wakes/op")
		})
	}
}
