// Command jsbench measures how many writes a JetStream stream takes: it
// publishes messages of a given size to a stream of its own (file storage,
// the given replicas) as fast as the acknowledgements allow, with a window
// of publishes in flight, from several connections at once, and prints
// the acknowledged writes per second and bytes per second. It is the
// ceiling against which scripts/nats-capacity.sh sets the rooms' writes
// (docs/deploy.md, "How big a NATS cluster").
//
//	go run ./scripts/jsbench --url nats://127.0.0.1:4222 --replicas 3 --size 300 --seconds 10
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	url := flag.String("url", nats.DefaultURL, "NATS servers, comma-separated")
	replicas := flag.Int("replicas", 3, "stream replicas")
	size := flag.Int("size", 300, "message payload bytes")
	seconds := flag.Int("seconds", 10, "how long to publish")
	window := flag.Int("window", 256, "publishes in flight per connection")
	conns := flag.Int("conns", 4, "connections publishing at once (each to its own subject, as rooms do)")
	flag.Parse()
	if err := run(*url, *replicas, *size, *seconds, *window, *conns); err != nil {
		fmt.Fprintln(os.Stderr, "jsbench:", err)
		os.Exit(1)
	}
}

func run(url string, replicas, size, seconds, window, conns int) error {
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx := context.Background()
	const name = "jsbench"
	js.DeleteStream(ctx, name)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{"jsbench.>"},
		Storage: jetstream.FileStorage, Replicas: replicas, MaxBytes: 512 << 20, Discard: jetstream.DiscardOld}); err != nil {
		return err
	}
	defer js.DeleteStream(ctx, name)
	var acked, failed atomic.Int64
	stop := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	for c := range conns {
		pc, err := nats.Connect(url)
		if err != nil {
			return err
		}
		defer pc.Close()
		pjs, err := jetstream.New(pc, jetstream.WithPublishAsyncMaxPending(window))
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := []byte(strings.Repeat("x", size))
			subj := fmt.Sprintf("jsbench.%d", c)
			for time.Now().Before(stop) {
				f, err := pjs.PublishAsync(subj, msg)
				if err != nil {
					failed.Add(1)
					continue
				}
				go func() {
					select {
					case <-f.Ok():
						acked.Add(1)
					case <-f.Err():
						failed.Add(1)
					}
				}()
			}
			select {
			case <-pjs.PublishAsyncComplete():
			case <-time.After(10 * time.Second):
			}
		}()
	}
	start := time.Now()
	wg.Wait()
	el := time.Since(start).Seconds()
	n := acked.Load()
	fmt.Printf("replicas %d, %d B messages, %d connections x %d in flight: %.0f writes/s acknowledged, %.1f MB/s of payload, %d failed, in %.1f s\n",
		replicas, size, conns, window, float64(n)/el, float64(n)*float64(size)/el/1e6, failed.Load(), el)
	return nil
}
