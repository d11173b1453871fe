package main

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
)

// TestTypedInput runs the tools that ask a generated form and a sampled
// text through a client of each era, with mcptest's canned answers: the
// form's answer arrives decoded into its struct, the sample as a string,
// in legacy requests and in 2026-07-28 rounds alike.
func TestTypedInput(t *testing.T) {
	roots := func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///work"}}, nil }
	for _, era := range mcptest.Eras {
		t.Run(mcptest.EraName(era), func(t *testing.T) {
			connect := func(o mcptest.Options) *mcptest.Client {
				e, err := newEverything(nil)
				if err != nil {
					t.Fatal(err)
				}
				o.Era = era
				return mcptest.Connect(t, e.srv, &o)
			}
			c := connect(mcptest.Options{
				Elicit:        mcptest.Accept(map[string]any{"name": "Ada", "color": "green", "confirm": true}),
				CreateMessage: mcptest.Reply("Good day"),
				Roots:         roots,
			})
			c.Call("test_input_required_result_multiple_inputs", nil).WantText("Good day, Ada (roots: file:///work)")
			c.Call("test_input_required_result_multi_round", nil).WantText("Ada likes green")
			c.Call("confirm_delete", map[string]string{"filename": "a.txt"}).WantText("Deleted a.txt")
			c.Call("test_input_required_result_sampling", nil).WantText("Good day")

			// A declined form is an action, not an error.
			c = connect(mcptest.Options{Elicit: mcptest.Decline()})
			c.Call("confirm_delete", map[string]string{"filename": "a.txt"}).WantText("Kept a.txt")

			// An accepted answer that breaks the form's schema fails the
			// tool: confirm must be a boolean.
			c = connect(mcptest.Options{Elicit: mcptest.Accept(map[string]any{"confirm": "yes"})})
			c.Call("confirm_delete", map[string]string{"filename": "a.txt"}).WantError("confirm")
		})
	}
}
