package streamable

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestReadCallParamsMatchesJSON checks the scanner's reading of a
// request's params against encoding/json's, which it replaced on the path
// of every request: the same members, and false where json fails.
func TestReadCallParamsMatchesJSON(t *testing.T) {
	for _, params := range []string{
		`{"name":"echo","arguments":{"x":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","other":[1,{"a":"b"}]}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"uri":"file:///a\u00e9"}`,
		`{"taskId":"t1","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}`,
		`{"name":null,"arguments":null,"_meta":{"io.modelcontextprotocol/protocolVersion":null}}`,
		`{"name":"a","name":"b","_meta":null}`,
		`{"name":"echo"}`,
		`{}`,
		`null`,
		``,
		`[]`,
		`{"name":1}`,
		`{"_meta":"v"}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":2}}`,
		`{"name":"echo"`,
		`{"name":"echo"} x`,
	} {
		var want struct {
			Meta *struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
			Name      string          `json:"name"`
			URI       string          `json:"uri"`
			TaskID    string          `json:"taskId"`
			Arguments json.RawMessage `json:"arguments"`
		}
		wantVersion := ""
		if json.Unmarshal([]byte(params), &want) == nil && want.Meta != nil {
			wantVersion = want.Meta.Version
		}
		got, ok := readCallParams([]byte(params))
		if modern, wantModern := ok && got.version != "", wantVersion != ""; modern != wantModern {
			t.Errorf("readCallParams(%s): a 2026-07-28 request: %v, by encoding/json %v", params, modern, wantModern)
			continue
		}
		if wantVersion == "" {
			continue // not a 2026-07-28 request: the members are not used
		}
		if got.version != wantVersion || got.name != want.Name || got.uri != want.URI || got.taskID != want.TaskID || string(got.arguments) != string(want.Arguments) {
			t.Errorf("readCallParams(%s) = %+v; encoding/json reads %q %q %q %q %s", params, got, wantVersion, want.Name, want.URI, want.TaskID, want.Arguments)
		}
	}
}

// TestReadJSONReplyAnnouncedSize checks that a reply is read into one
// buffer of its announced size only when that is small: a server that
// announces a large body and sends little costs no memory for the rest.
func TestReadJSONReplyAnnouncedSize(t *testing.T) {
	reply := func(announced int64, body string) *http.Response {
		return &http.Response{ContentLength: announced, Body: io.NopCloser(strings.NewReader(body))}
	}
	if got, err := readJSONReply(reply(int64(len(`{"a":1}`)), `{"a":1}`), 1<<20); err != nil || string(got) != `{"a":1}` {
		t.Fatalf("a small reply: %q %v", got, err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readJSONReply(reply(16<<20, `{"a":1}`), 32<<20)
	runtime.ReadMemStats(&after)
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("a short body under a large announcement: %q %v", got, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("reading 7 bytes announced as 16 MiB allocated %d bytes", grew)
	}
	if _, err := readJSONReply(reply(3, `{"a":1}`[:2]), 1<<20); err == nil {
		t.Fatal("a body shorter than its announced size read without an error")
	}
}
