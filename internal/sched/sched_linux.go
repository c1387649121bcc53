package sched

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// SetSlice requests a scheduling slice of d for every thread of the process
// (sched_setattr's sched_runtime for SCHED_OTHER, honoured by Linux 6.12 and
// later; earlier kernels accept and ignore it). Threads started later inherit
// it from the thread that starts them. The policy, nice value and flags are
// kept. It returns how many threads it changed.
func SetSlice(d time.Duration) (int, error) {
	if d < MinSlice || d > MaxSlice {
		return 0, fmt.Errorf("sched: slice %v outside %v..%v", d, MinSlice, MaxSlice)
	}
	done := map[int]bool{}
	// The runtime may start a thread while the list is read, from a thread
	// not yet changed; a second pass that finds nothing new ends it.
	for pass := 0; pass < 5; pass++ {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return len(done), fmt.Errorf("sched: %w", err)
		}
		fresh := 0
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			if err := setThread(tid, d); err != nil {
				if os.IsNotExist(err) || err == unix.ESRCH {
					continue // the thread ended meanwhile
				}
				return len(done), fmt.Errorf("sched: thread %d: %w", tid, err)
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			break
		}
	}
	return len(done), nil
}

func setThread(tid int, d time.Duration) error {
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return err
	}
	if a.Policy != unix.SCHED_NORMAL && a.Policy != unix.SCHED_BATCH {
		return nil // real-time or idle threads: the slice means nothing there
	}
	a.Size = unix.SizeofSchedAttr
	a.Runtime = uint64(d)
	return unix.SchedSetAttr(tid, a, 0)
}

// Slice reports the slice of the calling thread, 0 where the kernel does
// not report one.
func Slice() (time.Duration, error) {
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return 0, err
	}
	return time.Duration(a.Runtime), nil
}
