//go:build linux

package sched

import (
	"runtime"
	"testing"
	"time"
)

func TestSetSlice(t *testing.T) {
	if _, err := SetSlice(50 * time.Microsecond); err == nil {
		t.Fatal("a slice below the kernel's minimum was accepted")
	}
	n, err := SetSlice(300 * time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Fatalf("changed %d threads", n)
	}
	// Threads started since inherit it: eight goroutines that each hold a
	// thread while they wait make the runtime start new ones.
	const n8 = 8
	got := make(chan time.Duration, n8)
	release := make(chan struct{})
	for range n8 {
		go func() {
			runtime.LockOSThread() // the thread ends with the goroutine
			s, err := Slice()
			if err != nil {
				t.Error(err)
			}
			got <- s
			<-release
		}()
	}
	defer close(release)
	for range n8 {
		s := <-got
		if s == 0 {
			t.Skip("this kernel does not report slices (before Linux 6.12)")
		}
		if s != 300*time.Microsecond {
			t.Fatalf("a thread has slice %v, want 300µs", s)
		}
	}
}
