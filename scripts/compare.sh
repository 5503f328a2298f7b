#!/usr/bin/env bash
# Compares two versions of swiftpaxos on the localhost benchmark, in one
# sitting: runs of the two alternate (A then B, B then A the next round),
# so that the machine's drift falls on both. Each run is a row of a
# sweep.csv (scripts/sweepstat, as scripts/sweep.sh keeps them, the
# swept key being "version" and its values A and B): throughput,
# latencies and CPU per operation (every process of the run; empty when
# a process left no cost report). At the end it prints sweepstat's
# summary per protocol and version (medians and ranges) and B's ratio to
# A of the median throughput and CPU per operation.
#
#   scripts/compare.sh [-p curpht|curpho|both] [-r ROUNDS] [-n REQS]
#                      [-o DIR] A B
#
# A and B are git revisions of this repository (each is checked out in a
# temporary worktree, built there by run-multi-client.sh, and removed at
# the end) or directories holding a checkout (named by their commit, with
# -dirty when they hold changes not committed). Each version runs its own
# multi-client.conf, so that a configuration key either lacks is no
# error (copied into DIR: it may not name files by a relative path, as
# latencyFile can), with reqs set to REQS (default 100000 operations per thread: a
# default run of 10,000 lasts a third of a second, too short to compare).
# Defaults: both protocols, 3 rounds, DIR results/compare-<time> under
# the repository (it must be new or empty). DIR gets compare.csv (the
# runs, sweep.csv's columns), compare-summary.csv (sweep-summary.csv's),
# compare.md (the tables printed at the end), versions (A's and B's
# revisions) and each run's directory. Exit status: 0 every run passed,
# 1 a run failed, 2 usage, 130 interrupted.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
die() { echo "compare.sh: $*" >&2; exit 2; }

protocols="curpht curpho" rounds=3 reqs=100000 out=""
while [ $# -gt 0 ]; do
	case $1 in
	-p) [ $# -ge 2 ] || die "-p needs a protocol"
		case $2 in curpht | curpho) protocols=$2 ;; both) protocols="curpht curpho" ;; *) die "-p: '$2' is not curpht, curpho or both" ;; esac
		shift 2 ;;
	-r) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "-r: '${2:-}' is not a positive number of rounds"; rounds=$2; shift 2 ;;
	-n) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "-n: '${2:-}' is not a positive number of operations"; reqs=$2; shift 2 ;;
	-o) [ -n "${2:-}" ] || die "-o needs a directory"; out=$2; shift 2 ;;
	-h | --help) usage ;;
	-*) die "unknown option $1 (-h for help)" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || die "two versions to compare, A and B (-h for help)"
command -v go >/dev/null || die "go is missing: it builds scripts/sweepstat"
out=${out:-$here/results/compare-$(date +%Y%m%d-%H%M%S)}
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "$out exists and is not empty"
fi

tmp=$(mktemp -d) || exit 1
trees=()
child=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	[ -z "$child" ] || kill "$child" 2>/dev/null
	for t in "${trees[@]}"; do git -C "$here" worktree remove --force "$t" >/dev/null 2>&1; done
	[ ${#trees[@]} -eq 0 ] || git -C "$here" worktree prune >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# checkout V NAME: the directory of version V, a worktree when V is a
# revision; its rev goes to rev_NAME.
checkout() {
	local v=$1 name=$2
	if [ -d "$v" ] && [ -x "$v/run-multi-client.sh" ]; then
		dir=$(cd "$v" && pwd)
		printf -v "rev_$name" '%s' "$(git -C "$dir" describe --always --dirty 2>/dev/null || echo "$dir")"
		return
	fi
	local rev
	rev=$(git -C "$here" rev-parse --verify --quiet "$v^{commit}") || die "'$v' is neither a revision nor a checkout"
	dir=$tmp/$name
	trees+=("$dir")
	git -C "$here" worktree add --detach "$dir" "$rev" >/dev/null 2>&1 || die "cannot check out $v"
	printf -v "rev_$name" '%s' "$(git -C "$here" rev-parse --short "$rev")"
}
# dirA, dirB, rev_A and rev_B are read through ${!name}.
# shellcheck disable=SC2034
{
	checkout "$1" A
	dirA=$dir
	checkout "$2" B
	dirB=$dir
}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
(cd "$here" && go build -o "$tmp/sweepstat" ./scripts/sweepstat) || die "cannot build scripts/sweepstat"

for side in A B; do
	d=dir$side
	[ -f "${!d}/multi-client.conf" ] || die "${!d} has no multi-client.conf"
	sed -E "s/^(reqs:[[:space:]]+)[0-9]+/\1$reqs/" "${!d}/multi-client.conf" >"$out/$side.conf"
	grep -Eq "^reqs:[[:space:]]+$reqs\b" "$out/$side.conf" || die "${!d}/multi-client.conf has no reqs line to set"
done

# shellcheck disable=SC2154 # set by checkout
printf 'A %s %s\nB %s %s\n' "$rev_A" "$1" "$rev_B" "$2" >"$out/versions"
echo "compare.sh: A = $1 ($rev_A), B = $2 ($rev_B); $rounds rounds of $protocols, reqs $reqs; results in $out"
failed=0
for r in $(seq 1 "$rounds"); do
	order="A B"
	[ $((r % 2)) -eq 0 ] && order="B A"
	for p in $protocols; do
		for side in $order; do
			d=dir$side rv=rev_$side
			run=$out/$side-$p-$r
			# In the background, so that a TERM is handled at once (bash
			# runs no trap while a foreground child runs); cleanup stops it.
			(cd "${!d}" && exec ./run-multi-client.sh -c "$out/$side.conf" -p "$p" -o "$run") >"$out/$side-$p-$r.log" 2>&1 &
			child=$!
			wait "$child"
			rc=$?
			child=""
			tput=$("$tmp/sweepstat" row -csv "$out/compare.csv" -param version -value "$side" -iteration "$r" \
				-protocol "$p" -status "$rc" "$run") || die "sweepstat cannot record $run"
			ok=$(tail -1 "$out/compare.csv")
			if [ "$rc" -ne 0 ] || [ "${ok##*,}" != true ]; then
				echo "round $r $p $side: run failed (exit $rc, $tput ops/s), see $out/$side-$p-$r.log"
				failed=1
				continue
			fi
			echo "round $r $p $side (${!rv}): $tput ops/s"
		done
	done
done

"$tmp/sweepstat" summary "$out/compare.csv" >"$out/compare-summary.csv"
{
	"$tmp/sweepstat" summary -md "$out/compare.csv"
	echo
	echo "| protocol | B/A throughput | B/A CPU per operation |"
	echo "|---|---:|---:|"
	# The medians of compare-summary.csv, found by their columns' names.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ t[$2, $3] = $col["throughput_ops_median"]; c[$2, $3] = $col["cpu_us_per_op_median"]; if (!($2 in seen)) { seen[$2]; order[++n] = $2 } }
		function ratio(b, a) { return (a == "" || b == "" || a == 0) ? "-" : sprintf("%.3f", b / a) }
		END { for (i = 1; i <= n; i++) { p = order[i]; printf "| %s | %s | %s |\n", p, ratio(t[p, "B"], t[p, "A"]), ratio(c[p, "B"], c[p, "A"]) } }' \
		"$out/compare-summary.csv"
} | tee "$out/compare.md"
exit $failed
