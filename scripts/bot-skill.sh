#!/usr/bin/env bash
# Measures the bots' skill levels (AI_IQ, `--bot-skill`) over seeded
# `webtron sim` games and prints the tables of docs/performance.md (bot
# skill). Not part of `make test`; bot.TestSkillLevels is its quick cousin.
#
#  1. Against each other: 4 bots, one of each of LEVELS (the lobby's Practice
#     levels), seats rotating with the seed: each level's mean time alive per
#     round and its share of the rounds won.
#  2. Against a rider (bot.NewRider: rides straight, turns only at walls, to
#     the side with the longer road): one bot of each of RIDER_LEVELS in a
#     duel with it, seats alternating with the seed.
#
#   scripts/bot-skill.sh                       # 200 games of each, 30,000 ticks (250 s) each
#   GAMES=50 TICKS=12000 scripts/bot-skill.sh  # quicker
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-200}
TICKS=${TICKS:-30000}
LEVELS=${LEVELS:-"1 30 60 100"}
RIDER_LEVELS=${RIDER_LEVELS:-"1 10 20 30 40 50 60 70 80 90 100"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/webtron" ./cmd/webtron
sim() { "$out/webtron" sim --ticks "$TICKS" --survival "$@" | grep '^survival'; }

levels=($LEVELS)
n=${#levels[@]}
echo "Against each other: $GAMES games of ${n} bots (${LEVELS// /, }), $TICKS ticks each"
for seed in $(seq 1 "$GAMES"); do
	list=()
	for k in $(seq 0 $((n - 1))); do list+=("${levels[$(((k + seed) % n))]}"); done
	sim --players "$n" --seed "$seed" --skill "$(IFS=,; echo "${list[*]}")"
done | awk '
	# survival player P  skill K  rounds R  alive A s  mean M s  wins W
	$4 == "skill" { k = $5; r[k] += $7; a[k] += $9; w[k] += $NF; rounds += $7 }
	END {
		print "| AI_IQ | rounds | mean time alive per round | rounds won |"
		print "|---|---|---|---|"
		for (k in r) printf "| %d | %d | %.1f s | %.0f %% |\n", k, r[k], a[k] / r[k], 100 * w[k] / r[k] | "sort -n -t\\| -k2"
	}'
echo
echo "Against a rider that turns only at walls: $GAMES duels per level, $TICKS ticks each"
echo "| AI_IQ | rounds | bot: mean time alive per round | bot wins | rider wins |"
echo "|---|---|---|---|---|"
for k in $RIDER_LEVELS; do
	for seed in $(seq 1 "$GAMES"); do
		if ((seed % 2)); then sim --players 2 --seed "$seed" --skill "$k,rider"; else sim --players 2 --seed "$seed" --skill "rider,$k"; fi
	done | awk -v k="$k" '
		$4 == "skill" { r += $7; a += $9; w += $NF }
		$4 == "rider" { rw += $NF }
		END { printf "| %d | %d | %.1f s | %.0f %% | %.0f %% |\n", k, r, a / r, 100 * w / r, 100 * rw / r }'
done
