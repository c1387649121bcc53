#!/usr/bin/env bash
# Bandwidth on the wire (issue 14): one headless player in an 8-seat room
# with 7 server bots steering (no brake taps), for DURATION, the welcome
# included, counted as whole IP packets by a capture on 127.0.0.1, so that
# TCP's and QUIC's headers and acknowledgements count as they do on a
# network. Then the quiet case: the player alone, pressing nothing (packets
# per second each way while nobody turns). Both transports; prints one JSON
# line per run. Installs tcpdump (Debian) when it is missing.
#
#   scripts/bandwidth.sh                     # 60 s each, both transports
#   DURATION=20 TRANSPORTS=webtransport scripts/bandwidth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60}
QUIET=${QUIET:-30}
TRANSPORTS=${TRANSPORTS:-"websocket webtransport"}
PORT=${PORT:-8097}
if ! command -v tcpdump >/dev/null 2>&1; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tcpdump >/dev/null
fi
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
go build -o "$out/pcapstat" ./scripts/pcapstat
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

# run NAME BOTS SECONDS TRANSPORT [bots flags...]
run() {
	local name=$1 bots=$2 secs=$3 tr=$4
	shift 4
	"$out/webtron" serve --addr 127.0.0.1:$PORT --bots "$bots" --seats 8 --data "" >"$out/$name.serve.log" 2>&1 &
	local srv=$!
	pids+=($srv)
	sleep 1
	tcpdump -i lo -nn -s 96 -w "$out/$name.pcap" "port $PORT" >"$out/$name.tcpdump.log" 2>&1 &
	local dump=$!
	pids+=($dump)
	sleep 1
	"$out/webtron" bots --url ws://127.0.0.1:$PORT --count 1 --room bw --duration "${secs}s" \
		--brake-every 0 --transport "$tr" --json "$@" >"$out/$name.report.json" 2>"$out/$name.bots.log"
	sleep 0.5
	kill $dump
	wait $dump 2>/dev/null || true
	kill $srv
	wait $srv 2>/dev/null || true
	local got
	got=$(tr -d '\n ' <"$out/$name.report.json" | grep -o '"transports":{[^}]*}' || echo '"transports":null')
	printf '{"run":"%s","transport":"%s","used":%s,"stats":%s}\n' "$name" "$tr" "${got#\"transports\":}" \
		"$("$out/pcapstat" -port $PORT -seconds "$secs" "$out/$name.pcap" | tr -d '\n ')"
}

for tr in $TRANSPORTS; do
	run "bots7-$tr" 7 "$DURATION" "$tr"
	run "quiet-$tr" 0 "$QUIET" "$tr" --idle
done
echo "captures and logs in $out" >&2
