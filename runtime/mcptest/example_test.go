package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/handler"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The tools of these examples are added by hand, as a package's generated
// Register function adds its own.

// trip is what the book tool asks its user for.
type trip struct {
	City   string `json:"city"`
	Nights int64  `json:"nights"`
}

// tripForm is written by hand here; //mcp:form on trip generates the
// same from the struct.
var tripForm = server.NewForm(
	`{"type":"object","properties":{"city":{"type":"string"},"nights":{"type":"integer","minimum":1}},"required":["city","nights"]}`,
	func(content []byte, into *trip) error { return json.Unmarshal(content, into) },
)

func register(s *server.Server) error {
	greet := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ Name string }
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return nil, err
		}
		return textResult("Hello, " + in.Name + "!"), nil
	}
	if err := handler.AddTool(s, mcp.Tool{Name: "greet"}, `{"type":"object","properties":{"name":{"type":"string"}}}`, "", greet, server.InputCheckedByHandler()); err != nil {
		return err
	}
	book := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		t, action, err := server.ElicitForm(ctx, "Where to?", tripForm, server.InputKey("trip"))
		if err != nil {
			return nil, err
		}
		if action != mcp.ElicitResultActionAccept {
			return textResult("No trip (" + string(action) + ")."), nil
		}
		tip, err := server.SampleText(ctx, "One tip for "+t.City+"?", server.SampleMaxTokens(50), server.InputKey("tip"))
		if err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("%d nights in %s. Tip: %s", t.Nights, t.City, tip)), nil
	}
	return handler.AddTool(s, mcp.Tool{Name: "book"}, `{"type":"object"}`, "", book, server.InputCheckedByHandler())
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}}
}

// exampleT stands in for the *testing.T of a test in these examples: it
// prints what a test would report.
type exampleT struct{ cleanups []func() }

func (*exampleT) Helper()                           {}
func (*exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (*exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }

func (t *exampleT) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// A test of a tool is three lines: start the server with the package's
// Register, call the tool by name, assert on its result. In a test, t is
// the test's *testing.T.
func ExampleStart() {
	t := &exampleT{}
	defer t.done()

	c := mcptest.Start(t, register, nil)
	c.Call("greet", map[string]string{"name": "Ada"}).WantText("Hello, Ada!")
	fmt.Println(c.Call("greet", map[string]string{"name": "Bob"}).Text())
	// Output: Hello, Bob!
}

// A tool that asks its user and the client's model gets canned answers,
// in each era: a legacy session answers server requests, a 2026-07-28
// client the rounds of the call.
func ExampleOptions() {
	t := &exampleT{}
	defer t.done()

	for _, era := range mcptest.Eras {
		c := mcptest.Start(t, register, &mcptest.Options{
			Era:           era,
			Elicit:        mcptest.Accept(map[string]any{"city": "Lisbon", "nights": 3}),
			CreateMessage: mcptest.Reply("Take the tram."),
		})
		fmt.Println(mcptest.EraName(era)+":", c.Call("book", nil).Text())
	}
	// Output:
	// legacy: 3 nights in Lisbon. Tip: Take the tram.
	// 2026-07-28: 3 nights in Lisbon. Tip: Take the tram.
}

// Declined and dismissed forms come back as actions, without content.
func ExampleDecline() {
	t := &exampleT{}
	defer t.done()

	c := mcptest.Start(t, register, &mcptest.Options{Elicit: mcptest.Decline()})
	fmt.Println(c.Call("book", nil).Text())
	c = mcptest.Start(t, register, &mcptest.Options{Elicit: mcptest.Cancel()})
	fmt.Println(c.Call("book", nil).Text())
	// Output:
	// No trip (decline).
	// No trip (cancel).
}
