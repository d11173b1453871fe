#!/usr/bin/env bash
# make cluster: starts replicas of examples/everything sharing one Redis
# behind nginx round-robin (up.sh), runs the checks below through nginx,
# one after another, each whatever the one before it found, then stops
# everything it started (down.sh, at exit, on failure and interrupt too):
#
#   conformance  the official conformance suite's server legs, both
#                requirement sets (2026-07-28 and 2025-11-25), through
#                conformance/run.sh with no baseline: nothing is excused;
#   interop      the TypeScript SDK's clients, 1.32.2 (legacy session) and
#                2.4.0 (2026-07-28), with the interop tests' checks
#                (interop/cluster_test.go, tags interop and cluster);
#   failover     examples/everything/cluster_test.go (tag cluster): a
#                replica SIGKILLed under a stream of calls, a legacy
#                session and its SSE streams outliving the replica that
#                opened them, and Redis stopped (SIGSTOP) under requests.
#                It kills and restarts replicas, so it runs last.
#
# It prints a verdict per check (for conformance, with its counts per
# requirement set and the name of each check that failed) and exits
# non-zero when one fails.
#
# Usage: cluster/run.sh [CHECK...]   (default: conformance interop failover)
#
#   CLUSTER_REPLICAS=N  replicas (default 3); with 1, conformance and interop
#                       check the harness itself (nginx, SSE, headers), and
#                       the failover tests, which need 2, fail saying so
#   CLUSTER_KEEP=1      keep the cluster's directory (logs, nginx.conf) at exit
#
# Needs Go, bash, npm and root for apt-get when nginx or redis-server is
# missing; conformance/run.sh installs Node 22 when the node on PATH is
# older.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
cd "$root"

checks=("$@")
((${#checks[@]})) || checks=(conformance interop failover)
for c in "${checks[@]}"; do
	case $c in conformance | interop | failover) ;; *) echo "usage: cluster/run.sh [conformance|interop|failover]..." >&2; exit 2 ;; esac
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-cluster.XXXXXX")
# The check running now, in a process group of its own (set -m below).
check=
down() {
	local status=$?
	if [[ -n $check ]]; then
		kill -TERM -- "-$check" 2>/dev/null || true
	fi
	if [[ ${CLUSTER_KEEP:-0} == 1 ]]; then
		echo "cluster: kept $dir" >&2
	fi
	bash "$here/down.sh" "$dir" || status=1
	exit $status
}
trap down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash "$here/up.sh" "$dir"
export CLUSTER_ENV=$dir/cluster.env
url=$(sed -n 's/^CLUSTER_URL=//p' "$CLUSTER_ENV")

verdicts=()
run_check() {
	local name=$1
	shift
	printf '\n=== cluster: %s (at %ds)\n' "$name" "$SECONDS"
	# In the background, in a process group of its own, and waited for:
	# bash runs the INT and TERM traps as soon as the signal comes, where
	# it would let a foreground check that catches the signal swallow it
	# and go on to the next check; the EXIT trap then ends the check's
	# whole group.
	set -m
	"$@" &
	check=$!
	set +m
	local status=0
	wait "$check" || status=$?
	check=
	if ((status == 0)); then
		verdicts+=("PASS $name")
	else
		verdicts+=("FAIL $name")
	fi
}

for c in "${checks[@]}"; do
	case $c in
	conformance)
		# Its output is kept too, for the counts per requirement set.
		run_check "conformance (server legs 2026-07-28 and 2025-11-25 through nginx, no baseline)" \
			env CONFORMANCE_SERVER_URL="$url" CONFORMANCE_LEGS=server CONFORMANCE_BASELINE=/dev/null \
			bash -c 'bash conformance/run.sh 2>&1 | tee "$0"; exit "${PIPESTATUS[0]}"' "$dir/conformance.out"
		while IFS= read -r line; do
			verdicts+=("     $line")
		done < <(grep -E '^server@[0-9-]+: ' "$dir/conformance.out" || true)
		# and the checks that failed, by name, for a log read from its tail
		while IFS= read -r line; do
			verdicts+=("       failed: ${line#"${line%%[! ]*}"}")
		done < <(awk '/^Failing and not in baseline.txt:/ { on = 1; next } on && /^  / { print; next } { on = 0 }' "$dir/conformance.out")
		;;
	interop)
		(cd interop && npm ci --silent --no-audit --no-fund)
		run_check "interop (TypeScript SDK 1.32.2 legacy and 2.4.0 modern clients through nginx)" \
			go test -count=1 -tags interop,cluster -run '^TestCluster' -v ./interop/
		;;
	failover)
		run_check "failover (replica killed, legacy session, SSE resume, Redis stopped)" \
			go test -count=1 -tags cluster -run '^TestCluster' -v ./examples/everything/
		;;
	esac
done

printf '\n=== cluster: verdicts (%ds)\n' "$SECONDS"
failed=0
for v in "${verdicts[@]}"; do
	echo "$v"
	[[ $v != FAIL* ]] || failed=1
done
exit $failed
