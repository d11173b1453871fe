// Package handler is the support the code mcpgen generates for annotated
// handlers calls on: registering a tool with its JSON Schemas, building
// structured results, and the decoding errors with JSON paths that reach
// the model as isError results. Users do not call it directly; keeping it
// here keeps every generated file free of copies of it.
//
// Errors are *mcp.FieldError, the protocol package's own, so a handler
// package's errors read like the protocol's ("tags[2]: must be at most 10
// characters long") and callers find them with errors.As.
package handler

import (
	"fmt"
	"strconv"

	"github.com/mcpgen/mcpgen/generated/mcp"
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
		return AsFieldError(err)
	}
	if err := s.End(); err != nil {
		return AsFieldError(err)
	}
	return nil
}

// Err reports a problem with the value at an empty path; AtField and
// AtIndex prepend the path on the way out.
func Err(msg string) error {
	return &mcp.FieldError{Msg: msg}
}

// AsFieldError returns err as an *mcp.FieldError, explaining the scanner's
// errors in words.
func AsFieldError(err error) *mcp.FieldError {
	var msg string
	switch e := err.(type) {
	case *mcp.FieldError:
		return e
	case *jsonrpc.TypeError:
		msg = "expected " + e.Want + ", got " + e.Got.String()
	case *jsonrpc.NumberError:
		msg = "number " + e.Number + " " + e.Msg
	case *jsonrpc.SyntaxError:
		msg = "invalid JSON: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
	default:
		msg = err.Error()
	}
	return &mcp.FieldError{Msg: msg, Err: err}
}

// AtField prepends an object member to err's path: the name as it is when
// it is an identifier, else quoted in brackets. A nil err stays nil, as
// it does for AtIndex, so that a call need not be guarded.
func AtField(err error, name string) error {
	seg := name
	for i := range name {
		c := name[i]
		if c != '_' && (c|0x20 < 'a' || c|0x20 > 'z') && (i == 0 || c < '0' || c > '9') {
			seg = "[" + strconv.Quote(name) + "]"
			break
		}
	}
	if name == "" {
		seg = `[""]`
	}
	return at(err, seg)
}

// AtIndex prepends an array index to err's path.
func AtIndex(err error, i int) error {
	return at(err, "["+strconv.Itoa(i)+"]")
}

func at(err error, seg string) error {
	if err == nil {
		return nil
	}
	fe := AsFieldError(err)
	switch {
	case fe.Path == "":
		fe.Path = seg
	case fe.Path[0] == '[':
		fe.Path = seg + fe.Path
	default:
		fe.Path = seg + "." + fe.Path
	}
	return fe
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
				return nil, AtField(err, k)
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
				return nil, AtIndex(err, len(a))
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
