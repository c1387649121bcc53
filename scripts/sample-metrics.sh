#!/usr/bin/env bash
# Prints a line of the server's numbers every minute while its process
# lives: goroutines, memory, rooms and rounds from its /metrics. The soak
# scripts run it in the background.
#
#   scripts/sample-metrics.sh PID PORT >samples.log &
set -u
pid=$1
port=$2
while kill -0 "$pid" 2>/dev/null; do
	m=$(curl -s "127.0.0.1:$port/metrics" || true)
	echo "$(date +%T) $(echo "$m" | awk '
		/^go_goroutines /{g=$2}
		/^process_resident_memory_bytes /{rss=$2/1048576}
		/^go_memstats_heap_alloc_bytes /{heap=$2/1048576}
		/^webtron_rooms /{rooms=$2}
		/^webtron_rounds_total /{rounds=$2}
		END{printf "goroutines=%s rss_mb=%.1f heap_mb=%.1f rooms=%s rounds=%s", g, rss, heap, rooms, rounds}')"
	sleep 60
done
