package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// scenario is what the client does in one of the suite's scenarios, over a
// session that is already initialized.
type scenario struct {
	opts func(*client.Options) // adds handlers before connecting, or nil
	// http returns the HTTP client of the transport, or is nil for the
	// transport's own.
	http func(log *slog.Logger, name string) (*http.Client, error)
	run  func(ctx context.Context, log *slog.Logger, sess *client.Session) error
}

var scenarios = map[string]scenario{
	"initialize":                          {run: listTools},
	"tools_call":                          {run: addNumbers},
	"elicitation-sep1034-client-defaults": {opts: acceptDefaults, run: elicitationDefaults},
	"sse-retry":                           {run: reconnection},
	"json-schema-2020-12-preservation":    {run: echoSchema},
	// The 2026-07-28 scenarios (modern.go).
	"request-metadata":              {run: listTools},
	"sep-2322-client-request-state": {opts: confirmElicitation, run: requestState},
	"http-standard-headers":         {run: standardHeaders},
	"http-custom-headers":           {run: customHeaders},
	"http-invalid-tool-headers":     {run: callKeptTools},
	"json-schema-ref-no-deref":      {run: listTools},
}

func scenarioNames() []string {
	var names []string
	for n := range scenarios {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// run connects to url and plays the scenario. version, from
// MCP_CONFORMANCE_PROTOCOL_VERSION, pins the era: the suite runs each
// scenario at one version, and a legacy server of the suite answers an
// unknown request (a server/discover probe) with an empty result.
func run(ctx context.Context, log *slog.Logger, name, version, url string) error {
	sc, ok := scenarios[name]
	if !ok {
		return errUnknownScenario
	}
	opts := &client.Options{Logger: log, ProtocolVersion: mcp.ProtocolVersion(version)}
	if sc.opts != nil {
		sc.opts(opts)
	}
	topts := &streamable.ClientOptions{Logger: log}
	if sc.http != nil {
		hc, err := sc.http(log, name)
		if err != nil {
			return err
		}
		topts.HTTPClient = hc
	}
	t := streamable.NewClientTransport(url, topts)
	sess, err := client.New(mcp.Implementation{Name: "mcpgen-everything-client", Version: "1.0.0"}, opts).Connect(ctx, t)
	if err != nil {
		return err
	}
	defer sess.Close()
	log.Info("connected", "era", sess.Era(), "version", sess.ProtocolVersion(), "session", t.SessionID())
	return sc.run(ctx, log, sess)
}

// listTools is the initialize scenario: the handshake is the test; the
// tools are listed to show the session works.
func listTools(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	res, err := sess.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	log.Info("tools/list", "tools", len(res.Tools))
	return nil
}

// addNumbers calls add_numbers with numeric arguments.
func addNumbers(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	if err := listTools(ctx, log, sess); err != nil {
		return err
	}
	text, err := callText(ctx, sess, "add_numbers", `{"a":5,"b":3}`)
	if err != nil {
		return err
	}
	if text != "The sum of 5 and 3 is 8" {
		return fmt.Errorf("add_numbers answered %q", text)
	}
	log.Info("add_numbers", "result", text)
	return nil
}

// acceptDefaults answers elicitation/create by accepting the schema's
// defaults, as a form would when the user submits it untouched.
func acceptDefaults(o *client.Options) {
	o.Elicit = func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		form, ok := p.Value.(*mcp.ElicitRequestFormParams)
		if !ok {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
		}
		content, err := schemaDefaults(form.RequestedSchema)
		if err != nil {
			o.Logger.Warn("declining elicitation", "err", err)
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
		}
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content}, nil
	}
}

// elicitationDefaults calls the tool that elicits a form with defaults.
func elicitationDefaults(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	text, err := callText(ctx, sess, "test_client_elicitation_defaults", `{}`)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(text, "Elicitation completed") {
		return fmt.Errorf("test_client_elicitation_defaults answered %q", text)
	}
	log.Info("test_client_elicitation_defaults", "result", text)
	return nil
}

// reconnection calls the tool whose SSE stream the server ends before the
// result: the transport resumes it with GET and Last-Event-ID.
func reconnection(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	if err := listTools(ctx, log, sess); err != nil {
		return err
	}
	text, err := callText(ctx, sess, "test_reconnection", `{}`)
	if err != nil {
		return err
	}
	log.Info("test_reconnection", "result", text)
	return nil
}

// callText calls a tool and returns the text of its result.
func callText(ctx context.Context, sess *client.Session, name, args string) (string, error) {
	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		return "", fmt.Errorf("tools/call %s: %w", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.Value.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return "", fmt.Errorf("tools/call %s failed: %s", name, text)
	}
	return text, nil
}
