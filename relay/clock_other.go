//go:build !linux

package relay

import "errors"

// Only Linux has timerfd; elsewhere the relay uses time.Timer, which is
// accurate to about a millisecond.
func newTimerfdAlarm() (alarm, error) {
	return nil, errors.New("relay: no timerfd on this system")
}
