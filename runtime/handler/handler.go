// Package handler is the support the code mcpgen generates for annotated
// handlers calls on: registering a tool with its JSON Schemas, building
// structured results, and decoding whole arguments. Users do not call it
// directly; keeping it here keeps every generated file free of copies of it.
//
// Decoding errors are *fielderr.FieldError, which mcp.FieldError aliases:
// the generated decoders build them with runtime/fielderr, as the protocol
// package's do, so a handler package's errors read like the protocol's
// ("tags[2]: must be at most 10 characters long") and callers find them
// with errors.As.
package handler

import (
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/fielderr"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// AddTool adds a tool to s: def is its definition but for its schemas,
// which input and output hold as JSON text (the generated, indented
// constants; the server keeps them compacted), output "" for a tool
// without one. The schemas stay JSON because a JSON Schema has no Go
// type of its own in the mcp package: they are read into def here.
func AddTool(s *server.Server, def mcp.Tool, input, output string, h server.ToolHandler, opts ...server.ToolOption) error {
	if err := def.InputSchema.UnmarshalJSON([]byte(input)); err != nil {
		return fmt.Errorf("mcpgen: tool %s: input schema: %w", def.Name, err)
	}
	if output != "" {
		def.OutputSchema = new(mcp.ToolOutputSchema)
		if err := def.OutputSchema.UnmarshalJSON([]byte(output)); err != nil {
			return fmt.Errorf("mcpgen: tool %s: output schema: %w", def.Name, err)
		}
	}
	return s.AddTool(def, h, opts...)
}

// Structured makes a tool result of encoded structured content, repeated
// as text for clients that read only content.
func Structured(data []byte, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(data)}}},
		StructuredContent: data,
	}, nil
}

// Decode runs decode over a whole JSON document; no data at all reads as
// {}, as absent arguments do.
func Decode(data []byte, decode func(*jsonrpc.Scanner) error) error {
	if len(data) == 0 {
		data = []byte("{}")
	}
	var s jsonrpc.Scanner
	s.Reset(data)
	if err := decode(&s); err != nil {
		return fielderr.From(err)
	}
	if err := s.End(); err != nil {
		return fielderr.From(err)
	}
	return nil
}

// DecodeAny reads any JSON value as encoding/json would into an any:
// objects as map[string]any, arrays as []any, numbers as float64.
func DecodeAny(s *jsonrpc.Scanner) (any, error) {
	switch s.Peek() {
	case jsonrpc.KindObject:
		if err := s.ObjectStart(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for {
			key, more, err := s.NextKey()
			if err != nil {
				return nil, err
			}
			if !more {
				return m, nil
			}
			k := string(key)
			v, err := DecodeAny(s)
			if err != nil {
				return nil, fielderr.AtField(err, k)
			}
			m[k] = v
		}
	case jsonrpc.KindArray:
		if err := s.ArrayStart(); err != nil {
			return nil, err
		}
		a := []any{}
		for {
			more, err := s.NextElem()
			if err != nil {
				return nil, err
			}
			if !more {
				return a, nil
			}
			v, err := DecodeAny(s)
			if err != nil {
				return nil, fielderr.AtIndex(err, len(a))
			}
			a = append(a, v)
		}
	case jsonrpc.KindString:
		return s.String()
	case jsonrpc.KindNumber:
		return s.Float64()
	case jsonrpc.KindBool:
		return s.Bool()
	}
	null, err := s.Null()
	if err == nil && !null {
		err = s.Skip()
	}
	return nil, err
}
