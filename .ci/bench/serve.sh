#!/usr/bin/env bash
# Latency and throughput of a separate `planctl serve --http --stateless`
# process under TestLoad's 200 concurrent clients (docs/serve.md "## Load"):
#
#   bash .ci/bench/serve.sh [ROUNDS] [-- EXTRA SERVE FLAGS...]
#
# It builds planctl and the load test once, starts the server on a free
# loopback port with a token (auth stays on, as by default) and its log in a
# file, waits until it serves, runs ROUNDS (default 3) rounds of the load
# (a prepared request on a connection per client, the same through
# net/http's client, then mcp-go's client, unless MODES says otherwise), stops the
# server with SIGTERM and prints one markdown row per round and mode:
#
#   | mode | serve flags | failed | plans/s | p50 | p99 | server peak RSS | server's own p50 / p99 | server CPU a request |
#
# The last two columns are over all the mode's rounds. The server's CPU a
# request (user and system, from /proc, over the requests its log counts)
# moves by a tenth or so when other processes share the machine, where
# plans/s and the latencies move by half or more: compare builds by it,
# alternating.
#
# Environment: BIN (a planctl binary to measure instead of building one),
# MODES ("conn raw mcp-go": TestLoad's -load-conn, -load-raw, mcp-go's client;
# "wrk": Debian's wrk, a client written in C, for WRK_SECONDS (10) a round:
# apt-get install wrk), CLIENTS (200), PLANS (50 per client), PROFILE (a file:
# a CPU profile of the server over the first round, through --debug-addr),
# WARMUP (1: before a mode's rounds, a round of 10 plans a client against the
# fresh server, not counted, and for TestLoad's modes another in the
# measuring process itself (-load-warmup), whose own first round is cold
# too; 0: none, the first round then shows the cold server and client),
# SERVER_CPUS and CLIENT_CPUS (taskset lists, e.g. 0 and 1: each process on
# cores of its own, so that they do not compete with each other).
# Client and server share this machine's cores: on a small machine the
# figure is of both competing, say so beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
shift || true
[ "${1:-}" = "--" ] && shift
extra=("$@")
modes="${MODES:-conn raw mcp-go}"
clients="${CLIENTS:-200}"
plans="${PLANS:-50}"

work=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill -TERM "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

bin="${BIN:-}"
if [ -z "$bin" ]; then
	bin="$work/planctl"
	go build -o "$bin" ./cmd/planctl
fi
go test -c -o "$work/load.test" ./plan/mcpserver

token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
dbg=()
if [ -n "${PROFILE:-}" ]; then
	dbg=(--debug-addr 127.0.0.1:0)
fi

row() { # mode flags test-output peak-rss: a row per round
	echo "$3" | awk -v mode="$1" -v flags="$2" -v rss="$4" '
		function ms(d) { # a Go duration: 35.09ms, 613.8µs, 1.29s
			if (d ~ /ms$/) { sub(/ms$/, "", d); return sprintf("%.0f ms", d) }
			if (d ~ /µs$/) { sub(/µs$/, "", d); return sprintf("%.1f ms", d / 1000) }
			if (d ~ /us$/) { sub(/us$/, "", d); return sprintf("%.1f ms", d / 1000) }
			if (d ~ /s$/) { sub(/s$/, "", d); return sprintf("%.0f ms", d * 1000) }
			return d
		}
		/round [0-9]+:/ { for (i = 1; i <= NF; i++) if ($i == "failed,") failed = $(i-1) }
		/throughput:/ { for (i = 1; i <= NF; i++) if ($i == "plans/s") tput = $(i-1) }
		/latency:/ {
			for (i = 1; i <= NF; i++) { if ($i == "p50") p50 = $(i+1); if ($i == "p99") p99 = $(i+1) }
			sub(/,$/, "", p50); sub(/,$/, "", p99)
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", mode, flags, failed, tput, ms(p50), ms(p99), rss
		}'
}

echo "| mode | serve flags | failed | plans/s | p50 | p99 | server peak RSS | server's own p50 / p99 | server CPU a request |"
echo "|---|---|---|---|---|---|---|---|---|"
tck=$(getconf CLK_TCK)
for mode in $modes; do
	PLANCTL_AUTH_TOKEN="$token" ${SERVER_CPUS:+taskset -c "$SERVER_CPUS"} "$bin" serve --http 127.0.0.1:0 --stateless --log "$work/serve.log" \
		"${dbg[@]}" "${extra[@]}" 2>"$work/serve.err" &
	server_pid=$!
	url=
	for _ in $(seq 1 200); do
		url=$(sed -n 's/^planctl: serving execute_plan at //p' "$work/serve.err")
		[ -n "$url" ] && break
		kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
		sleep 0.05
	done
	[ -n "$url" ] || { echo "the server did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }
	if [ "${WARMUP:-1}" != 0 ]; then
		# A fresh server's first second is slower (its heap, stacks and
		# pages grow): a round of 10 plans a client, not counted, unless
		# WARMUP=0 (docs/serve.md "## Load").
		"$work/load.test" -test.run "^TestLoad$" -load-conn -load -load-url "$url" -load-token "$token" \
			-load-clients "$clients" -load-plans 10 -load-rounds 1 >/dev/null 2>&1 || true
		: >"$work/serve.log"
	fi
	cpu0=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
	raw=()
	[ "${WARMUP:-1}" != 0 ] && raw=(-load-warmup 10)
	[ "$mode" = raw ] && raw+=(-load-raw)
	[ "$mode" = conn ] && raw+=(-load-conn)
	prof_pid=
	if [ -n "${PROFILE:-}" ]; then
		daddr=$(sed -n 's/^planctl: debug endpoints at //p' "$work/serve.err")
		daddr="${daddr%/debug/}"
		curl -s -o "$PROFILE.$mode" "$daddr/debug/pprof/profile?seconds=${PROFILE_SECONDS:-5}" &
		prof_pid=$!
	fi
	if [ "$mode" = wrk ]; then
		# wrk (Debian's C load generator, one epoll loop a thread): the
		# same rows, from its latency distribution.
		out=
		for r in $(seq 1 "$rounds"); do
			w=$(TOKEN="$token" ${CLIENT_CPUS:+taskset -c "$CLIENT_CPUS"} wrk -t2 -c"$clients" -d"${WRK_SECONDS:-10}"s --latency \
				-s .ci/bench/serve-wrk.lua "$url") || { echo "$w" >&2; exit 1; }
			out+=$(echo "$w" | awk -v r="$r" '
				/^failed:/ { f = $2 } /Requests\/sec:/ { t = $2 } / 50%/ { p50 = $2 } / 99%/ { p99 = $2 }
				END { printf "round %d: %s failed,\nthroughput: %s plans/s\nlatency: p50 %s, p99 %s,\n", r, f, t, p50, p99 }')$'\n'
		done
	else
		out=$(${CLIENT_CPUS:+taskset -c "$CLIENT_CPUS"} "$work/load.test" -test.run "^TestLoad$" "${raw[@]}" -load -test.v -load-url "$url" -load-token "$token" \
			-load-clients "$clients" -load-plans "$plans" -load-rounds "$rounds" 2>&1) || { echo "$out" >&2; exit 1; }
	fi
	if [ -n "$prof_pid" ]; then wait "$prof_pid" || true; fi
	rss=$(awk '/^VmHWM:/ {printf "%.0f MiB", $2/1024}' "/proc/$server_pid/status")
	cpu1=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
	kill -TERM "$server_pid"
	wait "$server_pid" || { echo "the server exited with $?" >&2; cat "$work/serve.err" >&2; exit 1; }
	server_pid=
	# The server's own time per request (its log's http lines, all rounds):
	# what is left of the client's figure is the client, the kernel and
	# the wait for a core.
	srv=$(awk '/msg=http / { for (i = 1; i <= NF; i++) if ($i ~ /^duration=/) { d = substr($i, 10)
			if (d ~ /ms$/) v = d + 0; else if (d ~ /µs$/) v = d / 1000; else if (d ~ /ns$/) v = d / 1e6; else v = d * 1000
			print v } }' "$work/serve.log" | sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%.1f / %.0f ms", a[int(NR * 0.5) + 1], a[int(NR * 0.99) + 1] }')
	cpu=$(awk -v t="$((cpu1 - cpu0))" -v hz="$tck" '/msg=http / { n++ } END { if (n) printf "%.0f µs", t / hz * 1e6 / n }' "$work/serve.log")
	: >"$work/serve.log"
	row "$mode" "${extra[*]:-(defaults)}" "$out" "$rss | $srv | $cpu"
done
