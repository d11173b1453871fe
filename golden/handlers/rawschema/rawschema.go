// Package rawschema is a golden case: the input-schema= and output-schema=
// escape hatch, for schemas the type mapping cannot express (here
// if/then/else and $anchor). The handler takes and returns json.RawMessage;
// the schemas are embedded in the generated file and the runtime validates
// with them, compiled once at registration.
package rawschema

import (
	"context"
	"encoding/json"
)

// Ship books a shipment: an international one needs a customs code.
//
//mcp:tool input-schema=ship.input.json output-schema=ship.output.json
func Ship(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"ok":true}`), nil
}

// Check checks its arguments against a schema and returns text.
//
//mcp:tool input-schema=ship.input.json
func Check(ctx context.Context, in json.RawMessage) (string, error) {
	return string(in), nil
}
