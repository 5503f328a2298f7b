# shellcheck shell=bash disable=SC2154 # here: the caller sets it
# Sourced, not run, by the scripts that start clusters of their own
# (resp-bench.sh, peers/ycsb-resp.sh, peers/run.sh). The caller sets
# `here` (the repository) and defines die MSG (a usage error: exit 2)
# and fatal MSG (a failure: exit 1).

# swiftpaxos_binary: sets bin to $BIN, or to bin/swiftpaxos built as
# run-multi-client.sh builds it (missing, or older than go.mod or a Go
# source file that is not a test, scripts/ and results/ aside).
swiftpaxos_binary() {
	if [ -n "${BIN:-}" ]; then
		bin=$BIN
		[ -x "$bin" ] || die "BIN=$bin is not an executable"
		return
	fi
	bin="$here/bin/swiftpaxos"
	if [ ! -x "$bin" ] || [ "$here/go.mod" -nt "$bin" ] ||
		[ -n "$(find "$here" -path "$here/scripts" -prune -o -path "$here/results" -prune -o -name '*.go' ! -name '*_test.go' -newer "$bin" -print -quit)" ]; then
		echo "building $bin"
		(cd "$here" && go build -o bin/swiftpaxos .)
	fi
}

# go_ycsb WORKLOADS: for the scripts of scripts/peers (the caller sets
# peers to that directory). Sets ycsb to $YCSB, or to bin/go-ycsb built
# from scripts/peers/go.mod (missing, or older than its go.mod or
# go.sum), and wdir to $YCSB_WORKLOADS or go-ycsb's workloads/ in the
# module cache; each letter of WORKLOADS must have its file there.
go_ycsb() {
	local i
	if [ -n "${YCSB:-}" ]; then
		ycsb=$YCSB
		[ -x "$ycsb" ] || die "YCSB=$ycsb is not an executable"
	else
		ycsb="$here/bin/go-ycsb"
		if [ ! -x "$ycsb" ] || [ "$peers/go.mod" -nt "$ycsb" ] || [ "$peers/go.sum" -nt "$ycsb" ]; then
			echo "building $ycsb (go-ycsb, from scripts/peers/go.mod)"
			(cd "$peers" && go build -o ../../bin/go-ycsb github.com/pingcap/go-ycsb/cmd/go-ycsb)
		fi
	fi
	wdir=${YCSB_WORKLOADS:-}
	if [ -z "$wdir" ]; then
		if ! wdir=$(cd "$peers" && go list -m -f '{{.Dir}}' github.com/pingcap/go-ycsb 2>/dev/null) || [ -z "$wdir" ]; then
			(cd "$peers" && go mod download github.com/pingcap/go-ycsb) || die "cannot download go-ycsb's module"
			wdir=$(cd "$peers" && go list -m -f '{{.Dir}}' github.com/pingcap/go-ycsb)
		fi
		wdir="$wdir/workloads"
	fi
	for ((i = 0; i < ${#1}; i++)); do
		[ -f "$wdir/workload${1:i:1}" ] || die "no workload${1:i:1} in '$wdir' (go-ycsb's workloads/; YCSB_WORKLOADS=DIR names it)"
	done
}

# derive_conf OUT WHO BASE KEY=VALUE...: writes OUT, multi-client.conf
# with its 3 replicas on ports BASE, BASE+1, BASE+2 of their own IPs and
# each KEY (a global setting) set to VALUE, or removed when VALUE is
# empty; WHO (the calling script) signs the lines it wrote.
derive_conf() {
	local out=$1 who=$2 base=$3
	shift 3
	awk -v base="$base" -v who="$who" -v sets="$(printf '%s\n' "$@")" '
		function first(s) { sub(/^[ \t]+/, "", s); sub(/[ \t].*$/, "", s); return s }
		BEGIN {
			print "// " who ": multi-client.conf with the replicas on free ports and its settings"
			m = split(sets, kv, "\n")
			for (i = 1; i <= m; i++) if (kv[i] != "") { k = kv[i]; sub(/=.*/, "", k); v = kv[i]; sub(/^[^=]*=/, "", v); key[++nk] = k; val[nk] = v; drop[tolower(k) ":"] = 1 }
		}
		{
			f = first($0)
			if (f ~ /^---+$/) { section = "" }
			else if (f ~ /^--/) { section = tolower($0) }
			else if (section ~ /replicas/ && f != "" && f !~ /^\/\//) {
				split($2, a, ":")
				print $1 " " a[1] ":" base + n++ "    // port set by " who; next
			} else if (section == "" && (tolower(f) in drop)) { next }
			print
		}
		END {
			if (n != 3) { print who ": multi-client.conf has " n " replicas, not 3" > "/dev/stderr"; exit 1 }
			for (i = 1; i <= nk; i++) if (val[i] != "") print key[i] ": " val[i] "    // set by " who
		}' "$here/multi-client.conf" >"$out"
}

# port_free PORT: no socket of any state is on PORT.
port_free() { [ -z "$(ss -Htan "sport = :$1" 2>/dev/null)" ]; }

# free_ports N VAR: sets VAR to the first of N consecutive free ports in
# 20000-31999 (below Linux's ephemeral range), none handed out before by
# this function. It sets a variable rather than printing, so that what
# it hands out is remembered: a $(...) runs in a subshell and forgets.
declare -A taken_ports=()
free_ports() {
	local b i ok
	for _ in $(seq 100); do
		b=$((20000 + RANDOM % 12000))
		ok=true
		for ((i = 0; i < $1; i++)); do
			if [ -n "${taken_ports[$((b + i))]:-}" ] || ! port_free $((b + i)); then ok=false; break; fi
		done
		if $ok; then
			for ((i = 0; i < $1; i++)); do taken_ports[$((b + i))]=1; done
			printf -v "$2" '%s' "$b"
			return
		fi
	done
	fatal "no $1 consecutive free ports found in 20000-31999"
}
