#!/usr/bin/env bash
# Partition runs between real processes: N runs per protocol of
# run-multi-client.sh --check --partition-leader-at S:DUR (toxiproxy between
# every pair, scripts/netem), one line per run with the launcher's exit
# status, errors, timeouts and the checker's verdict, and the checker's
# first violation of every run that failed it.
#
#   scripts/partition-runs.sh [-n N] [-c CONF] [-o DIR] [-a S:DUR] [-- RUN-ARGS]
#
# Defaults: 3 runs per protocol, scripts/failover.conf (about 10 s of
# load), -a 2:3 (cut the leader off 2 s after the clients start, for 3 s),
# results/partition-<time>. RUN-ARGS go to run-multi-client.sh, e.g.
# --partition-from clients or --partition-mode close.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
n=3
conf="$here/scripts/failover.conf"
out=""
at=2:3
run_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "partition-runs.sh: -n needs a positive number" >&2; exit 2; }
		n=$2; shift 2 ;;
	-c) conf=${2:?-c needs a file}; shift 2 ;;
	-o) out=${2:?-o needs a directory}; shift 2 ;;
	-a) at=${2:?-a needs S:DUR}; shift 2 ;;
	--) shift; run_args=("$@"); break ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "partition-runs.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || out="$here/results/partition-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
# num FILE KEY: a top-level number of summary.json.
num() { awk -v k="\"$2\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
status=0
for ((i = 1; i <= n; i++)); do
	for p in curpht curpho; do
		dir="$out/$p-i$i"
		rc=0
		"$here/run-multi-client.sh" -c "$conf" -p "$p" --check --partition-leader-at "$at" -o "$dir" "${run_args[@]}" >"$dir.txt" 2>&1 || rc=$?
		[ "$rc" = 0 ] || status=1
		if [ -f "$dir/summary.json" ]; then
			verdict=$(sed -n 's/^Check: //p' "$dir/summary.txt")
			echo "$p run $i: exit $rc, errors $(num "$dir/summary.json" errors), timeouts $(num "$dir/summary.json" timeouts), check: $verdict ($dir)"
			if [ "$rc" != 0 ]; then
				first=$(sed -n '/^Check: /{n;p;q}' "$dir/summary.txt")
				[ -z "$first" ] || echo "    first violation: $first"
			fi
		else
			echo "$p run $i: exit $rc, no summary ($dir.txt)"
		fi
	done
done
exit $status
