package handlers

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/bench/handlers/search"
)

// FuzzDecodeInput feeds arbitrary arguments to the decoder mcpgen
// generated for search's input (strings with length rules, bounded
// integers, an optional pointer, an enum, a bounded slice, an optional
// nested object): it must not panic, must accept only JSON, and what it
// accepts must be stable: encoded again, it decodes to the same Input,
// which encodes to the same bytes.
func FuzzDecodeInput(f *testing.F) {
	for _, seed := range []string{
		string(args),
		string(bad),
		`{"query":"a","limit":1}`,
		`{"query":"é\u00e9\ud83d\ude00","limit":1e2,"offset":0,"order":"oldest","tags":[],"within":{"from":""},"archived":false,"minScore":-0}`,
		`{"limit":100,"query":"x","minScore":1E-7,"offset":9007199254740993,"tags":["a","b","c","d","e","f","g","h","i","j"]}`,
		`{"query":"","limit":0}`,
		`{"query":"q","limit":1.5}`,
		`{"query":"q","limit":1,"within":{"from":"a","to":"b","x":1}}`,
		`{"query":"q","limit":1,"within":null}`,
		`{"query":"q","limit":1,"tags":[[[[]]]]}`,
		`{"query":"q","limit":1,"query":"r"}`,
		` {"query" : "q" , "limit" : 1 } `,
		`[]`,
		`{"query":"q","limit":1}x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in search.Input
		if err := search.Decode(data, &in); err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("decoded %q, which is not JSON, to %+v", data, in)
		}
		enc, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("encoding %+v: %v", in, err)
		}
		var again search.Input
		if err := search.Decode(enc, &again); err != nil {
			t.Fatalf("%q decoded to %+v, whose encoding %s the decoder refuses: %v", data, in, enc, err)
		}
		if len(in.Tags) == 0 {
			in.Tags = nil // an empty tags array is left out of the encoding
		}
		if !reflect.DeepEqual(in, again) {
			t.Fatalf("%q decoded to %+v, its encoding %s to %+v", data, in, enc, again)
		}
		if enc2, _ := json.Marshal(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("%q: encoded %s, then %s", data, enc, enc2)
		}
	})
}
