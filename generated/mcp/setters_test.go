package mcp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// cacheable is a 2026-07-28 result that carries the required ttlMs.
type cacheable interface {
	mcp.Message
	SetTTLMs(int64)
}

// cacheableResults builds each 2026-07-28 cacheable result as a server
// would, with a cacheScope and a resultType but no ttlMs yet.
var cacheableResults = []struct {
	name  string
	build func() cacheable
}{
	{"ListToolsResult", func() cacheable {
		return &mcp.ListToolsResult{Tools: []mcp.Tool{}, CacheScope: mcp.ListToolsResultCacheScopePublic, ResultType: "complete"}
	}},
	{"ListPromptsResult", func() cacheable {
		return &mcp.ListPromptsResult{Prompts: []mcp.Prompt{}, CacheScope: mcp.ListPromptsResultCacheScopePrivate, ResultType: "complete"}
	}},
	{"ListResourcesResult", func() cacheable {
		return &mcp.ListResourcesResult{Resources: []mcp.Resource{}, CacheScope: mcp.ListResourcesResultCacheScopePublic, ResultType: "complete"}
	}},
	{"ListResourceTemplatesResult", func() cacheable {
		return &mcp.ListResourceTemplatesResult{ResourceTemplates: []mcp.ResourceTemplate{}, CacheScope: mcp.ListResourceTemplatesResultCacheScopePrivate, ResultType: "complete"}
	}},
	{"ReadResourceResult", func() cacheable {
		return &mcp.ReadResourceResult{
			Contents:   []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: "file:///a.txt", Text: "a"}}},
			CacheScope: mcp.ReadResourceResultCacheScopePublic,
			ResultType: "complete",
		}
	}},
}

// TestSetTTLMsZero checks that a result built in Go can say "ttlMs 0"
// (immediately stale) with SetTTLMs: the zero is encoded, survives a round
// trip, and satisfies 2026-07-28, which requires the property.
func TestSetTTLMsZero(t *testing.T) {
	for _, tt := range cacheableResults {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.build()
			r.SetTTLMs(0)
			if err := r.ValidateVersion(mcp.Version20260728); err != nil {
				t.Fatalf("ValidateVersion(2026-07-28) after SetTTLMs(0): %v", err)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"ttlMs":0`) {
				t.Fatalf("encoded as %s, want \"ttlMs\":0", data)
			}
			back := reflect.New(reflect.TypeOf(r).Elem()).Interface().(cacheable)
			if err := json.Unmarshal(data, back); err != nil {
				t.Fatalf("decode %s: %v", data, err)
			}
			if !exportedEqual(r, back) {
				t.Errorf("decoded %+v, want %+v", back, r)
			}
			if err := back.ValidateVersion(mcp.Version20260728); err != nil {
				t.Errorf("decoded value: ValidateVersion(2026-07-28): %v", err)
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(data) {
				t.Errorf("re-encoded as %s, want %s", again, data)
			}
		})
	}
}

// TestTTLMsZeroWithoutSetter documents why the setter exists: a zero
// TTLMs assigned as a field reads as absent, so it is not encoded and the
// value fails 2026-07-28 (it still suits the versions without ttlMs).
func TestTTLMsZeroWithoutSetter(t *testing.T) {
	for _, tt := range cacheableResults {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.build()
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), `"ttlMs"`) {
				t.Fatalf("encoded as %s, want no ttlMs", data)
			}
			if err := r.ValidateVersion(mcp.Version20260728); err == nil || err.Error() != "ttlMs: required" {
				t.Fatalf("ValidateVersion(2026-07-28) = %v, want ttlMs: required", err)
			}
		})
	}
}

// TestSetTTLMsOverwrites checks that SetTTLMs replaces a value assigned
// before, and that a later non-zero value is encoded as itself.
func TestSetTTLMsOverwrites(t *testing.T) {
	r := mcp.ListToolsResult{Tools: []mcp.Tool{}, TTLMs: 500}
	r.SetTTLMs(0)
	if r.TTLMs != 0 {
		t.Fatalf("TTLMs = %d after SetTTLMs(0)", r.TTLMs)
	}
	r.SetTTLMs(60000)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"ttlMs":60000`) {
		t.Fatalf("encoded as %s, want \"ttlMs\":60000", data)
	}
}

// exportedEqual compares the exported fields of two values, deeply. The
// unexported presence bits differ by design: a decoded value records every
// property it read, one built in Go only what was set.
func exportedEqual(a, b any) bool {
	return equalExported(reflect.ValueOf(a), reflect.ValueOf(b))
}

func equalExported(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalExported(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() && !equalExported(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return false
		}
		for i := range a.Len() {
			if !equalExported(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
