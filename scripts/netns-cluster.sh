#!/usr/bin/env bash
# A cluster of test hosts on one machine, for the launcher's multi-host
# (SSH) mode: N network namespaces on a bridge, each with its own address
# in a private test range, its own work directory and its own sshd, and a
# control namespace for the launcher. Needs root (network namespaces,
# bridge, sshd). Nothing of it exists outside the namespaces: the bridge
# lives in a namespace of its own, so the test range is never routed out
# of (nor even visible on) this machine.
#
#   scripts/netns-cluster.sh up N     build hosts 1..N (N <= 200)
#   scripts/netns-cluster.sh down     stop everything it started, remove it
#   scripts/netns-cluster.sh status   namespaces, addresses, processes
#   scripts/netns-cluster.sh env      SSH_USER, SSH_OPTS, PROXY_IP lines for the launcher
#   scripts/netns-cluster.sh ctl CMD  run CMD in the control namespace with
#                                     SSH_USER, SSH_OPTS and PROXY_IP (the
#                                     control namespace's address, for
#                                     --proxy) set
#   scripts/netns-cluster.sh pids     every process in the cluster's namespaces
#   scripts/netns-cluster.sh netem CONF OUT
#                                     kernel netem on every host's link with
#                                     CONF's delays (per pair of addresses),
#                                     and OUT: CONF without networkDelay and
#                                     latencyFile, to run behind it. Exits 3
#                                     when the kernel has no netem qdisc.
#   scripts/netns-cluster.sh netem-off  remove those qdiscs
#
# Layout (NETNS_DIR, default /tmp/spx-netns):
#   id_ed25519, authorized_keys, known_hosts   user key and host trust
#   hK/ssh_host_ed25519_key, hK/sshd_config    host K's sshd
#   hK/home/                                   host K's work directory: the
#       home of the test user spxbed, bind-mounted over /home/spxbed in a
#       mount namespace of host K's own, so no two hosts share files
#   hK/sshd.pid                                the sshd PID (started here)
# Namespaces: spx-br (bridge br0), spx-ctl (10.77.0.254), spx-h1..spx-hN
# (10.77.0.1..N), all on 10.77.0.0/24. The test user spxbed (no password,
# key login only, not root) is created by "up" and removed by "down".
set -euo pipefail

dir=${NETNS_DIR:-/tmp/spx-netns}
net=10.77.0
user=spxbed
home=/home/$user
br=spx-br
ctl=spx-ctl

die() {
	echo "netns-cluster.sh: $*" >&2
	exit 1
}
need_root() { [ "$(id -u)" = 0 ] || die "needs root (network namespaces, a bridge and sshd); run it as root"; }

ssh_opts() {
	printf '%s' "-F none -i $dir/id_ed25519 -o IdentitiesOnly=yes -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes -o LogLevel=ERROR"
}

hosts_up() { ls -d "$dir"/h[0-9]* 2>/dev/null | sed 's|.*/h||' | sort -n; }

up() {
	local n=$1 k
	[[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 200 ] || die "up needs a host count 1..200"
	need_root
	command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || die "no sshd: apt-get install openssh-server"
	command -v ssh-keygen >/dev/null || die "no ssh-keygen: apt-get install openssh-client"
	ip netns list | grep -qw "$br" && die "already up (run down first)"
	[ ! -e "$dir" ] || die "$dir exists (run down first)"
	local sshd
	sshd=$(command -v sshd || echo /usr/sbin/sshd)

	mkdir -p "$dir" /run/sshd
	chmod 755 "$dir"
	if ! id "$user" >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir "$home" --shell /bin/bash "$user"
		usermod -p '*' "$user" # no password, yet not "locked": key login works
		touch "$dir/created-user"
	fi
	mkdir -p "$home"
	ssh-keygen -q -t ed25519 -N '' -C "spx-netns-user" -f "$dir/id_ed25519"
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	chmod 644 "$dir/authorized_keys"
	: >"$dir/known_hosts"

	ip netns add "$br"
	ip -n "$br" link set lo up
	ip -n "$br" link add br0 type bridge
	ip -n "$br" link set br0 up
	# attach NS ADDR: a veth from namespace NS (eth0, ADDR/24) to the bridge.
	attach() {
		local ns=$1 addr=$2 port=$3
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip -n "$br" link add "$port" type veth peer name eth0 netns "$ns"
		ip -n "$br" link set "$port" master br0 up
		ip -n "$ns" addr add "$addr/24" dev eth0
		ip -n "$ns" link set eth0 up
	}
	attach "$ctl" "$net.254" pctl
	for ((k = 1; k <= n; k++)); do
		attach "spx-h$k" "$net.$k" "p$k"
		mkdir -p "$dir/h$k/home"
		chown "$user:" "$dir/h$k/home"
		chmod 700 "$dir/h$k/home"
		ssh-keygen -q -t ed25519 -N '' -C "spx-h$k" -f "$dir/h$k/ssh_host_ed25519_key"
		echo "$net.$k $(cut -d' ' -f1,2 "$dir/h$k/ssh_host_ed25519_key.pub")" >>"$dir/known_hosts"
		cat >"$dir/h$k/sshd_config" <<EOF
ListenAddress $net.$k:22
HostKey $dir/h$k/ssh_host_ed25519_key
PidFile none
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $user
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
X11Forwarding no
PrintMotd no
MaxStartups 100
MaxSessions 100
Subsystem sftp internal-sftp
EOF
		# sshd in host k's network namespace and in a private mount
		# namespace where the test user's home is host k's work directory.
		ip netns exec "spx-h$k" unshare --mount --propagation private \
			sh -c "mount --bind '$dir/h$k/home' '$home' && exec '$sshd' -D -e -f '$dir/h$k/sshd_config'" \
			>"$dir/h$k/sshd.log" 2>&1 &
		echo $! >"$dir/h$k/sshd.pid"
	done
	# Ready when every sshd answers: probe each from the control namespace
	# (every 50 ms, at most 200 times per host).
	for ((k = 1; k <= n; k++)); do
		local i
		for ((i = 0; ; i++)); do
			ip netns exec "$ctl" bash -c "exec 3<>/dev/tcp/$net.$k/22" 2>/dev/null && break
			kill -0 "$(cat "$dir/h$k/sshd.pid")" 2>/dev/null || die "sshd of host $k exited: $(tail -3 "$dir/h$k/sshd.log")"
			[ "$i" -lt 200 ] || die "sshd of host $k is not listening after 10 s"
			sleep 0.05
		done
	done
	echo "up: $n hosts $net.1-$net.$n (namespaces spx-h1..spx-h$n), control namespace $ctl ($net.254); user $user; state in $dir"
	echo "run the launcher with: scripts/netns-cluster.sh ctl ./run-multi-client.sh --hosts -c scripts/netns.conf"
}

# pids: "NAMESPACE PID COMMAND" for every process in the cluster's namespaces.
pids() {
	local ns p
	for ns in $(ip netns list | awk '$1 ~ /^spx-/ { print $1 }'); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			printf '%s %s %s\n' "$ns" "$p" "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | cut -c1-120)"
		done
	done
}

down() {
	need_root
	local k p left
	for k in $(hosts_up); do
		p=$(cat "$dir/h$k/sshd.pid" 2>/dev/null || true)
		[ -z "$p" ] || kill -TERM "$p" 2>/dev/null || true
	done
	for k in $(hosts_up); do
		p=$(cat "$dir/h$k/sshd.pid" 2>/dev/null || true)
		[ -z "$p" ] || wait "$p" 2>/dev/null || true
		# not our child when down runs in another shell than up: wait
		# for it to go, at most 5 s.
		for ((i = 0; i < 100; i++)); do
			[ -n "$p" ] && kill -0 "$p" 2>/dev/null || break
			sleep 0.05
		done
	done
	# Anything still in a namespace of ours was started in it (by a
	# session or a launcher): report it and stop it by its PID.
	left=$(pids)
	if [ -n "$left" ]; then
		echo "netns-cluster.sh: processes left in the cluster's namespaces, stopping them:" >&2
		echo "$left" >&2
		while read -r _ p _; do kill -KILL "$p" 2>/dev/null || true; done <<<"$left"
	fi
	for ns in $(ip netns list | awk '$1 ~ /^spx-/ { print $1 }'); do
		ip netns del "$ns"
	done
	if [ -e "$dir/created-user" ]; then
		userdel "$user" 2>/dev/null || true
	fi
	rmdir "$home" 2>/dev/null || true
	rm -rf "$dir"
	echo "down: namespaces, sshds, user $user and $dir removed"
}

# netem_probe: succeeds when the kernel has the netem qdisc; else prints
# tc's answer. It tries one on a veth pair in a namespace of its own.
netem_probe() {
	local ns=spx-netem-probe rc=0 err
	ip netns add "$ns"
	ip -n "$ns" link add probe0 type veth peer name probe1
	err=$(ip netns exec "$ns" tc qdisc add dev probe0 root netem delay 1ms 2>&1) || rc=$?
	ip netns del "$ns"
	[ "$rc" = 0 ] || printf '%s\n' "$err"
	return "$rc"
}

# netem CONF OUT: on every host k, an HTB tree on eth0 whose classes, one
# per destination address with a delay, each end in a netem qdisc with the
# one-way delay of CONF's latency model (scripts/netem pairs); unlisted
# destinations go through class 1:1 without delay.
netem() {
	local conf=$1 outconf=$2 err k here
	need_root
	[ -n "$(hosts_up)" ] || die "no cluster (run up first)"
	if ! err=$(netem_probe); then
		echo "netns-cluster.sh: this kernel has no netem qdisc (tc: $err); use run-multi-client.sh --proxy (toxiproxy) instead" >&2
		exit 3
	fi
	here=$(cd "$(dirname "$0")/.." && pwd)
	(cd "$here/scripts/netem" && go build -o "$here/bin/netem" .)
	"$here/bin/netem" strip -config "$conf" >"$outconf"
	local pairs
	pairs=$("$here/bin/netem" pairs -config "$conf")
	for k in $(hosts_up); do
		local ns=spx-h$k n=0 from to ms
		tc -n "$ns" qdisc del dev eth0 root 2>/dev/null || true
		tc -n "$ns" qdisc add dev eth0 root handle 1: htb default 1
		tc -n "$ns" class add dev eth0 parent 1: classid 1:1 htb rate 10gbit quantum 60000
		while read -r from to ms; do
			[ "$from" = "$net.$k" ] || continue
			n=$((n + 1))
			tc -n "$ns" class add dev eth0 parent 1: classid "1:$((10 + n))" htb rate 10gbit quantum 60000
			tc -n "$ns" qdisc add dev eth0 parent "1:$((10 + n))" handle "$((10 + n)):" netem delay "${ms}ms" limit 100000
			tc -n "$ns" filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "$to/32" flowid "1:$((10 + n))"
			echo "netem: $from -> $to ${ms} ms"
		done <<<"$pairs"
	done
	echo "netem: applied; run with: scripts/netns-cluster.sh ctl ./run-multi-client.sh --hosts -c $outconf"
}

netem_off() {
	need_root
	local k
	for k in $(hosts_up); do tc -n "spx-h$k" qdisc del dev eth0 root 2>/dev/null || true; done
}

status() {
	ip netns list | grep '^spx-' || { echo "no cluster"; return 0; }
	local k
	for k in $(hosts_up); do
		printf 'host %s: %s\n' "$k" "$(ip -n "spx-h$k" -br addr show eth0 2>/dev/null)"
	done
	pids
}

cmd=${1:-}
shift || true
case "$cmd" in
up) up "${1:-}" ;;
down) down ;;
status) status ;;
pids) pids ;;
netem) [ $# = 2 ] || die "netem needs CONF OUT"; netem "$1" "$2" ;;
netem-off) netem_off ;;
env)
	echo "SSH_USER=$user"
	echo "SSH_OPTS='$(ssh_opts)'"
	echo "PROXY_IP=$net.254"
	;;
ctl)
	need_root
	[ $# -gt 0 ] || die "ctl needs a command"
	exec ip netns exec "$ctl" env SSH_USER="$user" SSH_OPTS="$(ssh_opts)" PROXY_IP="$net.254" "$@"
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
