package gateway

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// The forwards: one request to the upstream that owns what it names, on
// the upstream's session, with the downstream call tracked so that the
// upstream's own requests (elicitation, sampling, roots) reach the right
// client.

func (u *upstream) callTool(ctx context.Context, name string, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	s, err := u.session()
	if err != nil {
		return nil, err
	}
	ctx, done := u.track(ctx)
	defer done()
	// A fresh params: the downstream's requestState and inputResponses
	// answer the gateway's own questions, never the upstream's.
	q := mcp.CallToolRequestParams{Name: name, Arguments: p.Arguments, Task: p.Task, Extra: p.Extra, Meta: upstreamMeta(ctx)}
	r, err := s.CallTool(ctx, &q)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: tools/call %s: %w", u.cfg.Name, name, err)
	}
	return r, nil
}

func (u *upstream) getPrompt(ctx context.Context, name string, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	s, err := u.session()
	if err != nil {
		return nil, err
	}
	ctx, done := u.track(ctx)
	defer done()
	q := mcp.GetPromptRequestParams{Name: name, Arguments: p.Arguments, Extra: p.Extra, Meta: upstreamMeta(ctx)}
	r, err := s.GetPrompt(ctx, &q)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: prompts/get %s: %w", u.cfg.Name, name, err)
	}
	return r, nil
}

func (u *upstream) readResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	s, err := u.session()
	if err != nil {
		return nil, err
	}
	ctx, done := u.track(ctx)
	defer done()
	q := mcp.ReadResourceRequestParams{URI: p.URI, Extra: p.Extra, Meta: upstreamMeta(ctx)}
	r, err := s.ReadResource(ctx, &q)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: resources/read %s: %w", u.cfg.Name, p.URI, err)
	}
	return r, nil
}

func (u *upstream) complete(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	s, err := u.session()
	if err != nil {
		return nil, err
	}
	ctx, done := u.track(ctx)
	defer done()
	q := *p
	q.Meta = upstreamMeta(ctx)
	return s.Complete(ctx, &q)
}
