//go:build !linux

package playback

import "time"

// threadCPU is not measured here: benchmarks report wall time alone.
func threadCPU() (time.Duration, bool) { return 0, false }
