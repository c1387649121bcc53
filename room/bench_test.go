package room

import (
	"testing"
	"time"

	"webtron/proto"
)

// countTransport counts what a room sends without decoding it: the benchmark
// measures the room, not the test's checks.
type countTransport struct{ msgs, bytes int }

func (c *countTransport) Send(_ ConnID, b []byte)    { c.msgs++; c.bytes += len(b) }
func (c *countTransport) Close(ConnID, *proto.Error) {}

// BenchmarkRoomMinute is scripts/room-cpu.sh's room without the network: one
// human who never answers nor steers and 7 bots, ticked at every tick time
// for 60 s of play. ns/op is the room's own CPU for that minute (the rest of
// the server's cost is the Go runtime waking it and the sockets).
func BenchmarkRoomMinute(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tr := &countTransport{}
		r, err := New("bench", Config{Bots: 7, Seats: 8, Seed: uint64(i)}, 0, tr)
		if err != nil {
			b.Fatal(err)
		}
		if e := r.Receive(1, &proto.Hello{Name: "human"}, 0); e != nil {
			b.Fatal(e)
		}
		for now := time.Duration(0); now < time.Minute; now = r.NextTick() {
			if err := r.Tick(now); err != nil {
				b.Fatal(err)
			}
		}
	}
}
