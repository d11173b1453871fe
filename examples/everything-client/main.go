// Command everything-client is the MCP client that the conformance suite
// (@modelcontextprotocol/conformance) tests in its client scenarios. The
// suite starts a test server, then runs this command with the server's URL
// as the last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO;
// conformance/CONTRACT.md says what each scenario expects. The client
// connects over Streamable HTTP (runtime/streamable), does what the
// scenario asks, and exits 0, or 1 with the reason on stderr.
//
//	MCP_CONFORMANCE_SCENARIO=tools_call go run ./examples/everything-client http://localhost:3001/mcp
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=NAME everything-client [ARGS...] URL")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 25*time.Second) // the suite waits 30 s
	defer cancel()

	if err := run(ctx, log, scenario, version, url); err != nil {
		fmt.Fprintf(os.Stderr, "everything-client: scenario %q: %v\n", scenario, err)
		os.Exit(1)
	}
	log.Info("scenario done", "scenario", scenario)
}

// errUnknownScenario is returned for a scenario this client does not know.
var errUnknownScenario = errors.New("unknown scenario; this client knows " + fmt.Sprint(scenarioNames()))
