#!/usr/bin/env bash
# Capacity by room size (issue 25, goal 4): for rooms of 8, 16 and 32 seats,
# full of headless players (humans to the server), run scripts/load.sh with
# more and more rooms and print, for each step, the players, the share of
# room ticks within 5 ms beside the machine's floor measured in the same run
# (scripts/wakeprobe ticking as many rooms, which no server can beat), the
# server's CPU per room per minute and its memory per room. A step is "at the
# floor" when the server's share is within MARGIN points of the probe's; the
# capacity of a room size is the most players of a step at the floor.
#
#   scripts/capacity.sh                          # 8, 16, 32 seats, 40 s a step
#   SEATS=16 STEPS="2 4 8" DURATION=30 scripts/capacity.sh
#
# The clients run on the same machine at nice 19 (see load.sh), so on a
# machine of two cores they, not the server, bound the largest steps: read
# the server's CPU share beside the lateness.
set -euo pipefail
cd "$(dirname "$0")/.."
SEATS=${SEATS:-"8 16 32"}
DURATION=${DURATION:-40}
MARGIN=${MARGIN:-2}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

# steps SEATS: the room counts to try for that room size (about 64 to 1,000
# players).
steps() {
	if [ -n "${STEPS:-}" ]; then
		echo "$STEPS"
		return
	fi
	case $1 in
	8) echo "8 32 64 125" ;;
	16) echo "4 16 32 63" ;;
	*) echo "2 8 16 32" ;;
	esac
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
printf '| seats | rooms | players | server ticks <= 5 ms | floor (probe) <= 5 ms | at the floor | server CPU | CPU per room per minute | RSS | RSS per room |\n|---|---|---|---|---|---|---|---|---|---|\n' >"$out/table.md"
for seats in $SEATS; do
	best=0
	for rooms in $(steps "$seats"); do
		players=$((seats * rooms))
		log=$out/load-$seats-$rooms.txt
		# A room fills with humans, so no server bots: load.sh runs --bots 0.
		# load.sh fails when a client asked for a resync: on two cores the
		# clients, at nice 19, fall behind first. The server's figures still
		# stand; such a step is marked and never counts as at the floor.
		behind=""
		SERVE_FLAGS="--seats $seats ${SERVE_FLAGS:-}" COUNT=$players ROOMS=$rooms DURATION=${DURATION}s OUT=$out/run-$seats-$rooms scripts/load.sh >"$log" 2>&1 || {
			behind=$(sed -n 's/.*"desyncs": \([0-9]*\).*/\1/p' "$log")
			if [ -z "$behind" ] || ! grep -q '^server CPU' "$log"; then
				echo "seats $seats rooms $rooms: load.sh failed (see $log)" >&2
				continue
			fi
			behind=" (clients behind: $behind resyncs)"
		}
		server=$(awk '/^tick lateness/ {on = 1; next} on && /<= 0.005 / {print $3; exit}' "$log")
		probe=$(sed -n 's/.* \([0-9.]*\) % within 5 ms.*/\1/p' "$out/run-$seats-$rooms/wakeprobe.txt")
		read -r cpu secs < <(awk '/^server CPU/ {print $3, $6}' "$log")
		rss=$(awk '/^server RSS/ {print $3}' "$log")
		at=$(awk -v s="$server" -v p="$probe" -v m="$MARGIN" 'BEGIN {print (s + m >= p) ? "yes" : "no"}')
		[ -n "$behind" ] && at=no
		[ "$at" = yes ] && [ $players -gt $best ] && best=$players
		printf '| %d | %d | %d | %s %% | %s %% | %s%s | %.1f s in %.0f s | %.2f s | %s MB | %.1f MB |\n' \
			"$seats" "$rooms" "$players" "$server" "$probe" "$at" "$behind" "$cpu" "$secs" \
			"$(awk -v c="$cpu" -v s="$secs" -v r="$rooms" 'BEGIN {print c / r / s * 60}')" "$rss" \
			"$(awk -v m="$rss" -v r="$rooms" 'BEGIN {print m / r}')" | tee -a "$out/table.md" >&2
	done
	echo "seats $seats: $best players at the floor (the most of the steps tried)" | tee -a "$out/summary.txt" >&2
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
cat "$out/table.md" "$out/summary.txt"
