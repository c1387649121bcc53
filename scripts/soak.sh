#!/usr/bin/env bash
# Soak test (issue 7), not part of `make test`: 8 headless players in one room,
# every link through the delay relay with jitter and 2 % emulated loss, for
# DURATION (default 30m). It samples the server's goroutines and memory every
# minute from /metrics and fails on any desync, drop or protocol error.
#
#   scripts/soak.sh            # 30 minutes
#   DURATION=5m scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30m}
PORT=${PORT:-8197}
RELAY=${RELAY:-9197}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
"$out/webtron" serve --addr 127.0.0.1:$PORT --bots 0 --data "$out/data" >"$out/serve.log" 2>&1 &
srv=$!
"$out/webtron" relay --listen 127.0.0.1:$RELAY --to 127.0.0.1:$PORT --delay 40ms --jitter 5ms --loss 2% >"$out/relay.log" 2>&1 &
rly=$!
trap 'kill $srv $rly 2>/dev/null || true' EXIT
sleep 1
scripts/sample-metrics.sh $srv $PORT >"$out/samples.log" &
"$out/webtron" bots --url ws://127.0.0.1:$RELAY --count 8 --room soak --duration "$DURATION" --json >"$out/report.json"
status=$?
cat "$out/samples.log"
echo "report: $out/report.json (exit $status)"
exit $status
