# Helpers shared by up.sh, replica.sh and down.sh; sourced, not run.

# free_port prints a localhost TCP port nobody listens on, other than the
# ports given as arguments, below the kernel's ephemeral range: a port in
# that range may be the local end of an outgoing connection (a replica's
# to Redis, a client's to nginx) by the time it is listened on, and the
# listen fails with "address already in use". Another process may still
# take the port before it is used; the callers fail then rather than
# guess.
free_port() {
	local port taken low=32768
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	((low > 12000)) || low=32768 # a range starting that low leaves no room below: the default's
	for _ in $(seq 200); do
		port=$((10000 + RANDOM % (low - 10000)))
		taken=0
		for p in "$@"; do [[ $p == "$port" ]] && taken=1; done
		((taken)) && continue
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	echo "cluster: no free port found" >&2
	return 1
}

# http_answers ADDR prints the status line of a GET /mcp to ADDR (HOST:PORT)
# and succeeds when an HTTP status line came back within two seconds.
http_answers() {
	local host=${1%:*} port=${1##*:} line
	exec 3<>"/dev/tcp/$host/$port" || return 1
	printf 'GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n' "$1" >&3
	IFS= read -r -t 2 line <&3 || { exec 3>&-; return 1; }
	exec 3>&-
	[[ $line == HTTP/1.* ]] || return 1
	echo "${line%$'\r'}"
}

# owned PID PATTERN succeeds when PID is alive and its command line holds
# PATTERN, so that a pid file left by an earlier run never makes us signal
# a process that reused the number.
owned() {
	[[ -n $1 && -r /proc/$1/cmdline ]] || return 1
	tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$2"
}

# stop_pid PID PATTERN: SIGCONT (a stopped process cannot act on TERM),
# SIGTERM, then SIGKILL after five seconds, waiting until it is gone.
stop_pid() {
	local pid=$1 pattern=$2
	owned "$pid" "$pattern" || return 0
	kill -CONT "$pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		owned "$pid" "$pattern" || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		owned "$pid" "$pattern" || return 0
		sleep 0.1
	done
	echo "cluster: pid $pid ($pattern) does not exit" >&2
	return 1
}

# ensure_command CMD PACKAGE installs the Debian package when CMD is not on
# PATH (as .ci/run does; needs root).
ensure_command() {
	command -v "$1" >/dev/null 2>&1 && return 0
	[[ -x /usr/sbin/$1 ]] && return 0
	echo "cluster: installing $2 (no $1 on PATH)" >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
}
