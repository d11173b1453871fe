package support

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// What the generated dispatchers and callers (dispatch_gen.go) share.

// Caller sends one request and returns the raw JSON of its result; a
// runtime connection implements it.
type Caller interface {
	Call(ctx context.Context, method string, params []byte) ([]byte, error)
}

// decodeParams decodes the params of a request into p and validates them
// for the versions vb, answering -32602 with the JSON path of a problem.
// Absent params are an error only when required.
func decodeParams(data []byte, p Message, vb VersionSet, required bool) error {
	if len(data) == 0 {
		if required {
			return jsonrpc.ErrInvalidParams("invalid params: params: required")
		}
	} else if err := decodeWhole(data, p.decode); err != nil {
		return jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	if err := p.validate(vb); err != nil {
		return jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	return nil
}

// call sends a request with params (nil for none) and decodes its result into result.
func call(ctx context.Context, c Caller, method string, params, result Message) error {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = params.appendJSON(nil); err != nil {
			return err
		}
	}
	out, err := c.Call(ctx, method, raw)
	if err != nil {
		return err
	}
	return decodeWhole(out, result.decode)
}
