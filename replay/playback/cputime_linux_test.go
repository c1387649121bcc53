package playback

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling thread has used (lock the
// goroutine to its thread around a measurement): on a loaded machine the
// wall clock also counts the time other processes ran.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
