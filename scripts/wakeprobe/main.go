//go:build linux

// Command wakeprobe measures the floor under the server's tick lateness on
// this machine: one OS thread, outside Go's scheduler and doing no work,
// ticks ROOMS rooms at RATE ticks per second, their phases spread evenly,
// sleeping in the kernel until each tick is due, and records how late each
// tick is handled. No server, whatever its design, can tick its rooms more
// punctually than this thread does on the same machine at the same moment;
// scripts/load.sh runs it beside the load test.
//
//	go run ./scripts/wakeprobe -duration 20s -rooms 125 -rate 120
//
// It also reports the CPU the process spent per wake-up: with -rooms 1 that
// is what a room's wake-ups alone cost, without any work (docs/performance.md,
// CPU per room). -go sleeps on a Go timer in a goroutine instead, as a room's
// goroutine does, Go's scheduler and its sysmon thread included:
//
//	go run ./scripts/wakeprobe -duration 20s -rooms 1 -go
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
	rooms := flag.Int("rooms", 125, "rooms ticked")
	rate := flag.Int("rate", 120, "ticks per second per room")
	goTimer := flag.Bool("go", false, "sleep on a Go timer in a goroutine rather than in nanosleep on a locked thread")
	flag.Parse()
	if *rooms < 1 || *rate < 1 {
		fmt.Println("wakeprobe: -rooms and -rate must be positive")
		return
	}
	step := time.Second / time.Duration(*rate) / time.Duration(*rooms)
	var late []time.Duration
	var sleep func(time.Duration)
	if *goTimer {
		t := time.NewTimer(time.Hour)
		sleep = func(d time.Duration) { t.Reset(d); <-t.C }
	} else {
		runtime.LockOSThread() // one thread, woken by the kernel itself
		sleep = func(d time.Duration) {
			ts := syscall.NsecToTimespec(int64(d))
			for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
			}
		}
	}
	cpu0 := cpuTime()
	wakes := 0
	start := time.Now()
	for next := step; next < *dur; {
		now := time.Since(start)
		if wait := next - now; wait > 0 {
			sleep(wait)
			wakes++
			now = time.Since(start)
		}
		for ; next <= now; next += step { // every tick due by now, in order
			late = append(late, now-next)
		}
	}
	if len(late) == 0 {
		fmt.Println("wakeprobe: no ticks in", *dur)
		return
	}
	slices.Sort(late)
	q := func(p float64) time.Duration { return late[int(p*float64(len(late)-1))].Round(time.Microsecond) }
	within := 0
	for _, l := range late {
		if l <= 5*time.Millisecond {
			within++
		}
	}
	fmt.Printf("ideal tick loop (one thread, %d rooms at %d Hz, %d ticks): lateness p50 %v, p90 %v, p99 %v, p99.9 %v, max %v; %.2f %% within 5 ms\n",
		*rooms, *rate, len(late), q(.5), q(.9), q(.99), q(.999), late[len(late)-1].Round(time.Microsecond),
		100*float64(within)/float64(len(late)))
	if wakes > 0 {
		cpu := cpuTime() - cpu0
		fmt.Printf("CPU of the process: %v in %v, %v per wake-up (%d wake-ups), %v per minute\n",
			cpu.Round(time.Millisecond), *dur, (cpu / time.Duration(wakes)).Round(time.Microsecond), wakes,
			(cpu * time.Minute / *dur).Round(time.Millisecond))
	}
}

// cpuTime returns the user and system CPU of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
