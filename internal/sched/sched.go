// Package sched asks the operating system to wake this process's threads
// promptly. A room must run within a few milliseconds of its tick time; on a
// machine where other programs keep the cores busy (on the test machine: the
// headless clients of a load test), Linux's EEVDF scheduler lets a running
// thread finish its slice, 3 ms by default on two cores, before a woken
// server thread runs. A shorter slice gives the server's threads earlier
// deadlines, so they preempt those programs when they wake.
package sched

import "time"

// MinSlice and MaxSlice are the bounds Linux accepts for a requested slice.
const (
	MinSlice = 100 * time.Microsecond
	MaxSlice = 100 * time.Millisecond
)
