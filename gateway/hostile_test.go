package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// TestHostileMalformedResults: an HTTP upstream that answers a call with
// JSON cut short, or with a result of the wrong shape, costs that call
// an error, in either era of the client; the gateway keeps serving, and
// the upstream's other tools keep working.
func TestHostileMalformedResults(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	for _, name := range []string{"cut", "shape", "fine"} {
		if err := srv.AddTool(mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "fine"}}}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	h := streamable.NewHandler(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	bad := map[string]string{
		"cut":   `{"content":[{"type":"text","text":"x`,
		"shape": `{"content":"not a list","isError":"no"}}`,
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		if res, ok := bad[m.Params.Name]; ok && m.Method == "tools/call" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+res)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)

	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", "      - name: h\n        url: "+up.URL+"\n"))), nil)
	url := serve(t, g) + "/mcp"
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		s := connectAt(t, url, &client.Options{Era: era})
		for _, name := range []string{"h__cut", "h__shape"} {
			r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: name})
			if err == nil && !r.IsError {
				t.Fatalf("%v: %s: a malformed result came through: %+v", era, name, r)
			}
			if err != nil && !strings.Contains(err.Error(), "upstream h: ") {
				t.Errorf("%v: %s: %v", era, name, err)
			}
		}
		r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "h__fine"})
		if err != nil || firstText(r) != "fine" {
			t.Fatalf("%v: h__fine after the malformed answers: %v", era, err)
		}
	}
}
