#!/usr/bin/env bash
# Stops what up.sh (and replica.sh) started in DIR: nginx, the replicas and
# redis-server, each by the pid in its pid file and only when that process
# is still the one started there (a stopped one is continued first), then
# removes DIR unless CLUSTER_KEEP=1. Safe to run twice, and on a DIR that
# up.sh left half-made.
#
# Usage: cluster/down.sh DIR
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

[[ $# -eq 1 ]] || { echo "usage: cluster/down.sh DIR" >&2; exit 2; }
dir=$1
[[ -d $dir ]] || exit 0
status=0
pidof_file() { cat "$1" 2>/dev/null || true; }

[[ -f $dir/nginx.pid ]] && { stop_pid "$(pidof_file "$dir/nginx.pid")" "$dir" || status=1; }
bin=$dir/everything
[[ -f $dir/cluster.env ]] && bin=$(sed -n 's/^CLUSTER_BIN=//p' "$dir/cluster.env")
for f in "$dir"/replica-*.pid; do
	[[ -f $f ]] || continue
	stop_pid "$(pidof_file "$f")" "$bin" || status=1
done
[[ -f $dir/redis.pid ]] && { stop_pid "$(pidof_file "$dir/redis.pid")" redis-server || status=1; }

if [[ ${CLUSTER_KEEP:-0} != 1 ]]; then
	rm -rf "$dir"
fi
exit $status
