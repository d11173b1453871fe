package server

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// TestRelayResult checks that a handler ends its request with a result of
// another type as it gave it, in both eras, and that a prompt handler
// may too.
func TestRelayResult(t *testing.T) {
	s := newServer(nil)
	handle := &mcp.Result{ResultType: "task", Extra: map[string]json.RawMessage{"taskId": json.RawMessage(`"up-1"`)}}
	addTool(t, s, "relay", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, RelayResult(handle)
	})
	if err := s.AddPrompt(mcp.Prompt{Name: "relay"}, func(ctx context.Context, _ *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return nil, RelayResult(handle)
	}); err != nil {
		t.Fatal(err)
	}
	p := start(t, s)
	for _, method := range []string{"tools/call", "prompts/get"} {
		out, err := p.modern(t, method, "", `"name":"relay"`)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if !strings.Contains(string(out), `"resultType":"task"`) || !strings.Contains(string(out), `"taskId":"up-1"`) {
			t.Errorf("%s: %s, want the relayed result", method, out)
		}
	}
	p.initialize(t, "2025-11-25", "{}")
	out, err := p.call(t, "tools/call", `{"name":"relay"}`)
	if err != nil || !strings.Contains(string(out), `"taskId":"up-1"`) || strings.Contains(string(out), "isError") {
		t.Errorf("legacy tools/call: %s %v, want the relayed result", out, err)
	}
	if RelayResult(nil) == nil {
		t.Error("RelayResult(nil) is no error")
	}
}

// TestRequireInput checks that a handler relays questions under their
// own keys, all at once, with its state sealed in the requestState; that
// the retry brings the state back and the answers in the params; and that
// a key the client already answered is asked again when required again.
func TestRequireInput(t *testing.T) {
	var sawState, sawAnswer string
	_, p := roundsServer(t, nil, func(ctx context.Context, in *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if !CanRequireInput(ctx) {
			return nil, ErrNoSession
		}
		st := RoundState(ctx)
		if st == nil {
			if err := SetRoundState(ctx, []byte("upstream-state-1")); err != nil {
				return nil, err
			}
			return nil, RequireInput(ctx, mcp.InputRequests{
				"k1": {Value: &mcp.ElicitRequest{Params: *nameQuestion("who?")}},
				"k2": {Value: &mcp.ListRootsRequest{Params: &mcp.ListRootsRequestParams{}}},
			})
		}
		sawState = string(st)
		if a, ok := in.InputResponses["k1"]; ok {
			raw, _ := a.MarshalJSON()
			sawAnswer = string(raw)
		}
		if string(st) == "upstream-state-1" {
			// The relayed server asks k1 again: RequireInput looks up no answer.
			_ = SetRoundState(ctx, []byte("upstream-state-2"))
			return nil, RequireInput(ctx, mcp.InputRequests{"k1": {Value: &mcp.ElicitRequest{Params: *nameQuestion("who, again?")}}})
		}
		return textOf("done"), nil
	})
	caps := `{"elicitation":{},"roots":{}}`
	ir, _, err := round(t, p, caps, "")
	if err != nil || ir == nil {
		t.Fatalf("round 1: %v %v", ir, err)
	}
	if got := strings.Join(slices.Sorted(maps.Keys(ir.InputRequests)), ","); got != "k1,k2" {
		t.Fatalf("round 1 keys %s, want k1,k2", got)
	}
	if strings.Contains(ir.RequestState, "upstream-state") {
		t.Fatal("the handler's state is readable in the requestState")
	}
	answers := `"inputResponses":{"k1":{"action":"accept","content":{"name":"Ann"}},"k2":{"roots":[]}},"requestState":"` + ir.RequestState + `"`
	ir2, _, err := round(t, p, caps, answers)
	if err != nil || ir2 == nil || len(ir2.InputRequests) != 1 || ir2.InputRequests["k1"].Value == nil {
		t.Fatalf("round 2: %v %v, want k1 asked again", ir2, err)
	}
	if sawState != "upstream-state-1" || !strings.Contains(sawAnswer, "Ann") {
		t.Fatalf("round 2 saw state %q and answer %q", sawState, sawAnswer)
	}
	_, res, err := round(t, p, caps, `"inputResponses":{"k1":{"action":"decline"}},"requestState":"`+ir2.RequestState+`"`)
	if err != nil || res == nil || sawState != "upstream-state-2" {
		t.Fatalf("round 3: %v %v, state %q", res, err, sawState)
	}
}

// TestRequireInputOutsideRounds checks that RequireInput and
// CanRequireInput refuse where no round can end: a legacy session, and a
// ctx of no request.
func TestRequireInputOutsideRounds(t *testing.T) {
	if CanRequireInput(context.Background()) || RequireInput(context.Background(), nil) != ErrNoSession {
		t.Error("outside a request")
	}
	s := newServer(nil)
	addTool(t, s, "t", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if CanRequireInput(ctx) {
			return textOf("can"), nil
		}
		if err := RequireInput(ctx, nil); err == nil || err == ErrInputRequired {
			return textOf("required"), nil
		}
		return textOf("cannot"), nil
	})
	p := start(t, s)
	p.initialize(t, "2025-11-25", "{}")
	out, err := p.call(t, "tools/call", `{"name":"t"}`)
	if err != nil || !strings.Contains(string(out), "cannot") {
		t.Errorf("legacy: %s %v", out, err)
	}
}

// TestLogLevelOf checks the level a handler reads for its client: the
// _meta's in 2026-07-28, none without one, and the session's in a legacy
// session, debug until logging/setLevel.
func TestLogLevelOf(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "level", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		l, ok := LogLevel(ctx)
		if !ok {
			return textOf("none"), nil
		}
		return textOf(string(l)), nil
	})
	p := start(t, s)
	text := func(out []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var r mcp.CallToolResult
		if err := r.UnmarshalJSON(out); err != nil {
			t.Fatal(err)
		}
		return r.Content[0].Value.(*mcp.TextContent).Text
	}
	if got := text(p.modern(t, "tools/call", "", `"name":"level"`)); got != "none" {
		t.Errorf("2026-07-28 without logLevel: %s", got)
	}
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"notice"},"name":"level"}`
	if got := text(p.call(t, "tools/call", params)); got != "notice" {
		t.Errorf("2026-07-28 with notice: %s", got)
	}
	p.initialize(t, "2025-11-25", "{}")
	if got := text(p.call(t, "tools/call", `{"name":"level"}`)); got != "debug" {
		t.Errorf("legacy before setLevel: %s", got)
	}
	if _, err := p.call(t, "logging/setLevel", `{"level":"error"}`); err != nil {
		t.Fatal(err)
	}
	if got := text(p.call(t, "tools/call", `{"name":"level"}`)); got != "error" {
		t.Errorf("legacy after setLevel error: %s", got)
	}
	if _, ok := LogLevel(context.Background()); ok {
		t.Error("a ctx of no request hears logs")
	}
}

func TestErrRelayed(t *testing.T) {
	if err := RelayResult(&mcp.Result{}); !errors.Is(err, ErrRelayed) || errors.Is(ErrInputRequired, ErrRelayed) {
		t.Errorf("errors.Is(RelayResult(...), ErrRelayed) = %v", errors.Is(err, ErrRelayed))
	}
}

// TestClientCapabilitiesJSON checks the capabilities a handler reads as
// JSON: a 2026-07-28 request's as they came, a legacy session's encoded.
func TestClientCapabilitiesJSON(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "caps", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf(string(ClientCapabilitiesJSON(ctx))), nil
	})
	p := start(t, s)
	text := func(out []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var r mcp.CallToolResult
		if err := r.UnmarshalJSON(out); err != nil {
			t.Fatal(err)
		}
		return r.Content[0].Value.(*mcp.TextContent).Text
	}
	if got := text(p.modern(t, "tools/call", `{"sampling":{ }}`, `"name":"caps"`)); got != `{"sampling":{ }}` {
		t.Errorf("2026-07-28: %s, want the _meta's bytes", got)
	}
	p.initialize(t, "2025-11-25", `{"roots":{"listChanged":true}}`)
	if got := text(p.call(t, "tools/call", `{"name":"caps"}`)); got != `{"roots":{"listChanged":true}}` {
		t.Errorf("legacy: %s", got)
	}
	if ClientCapabilitiesJSON(context.Background()) != nil {
		t.Error("a ctx of no request has capabilities")
	}
}
