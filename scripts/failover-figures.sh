#!/usr/bin/env bash
# Issue 26's failover figure (docs/performance.md, "Rooms that outlive
# their node"): three `webtron serve` nodes with embedded NATS on
# loopback, 30 rooms of 8 (4 headless players each, joined through random
# nodes and rejoining by themselves, and 4 server bots), kill -9 of the
# node holding the most rooms mid-round; prints how long after the kill
# the players it cut off were back in their own seats (p50, p95, max), the
# load average at the kill, and fails on a lost round, a resync or a
# harmed room elsewhere. Run it when the machine is quiet. It says whether
# the dead node led the lease stream: with embedded NATS, when it did, every
# takeover waits for the stream to elect another leader (4-9 s in
# nats-server's Raft), so run it a few times. NATS=debian runs the nodes on
# three Debian nats-server processes of their own instead, which a kill of
# a node leaves alone.
#
#   scripts/failover-figures.sh
#   KILL=leader scripts/failover-figures.sh   # kill the lease stream's leader's node
#   NATS=debian scripts/failover-figures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${LOG:-$(mktemp -t failover-figures.XXXXXX)}
echo "the whole log (the nodes' logs on a failure): $LOG"
uptime
WEBTRON_FAILOVER_KILL=${KILL:-} WEBTRON_FAILOVER_NATS=${NATS:-embedded} WEBTRON_FAILOVER_FIGURES=1 go test -count=1 -run 'TestFailoverFigures$' -v ./cluster/ |
	tee "$LOG" |
	grep -E 'failover_figures_test|external NATS|nodes_test.go:[0-9]+: [0-9]+ (cut-off|players)|^(--- |ok|FAIL)'
uptime
