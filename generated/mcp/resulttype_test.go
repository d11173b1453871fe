package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestResultWithoutCacheHints is issue 10, item 9: a "complete"
// resources/read result without ttlMs and cacheScope, which
// ReadResourceResult requires. The schema accepts it, through the open
// InputRequiredResult; the decoder takes it for the ReadResourceResult its
// resultType names; Validate agrees with the schema, and ValidateVariant
// names what the ReadResourceResult lacks.
func TestResultWithoutCacheHints(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(localExamples, "2026-07-28", "ReadResourceResultResponse", "read-resource-result-response.json"))
	if err != nil {
		t.Fatal(err)
	}
	o := newOracle(t)
	inst := decodeNumbers(t, data)
	result := inst.(map[string]any)["result"]
	for _, c := range []struct {
		def  string
		inst any
		want bool
	}{
		{"ReadResourceResultResponse", inst, true},
		{"ReadResourceResult", result, false},
		{"InputRequiredResult", result, true},
	} {
		if got := o.valid(t, "/$defs/"+c.def, c.inst); got != c.want {
			t.Errorf("the schema says %s is valid: %v, want %v", c.def, got, c.want)
		}
	}

	var resp ReadResourceResultResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		t.Fatalf("decode: %v", err)
	}
	read, ok := resp.Result.Value.(*ReadResourceResult)
	if !ok {
		t.Fatalf("result is a %T, want *ReadResourceResult", resp.Result.Value)
	}
	if read.ResultType != "complete" || len(read.Contents) != 1 {
		t.Errorf("decoded %+v", read)
	}
	if err := resp.Validate(); err != nil {
		t.Errorf("Validate: %v; the schema accepts the message", err)
	}
	wantStrict := "cacheScope: required"
	if err := resp.Result.ValidateVariant(Version20260728); err == nil || err.Error() != wantStrict {
		t.Errorf("Result.ValidateVariant = %v, want %s", err, wantStrict)
	}
	if err := read.ValidateVersion(Version20260728); err == nil || err.Error() != wantStrict {
		t.Errorf("ReadResourceResult.ValidateVersion = %v, want %s", err, wantStrict)
	}
}

// resultUnions are the unions that resultType discriminates, each with a
// way to decode a result into it, the path its errors carry and the type a
// complete result decodes as.
var resultUnions = []struct {
	name     string
	decode   func(result []byte) (Message, func() any, error)
	path     string // of the result in the message decoded
	complete string // the Go type of a complete result
	minimal  string // a complete result's members besides resultType
	bare     string // the Go type of a result with nothing but resultType
}{
	{"CallToolResultResponseResult", func(r []byte) (Message, func() any, error) {
		var m CallToolResultResponse
		err := json.Unmarshal(envelope(r), &m)
		return &m, func() any { return m.Result.Value }, err
	}, "result.", "*mcp.CallToolResult", `"content":[]`, "*mcp.CallToolResult"},
	{"GetPromptResultResponseResult", func(r []byte) (Message, func() any, error) {
		var m GetPromptResultResponse
		err := json.Unmarshal(envelope(r), &m)
		return &m, func() any { return m.Result.Value }, err
	}, "result.", "*mcp.GetPromptResult", `"messages":[]`, "*mcp.GetPromptResult"},
	{"ReadResourceResultResponseResult", func(r []byte) (Message, func() any, error) {
		var m ReadResourceResultResponse
		err := json.Unmarshal(envelope(r), &m)
		return &m, func() any { return m.Result.Value }, err
	}, "result.", "*mcp.ReadResourceResult", `"contents":[],"ttlMs":0,"cacheScope":"public"`, "*mcp.ReadResourceResult"},
	{"ServerResult", func(r []byte) (Message, func() any, error) {
		var m ServerResult
		err := json.Unmarshal(r, &m)
		return &m, func() any { return m.Value }, err
	}, "", "*mcp.ReadResourceResult", `"contents":[],"ttlMs":0,"cacheScope":"public"`,
		// Among its complete results, ServerResult goes by the properties.
		"*mcp.Result"},
}

func envelope(result []byte) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(result) + `}`)
}

// TestResultTypeDiscriminator checks every value of resultType on every
// union it discriminates: "complete" and an absent resultType decode as the
// method's result, even when that lacks required properties;
// "input_required" as InputRequiredResult; anything else is an error at
// the resultType member.
func TestResultTypeDiscriminator(t *testing.T) {
	for _, u := range resultUnions {
		cases := []struct {
			name, result, want string
		}{
			{"complete", `{"resultType":"complete",` + u.minimal + `}`, u.complete},
			{"complete, lacking required properties", `{"resultType":"complete"}`, u.bare},
			{"absent (a server before 2026-07-28)", `{` + u.minimal + `}`, u.complete},
			{"input_required", `{"resultType":"input_required","requestState":"s"}`, "*mcp.InputRequiredResult"},
			{"input_required with a complete result's members", `{"resultType":"input_required",` + u.minimal + `}`, "*mcp.InputRequiredResult"},
			{"escaped", `{"resultType":"input\u005frequired"}`, "*mcp.InputRequiredResult"},
		}
		for _, c := range cases {
			t.Run(u.name+"/"+c.name, func(t *testing.T) {
				msg, value, err := u.decode([]byte(c.result))
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if got := fmt.Sprintf("%T", value()); got != c.want {
					t.Fatalf("decoded a %s, want %s", got, c.want)
				}
				out, err := json.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				again, value2, err := u.decode(resultOf(t, out, u.path != ""))
				if err != nil {
					t.Fatalf("decode %s again: %v", out, err)
				}
				if out2, _ := json.Marshal(again); string(out2) != string(out) {
					t.Errorf("round trip: %s, then %s", out, out2)
				}
				if fmt.Sprintf("%T", value2()) != c.want {
					t.Errorf("decoded again as %T", value2())
				}
			})
		}
	}
}

// resultOf returns the result member of an encoded response, or the whole
// of it when it is a bare result.
func resultOf(t *testing.T, data []byte, inResponse bool) []byte {
	t.Helper()
	if !inResponse {
		return data
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m["result"]
}

// TestResultTypeErrors checks that a resultType the table does not know,
// or one that is not a string, is a decoding error at its JSON path that
// names the value.
func TestResultTypeErrors(t *testing.T) {
	for _, u := range resultUnions {
		for _, c := range []struct {
			result, msg string
			unknown     string // the value UnknownVariantError holds
		}{
			{`{"resultType":"task","task":{}}`, `unknown ` + u.name + ` variant: resultType "task"`, "task"},
			{`{"resultType":"Complete"}`, `unknown ` + u.name + ` variant: resultType "Complete"`, "Complete"},
			{`{"resultType":""}`, `unknown ` + u.name + ` variant: resultType ""`, ""},
			{`{"resultType":5}`, "expected string, got number", ""},
			{`{"resultType":null}`, "expected string, got null", ""},
		} {
			t.Run(u.name+"/"+c.result, func(t *testing.T) {
				_, _, err := u.decode([]byte(c.result))
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v (%T), want a *FieldError", err, err)
				}
				if want := u.path + "resultType"; fe.Path != want || fe.Msg != c.msg {
					t.Errorf("error %q at %q, want %q at %q", fe.Msg, fe.Path, c.msg, want)
				}
				var uv *UnknownVariantError
				if got := errors.As(err, &uv); got != (c.msg[0] == 'u') {
					t.Fatalf("UnknownVariantError found: %v", got)
				}
				if uv != nil && (uv.Union != u.name || uv.Key != "resultType" || uv.Value != c.unknown) {
					t.Errorf("UnknownVariantError = %+v", uv)
				}
			})
		}
	}
}

// TestResultTypeValidate checks what validation makes of decoded results:
// the schema's verdict (a result lacking a property it requires is still
// an InputRequiredResult; one lacking resultType is nothing) and the
// stricter verdict of ValidateVariant.
func TestResultTypeValidate(t *testing.T) {
	o := newOracle(t)
	for _, c := range []struct {
		result  string
		valid   string // Validate's error, "" for none
		variant string // ValidateVariant's
	}{
		{`{"resultType":"complete","contents":[],"ttlMs":5,"cacheScope":"public"}`, "", ""},
		{`{"resultType":"complete","contents":[],"cacheScope":"public"}`, "", "ttlMs: required"},
		{`{"resultType":"complete"}`, "", "cacheScope: required"},
		{`{"contents":[],"ttlMs":5,"cacheScope":"public"}`, "result.resultType: required", "resultType: required"},
		{`{"resultType":"complete","contents":[],"ttlMs":-1,"cacheScope":"public"}`, "", "ttlMs: must be >= 0"},
		{`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`, "", ""},
		{`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"?"}}}}`,
			"result.inputRequests.a.params.requestedSchema: required", "inputRequests.a.params.requestedSchema: required"},
	} {
		t.Run(c.result, func(t *testing.T) {
			data := envelope([]byte(c.result))
			var resp ReadResourceResultResponse
			if err := json.Unmarshal(data, &resp); err != nil {
				t.Fatalf("decode: %v", err)
			}
			err := resp.Validate()
			if got := errText(err); got != c.valid {
				t.Errorf("Validate = %q, want %q", got, c.valid)
			}
			if schema := o.valid(t, "/$defs/ReadResourceResultResponse", decodeNumbers(t, data)); schema != (err == nil) {
				t.Errorf("the schema says valid: %v, Validate says %v", schema, err)
			}
			if got := errText(resp.Result.ValidateVariant(Version20260728)); got != c.variant {
				t.Errorf("ValidateVariant = %q, want %q", got, c.variant)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestResultTypeLegacy decodes results of servers older than 2026-07-28,
// which send no resultType, through the union of every server result.
func TestResultTypeLegacy(t *testing.T) {
	var r ServerResult
	if err := json.Unmarshal([]byte(`{"contents":[{"uri":"file:///a","text":"a"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Value.(*ReadResourceResult); !ok {
		t.Fatalf("decoded a %T, want *ReadResourceResult", r.Value)
	}
	if err := r.ValidateVersion(Version20250618); err != nil {
		t.Errorf("ValidateVersion(2025-06-18): %v", err)
	}
	if err := r.ValidateVariant(Version20250618); err != nil {
		t.Errorf("ValidateVariant(2025-06-18): %v", err)
	}
	if err := r.ValidateVersion(Version20260728); err == nil || err.Error() != "resultType: required" {
		t.Errorf("ValidateVersion(2026-07-28) = %v, want resultType: required", err)
	}
}
