#!/usr/bin/env bash
# Churn soak (issue 21), not part of `make test`: people come and go at
# random for DURATION (default 30m) in ROOMS rooms with the server's bots,
# one swarm over WebTransport and one over WebSocket, each seat staying
# SESSION on average and coming back with its token or as a newcomer. Rooms
# switch between the single-player and the multiplayer rules as their count
# of humans crosses one. Fails unless the server is alive at the end with 0
# desyncs and 0 crashed rooms; samples goroutines and memory every minute.
#
#   scripts/soak-churn.sh               # 30 minutes
#   DURATION=5m scripts/soak-churn.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30m}
SESSION=${SESSION:-40s}
ROOMS=${ROOMS:-4}
SEATS=${SEATS:-8} # per transport, spread over the rooms
PORT=${PORT:-8198}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
"$out/webtron" serve --addr 127.0.0.1:$PORT --bots 3 --data "$out/data" >"$out/serve.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
sleep 1
metric() { curl -s 127.0.0.1:$PORT/metrics | awk -v m="$1" '$1==m{print $2}'; }
scripts/sample-metrics.sh $srv $PORT >"$out/samples.log" &
common=(--url ws://127.0.0.1:$PORT --count "$SEATS" --rooms "$ROOMS" --churn "$SESSION" --duration "$DURATION" --json)
"$out/webtron" bots "${common[@]}" --transport webtransport --prefix wt- --seed 1 >"$out/wt.json" 2>"$out/wt.log" &
wt=$!
"$out/webtron" bots "${common[@]}" --transport websocket --prefix ws- --seed 2 >"$out/ws.json" 2>"$out/ws.log" &
ws=$!
status=0
wait $wt || status=1
wait $ws || status=1
cat "$out/samples.log"
alive=yes
kill -0 $srv 2>/dev/null || { alive=no; status=1; }
desyncs=$(metric webtron_desyncs_total)
panics=$(metric webtron_room_panics_total)
rounds=$(metric webtron_rounds_total)
echo "server alive: $alive; desyncs: ${desyncs:-?}; crashed rooms: ${panics:-?}; rounds: ${rounds:-?}"
for f in wt ws; do
	jq -c '{sessions, reconnects, room_full, failed, dropped, desyncs, protocol_errors}' "$out/$f.json" 2>/dev/null || cat "$out/$f.json"
done
[ "${desyncs:-1}" = 0 ] && [ "${panics:-1}" = 0 ] || status=1
echo "reports in $out (exit $status)"
exit $status
