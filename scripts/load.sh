#!/usr/bin/env bash
# Load test (issue 5), not part of `make test`: COUNT headless players in
# ROOMS rooms against one server, all on this machine, the clients' process
# at the lowest CPU priority. Prints the share of room ticks within each
# lateness bound, the Go scheduler's latencies, CPU and memory, and the
# clients' summary; fails if the clients report a desync or protocol error.
#
#   scripts/load.sh                       # 1,000 players, 125 rooms, 60 s
#   COUNT=200 ROOMS=25 DURATION=20s scripts/load.sh   # DURATION in seconds
#
# Knobs for experiments: SERVE_FLAGS, SERVE_ENV (e.g. GOMAXPROCS=1),
# SERVE_PREFIX (e.g. "chrt -f 1"), CLIENT_PRIO (default "nice -n 19"; e.g.
# "chrt -i 0"), CLIENT_FLAGS (e.g. "--frame 16.7ms"), BRAKE (brake taps).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-1000}
ROOMS=${ROOMS:-125}
DURATION=${DURATION:-60s}
PORT=${PORT:-8099}
BRAKE=${BRAKE:-0}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
go build -o "$out/wakeprobe" ./scripts/wakeprobe
${SERVE_PREFIX:-} env ${SERVE_ENV:-} "$out/webtron" serve --addr 127.0.0.1:$PORT --bots 0 --max-rooms $((ROOMS + 10)) --max-conns-per-addr 0 --rooms-per-addr 0 --data "$out/data" ${SERVE_FLAGS:-} >"$out/serve.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
sleep 1
start=$(date +%s.%N)
# The machine's own floor: how punctually one plain thread, doing nothing
# else, ticks as many rooms while the load runs (from 10 s in, for half the
# run). The server cannot beat it.
secs=${DURATION%s}
( sleep 10; "$out/wakeprobe" -duration "$((secs / 2))s" -rooms "$ROOMS" >"$out/wakeprobe.txt" 2>&1 ) &
probe=$!
(	# one line a second: ticks, ticks later than 5 ms, GC cycles (cumulative)
	while kill -0 $srv 2>/dev/null; do
		curl -s 127.0.0.1:$PORT/metrics | awk -v t="$(date +%s.%N)" '
			/^webtron_tick_lateness_seconds_bucket\{le="0.005"\}/ { w = $2 }
			/^webtron_tick_lateness_seconds_count/ { n = $2 }
			/^go_gc_cycles_total_gc_cycles_total/ { g = $2 }
			END { printf "%.1f %d %d %d ", t, n, n - w, g }'
		# the server threads' time on the CPU and waiting for it (ns)
		cat /proc/$srv/task/*/schedstat 2>/dev/null | awk '{ run += $1; wait += $2; n += $3 } END { print run, wait, n }'
		sleep 1
	done
) >"$out/samples.txt" 2>/dev/null &
set +e
${CLIENT_PRIO:-nice -n 19} "$out/webtron" bots --url ws://127.0.0.1:$PORT --count "$COUNT" --rooms "$ROOMS" \
	--duration "$DURATION" --brake-every "$BRAKE" --json ${CLIENT_FLAGS:-} >"$out/report.json"
status=$?
set -e
curl -s 127.0.0.1:$PORT/metrics >"$out/metrics.txt"
wait $probe || true
end=$(date +%s.%N)
hist() { # name: cumulative share of observations within each bound
	awk -v n="$1" '
		index($0, n "_bucket{") == 1 { split($0, a, "\""); le[++k] = a[2]; c[k] = $2 }
		index($0, n "_count") == 1 { total = $2 }
		END { for (i = 1; i <= k; i++) if (total > 0) printf "  <= %-10s %6.2f %%\n", le[i], 100 * c[i] / total; print "  count " total }
	' "$out/metrics.txt"
}
echo "seconds with the most ticks later than 5 ms (time, late ticks, GC cycles in that second):"
awk 'NR > 1 { print $1, $3 - l, $4 - g } { l = $3; g = $4 }' "$out/samples.txt" | sort -k2 -n -r | head -8
awk 'NR == 5 { r = $5; w = $6; n = $7; t = $1 } { R = $5; W = $6; N = $7; T = $1 }
	END { printf "server threads, the run'"'"'s middle: on CPU %.2f cores, waiting for a CPU %.3f cores, %.1f us per wait\n",
		(R - r) / (T - t) / 1e9, (W - w) / (T - t) / 1e9, (W - w) / (N - n) / 1e3 }' "$out/samples.txt"
echo "tick lateness (share of ticks within each bound):"
hist webtron_tick_lateness_seconds
cat "$out/wakeprobe.txt"
echo "Go scheduler latency (goroutine runnable until running):"
hist go_sched_latencies_seconds
awk -v s="$start" -v e="$end" '/^process_cpu_seconds_total/{printf "server CPU %.1f s in %.1f s (%.2f cores)\n", $2, e - s, $2 / (e - s)}
	/^process_resident_memory_bytes/{printf "server RSS %.0f MB\n", $2 / 1048576}' "$out/metrics.txt"
grep -v '^#' "$out/metrics.txt" | grep -E '^webtron_(disconnects|desyncs|bytes)' || true
python3 - "$out/report.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
keep = {k: v for k, v in r.items() if not isinstance(v, (list, dict))}
print("clients:", json.dumps(keep))
for k in ("bytes_per_second", "welcome_bytes", "perceived_lag_ms"):
    print(" ", k, json.dumps(r.get(k)))
PY
echo "files: $out (exit $status)"
exit $status
