package server

import (
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// CancelledRequestID returns the id of the request that the params of a
// notifications/cancelled name. It is how the engine reads them, so a
// transport that acts on a cancellation itself (Streamable HTTP stops
// waiting for the request's response) agrees with the engine on which
// request was cancelled, however oddly the params are spelled.
func CancelledRequestID(params []byte) (jsonrpc.ID, error) {
	var p mcp.CancelledNotificationParams
	if err := p.UnmarshalJSON(params); err != nil {
		return jsonrpc.ID{}, fmt.Errorf("malformed notifications/cancelled params: %w", err)
	}
	if n, ok := p.RequestID.AsInteger(); ok {
		return jsonrpc.IntID(n), nil
	}
	if s, ok := p.RequestID.AsString(); ok {
		return jsonrpc.StringID(s), nil
	}
	return jsonrpc.ID{}, errNoRequestID
}

var errNoRequestID = errors.New("notifications/cancelled names no requestId")
