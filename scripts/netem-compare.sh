#!/usr/bin/env bash
# Checks the built-in latency emulation (networkDelay / latencyFile, added
# by the sending process) against an independent one: the same
# configuration with every replica-replica and client-replica connection
# routed through toxiproxy with the same delays (run-multi-client.sh
# --proxy). Runs are interleaved (builtin, proxy, builtin, proxy, ... for
# each protocol) so that a slow spell of a shared machine hits both; each
# run is one row of DIR/sweep.csv (param "emulator", value builtin or
# toxiproxy), and the per-value medians are printed as a Markdown table.
#
#   scripts/netem-compare.sh [-n ITER] [-c CONF] [-o DIR] [PROTOCOL...] [-- RUN-ARGS]
#
# RUN-ARGS go to every run of run-multi-client.sh (e.g. --hosts, in the
# control namespace of scripts/netns-cluster.sh, which sets PROXY_IP).
#
# Defaults: 2 iterations, scripts/geo.conf, both protocols,
# results/netem-compare-<time>. Kernel netem is not used here: on
# localhost the clients' connections all come from 127.0.0.1, so no qdisc
# can tell the pairs apart; see scripts/netns-cluster.sh for netem on the
# namespace test bed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
iters=2
conf="$here/scripts/geo.conf"
out=""
protocols=()
run_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "netem-compare.sh: -n needs a positive number" >&2; exit 2; }
		iters=$2; shift 2 ;;
	-c) conf=${2:?-c needs a file}; shift 2 ;;
	-o) out=${2:?-o needs a directory}; shift 2 ;;
	--) shift; run_args=("$@"); break ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "netem-compare.sh: unknown option $1" >&2; exit 2 ;;
	*) protocols+=("$1"); shift ;;
	esac
done
[ ${#protocols[@]} -gt 0 ] || protocols=(curpht curpho)
[ -n "$out" ] || out="$here/results/netem-compare-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && go build -o "$tmp/sweepstat" ./scripts/sweepstat)
csv="$out/sweep.csv"
status=0
for ((i = 1; i <= iters; i++)); do
	for p in "${protocols[@]}"; do
		for e in builtin toxiproxy; do
			dir="$out/$p-$e-i$i"
			args=(-c "$conf" -p "$p" -o "$dir" "${run_args[@]}")
			[ "$e" = builtin ] || args+=(--proxy)
			rc=0
			"$here/run-multi-client.sh" "${args[@]}" >"$dir.txt" 2>&1 || rc=$?
			[ "$rc" = 0 ] || status=1
			tput=$("$tmp/sweepstat" row -csv "$csv" -param emulator -value "$e" -iteration "$i" -protocol "$p" -status "$rc" "$dir")
			echo "iteration $i $p $e: exit $rc, $tput ops/s, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
		done
	done
done
"$tmp/sweepstat" summary "$csv" >"$out/sweep-summary.csv"
"$tmp/sweepstat" summary -md "$csv"
exit $status
