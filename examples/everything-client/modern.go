package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// The scenarios the suite runs at 2026-07-28 (and json-schema-2020-12-
// preservation, at both versions). The client library does the era's
// work: the _meta and headers of every request, the rounds of input, the
// tools whose x-mcp-header annotations are invalid left out of the list.

// session is the Session the scenario runs on, for the handlers that need
// it: set before the scenario starts, read by them while it runs.
var session *client.Session

// confirmElicitation answers elicitation/create by confirming, and, while
// the call that asked waits, makes an unrelated call: its request must
// carry none of the first call's inputResponses or requestState.
func confirmElicitation(o *client.Options) {
	o.Elicit = func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		if session != nil {
			if _, err := callText(ctx, session, "test_mrtr_unrelated", `{}`); err != nil {
				o.Logger.Warn("the unrelated call failed", "err", err)
			}
			session = nil // once is enough
		}
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: map[string]mcp.ElicitResultContentValue{
			"confirmed": {Value: mcp.ElicitResultContentValueBoolean(true)},
		}}, nil
	}
}

// requestState plays the multi round-trip calls of SEP-2322: one whose
// state the client must echo, one with no state, one whose result has no
// resultType.
func requestState(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	if err := listTools(ctx, log, sess); err != nil {
		return err
	}
	session = sess
	for _, tool := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
		text, err := callText(ctx, sess, tool, `{}`)
		if err != nil {
			return err
		}
		log.Info(tool, "result", text)
	}
	return nil
}

// standardHeaders makes a request of every kind that carries the standard
// headers (Mcp-Method, and Mcp-Name where the body names something).
func standardHeaders(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range tools.Tools {
		if _, err := callText(ctx, sess, t.Name, `{}`); err != nil {
			return err
		}
	}
	resources, err := sess.ListResources(ctx, nil)
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	if len(resources.Resources) > 0 {
		if _, err := sess.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: resources.Resources[0].URI}); err != nil {
			return fmt.Errorf("resources/read: %w", err)
		}
	}
	prompts, err := sess.ListPrompts(ctx, nil)
	if err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}
	for _, p := range prompts.Prompts {
		if _, err := sess.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: p.Name}); err != nil {
			return fmt.Errorf("prompts/get %s: %w", p.Name, err)
		}
	}
	log.Info("standard headers", "tools", len(tools.Tools), "resources", len(resources.Resources), "prompts", len(prompts.Prompts))
	return nil
}

// customHeaders lists the tools, to learn their x-mcp-header parameters,
// then makes the calls the scenario's context names, with the arguments as
// given: the library mirrors the annotated ones into Mcp-Param-* headers.
func customHeaders(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	var c struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &c); err != nil {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	if len(c.ToolCalls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT names no toolCalls")
	}
	if err := listTools(ctx, log, sess); err != nil {
		return err
	}
	for _, call := range c.ToolCalls {
		text, err := callText(ctx, sess, call.Name, string(call.Arguments))
		if err != nil {
			return err
		}
		log.Info(call.Name, "result", text)
	}
	return nil
}

// callKeptTools calls every tool the library kept in the list: those whose
// x-mcp-header annotations break the rules are gone.
func callKeptTools(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range tools.Tools {
		text, err := callText(ctx, sess, t.Name, `{"region":"us-west1"}`)
		if err != nil {
			return err
		}
		log.Info(t.Name, "result", text)
	}
	return nil
}

// echoSchema sends the inputSchema of json_schema_2020_12_tool back to
// json_schema_echo as it came: the library keeps tool schemas whole.
func echoSchema(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range tools.Tools {
		if t.Name != "json_schema_2020_12_tool" {
			continue
		}
		schema, err := t.InputSchema.MarshalJSON()
		if err != nil {
			return err
		}
		text, err := callText(ctx, sess, "json_schema_echo", `{"schema":`+string(schema)+`}`)
		if err != nil {
			return err
		}
		log.Info("json_schema_echo", "result", text)
		return nil
	}
	return errors.New("tools/list has no json_schema_2020_12_tool")
}
