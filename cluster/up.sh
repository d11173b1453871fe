#!/usr/bin/env bash
# Starts a cluster of examples/everything behind nginx in DIR (created when
# missing) and writes DIR/cluster.env, which down.sh, run.sh and the Go
# tests and benchmarks that take CLUSTER_ENV read:
#
#   redis-server   on a free localhost port, no persistence (--save ""),
#                  its files in DIR/redis;
#   N replicas     of examples/everything (built once into DIR/everything),
#                  each on a free localhost port, all with the same -redis
#                  URL and one random EVERYTHING_STATE_KEY (replica.sh);
#   nginx          on a free localhost port, round-robin over the replicas
#                  without stickiness (nginx.conf.tmpl), daemonized with its
#                  pid file, logs and temp files in DIR.
#
# It returns once each replica and nginx answer HTTP. On failure it prints
# the logs, stops what it started (down.sh) and exits non-zero.
#
# Usage: cluster/up.sh DIR
#
#   CLUSTER_REPLICAS=N      replicas (default 3)
#   CLUSTER_STORE=memory    no Redis: each replica keeps its state in memory,
#                           which is only coherent with one replica
#   CLUSTER_BIN=PATH        an examples/everything binary to run instead of
#                           building one
#
# nginx and redis-server are installed from Debian when missing (apt-get,
# as root).
#
# cluster.env is KEY=VALUE lines, no quoting, for `source` and for Go:
#   CLUSTER_DIR, CLUSTER_SCRIPTS (this folder), CLUSTER_URL (nginx's
#   http://HOST:PORT/mcp), CLUSTER_NGINX_ADDR,
#   CLUSTER_REPLICAS, CLUSTER_REPLICA_ADDRS (comma-separated, replica 1 first),
#   CLUSTER_BIN, CLUSTER_STORE, CLUSTER_REDIS_ADDR and CLUSTER_REDIS_URL
#   (empty without Redis), EVERYTHING_STATE_KEY.
# The pids are in DIR/redis.pid, DIR/replica-I.pid and DIR/nginx.pid (the
# master), the logs in DIR/redis.log, DIR/replica-I.log, DIR/nginx-*.log.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
source "$here/lib.sh"

[[ $# -eq 1 ]] || { echo "usage: cluster/up.sh DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
replicas=${CLUSTER_REPLICAS:-3}
store=${CLUSTER_STORE:-redis}
case $store in redis | memory) ;; *) echo "cluster: CLUSTER_STORE must be redis or memory, not $store" >&2; exit 2 ;; esac

ok=0
fail() {
	((ok)) && return
	echo "cluster: up.sh failed; the logs:" >&2
	for log in "$dir"/*.log; do
		[[ -f $log ]] || continue
		echo "--- $log" >&2
		tail -n 20 "$log" >&2
	done
	CLUSTER_KEEP=1 bash "$here/down.sh" "$dir" || true
}
trap fail EXIT

ensure_command nginx nginx-light
[[ $store == memory ]] || ensure_command redis-server redis-server
nginx=$(command -v nginx || echo /usr/sbin/nginx)

if [[ -n ${CLUSTER_BIN:-} ]]; then
	bin=$CLUSTER_BIN
else
	bin=$dir/everything
	go build -C "$root/examples" -o "$bin" ./everything
fi

ports=()
redis_addr='' redis_url=''
if [[ $store == redis ]]; then
	port=$(free_port)
	ports+=("$port")
	redis_addr=127.0.0.1:$port
	redis_url=redis://$redis_addr/0
	mkdir -p "$dir/redis"
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
		--dir "$dir/redis" --logfile "$dir/redis.log" --daemonize no \
		</dev/null >>"$dir/redis.log" 2>&1 &
	echo $! >"$dir/redis.pid"
	up=0
	for _ in $(seq 100); do
		# In a subshell: an exec with redirections alone, and the 2>/dev/null
		# around it, would stay on this shell, whose errors would go nowhere.
		if (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 && IFS= read -r -t 1 line <&3 && [[ $line == +PONG* ]]) 2>/dev/null; then
			up=1
			break
		fi
		sleep 0.1
	done
	((up)) || { echo "cluster: redis-server does not answer PING on $redis_addr" >&2; exit 1; }
fi

addrs=()
for i in $(seq "$replicas"); do
	port=$(free_port "${ports[@]}")
	ports+=("$port")
	addrs+=("127.0.0.1:$port")
done
nginx_port=$(free_port "${ports[@]}")

key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
{
	echo "CLUSTER_DIR=$dir"
	echo "CLUSTER_SCRIPTS=$here"
	echo "CLUSTER_URL=http://127.0.0.1:$nginx_port/mcp"
	echo "CLUSTER_NGINX_ADDR=127.0.0.1:$nginx_port"
	echo "CLUSTER_REPLICAS=$replicas"
	echo "CLUSTER_REPLICA_ADDRS=$(IFS=,; echo "${addrs[*]}")"
	echo "CLUSTER_BIN=$bin"
	echo "CLUSTER_STORE=$store"
	echo "CLUSTER_REDIS_ADDR=$redis_addr"
	echo "CLUSTER_REDIS_URL=$redis_url"
	echo "EVERYTHING_STATE_KEY=$key"
} >"$dir/cluster.env"

for i in $(seq "$replicas"); do
	bash "$here/replica.sh" "$dir" "$i"
done

servers=''
for a in "${addrs[@]}"; do
	servers+=$'\t\t'"server $a max_fails=1 fail_timeout=2s;"$'\n'
done
user=''
[[ $(id -u) == 0 ]] && user="user $(id -un);" # workers read the temp dirs as we do
mkdir -p "$dir/nginx-tmp"
awk -v dir="$dir" -v port="$nginx_port" -v user="$user" -v servers="${servers%$'\n'}" '
	$0 == "@SERVERS@" { print servers; next }
	{ gsub(/@DIR@/, dir); gsub(/@PORT@/, port); gsub(/@USER@/, user); print }
' "$here/nginx.conf.tmpl" >"$dir/nginx.conf"
"$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log"

# nginx answers, and through it each replica (round-robin: as many
# requests as replicas reach each once); 502 means a replica did not.
up=0
for _ in $(seq 50); do
	if [[ -s $dir/nginx.pid ]] && status=$(http_answers "127.0.0.1:$nginx_port") && [[ $status != *" 502 "* ]]; then
		up=1
		break
	fi
	sleep 0.1
done
((up)) || { echo "cluster: nginx does not answer on 127.0.0.1:$nginx_port (last: ${status:-nothing})" >&2; exit 1; }
for _ in $(seq "$replicas"); do
	status=$(http_answers "127.0.0.1:$nginx_port") || { echo "cluster: nginx stopped answering" >&2; exit 1; }
	[[ $status != *" 502 "* && $status != *" 504 "* ]] || { echo "cluster: through nginx: $status" >&2; exit 1; }
done

ok=1
echo "cluster: $replicas replicas ($store) behind nginx at http://127.0.0.1:$nginx_port/mcp; env in $dir/cluster.env" >&2
