# Developer and CI entry points for mcpgen. See README.md.

# The MCP schema versions generated/mcp is built from, oldest first.
# Keep in step with internal/shared.Versions.
VERSIONS := 2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28

# The folder holding schema/<version>/schema.json: $MCPGEN_SHARED, else the
# shared folder beside the repository root.
SHARED ?= $(or $(MCPGEN_SHARED),../shared)
# Expand SHARED now, so that `generate` is given the path as written (a
# relative path keeps machine paths out of what the generator records) and
# not the absolute value exported below.
SHARED := $(SHARED)

# Tests run in their package's directory, so give them an absolute path.
export MCPGEN_SHARED := $(abspath $(SHARED))

# The repository's Go modules, each a folder with its own go.mod: the core
# (github.com/mcpgen/mcpgen), the examples, the benchmarks and the Redis
# stores (store/redis, whose tests `redis` runs). go.work at the root ties
# them together, yet `./...` matches only the packages of the module whose
# folder it names: from the root it is the core alone, and ./examples/...
# names the examples.
MODULES := . examples bench store/redis gateway

.DEFAULT_GOAL := test
.PHONY: generate check test modules interop bench soak fuzz hostile conformance redis cluster bench-cluster gateway

# Regenerate the protocol package from the official schemas, and the tasks
# extension's package, whose copies of core definitions are generated/mcp's
# types, from its schema and the newest core schema.
generate:
	go run ./cmd/mcpgen protocol $(foreach v,$(VERSIONS),--schema $(v)=$(SHARED)/schema/$(v)/schema.json) --out generated/mcp --package mcp
	go run ./cmd/mcpgen protocol --schema draft=$(SHARED)/schema/ext-tasks/draft/schema.json --core $(SHARED)/schema/$(lastword $(VERSIONS))/schema.json --core-package github.com/mcpgen/mcpgen/generated/mcp --out generated/tasks --package tasks

# Formatting of every module, vet of the core and the examples (the bench
# module's is in `test`), and the generator's tests, which include the check
# that the committed generated/mcp is what `generate` would write.
check:
	@out=$$(find . -name '*.go' -not -path './.cache/*' -not -path '*/testdata/*' -exec gofmt -l {} + 2>&1); \
	if [ -n "$$out" ]; then echo "gofmt -l:"; echo "$$out"; exit 1; fi
	go vet ./... ./examples/...
	go test ./generated/... ./gen/...

# All tests of the core and the examples modules under the race detector,
# in one run, then the bench module's vet and tests (its benchmarks do not
# run here: see `bench`), then the interop tests. Each module's tests run
# once: ./... stops at the nested modules' folders.
test:
	go test -race -count=1 ./... ./examples/...
	cd bench && go vet ./... && go test -count=1 -run . ./...
	cd gateway && go vet ./... && go test -race -count=1 ./...
	$(MAKE) interop

# Each module on its own, outside the workspace (GOWORK=off), as a user of
# it builds it: it builds and vets with only its own go.mod, and
# `go mod tidy` would change neither its go.mod nor its go.sum. This is
# what catches a module that builds only thanks to go.work, such as the
# core coming to require a nested module, which the first line forbids.
modules:
	@if GOWORK=off go list -m all | grep '^github.com/mcpgen/mcpgen/'; then \
		echo "modules: the core module requires a module of this repository (above)"; exit 1; fi
	@set -e; for m in $(MODULES); do \
		echo "==> $$m (GOWORK=off)"; \
		(cd $$m && GOWORK=off go build ./... && GOWORK=off go vet ./... && GOWORK=off go mod tidy -diff); \
	done

# The Redis stores' module (store/redis, its own go.mod), alone (GOWORK=off,
# as `modules` builds it), tested against a real redis-server that the tests
# start on a free port, then examples/everything's -redis mode (its tests
# under the redis build tag: two replicas sharing one Redis); installs the
# Debian package when redis-server is missing, as .ci/run does for make.
redis:
	@command -v redis-server >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; }
	cd store/redis && GOWORK=off go vet ./... && GOWORK=off go test -race -count=1 ./...
	cd examples && GOWORK=off go vet -tags redis ./everything/ && GOWORK=off go test -race -count=1 -tags redis -run Redis ./everything/

# mcpgen against the official TypeScript SDK and reference server, pinned
# by interop/package-lock.json. Needs node and npm on PATH.
interop:
	cd interop && npm ci --no-audit --no-fund
	go test -race -count=1 -tags interop ./interop/
	go test -count=1 -tags interop -run TestInitEndToEnd ./cmd/mcpgen/

# Benchmarks against the peer SDKs; compare runs with benchstat.
# The gateway's benchmarks (64 of them) have their own target, bench-gateway.
bench:
	cd bench && go test -run '^$$' -bench . -benchmem -count 5 $$(go list ./... | grep -v /bench/gateway$$)

# The soak benchmark: 10,000 Streamable HTTP sessions opened and closed
# over 60 s with calls in flight, failing when goroutines or heap do not
# come back to their baseline. `bench` runs a short one.
soak:
	cd bench && go test -run '^$$' -bench '^BenchmarkSoak$$' -benchtime 1x ./soak/ -soak.sessions=10000 -soak.duration=60s

# Time each fuzz target gets in `fuzz`.
FUZZTIME ?= 60s

# Every fuzz target of every module for FUZZTIME each, one go test run
# per target (see .ci/fuzz). A failing input is saved under the package's
# testdata/fuzz, where the ordinary tests replay it.
fuzz:
	bash .ci/fuzz $(FUZZTIME)

# mcpgen's and the official Go SDK's servers played against hostile
# clients (bench/hostile): a table of what each case found, in a few
# minutes.
hostile:
	cd bench && go run ./hostile/cmd/hostile

# The official MCP conformance suite (pinned in conformance/package.json, on
# Node 22) against examples/everything and examples/everything-client;
# prints the counts and fails on any failure conformance/baseline.txt does
# not excuse.
conformance:
	bash conformance/run.sh

# Three replicas of examples/everything sharing one Redis behind nginx
# round-robin, without stickiness (cluster/up.sh), and through nginx: the
# conformance suite's server legs with nothing excused, the TypeScript
# SDK's clients of both eras, and the failover tests (a replica killed
# under calls, a legacy session and its SSE streams outliving their
# replica, Redis stopped); see cluster/run.sh. Installs nginx and
# redis-server from Debian when missing. A few minutes.
cluster:
	bash cluster/run.sh

# Tool calls a second through nginx, and the processor time per call of
# the replicas and of Redis, with 1, 2 and 3 replicas sharing one Redis
# and with one replica in memory, for legacy sessions and 2026-07-28
# calls (bench/cluster, on cluster/up.sh): a table, in about a minute.
bench-cluster:
	cd bench && go run ./cluster

# What mcpgen-gateway costs: tool calls through it against the same
# upstream directly (stdio and Streamable HTTP upstreams, legacy sessions
# and 2026-07-28 clients, 1 and 16 clients, an echo tool and a 2 ms one),
# p50/p99 latency, calls a second and their ratio, and the heap per
# downstream session (bench/gateway): a table, in about two minutes.
.PHONY: bench-gateway
bench-gateway:
	cd bench && go run ./gateway

# Transparency of the gateway: examples/everything over stdio behind
# mcpgen-gateway with an empty prefix, and the conformance suite's server
# legs (2025-11-25 and 2026-07-28) against the gateway's /mcp, with no
# excused checks. Needs what conformance/run.sh needs.
GATEWAY_ADDR ?= 127.0.0.1:18090
gateway:
	@set -e; dir=$$(mktemp -d); trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null; rm -rf $$dir' EXIT; \
	go build -o $$dir/everything ./examples/everything; \
	(cd gateway && go build -o $$dir/mcpgen-gateway ./cmd/mcpgen-gateway); \
	printf 'listen: %s\nservers:\n  default:\n    upstreams:\n      - name: everything\n        command: ["%s/everything", "-stdio"]\n        prefix: ""\n' $(GATEWAY_ADDR) $$dir > $$dir/gateway.yaml; \
	$$dir/mcpgen-gateway serve --config $$dir/gateway.yaml 2>$$dir/gateway.log & pid=$$!; \
	for i in $$(seq 50); do curl -s -o /dev/null http://$(GATEWAY_ADDR)/mcp && break; sleep 0.2; done; \
	CONFORMANCE_SERVER_URL=http://$(GATEWAY_ADDR)/mcp CONFORMANCE_LEGS=server CONFORMANCE_BASELINE=/dev/null conformance/run.sh -v || { tail -20 $$dir/gateway.log; exit 1; }
