#!/usr/bin/env bash
# What rooms cost a NATS cluster (issue 26 section 5, docs/deploy.md "How
# big a NATS cluster"): SERVERS (3) nats-server processes (Debian's,
# JetStream on, routed, with their monitoring port) and three `webtron serve` nodes as
# their clients (--nats), ROOMS rooms of 8 (4 headless players from
# `webtron bots`, 4 server bots) for WARM + SPAN seconds. Over the last SPAN
# seconds it reads NATS's own counters on every server (/varz: messages
# and bytes in and out; /routez: the part that crossed routes; /jsz: each
# stream's last sequence, size and the JetStream API calls) and prints the
# cluster's totals per second and per room, with the nodes' accepted events
# and heartbeat bytes (their /metrics). Then, on the same servers,
# scripts/jsbench: the JetStream writes per second an R3 stream takes.
#
#   scripts/nats-capacity.sh
#   ROOMS=6 WARM=15 SPAN=60 SERVERS=5 scripts/nats-capacity.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOMS=${ROOMS:-6}
WARM=${WARM:-15}
SPAN=${SPAN:-30}
PORT=${PORT:-8340}
SERVERS=${SERVERS:-3}
out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
go build -o "$out/jsbench" ./scripts/jsbench
export WEBTRON_NATS_SECRET=nats-capacity-secret-0123456789
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

client=() routes=""
for i in $(seq "$SERVERS"); do
	client+=("nats://127.0.0.1:$((PORT + 10 + i))")
	routes+="nats://127.0.0.1:$((PORT + 20 + i)),"
done
for i in $(seq "$SERVERS"); do
	nats-server -a 127.0.0.1 -p $((PORT + 10 + i)) -m $((PORT + 30 + i)) -n ns$i -js -sd "$out/ns$i" \
		--cluster_name webtron --cluster nats://127.0.0.1:$((PORT + 20 + i)) --routes "${routes%,}" >"$out/ns$i.log" 2>&1 &
	pids+=($!)
done
nats=$(IFS=,; echo "${client[*]}")
for i in 1 2 3; do
	"$out/webtron" serve --addr 127.0.0.1:$((PORT + i)) --node-name n$i --public-url http://127.0.0.1:$((PORT + i)) \
		--nats "$nats" --data "$out/n$i" --bots 4 --seats 8 --max-conns-per-addr 0 --rooms-per-addr 0 \
		>"$out/n$i.log" 2>&1 &
	pids+=($!)
done
for _ in $(seq 240); do
	if [ "$(curl -s 127.0.0.1:$((PORT + 1))/api/nodes | grep -o '"ready":true' | wc -l)" = 3 ]; then break; fi
	sleep 0.5
done
"$out/webtron" bots --url ws://127.0.0.1:$((PORT + 1)) --count $((ROOMS * 4)) --rooms "$ROOMS" \
	--duration "$((WARM + SPAN + 10))s" --transport websocket --json >"$out/bots.json" 2>"$out/bots.err" &
bots=$!
snap() {
	for i in $(seq "$SERVERS"); do
		m=127.0.0.1:$((PORT + 30 + i))
		jq -n --argjson v "$(curl -s "$m/varz")" --argjson r "$(curl -s "$m/routez")" --argjson j "$(curl -s "$m/jsz?streams=true")" \
			'{varz: $v, routez: $r, jsz: $j}' >"$out/$1-ns$i.json"
	done
	curl -s 127.0.0.1:$((PORT + 1))/api/nodes >"$out/$1-nodes.json"
	for i in 1 2 3; do
		curl -s 127.0.0.1:$((PORT + i))/metrics |
			awk '/^webtron_events_total\{result="accepted"\}/ {e = $2} /^webtron_cluster_heartbeat_bytes_total/ {h = $2} END {print e + 0, h + 0}'
	done | awk '{e += $1; h += $2} END {print e, h}' >"$out/$1-metrics.txt"
}
sleep "$WARM"
snap a
start=$(date +%s.%N)
sleep "$SPAN"
snap b
end=$(date +%s.%N)
wait $bots || true
echo "== $ROOMS rooms of 8 (4 headless players, 4 bots) on 3 nodes, $SERVERS nats-server $(nats-server --version | grep -o 'v[0-9][0-9.]*'), $SPAN s measured; load: $(uptime | sed 's/.*average: //')"
echo "   rooms listed: $(jq '[.[].rooms | length] | add' "$out/b-nodes.json"), players: $(jq '[.[].players] | add' "$out/b-nodes.json"); bots: desyncs $(jq '.desyncs // 0' "$out/bots.json" 2>/dev/null || echo '?')"
python3 - "$out" "$ROOMS" "$start" "$end" "$SERVERS" <<'EOF'
import json, sys
out, rooms, t0, t1, servers = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
span = t1 - t0
def load(tag, i): return json.load(open(f"{out}/{tag}-ns{i}.json"))
tot = {}
def add(k, v): tot[k] = tot.get(k, 0) + v
streams = {}
for i in range(1, servers + 1):
    a, b = load("a", i), load("b", i)
    for k in ("in_msgs", "out_msgs", "in_bytes", "out_bytes"):
        add("all " + k, b["varz"][k] - a["varz"][k])
    for ra, rb in zip(sorted(a["routez"].get("routes") or [], key=lambda r: r["rid"]), sorted(b["routez"].get("routes") or [], key=lambda r: r["rid"])):
        for k in ("out_msgs", "out_bytes"):
            add("route " + k, rb[k] - ra[k])
    add("js api", b["jsz"]["api"]["total"] - a["jsz"]["api"]["total"])
    def sd(j):
        d = {}
        for acc in j.get("account_details") or []:
            for s in acc.get("stream_detail") or []:
                d[s["name"]] = s["state"]
        return d
    sa, sb = sd(a["jsz"]), sd(b["jsz"])
    for name, st in sb.items():
        if name in sa and name not in streams:  # one replica's view is the stream's
            n = st["last_seq"] - sa[name]["last_seq"]
            avg = st["bytes"] / st["messages"] if st["messages"] else 0
            streams[name] = (n, avg, st["messages"], st["bytes"])
print(f"   {'':34s} {'per second':>14s} {'per room':>12s}")
ma, mb = (list(map(float, open(f"{out}/{t}-metrics.txt").read().split())) for t in "ab")
def row(what, v, unit=""):
    print(f"   {what:34s} {v/span:14,.1f} {v/span/rooms:12,.2f} {unit}")
row("NATS messages in (all servers)", tot["all in_msgs"])
row("NATS bytes in (all servers)", tot["all in_bytes"], "B")
row("NATS messages out (all servers)", tot["all out_msgs"])
row("NATS bytes out (all servers)", tot["all out_bytes"], "B")
row("over routes: messages", tot["route out_msgs"])
row("over routes: bytes", tot["route out_bytes"], "B")
row("JetStream API requests", tot["js api"])
row("events accepted (the nodes' rooms)", mb[0] - ma[0])
row("heartbeat bytes sent (all nodes)", mb[1] - ma[1], "B")
for name, (n, avg, msgs, size) in sorted(streams.items()):
    row(f"stream {name}: writes", n, f"(avg {avg:,.0f} B a message; {msgs} messages, {size:,} B stored)")
EOF
echo "== JetStream write ceiling on these servers (scripts/jsbench)"
for size in 400 2000; do
	"$out/jsbench" --url "$nats" --replicas 3 --size $size --seconds 10
done
echo "(files in $out)"
