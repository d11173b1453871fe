package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// goSDKDecodeCallToolRequest does, with go-sdk v1.8.0's own types and
// decoder, the work its server does between receiving the bytes of one
// tools/call request and handing the params to the tool layer:
//
//  1. The transport (stdio ioConn.Read and Streamable HTTP alike, through
//     mcp.readBatch) turns the bytes into a message with the exported
//     jsonrpc.DecodeMessage, which decodes the envelope and leaves params
//     as json.RawMessage.
//  2. mcp.handleReceive looks the method up (checkRequest) and calls the
//     method's unmarshalParams, which newMethodInfo builds as
//     internal/json.Unmarshal(params, &p) with p a *CallToolParamsRaw, the
//     params type the server registers for tools/call
//     (serverMethodInfos[methodCallTool]). internal/json.Unmarshal is a
//     nesting-depth pre-scan followed by a fresh segmentio/encoding/json
//     Decoder over a bytes.Reader with DontMatchCaseInsensitiveStructFields.
//
// Step 1 is called as is. Step 2 is internal, so it is rebuilt here from
// the same parts: the same target type, the same decoder library and
// version (the one go-sdk v1.8.0 requires), configured the same way.
// Left out, all in go-sdk's favour: readBatch's first, failing attempt to
// decode the bytes as a batch array, the depth pre-scan of params (one pass,
// no allocation), and the method-table lookup.
//
// This is the fair counterpart of json.Unmarshal into mcpgen's
// CallToolRequest: both start from the same bytes and end with the
// envelope checked, the id and method known, and the tool name and _meta
// decoded. go-sdk stops with the arguments as raw JSON (its tool handlers
// decode them into the tool's own input type later); what mcpgen's
// CallToolRequest holds for arguments is up to its generated type, and is
// part of what this benchmark compares.
func goSDKDecodeCallToolRequest(data []byte) (*gosdk.CallToolParamsRaw, jsonrpc.ID, error) {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, jsonrpc.ID{}, err
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil, jsonrpc.ID{}, fmt.Errorf("got %T, want a request", msg)
	}
	if req.Method != "tools/call" || !req.IsCall() || len(req.Params) == 0 {
		return nil, jsonrpc.ID{}, fmt.Errorf("not a tools/call call with params: %q", req.Method)
	}
	var p *gosdk.CallToolParamsRaw
	dec := segjson.NewDecoder(bytes.NewReader(req.Params))
	dec.DontMatchCaseInsensitiveStructFields()
	if err := dec.Decode(&p); err != nil {
		return nil, jsonrpc.ID{}, fmt.Errorf("unmarshaling params into %T: %w", p, err)
	}
	if p == nil {
		return nil, jsonrpc.ID{}, errors.New("missing required params")
	}
	return p, req.ID, nil
}

func BenchmarkDecodeCallToolRequest(b *testing.B) {
	if f := mcpgenHalves.decodeCallToolRequest; f != nil {
		b.Run("mcpgen", f)
	}
	b.Run("gosdk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(callToolRequest)))
		for b.Loop() {
			if _, _, err := goSDKDecodeCallToolRequest(callToolRequest); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkValidateCallToolResult(b *testing.B) {
	if f := mcpgenHalves.validateCallToolResult; f != nil {
		b.Run("mcpgen", f)
	}
	b.Run("santhosh", func(b *testing.B) {
		sch := compileDefinition(b, validateVersion, "CallToolResult")
		inst := instance(b, callToolResult)
		if err := sch.Validate(inst); err != nil {
			b.Fatalf("the instance is not valid: %v", err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := sch.Validate(inst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestGoSDKDecodeCallToolRequest checks that the go-sdk path decodes the
// request completely, so the benchmark measures real work.
func TestGoSDKDecodeCallToolRequest(t *testing.T) {
	p, id, err := goSDKDecodeCallToolRequest(callToolRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got := id.Raw(); got != int64(7) {
		t.Errorf("id = %#v, want 7", got)
	}
	if p.Name != "search_flights" {
		t.Errorf("name = %q, want search_flights", p.Name)
	}
	if got := p.GetProgressToken(); got != "abc" {
		t.Errorf("progress token = %#v, want \"abc\"", got)
	}
	var args map[string]any
	if err := json.Unmarshal(p.Arguments, &args); err != nil {
		t.Fatalf("arguments: %v", err)
	}
	if len(args) != 10 || args["destination"] != "NRT" {
		t.Errorf("arguments = %v, want the 10 arguments of the fixture", args)
	}
}

// TestCallToolRequestIsValid checks the request fixture against the
// CallToolRequest definition of the 2025-11-25 schema.
func TestCallToolRequestIsValid(t *testing.T) {
	sch := compileDefinition(t, "2025-11-25", "CallToolRequest")
	if err := sch.Validate(instance(t, callToolRequest)); err != nil {
		t.Fatalf("%s", err)
	}
}

// TestCallToolResultIsValid checks that santhosh-tekuri/jsonschema accepts
// the instance BenchmarkValidateCallToolResult validates, so the benchmark
// times the success path, and that the compiled schema is not vacuous: it
// rejects the same instance with one content block broken in each of a few
// ways, including the registered byte format.
func TestCallToolResultIsValid(t *testing.T) {
	sch := compileDefinition(t, validateVersion, "CallToolResult")
	if err := sch.Validate(instance(t, callToolResult)); err != nil {
		t.Fatalf("%s", err)
	}

	var doc struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(callToolResult, &doc); err != nil {
		t.Fatal(err)
	}
	if got := len(doc.Content); got != 10 {
		t.Errorf("the instance has %d content blocks, want 10", got)
	}
	kinds := map[any]bool{}
	for _, c := range doc.Content {
		kinds[c["type"]] = true
	}
	for _, k := range []string{"text", "image", "audio", "resource_link", "resource"} {
		if !kinds[k] {
			t.Errorf("the instance has no %s content block", k)
		}
	}

	for _, tc := range []struct {
		name  string
		block int
		key   string
		value any    // nil deletes key
		want  string // in the error
	}{
		{"image data not base64", 1, "data", "not base64!", "is not valid byte"},
		{"image without mimeType", 1, "mimeType", nil, "missing property 'mimeType'"},
		{"unknown content type", 2, "type", "video", "value must be 'text'"},
		{"resource_link uri not a uri", 4, "uri", "offers/NH7", "is not valid uri"},
		{"audio without data", 3, "data", nil, "missing property 'data'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v map[string]any
			if err := json.Unmarshal(callToolResult, &v); err != nil {
				t.Fatal(err)
			}
			block := v["content"].([]any)[tc.block].(map[string]any)
			if tc.value == nil {
				delete(block, tc.key)
			} else {
				block[tc.key] = tc.value
			}
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(instance(t, data))
			if err == nil {
				t.Fatalf("santhosh accepted content[%d] with %s = %v", tc.block, tc.key, tc.value)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not say %q:\n%v", tc.want, err)
			}
		})
	}
}
