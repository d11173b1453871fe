#!/usr/bin/env bash
# Starts replica I (1-based) of the cluster up.sh wrote into DIR, with the
# address, Redis URL and EVERYTHING_STATE_KEY of DIR/cluster.env, writes
# its pid to DIR/replica-I.pid and returns once it answers HTTP. The
# replica's output goes to DIR/replica-I.log, appended, so a restarted
# replica keeps its predecessor's log. Tests restart a replica they
# killed with it.
#
# Usage: cluster/replica.sh DIR I
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

[[ $# -eq 2 ]] || { echo "usage: cluster/replica.sh DIR I" >&2; exit 2; }
dir=$1 i=$2
source "$dir/cluster.env"
IFS=, read -r -a addrs <<<"$CLUSTER_REPLICA_ADDRS"
addr=${addrs[$((i - 1))]:-}
[[ -n $addr ]] || { echo "cluster: no replica $i in $dir/cluster.env" >&2; exit 2; }
if owned "$(cat "$dir/replica-$i.pid" 2>/dev/null)" "$CLUSTER_BIN"; then
	echo "cluster: replica $i is already running" >&2
	exit 1
fi

args=(-http "$addr")
[[ -z $CLUSTER_REDIS_URL ]] || args+=(-redis "$CLUSTER_REDIS_URL")
# Every descriptor goes to the log: a caller reading our output (a Go
# test's exec.Cmd) must see it end when this script does.
echo "=== replica $i: $CLUSTER_BIN ${args[*]} ($(date -u +%FT%TZ))" >>"$dir/replica-$i.log"
EVERYTHING_STATE_KEY=$EVERYTHING_STATE_KEY "$CLUSTER_BIN" "${args[@]}" </dev/null >>"$dir/replica-$i.log" 2>&1 &
pid=$!
echo "$pid" >"$dir/replica-$i.pid"
for _ in $(seq 100); do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "cluster: replica $i exited at start:" >&2
		tail -n 20 "$dir/replica-$i.log" >&2
		exit 1
	fi
	if http_answers "$addr" >/dev/null 2>&1; then
		exit 0
	fi
	sleep 0.1
done
echo "cluster: replica $i does not answer on $addr" >&2
exit 1
