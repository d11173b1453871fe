package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

func TestSchemaDefaults(t *testing.T) {
	var form mcp.ElicitRequestFormParams
	if err := json.Unmarshal([]byte(`{"message":"m","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"status":{"type":"string","enum":["active","inactive"],"default":"active"},
		"verified":{"type":"boolean","default":true},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["b"]},
		"nickname":{"type":"string"}}}}`), &form); err != nil {
		t.Fatal(err)
	}
	content, err := schemaDefaults(form.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(content)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"age":30,"name":"John Doe","score":96,"status":"active","tags":["b"],"verified":true}`
	if string(got) != want {
		t.Errorf("content %s\nwant    %s", got, want)
	}
	form.RequestedSchema.Required = []string{"nickname"}
	if _, err := schemaDefaults(form.RequestedSchema); err == nil || !strings.Contains(err.Error(), `"nickname" has no default`) {
		t.Errorf("a required property without a default: %v", err)
	}
}

// testServer serves the tools of the tools_call and
// elicitation-sep1034-client-defaults scenarios over Streamable HTTP.
func testServer(t *testing.T) string {
	s := server.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	add := func(name string, h server.ToolHandler) {
		var def mcp.Tool
		if err := json.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":{"type":"object"}}`), &def); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTool(def, h); err != nil {
			t.Fatal(err)
		}
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
	}
	add("add_numbers", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ A, B float64 }
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("The sum of %v and %v is %v", in.A, in.B, in.A+in.B)), nil
	})
	add("test_client_elicitation_defaults", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var params mcp.ElicitRequestParams
		if err := json.Unmarshal([]byte(`{"message":"defaults?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"verified":{"type":"boolean","default":true}}}}`), &params); err != nil {
			return nil, err
		}
		r, err := server.Elicit(ctx, &params)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(r)
		return text("Elicitation completed: " + string(b)), nil
	})
	h := streamable.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts.URL + "/mcp"
}

func TestScenarios(t *testing.T) {
	url := testServer(t)
	for _, name := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := run(ctx, slog.New(slog.DiscardHandler), name, "2025-11-25", url); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := run(context.Background(), slog.New(slog.DiscardHandler), "nope", "", url); err != errUnknownScenario {
		t.Errorf("unknown scenario: %v", err)
	}
}
