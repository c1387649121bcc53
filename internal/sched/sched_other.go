//go:build !linux

package sched

import (
	"errors"
	"time"
)

// errUnsupported: only Linux lets a process choose its threads' slices.
var errUnsupported = errors.New("sched: scheduling slices are a Linux feature")

// SetSlice is a no-op outside Linux; it reports errUnsupported.
func SetSlice(d time.Duration) (int, error) { return 0, errUnsupported }

// Slice reports 0 outside Linux.
func Slice() (time.Duration, error) { return 0, errUnsupported }
