#!/usr/bin/env bash
# What replicating the rooms' histories costs (issue 26, docs/netcode.md
# section 8): three nodes with embedded NATS on loopback, ROOMS rooms of 8
# (4 headless players from `webtron bots` and 4 server bots), DURATION
# seconds, three ways: rooms not replicated (--durable-rooms=false),
# replicated broadcasting first (the default) and replicated write-ahead
# (--write-ahead); then the same with every NATS route through
# `webtron relay --delay $DELAY` (a LAN's one-way delay). For each run and
# each node holding rooms, it prints the median, p90 and p99 of
#   webtron_proposal_broadcast_seconds: a proposal's arrival at the server
#     to its answer's hand-over to the connections' writers (what players
#     wait, beyond the network);
#   webtron_history_durable_seconds: a batch of accepted events handed to
#     the journal writer to its acknowledgement by a majority of the
#     stream's replicas;
# and the bots' desyncs. Ports from PORT (default 8140) up.
#
#   scripts/durable-cost.sh
#   DURATION=60 ROOMS=6 DELAY=500us scripts/durable-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30}
ROOMS=${ROOMS:-4}
DELAY=${DELAY:-250us}
PORT=${PORT:-8140}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
export WEBTRON_NATS_SECRET=durable-cost-secret-0123456789
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# run NAME MODE RELAYED (MODE: off, first or ahead)
run() {
	local name=$1 mode=$2 relayed=$3 routes="" i durable=true ahead=false
	case $mode in off) durable=false ;; ahead) ahead=true ;; esac
	pids=()
	for i in 1 2 3; do
		if [ "$relayed" = 1 ]; then
			"$out/webtron" relay --listen 127.0.0.1:$((PORT + 20 + i)) --to 127.0.0.1:$((PORT + 10 + i)) \
				--delay "$DELAY" >"$out/$name-relay$i.log" 2>&1 &
			pids+=($!)
			routes+="nats://127.0.0.1:$((PORT + 20 + i)),"
		else
			routes+="nats://127.0.0.1:$((PORT + 10 + i)),"
		fi
	done
	for i in 1 2 3; do
		"$out/webtron" serve --addr 127.0.0.1:$((PORT + i)) --node-name n$i --public-url http://127.0.0.1:$((PORT + i)) \
			--nats-cluster 127.0.0.1:$((PORT + 10 + i)) --nats-routes "${routes%,}" --data "$out/$name-n$i" \
			--bots 4 --seats 8 --max-conns-per-addr 0 --rooms-per-addr 0 --durable-rooms="$durable" --write-ahead="$ahead" \
			>"$out/$name-n$i.log" 2>&1 &
		pids+=($!)
	done
	for _ in $(seq 120); do
		if [ "$(curl -s 127.0.0.1:$((PORT + 1))/api/nodes | grep -o '"ready":true' | wc -l)" = 3 ]; then break; fi
		sleep 0.5
	done
	"$out/webtron" bots --url ws://127.0.0.1:$((PORT + 1)) --count $((ROOMS * 4)) --rooms "$ROOMS" --prefix "$name-" \
		--duration "${DURATION}s" --transport websocket --json >"$out/$name-bots.json" 2>"$out/$name-bots.err" || true
	echo "== $name: --durable-rooms=$durable --write-ahead=$ahead, routes $([ "$relayed" = 1 ] && echo "through relays, $DELAY each way" || echo "direct (loopback)")"
	echo "   bots: desyncs $(grep -o '"desyncs": [0-9]*' "$out/$name-bots.json" | head -1 | grep -o '[0-9]*$'), dropped $(grep -o '"dropped": [0-9]*' "$out/$name-bots.json" | head -1 | grep -o '[0-9]*$')"
	for i in 1 2 3; do
		curl -s 127.0.0.1:$((PORT + i))/metrics | awk -v node=n$i '
			/^webtron_(proposal_broadcast|history_durable)_seconds/ {
				split($1, a, "{"); m = a[1]; sub(/^webtron_/, "", m); sub(/_seconds.*/, "", m)
				if ($1 ~ /quantile="0.5"/) q50[m] = $2 * 1000
				else if ($1 ~ /quantile="0.9"/) q90[m] = $2 * 1000
				else if ($1 ~ /quantile="0.99"/) q99[m] = $2 * 1000
				else if ($1 ~ /_count/) n[m] = $2
			}
			END {
				for (m in n) if (n[m] > 0)
					printf "   %s %-19s n=%-6d p50 %.3f ms  p90 %.3f ms  p99 %.3f ms\n", node, m, n[m], q50[m], q90[m], q99[m]
			}'
	done
	cleanup
	sleep 1
}

uptime
run loop-off off 0
run loop-first first 0
run loop-ahead ahead 0
run lan-off off 1
run lan-first first 1
run lan-ahead ahead 1
uptime
