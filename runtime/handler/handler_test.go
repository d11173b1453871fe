package handler

import (
	"context"
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
	for in, want := range map[string]string{
		``:             "",
		`{"a":"x"}`:    "",
		`{"a":1}`:      "a: expected string, got number",
		`{"a":"x"} {}`: "invalid JSON",
		`[]`:           "expected object, got array",
	} {
		err := Decode([]byte(in), decodeText)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
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
	def := "{\n  \"name\": \"x\",\n  \"inputSchema\": {\n    \"type\": \"object\"\n  }\n}"
	if err := AddTool(s, def, func(ctxArg context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := AddTool(s, "{", nil); err == nil {
		t.Fatal("a broken definition was accepted")
	}
	r, err := Structured([]byte(`{"sum":1}`), nil)
	if err != nil || string(r.StructuredContent) != `{"sum":1}` || r.Content[0].Value.(*mcp.TextContent).Text != `{"sum":1}` {
		t.Fatalf("Structured = %+v, %v", r, err)
	}
}
