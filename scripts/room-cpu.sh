#!/usr/bin/env bash
# Server CPU for one room (issue 15's goal: at most Armagetron's 0.41-0.65 s
# for a dedicated server with one or two clients and 7 AIs over 60 s): one
# headless player and 7 server bots for DURATION, on one node, with a CPU
# profile of the server over the same minute. Not part of `make test`.
#
#   scripts/room-cpu.sh                 # 60 s
#   SERVE_FLAGS="--tick-rate 60" scripts/room-cpu.sh
#   PROFILE=0 scripts/room-cpu.sh       # no CPU profile (its 100 Hz signals cost CPU too)
#   BOTS=0 scripts/room-cpu.sh          # the player alone: a room without bots
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60}
BOTS=${BOTS:-7}
PORT=${PORT:-18297}
PPROF=${PPROF:-18296}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
"$out/webtron" serve --addr 127.0.0.1:$PORT --bots "$BOTS" --data "$out/data" --pprof 127.0.0.1:$PPROF ${SERVE_FLAGS:-} >"$out/serve.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
sleep 1
kill -0 $srv 2>/dev/null || { cat "$out/serve.log"; exit 1; }
cpu() { awk '{ print ($14 + $15) / 100 }' /proc/$srv/stat; } # utime + stime, 100 Hz clock ticks
# Times a thread of the server went to sleep (voluntary context switches, all
# threads): its wake-ups, far less noisy on a shared machine than the CPU.
sleeps() { cat /proc/$srv/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n }'; }
before=$(cpu)
sleeps0=$(sleeps)
prof=
if [ "${PROFILE:-1}" != 0 ]; then
	curl -s -o "$out/cpu.pprof" "127.0.0.1:$PPROF/debug/pprof/profile?seconds=$DURATION" &
	prof=$!
fi
nice -n 10 "$out/webtron" bots --url ws://127.0.0.1:$PORT --count 1 --room cpu --duration "${DURATION}s" --brake-every 0 >"$out/bots.txt"
after=$(cpu)
sleeps1=$(sleeps)
[ -z "$prof" ] || wait $prof
echo "server CPU for one room (1 player, $BOTS bots) over ${DURATION} s: $(echo "$after - $before" | bc) s; $((sleeps1 - sleeps0)) thread sleeps (wake-ups); load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$prof" ] || exit 0
echo "profile: go tool pprof -top $out/webtron $out/cpu.pprof"
go tool pprof -top -nodecount 25 "$out/webtron" "$out/cpu.pprof" 2>/dev/null | head -32
