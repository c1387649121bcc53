//go:build linux

// Command wakeprobe measures how late this machine wakes a sleeping thread:
// one OS thread, outside Go's scheduler, sleeps for a period again and again
// and records by how much each sleep overshoots. scripts/load.sh runs it
// beside the server under load: it is the floor under the rooms' tick
// lateness, which adds Go's scheduling on top.
//
//	go run ./scripts/wakeprobe -duration 20s
package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"time"
)

func main() {
	dur := flag.Duration("duration", 10*time.Second, "how long to measure")
	period := flag.Duration("period", time.Millisecond, "sleep length")
	flag.Parse()
	runtime.LockOSThread() // one thread, woken by the kernel itself
	var late []time.Duration
	for end := time.Now().Add(*dur); time.Now().Before(end); {
		t0 := time.Now()
		ts := syscall.NsecToTimespec(int64(*period))
		for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
		}
		late = append(late, time.Since(t0)-*period)
	}
	slices.Sort(late)
	q := func(p float64) time.Duration { return late[int(p*float64(len(late)-1))].Round(time.Microsecond) }
	within := 0
	for _, l := range late {
		if l <= 5*time.Millisecond {
			within++
		}
	}
	fmt.Printf("wake-up lateness of a plain thread (%d sleeps of %v): p50 %v, p90 %v, p99 %v, p99.9 %v, max %v; %.2f %% within 5 ms\n",
		len(late), *period, q(.5), q(.9), q(.99), q(.999), late[len(late)-1].Round(time.Microsecond), 100*float64(within)/float64(len(late)))
}
