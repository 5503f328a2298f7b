#!/usr/bin/env bash
# Re-creates the measurements of docs/TUNING.md: every sweep of the
# document (about 300 runs, 15-20 minutes on a 2-core machine), then its
# charts and CSVs in docs/charts/. A failed sweep is reported and the
# others still run; the script exits 1 at the end if any failed.
set -euo pipefail

usage() {
	cat <<USAGE
usage: scripts/tuning.sh [-o DIR] [sweeps|charts|all]

  sweeps   run every sweep of docs/TUNING.md into DIR/sweep-NAME/
  charts   draw the charts and copy the CSVs of DIR into docs/charts/
  all      both (default)
  -o DIR   where the sweeps go (default: results/tuning); for sweeps it
           must not hold an earlier run of this script
  -h       this help

Do not edit Go sources while it runs: run-multi-client.sh rebuilds the
binary when a source changes, and the sweeps would measure mixed code
(scripts/sweep.sh warns when that happens).
USAGE
}

here=$(cd "$(dirname "$0")/.." && pwd)
out=results/tuning
what=all
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	-o) out=${2:?-o needs a directory}; shift 2 ;;
	sweeps | charts | all) what=$1; shift ;;
	*) echo "tuning.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
done

failed=0
# sweep NAME KEY VALUES ITER [ARGS...]: one sweep into $out/sweep-NAME
# (ARGS last: they may end with "-- RUN-ARGS").
sweep() {
	local name=$1 key=$2 values=$3 iters=$4
	shift 4
	echo "=== $name: scripts/sweep.sh $key \"$values\" -n $iters -o $out/sweep-$name $*" >&2
	"$here/scripts/sweep.sh" "$key" "$values" -n "$iters" -o "$out/sweep-$name" "$@" || failed=1
}

# both NAME KEY VALUES ITER: the sweep for CURP-HT, then for CURP-HO.
both() {
	sweep "$1-curpht" "$2" "$3" "$4" -p curpht
	sweep "$1-curpho" "$2" "$3" "$4" -p curpho
}

run_sweeps() {
	sweep protocol protocol "curpht curpho" 10
	both repeat batchDelayUs "150" 10
	both batchDelayUs batchDelayUs "0 50 150" 3
	both pendings pendings "1 5 15 30" 3
	both pendings-wide pendings "15 30 60 120" 3
	both maxDescRoutines maxDescRoutines "1 2 500" 3
	both clientThreads clientThreads "1 2 4 8" 3
	both weakRatio weakRatio "0 50 100" 3
	both weakWrites weakWrites "0 50 100" 3
	both networkDelay networkDelay "0 1 5" 2
	sweep batchDelayUs-wide-curpht batchDelayUs "0 150 1000 5000" 2 -p curpht
	sweep pipeline-curpht pipeline "false true" 2 -p curpht
	sweep reqs-curpht reqs "10000 50000" 3 -p curpht
	sweep writes-curpht writes "0 10 50" 3 -p curpht
	sweep conflicts-curpht conflicts "0 10 50" 3 -p curpht
	sweep keySpace-curpht keySpace "0 1000 1000000" 3 -p curpht
	sweep zipfSkew-curpht zipfSkew "0 0.99 1.5" 3 -p curpht
	sweep commandSize-curpht commandSize "10 100 1000 10000" 2 -p curpht
	sweep checkerMode-curpht checkerMode "false true" 3 -p curpht
	local scan
	scan=$(mktemp "${TMPDIR:-/tmp}/scan.XXXXXX")
	(cat "$here/multi-client.conf" && echo 'scanRatio: 10') >"$scan"
	sweep scanCount-curpht scanCount "1 10 100" 3 -p curpht -c "$scan"
	rm -f "$scan"
	sweep electionTimeoutMs-curpht electionTimeoutMs "150-300 500-1500" 2 -p curpht \
		-c "$here/scripts/failover.conf" -- --check --kill-leader-at 3
}

# The median-throughput iteration of a sweep value: the run shown in the
# CDF charts.
median_run() {
	local dir=$1 prefix=$2
	awk -F, -v p="$prefix" 'NR > 1 && $2 == p && $NF == "true" { print $5, $3 }' "$dir/sweep.csv" |
		sort -n | awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)] }'
}

run_charts() {
	local charts="$here/docs/charts" d n
	mkdir -p "$charts"
	plot() { (cd "$here" && go run ./scripts/plot "$@" -out "$charts" >/dev/null); }
	for n in batchDelayUs pendings maxDescRoutines clientThreads weakRatio networkDelay; do
		plot -csv "$out/sweep-$n-curpht/sweep.csv,$out/sweep-$n-curpho/sweep.csv"
	done
	plot -csv "$out/sweep-pendings-wide-curpht/sweep.csv,$out/sweep-pendings-wide-curpho/sweep.csv" -prefix wide-
	plot -csv "$out/sweep-batchDelayUs-wide-curpht/sweep.csv" -prefix wide-
	plot -runs "$out/sweep-batchDelayUs-curpht/batchDelayUs-150-i$(median_run "$out/sweep-batchDelayUs-curpht" 150),$out/sweep-batchDelayUs-curpho/batchDelayUs-150-i$(median_run "$out/sweep-batchDelayUs-curpho" 150)" \
		-labels curpht,curpho
	plot -runs "$out/sweep-networkDelay-curpht/networkDelay-5-i$(median_run "$out/sweep-networkDelay-curpht" 5),$out/sweep-networkDelay-curpho/networkDelay-5-i$(median_run "$out/sweep-networkDelay-curpho" 5)" \
		-labels curpht-delay5ms,curpho-delay5ms -prefix networkDelay5-
	for d in "$out"/sweep-*/; do
		n=$(basename "$d")
		cp "$d/sweep.csv" "$charts/$n.csv"
		cp "$d/sweep-summary.csv" "$charts/$n-summary.csv"
	done
	echo "charts and CSVs in $charts" >&2
}

case $what in
sweeps) run_sweeps ;;
charts) run_charts ;;
all) run_sweeps; run_charts ;;
esac
[ "$failed" = 0 ] || { echo "tuning.sh: some sweeps failed" >&2; exit 1; }
