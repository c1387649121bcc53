#!/usr/bin/env bash
# WebTransport beside the WebSocket on a bad link (issue 14): 8 headless
# players in one room, every link through `webtron relay --udp` at 40 ms each
# way, 5 ms jitter and 5 % loss (TCP: a lost chunk waits for the 200 ms
# retransmission timeout and holds back what follows; UDP: the datagram is
# gone), DURATION seconds on each transport. Prints each run's summary: the
# perceived lag over the prediction (p50, p99, worst pair's p99), desyncs,
# and the server's datagram counters.
#
#   scripts/transport-compare.sh               # 60 s each
#   DURATION=20 scripts/transport-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60}
PORT=${PORT:-8096}
RELAY=${RELAY:-9096}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
"$out/webtron" serve --addr 127.0.0.1:$PORT --bots 0 --data "" >"$out/serve.log" 2>&1 &
srv=$!
"$out/webtron" relay --udp --listen 127.0.0.1:$RELAY --to 127.0.0.1:$PORT \
	--delay 40ms --jitter 5ms --loss 5% >"$out/relay.log" 2>&1 &
rel=$!
trap 'kill $srv $rel 2>/dev/null || true' EXIT
sleep 1
status=0
for tr in webtransport websocket; do
	echo "== $tr"
	"$out/webtron" bots --url ws://127.0.0.1:$RELAY --count 8 --room "cmp-$tr" --duration "${DURATION}s" \
		--transport "$tr" >"$out/$tr.txt" 2>&1 || status=1
	grep -E 'players|perceived|desyncs|bandwidth' "$out/$tr.txt"
	sleep 1
done
curl -s 127.0.0.1:$PORT/metrics | grep -E '^webtron_(datagrams_total|desyncs_total|connections_opened_total)'
echo "logs in $out" >&2
exit $status
