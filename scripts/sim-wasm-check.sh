#!/usr/bin/env bash
# `webtron sim` must print the same final hash natively and as WebAssembly in
# Node: the browser runs this exact simulation.
set -euo pipefail
cd "$(dirname "$0")/.."
wasmexec="$(go env GOROOT)/lib/wasm"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/webtron" ./cmd/webtron
GOOS=js GOARCH=wasm go build -o "$tmp/webtron.wasm" ./cmd/webtron
# The last runs play Armagetron maps, installed by
# scripts/install-armagetron-maps.sh: a fortress map (its zones too), and
# inaktek, whose 8 axes play the slanted geometry.
./scripts/install-armagetron-maps.sh
for args in "--players 2 --ticks 3000 --seed 1" "--players 8 --ticks 3000 --seed 2" \
	"--players 4 --ticks 3000 --seed 3 --map-file Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml" \
	"--players 8 --ticks 3000 --seed 4 --map-file Your_mom/clever/inaktek-0.7.2.aamap.xml"; do
	native=$("$tmp/webtron" sim $args | tail -n 1)
	wasm=$("$wasmexec/go_js_wasm_exec" "$tmp/webtron.wasm" sim $args | tail -n 1)
	if [ "$native" != "$wasm" ]; then
		echo "webtron sim $args: native $native, wasm $wasm" >&2
		exit 1
	fi
	echo "webtron sim $args: $native (native = wasm)"
done
