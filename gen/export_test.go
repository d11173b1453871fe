package gen

import "github.com/mcpgen/mcpgen/model"

// HarnessNames returns what the handler harness calls in a generated file:
// each tool's input checker by tool name (tools with a generated one), and
// each receiver's Register function.
func HarnessNames(h *model.Handlers) (checkers map[string]string, register map[string]string, err error) {
	g, err := newHandlerGen(h)
	if err != nil {
		return nil, nil, err
	}
	checkers = map[string]string{}
	for _, t := range h.Tools {
		if t.InputSchema == nil {
			checkers[t.Name] = g.names.tool(checkInput, t)
		}
	}
	return checkers, g.names.register, nil
}
