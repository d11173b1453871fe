package streamable

import (
	"errors"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// This file ties DialClientTransport to the Streamable HTTP client.

// streamableClient makes the Streamable HTTP transport that
// DialClientTransport tries first.
func streamableClient(url string, o *DialOptions) jsonrpc.Transport {
	return NewClientTransport(url, &ClientOptions{
		HTTPClient:     o.HTTPClient,
		Header:         o.Header,
		MaxMessageSize: int(o.MaxMessageBytes),
	})
}

// statusOf returns the HTTP status of a refusal the Streamable HTTP
// client reports from Write.
func statusOf(err error) (int, bool) {
	if e, ok := errors.AsType[*StatusError](err); ok {
		return e.StatusCode, true
	}
	return 0, false
}
