#!/usr/bin/env bash
# The room's own CPU, without the network or the Go runtime's wake-ups: one
# simulation tick (sim BenchmarkStep), and a minute of a room with one human
# and 7 bots ticked at every tick time (room BenchmarkRoomMinute: its ns/op is
# the CPU that scripts/room-cpu.sh's room spends in its own code). Allocations
# per op show whether a tick allocates. Not part of `make test`.
#
#   scripts/benchcost.sh            # COUNT=3 runs of each
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-3}
go test -run '^$' -bench 'BenchmarkStep$' -benchmem -count "$COUNT" ./sim/
go test -run '^$' -bench 'BenchmarkRoomMinute$' -benchmem -count "$COUNT" ./room/
