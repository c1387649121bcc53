package relay

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// timerfdAlarm is read through the runtime's poller: the clock's goroutine
// parks as on a socket, holds no thread, and wakes when the kernel's
// high-resolution timer fires rather than at the next millisecond.
type timerfdAlarm struct {
	f *os.File
}

// itimerspec is struct itimerspec of timerfd_settime(2).
type itimerspec struct {
	interval, value syscall.Timespec
}

func newTimerfdAlarm() (*timerfdAlarm, error) {
	const clockMonotonic = 1 // CLOCK_MONOTONIC, the clock of Go's monotonic time
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic,
		syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, errno
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	return &timerfdAlarm{f: os.NewFile(fd, "relay-timerfd")}, nil
}

// set also clears a ring not yet read, so wait returns for this setting.
func (a *timerfdAlarm) set(d time.Duration) error {
	rc, err := a.f.SyscallConn()
	if err != nil {
		return err
	}
	spec := itimerspec{value: syscall.NsecToTimespec(int64(d))}
	var errno syscall.Errno
	// Control keeps the descriptor from being closed, and its number
	// reused, during the call.
	err = rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0,
			uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// wait reads the number of rings, which also resets it.
func (a *timerfdAlarm) wait() error {
	var buf [8]byte
	_, err := a.f.Read(buf[:])
	return err
}

func (a *timerfdAlarm) close() { a.f.Close() }
