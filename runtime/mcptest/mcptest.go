// Package mcptest runs an MCP server in memory with a connected client,
// for tests of tools:
//
//	func TestAdd(t *testing.T) {
//		c := mcptest.Start(t, Register, nil)
//		c.Call("add_numbers", AddInput{A: 1, B: 2}).WantStructured(AddOutput{Sum: 3})
//	}
//
// The client is runtime/client over an in-memory pipe, so a call takes the
// path it takes in production: the server's era gate, the generated
// decoder and validators, the handler, the encoder, and the client's
// check of structured content against the tool's outputSchema. Options
// pick the protocol era and give the answers a handler's questions get
// (elicitation, sampling, roots): canned ones come from Accept, Decline,
// Cancel and Reply.
//
// Helpers take a TB, which *testing.T and *testing.B are, and fail the
// test at the caller's line: a protocol error fails it at once, a result
// that is not what was wanted reports what it was.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// TB is the part of testing.TB that mcptest uses: *testing.T and
// *testing.B are TBs. Fatalf must not return, as testing.TB's does not.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Eras are the two protocol eras, legacy first, for tests that run in
// each: for _, era := range mcptest.Eras { t.Run(mcptest.EraName(era), ...) }.
var Eras = []mcp.Era{mcp.EraLegacy, mcp.EraModern}

// EraName names an era for a subtest: "legacy" or "2026-07-28".
func EraName(era mcp.Era) string {
	if era == mcp.EraLegacy {
		return "legacy"
	}
	return "2026-07-28"
}

// Options configure the client of Start and Connect. The zero Options
// give a 2026-07-28 client that declares no capabilities.
type Options struct {
	// Era is the protocol era the client speaks: mcp.EraLegacy for a
	// session of 2025-11-25 begun with initialize, mcp.EraModern (or zero)
	// for stateless 2026-07-28 requests.
	Era mcp.Era

	// Elicit answers the server's elicitations, declaring the elicitation
	// capability; Accept, Decline and Cancel make canned answers.
	Elicit func(ctx context.Context, params *mcp.ElicitRequestParams) (*mcp.ElicitResult, error)
	// CreateMessage answers sampling requests, declaring the sampling
	// capability; Reply makes a canned answer.
	CreateMessage func(ctx context.Context, params *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error)
	// Roots answers roots/list, declaring the roots capability.
	Roots func(ctx context.Context) ([]mcp.Root, error)

	// Client, when set, is used as it is for the client instead of the
	// fields above: it is for what they do not cover.
	Client *client.Options
}

// Client is a client session connected to an in-memory server, with
// helpers that fail the test when a request fails.
type Client struct {
	*client.Session
	t TB
}

// Start builds a server, adds what register adds (a generated Register
// function), and connects a client to it with Connect.
func Start(t TB, register func(*server.Server) error, opts *Options) *Client {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "mcptest", Version: "0"}, nil)
	if err := register(srv); err != nil {
		t.Fatalf("mcptest: register: %v", err)
	}
	return Connect(t, srv, opts)
}

// Connect serves srv over an in-memory pipe and connects a client to it
// with opts (nil for the zero Options). The test's cleanup closes the
// session and waits for the server to end, failing the test if serving
// failed.
func Connect(t TB, srv *server.Server, opts *Options) *Client {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	co := opts.Client
	if co == nil {
		co = &client.Options{
			Era:           opts.Era,
			Elicit:        opts.Elicit,
			CreateMessage: opts.CreateMessage,
			Roots:         opts.Roots,
		}
		if co.Era == 0 {
			co.Era = mcp.EraModern
		}
	}
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, a) }()
	sess, err := client.New(mcp.Implementation{Name: "mcptest", Version: "0"}, co).Connect(ctx, b)
	if err != nil {
		cancel()
		<-served
		t.Fatalf("mcptest: connect: %v", err)
	}
	t.Cleanup(func() {
		sess.Close()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("mcptest: serve: %v", err)
		}
	})
	return &Client{Session: sess, t: t}
}

// Call calls the tool name with args, encoded with encoding/json (nil for
// none), and returns its result; a protocol error fails the test. A tool
// error is a result: see WantError.
func (c *Client) Call(name string, args any) *Result {
	c.t.Helper()
	p := &mcp.CallToolRequestParams{Name: name}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			c.t.Fatalf("mcptest: arguments of %s: %v", name, err)
		}
		p.Arguments = raw
	}
	res, err := c.CallTool(context.Background(), p)
	if err != nil {
		c.t.Fatalf("mcptest: call %s: %v", name, err)
	}
	return &Result{CallToolResult: res, t: c.t, tool: name}
}

// Result is the result of a tool call, with assertions.
type Result struct {
	*mcp.CallToolResult
	t    TB
	tool string
}

// Text returns the result's text content, its text blocks joined with
// newlines, failing the test when the result is an error or holds
// anything but text.
func (r *Result) Text() string {
	r.t.Helper()
	r.wantOK()
	var texts []string
	for i, block := range r.Content {
		tc, ok := block.Value.(*mcp.TextContent)
		if !ok {
			r.t.Fatalf("mcptest: %s: content[%d] is %T, not text", r.tool, i, block.Value)
		}
		texts = append(texts, tc.Text)
	}
	return strings.Join(texts, "\n")
}

// WantText fails the test unless the result is no error and its text
// content is want.
func (r *Result) WantText(want string) {
	r.t.Helper()
	if got := r.Text(); got != want {
		r.t.Errorf("mcptest: %s: text %q, want %q", r.tool, got, want)
	}
}

// WantError fails the test unless the result is an error (isError) whose
// text contains substr.
func (r *Result) WantError(substr string) {
	r.t.Helper()
	if !r.IsError {
		r.t.Errorf("mcptest: %s: not an error: %s", r.tool, r.describe())
		return
	}
	if text := r.text(); !strings.Contains(text, substr) {
		r.t.Errorf("mcptest: %s: error %q does not contain %q", r.tool, text, substr)
	}
}

// WantStructured fails the test unless the result is no error and its
// structured content is want as JSON: want is encoded with encoding/json
// and compared, as JSON values, with what the server sent.
func (r *Result) WantStructured(want any) {
	r.t.Helper()
	r.wantOK()
	raw, err := json.Marshal(want)
	if err != nil {
		r.t.Fatalf("mcptest: %s: encode want: %v", r.tool, err)
	}
	got, wantV := normal(r.t, r.StructuredContent), normal(r.t, raw)
	if !bytes.Equal(got, wantV) {
		r.t.Errorf("mcptest: %s: structured content\n%s\nwant\n%s", r.tool, got, wantV)
	}
}

// Structured decodes the structured content of a result that is no error
// into a T, failing the test when it cannot.
func Structured[T any](r *Result) T {
	r.t.Helper()
	r.wantOK()
	var out T
	if len(r.StructuredContent) == 0 {
		r.t.Fatalf("mcptest: %s: no structured content: %s", r.tool, r.describe())
	}
	if err := json.Unmarshal(r.StructuredContent, &out); err != nil {
		r.t.Fatalf("mcptest: %s: structured content into %T: %v", r.tool, out, err)
	}
	return out
}

func (r *Result) wantOK() {
	r.t.Helper()
	if r.IsError {
		r.t.Fatalf("mcptest: %s failed: %s", r.tool, r.text())
	}
}

// text is the text blocks of the content, joined.
func (r *Result) text() string {
	var texts []string
	for _, block := range r.Content {
		if tc, ok := block.Value.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func (r *Result) describe() string {
	raw, err := r.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("%+v", r.CallToolResult)
	}
	return string(raw)
}

// normal re-encodes JSON with sorted keys and no spaces, so that equal
// values compare equal.
func normal(t TB, raw []byte) []byte {
	t.Helper()
	if len(raw) == 0 {
		return []byte("null")
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("mcptest: structured content %s: %v", raw, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("mcptest: structured content %s: %v", raw, err)
	}
	return out
}

// Accept returns an Elicit answer that accepts every form with content:
// a struct or map encoded with encoding/json into the form's fields.
func Accept(content any) func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	raw, err := json.Marshal(map[string]any{"action": "accept", "content": content})
	return func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		if err != nil {
			return nil, fmt.Errorf("mcptest: accept: %w", err)
		}
		var res mcp.ElicitResult
		if err := res.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("mcptest: accept: %w", err)
		}
		return &res, nil
	}
}

// Decline returns an Elicit answer that declines every form.
func Decline() func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return action(mcp.ElicitResultActionDecline)
}

// Cancel returns an Elicit answer that dismisses every form.
func Cancel() func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return action(mcp.ElicitResultActionCancel)
}

func action(a mcp.ElicitResultAction) func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: a}, nil
	}
}

// Reply returns a CreateMessage answer that samples text, whatever was
// asked, from a model named "mcptest".
func Reply(text string) func(context.Context, *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	return func(context.Context, *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{
			Content:    mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: text}},
			Model:      "mcptest",
			Role:       mcp.RoleAssistant,
			StopReason: "endTurn",
		}, nil
	}
}
