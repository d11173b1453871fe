package handler

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/fielderr"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

func TestDecode(t *testing.T) {
	decodeText := func(s *jsonrpc.Scanner) error {
		if err := s.ObjectStart(); err != nil {
			return err
		}
		for {
			key, more, err := s.NextKey()
			if err != nil || !more {
				return err
			}
			if _, err := s.String(); err != nil {
				return fielderr.AtField(err, string(key))
			}
		}
	}
	tests := []struct{ name, in, want string }{
		{"empty input", ``, ""},
		{"string field", `{"a":"x"}`, ""},
		{"number for a string", `{"a":1}`, "a: expected string, got number"},
		{"data after the object", `{"a":"x"} {}`, "invalid JSON"},
		{"array for an object", `[]`, "expected object, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Decode([]byte(tt.in), decodeText)
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Decode(%q) = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestDecodeAny(t *testing.T) {
	var s jsonrpc.Scanner
	s.Reset([]byte(`{"a":[1,"x",true,null,{"b":2}]}`))
	v, err := DecodeAny(&s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{1.0, "x", true, nil, map[string]any{"b": 2.0}}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("DecodeAny = %#v", v)
	}

	// A bad value deep inside reports its path as an *mcp.FieldError, the
	// type the protocol package's decoders report.
	err = Decode([]byte(`{"a":[1,{"b c":tru}]}`), func(s *jsonrpc.Scanner) error {
		_, err := DecodeAny(s)
		return err
	})
	var fe *mcp.FieldError
	if !errors.As(err, &fe) || fe.Path != `a[1]["b c"]` || !strings.HasPrefix(fe.Msg, "invalid JSON") {
		t.Fatalf("DecodeAny error = %#v", err)
	}
}

func TestAddTool(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	h := func(ctxArg context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, nil
	}
	in := "{\n  \"type\": \"object\"\n}"
	out := `{"type":"object","properties":{"sum":{"type":"integer"}}}`
	if err := AddTool(s, mcp.Tool{Name: "x"}, in, out, h, server.WithOutputValidator(func([]byte) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if err := AddTool(s, mcp.Tool{Name: "y"}, "{", "", h); err == nil {
		t.Fatal("a broken input schema was accepted")
	}
	if err := AddTool(s, mcp.Tool{Name: "z"}, in, "[", h); err == nil {
		t.Fatal("a broken output schema was accepted")
	}
	r, err := Structured([]byte(`{"sum":1}`), nil)
	if err != nil || string(r.StructuredContent) != `{"sum":1}` || r.Content[0].Value.(*mcp.TextContent).Text != `{"sum":1}` {
		t.Fatalf("Structured = %+v, %v", r, err)
	}
}

// A hint written false reaches the wire from the annotations' Extra, where
// generated definitions put it (a false field of a Go literal is left
// out), and stays after the decode and encode AddTool's server does.
func TestFalseHint(t *testing.T) {
	def := mcp.Tool{Name: "x", Annotations: &mcp.ToolAnnotations{
		ReadOnlyHint: true,
		Extra:        map[string]json.RawMessage{"destructiveHint": json.RawMessage("false")},
	}}
	raw, err := def.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back mcp.Tool
	if err := back.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	again, err := back.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{raw, again} {
		if !strings.Contains(string(b), `"destructiveHint":false`) || !strings.Contains(string(b), `"readOnlyHint":true`) {
			t.Errorf("annotations lost a hint: %s", b)
		}
	}
}
