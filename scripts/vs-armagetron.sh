#!/usr/bin/env bash
# Armagetron beside us, same work, same run (issue 25, goal 5): Armagetron
# 0.2.9's dedicated server (Debian armagetronad-dedicated) with one real
# client (Debian armagetronad under Xvfb, its keys sent by xdotool), then
# `webtron serve` with one headless player on each transport, at 8, 16 and
# 32 cycles (the rest AIs / server bots). The measured player turns left and
# right alternately, each turn after a uniform random 0.4-1.2 s, in both
# games (xdotool there, `webtron bots --turn-every 400ms-1.2s` here). For each
# run: the server's CPU per minute (user + system from /proc), its largest
# RSS, and the IP bytes and packets per second each way between the server's
# port and the player, captured by tcpdump on loopback (scripts/pcapstat),
# all in play: after Armagetron's AIs are all in and after our player's
# welcome (the handshakes and snapshots are scripts/bandwidth.sh's business).
# Prints one JSON line per run and a table at the end.
#
#   scripts/vs-armagetron.sh                       # 8 16 32, 60 s each
#   SIZES=8 DURATION=20 scripts/vs-armagetron.sh
#
# Installs what it needs from Debian when missing. Nothing of Armagetron is
# kept in the repository: its configuration is copied from the package at
# run time, and AI characters beyond the package's 22 are the package's own
# lines under new names.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"8 16 32"}
DURATION=${DURATION:-60}
TRANSPORTS=${TRANSPORTS:-"websocket webtransport"}
PORT=${PORT:-8098}
AAPORT=4534
DISP=${DISP:-:77}

need=()
[ -x /usr/games/armagetronad-dedicated.real ] || need+=(armagetronad-dedicated)
[ -x /usr/games/armagetronad.real ] || need+=(armagetronad)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v xdotool >/dev/null || need+=(xdotool)
command -v tcpdump >/dev/null || need+=(tcpdump)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

out=${OUT:-$(mktemp -d)}
go build -o "$out/webtron" ./cmd/webtron
go build -o "$out/pcapstat" ./scripts/pcapstat
hz=$(getconf CLK_TCK)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT

# cpu PID: the process's user + system CPU so far, in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# rss PID: its resident set in KiB.
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
# per_min TICKS SECONDS: CPU seconds per minute.
per_min() { awk -v t="$1" -v s="$2" -v hz="$hz" 'BEGIN {printf "%.2f", t / hz / s * 60}'; }

# watch PID SECONDS: sleeps SECONDS, sampling the largest RSS into $peak.
watch_rss() {
	local pid=$1 end=$((SECONDS + $2)) r
	peak=0
	while [ $SECONDS -lt $end ]; do
		r=$(rss "$pid")
		[ "$r" -gt "$peak" ] && peak=$r
		sleep 1
	done
}

# capture PORT NAME: starts tcpdump on loopback for the port; sets $dump.
capture() {
	tcpdump -i lo -nn -s 96 -w "$out/$2.pcap" "port $1" >"$out/$2.tcpdump.log" 2>&1 &
	dump=$!
	pids+=($dump)
	sleep 1
}
uncapture() { kill "$dump"; wait "$dump" 2>/dev/null || true; }

report() { # GAME CYCLES TRANSPORT CPUTICKS SECONDS RSSKB PCAPPORT NAME
	printf '{"game":"%s","cycles":%s,"transport":"%s","cpu_s_per_min":%s,"rss_mb":%s,"wire":%s}\n' \
		"$1" "$2" "$3" "$(per_min "$4" "$5")" "$(awk -v k="$6" 'BEGIN {printf "%.1f", k / 1024}')" \
		"$("$out/pcapstat" -port "$7" -seconds "$5" "$out/$8.pcap" | tr -d '\n ')" | tee -a "$out/results.jsonl"
}

# Armagetron's configuration, with enough AI characters for 31 AIs: the
# package ships 22 and an AI is added only for a character not in play.
conf=$out/aa-conf
cp -r /etc/armagetronad "$conf"
chars=$(grep -v '^#' "$conf/aiplayers.cfg" | grep -v '^[[:space:]]*$')
for i in 2; do
	printf '%s\n' "$chars" | awk -v n=$i '{ $1 = $1 n; print }' >>"$conf/aiplayers.cfg"
done

if [ -z "${DISPLAY:-}" ]; then
	Xvfb "$DISP" -screen 0 800x600x24 >"$out/xvfb.log" 2>&1 &
	pids+=($!)
	export DISPLAY=$DISP
	sleep 1
fi

# turns SECONDS: left and right alternately into Armagetron's window, each
# after a uniform random 400-1200 ms (the same script as --turn-every).
turns() {
	local end=$((SECONDS + $1)) key=Right
	while [ $SECONDS -lt $end ]; do
		sleep "$(awk -v r=$RANDOM 'BEGIN {printf "%.3f", (400 + r % 801) / 1000}')"
		xdotool key "$key"
		[ "$key" = Right ] && key=Left || key=Right
	done
}

armagetron() { # CYCLES
	local n=$1 name=aa-$1 srv cli cpu0 cpu1
	local var=$out/$name-srv home=$out/$name-cli
	mkdir -p "$var" "$home"
	: >"$var/input.cfg"
	/usr/games/armagetronad-dedicated.real --datadir /usr/share/games/armagetronad --configdir "$conf" \
		--userdatadir "$var" --userconfigdir "$var" --vardir "$var" -d --input "$var/input.cfg" >"$out/$name.serve.log" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 2
	# The server reads the lines added to its --input file after it started.
	# With one human it plays the single-player settings (gGame.cpp,
	# update_settings: humans <= 1), as Webtron does; the AIs form one team,
	# at most three of them join at a round's start (gAIBase.cpp,
	# SetNumberOfAIs), and a new match makes the team's size count.
	printf 'SP_NUM_AIS %d\nSP_MIN_PLAYERS 0\nSP_AUTO_AIS 0\nSP_TEAM_MAX_PLAYERS %d\nSP_TEAMS_MAX %d\nSTART_NEW_MATCH\n' \
		$((n - 1)) "$n" "$n" >>"$var/input.cfg"
	{
		cat "$conf/keys_cursor.cfg"
		printf 'FIRST_USE 0\nPLAYER_1 Bench\nBOOKMARK_1_NAME bench\nBOOKMARK_1_ADDRESS 127.0.0.1\nBOOKMARK_1_PORT %d\n' $AAPORT
	} >"$home/user.cfg"
	nice -n 10 /usr/games/armagetronad.real --datadir /usr/share/games/armagetronad --configdir "$conf" \
		--userdatadir "$home" --userconfigdir "$home" --vardir "$home" -w >"$out/$name.client.log" 2>&1 &
	cli=$!
	pids+=($cli)
	sleep 6
	# Main menu: Play Game, Multiplayer, Server Bookmarks (the fifth), the bookmark.
	for k in Return Return Return Down Down Down Down Return Return; do
		xdotool key $k
		sleep 0.7
	done
	# AIs come in at round starts, at most three a round: play until all are in.
	local waited=0
	while [ "$(grep -a -c 'entered the game' "$out/$name.serve.log")" -lt "$n" ]; do
		turns 5
		waited=$((waited + 5))
		if [ $waited -gt 300 ]; then
			echo "armagetron $n: only $(grep -a -c 'entered the game' "$out/$name.serve.log") of $n players in after 300 s" >&2
			return 1
		fi
	done
	capture $AAPORT "$name"
	cpu0=$(cpu $srv)
	turns "$DURATION" &
	local tp=$!
	watch_rss $srv "$DURATION"
	wait $tp
	cpu1=$(cpu $srv)
	uncapture
	kill $cli $srv
	wait $cli $srv 2>/dev/null || true
	report armagetron "$n" udp $((cpu1 - cpu0)) "$DURATION" "$peak" $AAPORT "$name"
}

webtron() { # CYCLES TRANSPORT
	local n=$1 tr=$2 name=wt-$1-$2 srv cpu0 cpu1
	"$out/webtron" serve --addr 127.0.0.1:$PORT --bots $((n - 1)) --seats "$n" --data "" >"$out/$name.serve.log" 2>&1 &
	srv=$!
	pids+=($srv)
	sleep 1
	"$out/webtron" bots --url ws://127.0.0.1:$PORT --count 1 --room vs --duration "$((DURATION + 10))s" --brake-every 0 \
		--turn-every 400ms-1.2s --transport "$tr" --json >"$out/$name.report.json" 2>"$out/$name.bots.log" &
	local bp=$!
	# Measured in play, as Armagetron's is: the handshake and the welcome
	# are before the capture starts.
	sleep 5
	capture $PORT "$name"
	cpu0=$(cpu $srv)
	watch_rss $srv "$DURATION"
	cpu1=$(cpu $srv)
	uncapture
	wait $bp
	kill $srv
	wait $srv 2>/dev/null || true
	report webtron "$n" "$tr" $((cpu1 - cpu0)) "$DURATION" "$peak" $PORT "$name"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for n in $SIZES; do
	armagetron "$n"
	for tr in $TRANSPORTS; do
		webtron "$n" "$tr"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

printf '\n| game | cycles | transport | CPU s/min | RSS MB | down B/s | down pkt/s | up B/s | up pkt/s |\n|---|---|---|---|---|---|---|---|---|\n'
while read -r line; do
	printf '%s\n' "$line" | tr -d '"{}' | tr ',' '\n' | awk -F: '
		/^game/ {g=$2} /^cycles/ {c=$2} /^transport/ {t=$2} /^cpu_s_per_min/ {cpu=$2} /^rss_mb/ {r=$2}
		/down/ {w="d"} /^up/ {w="u"}
		/packets_per_s/ {p[w]=$NF} /bytes_per_s/ {b[w]=$NF}
		END {printf "| %s | %s | %s | %s | %s | %.0f | %.1f | %.0f | %.1f |\n", g, c, t, cpu, r, b["d"], p["d"], b["u"], p["u"]}'
done <"$out/results.jsonl"
echo "captures and logs in $out" >&2
