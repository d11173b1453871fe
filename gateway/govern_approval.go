package gateway

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Human approval of destructive tools. The gateway asks the client's user
// through elicitation before it forwards the call: in a legacy session an
// elicitation/create request the call waits on, in 2026-07-28 a question
// that ends the call's first round (the client retries with the answer,
// and the gateway forwards the retry). Only an accepted answer lets the
// call through; a declined or cancelled one, or a client that cannot be
// asked, refuses it with a tool error, and the upstream never hears of it.

// approvalKey names the gateway's question among those of a 2026-07-28
// round, apart from any an upstream asks.
const approvalKey = "mcpgen-gateway/approval"

// maxShownArgs bounds the arguments quoted in the question.
const maxShownArgs = 1024

// ApprovalError refuses a destructive call that was not approved.
type ApprovalError struct {
	// Tool is the tool the client called.
	Tool string
	// Action is the user's answer (decline or cancel), empty when the
	// client could not be asked.
	Action mcp.ElicitResultAction
	// Err is why the client could not be asked, when it could not.
	Err error
}

func (e *ApprovalError) Error() string {
	if e.Action != "" {
		return fmt.Sprintf("tool %s was not called: it is marked destructive and needs a human approval, and the user answered %q", e.Tool, e.Action)
	}
	return fmt.Sprintf("tool %s was not called: it is marked destructive and needs a human approval, which the gateway asks for through elicitation: %v", e.Tool, e.Err)
}

// approve asks the user of the client whether the call o may go on. It
// returns nil when accepted, server.ErrInputRequired while a 2026-07-28
// round waits for the answer, or an *ApprovalError.
func approve(ctx context.Context, o *op) error {
	args := string(o.args)
	if len(args) > maxShownArgs {
		n := maxShownArgs
		for n > 0 && !utf8.RuneStart(args[n]) {
			n--
		}
		args = args[:n] + "…"
	}
	if args == "" {
		args = "{}"
	}
	msg := fmt.Sprintf("Allow the call of %s (on %s)? The tool is marked destructive.\nArguments: %s", o.name, o.u.cfg.Name, args)
	res, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message:         msg,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}},
	}}, server.InputKey(approvalKey))
	switch {
	case errors.Is(err, server.ErrInputRequired):
		return err
	case err != nil:
		var ce *server.CapabilityError
		if errors.As(err, &ce) {
			// Not the error itself: in 2026-07-28 the engine would
			// answer it with -32021, asking the client to retry with a
			// capability, where a plain refusal says more.
			err = errors.New("this client does not support elicitation")
		}
		return &ApprovalError{Tool: o.name, Err: err}
	case res.Action != mcp.ElicitResultActionAccept:
		return &ApprovalError{Tool: o.name, Action: res.Action}
	}
	return nil
}
