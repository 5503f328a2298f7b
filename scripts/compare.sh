#!/usr/bin/env bash
# Compares two versions of swiftpaxos on the localhost benchmark, in one
# sitting: runs of the two alternate (A then B, B then A the next round),
# so that the machine's drift falls on both. Per run it reads the run's
# summary.json: throughput_ops and cost.per_op.cpu_us (CPU per operation,
# every process of the run). At the end it prints, per protocol, the
# medians of each version, their ranges, and B's ratio to A.
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
# the repository (it must be new or empty). DIR gets compare.csv (round,
# protocol, version, rev, throughput_ops, cpu_us_per_op), compare.md (the
# summary printed at the end) and each run's directory. Exit status: 0
# every run passed, 1 a run failed, 2 usage, 130 interrupted.
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
command -v python3 >/dev/null || die "python3 is needed to read the runs' summary.json"
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

for side in A B; do
	d=dir$side
	[ -f "${!d}/multi-client.conf" ] || die "${!d} has no multi-client.conf"
	sed -E "s/^(reqs:[[:space:]]+)[0-9]+/\1$reqs/" "${!d}/multi-client.conf" >"$out/$side.conf"
	grep -Eq "^reqs:[[:space:]]+$reqs\b" "$out/$side.conf" || die "${!d}/multi-client.conf has no reqs line to set"
done

echo "round,protocol,version,rev,throughput_ops,cpu_us_per_op" >"$out/compare.csv"
# shellcheck disable=SC2154 # set by checkout
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
			if [ "$rc" -ne 0 ]; then
				echo "round $r $p $side: run failed (exit $rc), see $out/$side-$p-$r.log"
				failed=1
				continue
			fi
			line=$(python3 - "$run/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cost = d.get("cost")
if not cost or cost.get("missing") or not d.get("throughput_ops"):
    sys.exit("no throughput, or a cost that misses a process (%s)" % ((cost or {}).get("missing") or "none at all"))
print(round(d["throughput_ops"]), round(cost["per_op"]["cpu_us"], 3))
PY
			) || {
				echo "round $r $p $side: $run/summary.json cannot be compared (above)"
				failed=1
				continue
			}
			read -r thr cpu <<<"$line"
			echo "$r,$p,$side,${!rv},$thr,$cpu" >>"$out/compare.csv"
			echo "round $r $p $side (${!rv}): $thr ops/s, $cpu µs CPU per operation"
		done
	done
done

python3 - "$out/compare.csv" "$rev_A" "$rev_B" <<'EOF' | tee "$out/compare.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"| protocol | runs | A ({sys.argv[2]}) ops/s | B ({sys.argv[3]}) ops/s | B/A | A CPU µs/op | B CPU µs/op | B/A |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for p in dict.fromkeys(r["protocol"] for r in rows):
    v = {s: [r for r in rows if r["protocol"] == p and r["version"] == s] for s in "AB"}
    if not v["A"] or not v["B"]:
        continue
    def cell(s, f):
        xs = [float(r[f]) for r in v[s]]
        return statistics.median(xs), min(xs), max(xs)
    ta, tb = cell("A", "throughput_ops"), cell("B", "throughput_ops")
    ca, cb = cell("A", "cpu_us_per_op"), cell("B", "cpu_us_per_op")
    fmt = lambda c, d: f"{c[0]:.{d}f} ({c[1]:.{d}f}-{c[2]:.{d}f})"
    print(f"| {p} | {len(v['A'])}+{len(v['B'])} | {fmt(ta, 0)} | {fmt(tb, 0)} | {tb[0] / ta[0]:.3f} | {fmt(ca, 2)} | {fmt(cb, 2)} | {cb[0] / ca[0]:.3f} |")
EOF
exit $failed
