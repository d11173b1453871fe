package mcptest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/handler"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// recorder is a TB that records what the helpers report; Fatalf ends the
// goroutine it is called on, as testing's does.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	panic(r)
}

// run calls f with a recorder and returns what it reported.
func run(t *testing.T, f func(tb mcptest.TB)) (errs []string) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		errs = r.errs
	}()
	f(r)
	return r.errs
}

// structuredTools adds "sum", whose structured content is {"sum":3}, and
// "fail", a tool error.
func structuredTools(s *server.Server) error {
	sum := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return handler.Structured([]byte(`{"sum":3}`), nil)
	}
	fail := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "no such city"}}}}, nil
	}
	out := `{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`
	if err := handler.AddTool(s, mcp.Tool{Name: "sum"}, `{"type":"object"}`, out, sum, server.InputCheckedByHandler(),
		server.WithOutputValidator(func([]byte) error { return nil })); err != nil {
		return err
	}
	return handler.AddTool(s, mcp.Tool{Name: "fail"}, `{"type":"object"}`, "", fail, server.InputCheckedByHandler())
}

func TestAssertions(t *testing.T) {
	type sum struct {
		Sum int `json:"sum"`
	}
	for _, era := range mcptest.Eras {
		t.Run(mcptest.EraName(era), func(t *testing.T) {
			c := mcptest.Start(t, structuredTools, &mcptest.Options{Era: era})
			if got := c.ProtocolVersion().Era(); got != era {
				t.Errorf("the client speaks era %v, want %v", got, era)
			}
			c.Call("sum", nil).WantStructured(sum{Sum: 3})
			c.Call("sum", nil).WantStructured(map[string]any{"sum": 3})
			if got := mcptest.Structured[sum](c.Call("sum", nil)); got.Sum != 3 {
				t.Errorf("Structured = %+v", got)
			}
			c.Call("fail", nil).WantError("no such city")

			// Each case reports through a recorder, which must hear it.
			start := func(tb mcptest.TB) *mcptest.Client {
				return mcptest.Start(tb, structuredTools, &mcptest.Options{Era: era})
			}
			cases := []struct {
				name string
				f    func(tb mcptest.TB)
				want string
			}{
				{"structured differs", func(tb mcptest.TB) { start(tb).Call("sum", nil).WantStructured(sum{Sum: 4}) }, `{"sum":3}`},
				{"error wanted", func(tb mcptest.TB) { start(tb).Call("sum", nil).WantError("x") }, "not an error"},
				{"error text", func(tb mcptest.TB) { start(tb).Call("fail", nil).WantError("timeout") }, `does not contain "timeout"`},
				{"text of an error", func(tb mcptest.TB) { start(tb).Call("fail", nil).WantText("ok") }, "fail failed: no such city"},
				{"text differs", func(tb mcptest.TB) { start(tb).Call("fail", nil).WantError("city") }, ""},
				{"unknown tool", func(tb mcptest.TB) { start(tb).Call("nope", nil) }, "call nope"},
				{"bad arguments", func(tb mcptest.TB) { start(tb).Call("sum", func() {}) }, "arguments of sum"},
			}
			for _, tc := range cases {
				errs := run(t, tc.f)
				switch {
				case tc.want == "" && len(errs) > 0:
					t.Errorf("%s: reported %q", tc.name, errs)
				case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)):
					t.Errorf("%s: reported %q, want one report containing %q", tc.name, errs, tc.want)
				}
			}
		})
	}
}
