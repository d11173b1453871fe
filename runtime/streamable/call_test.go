package streamable

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Tests of the 2026-07-28 POST path (call.go) on the HTTP side: routing,
// the checks of _meta and of the SEP-2243 headers, and how answers are
// shaped. Each rule is checked with its JSON-RPC code and HTTP status.

func TestCallServedWithoutSession(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	for _, sid := range []string{"", "NOSUCHSESSION"} {
		// Streams are not resumable: Last-Event-ID is ignored too.
		r := c.send(call26("1", "echo", `{"text":"hi"}`, meta26("")), hdr26("tools/call", "echo", "Mcp-Session-Id", sid, "Last-Event-ID", "0-1")...)
		if got := r.text(t, "1"); got != "hi" {
			t.Fatalf("Mcp-Session-Id %q: echo answered %q", sid, got)
		}
		if got := r.header.Get("Mcp-Session-Id"); got != "" {
			t.Fatalf("Mcp-Session-Id %q: the answer names session %q", sid, got)
		}
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions after 2026-07-28 requests, want 0", n)
	}
}

// TestCallIgnoresLegacySessionID checks that a 2026-07-28 request that
// carries a live legacy session's id is served on its own and leaves the
// session as it was.
func TestCallIgnoresLegacySessionID(t *testing.T) {
	h, ts := serve(t, nil)
	legacy := newClient(t, ts)
	legacy.initialize("2025-11-25", "")
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions, want 1", n)
	}
	c := newClient(t, ts)
	r := c.send(call26("1", "echo", `{"text":"modern"}`, meta26("")), hdr26("tools/call", "echo", "Mcp-Session-Id", legacy.sid)...)
	if got := r.text(t, "1"); got != "modern" {
		t.Fatalf("echo answered %q", got)
	}
	if got := r.header.Get("Mcp-Session-Id"); got != "" {
		t.Fatalf("the answer echoes session %q", got)
	}
	// A method the legacy session has and 2026-07-28 does not is
	// answered by 2026-07-28's rules, not by the session.
	r = c.send(body26("2", "ping", "", meta26("")), hdr26("ping", "", "Mcp-Session-Id", legacy.sid)...)
	r.wantError(t, http.StatusNotFound, jsonrpc.CodeMethodNotFound, "2")
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions, want the legacy one only", n)
	}
	msgs := messages(t, legacy.do("POST", callBody(3, "echo", `{"text":"still"}`)))
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"text":"still"`) {
		t.Fatalf("the legacy session answered %q", msgs)
	}
}

// TestCallRoutedByMeta checks that a POST without MCP-Protocol-Version
// whose _meta is of 2026-07-28 is served by 2026-07-28's rules, which
// require the header: -32020 with 400, no session started.
func TestCallRoutedByMeta(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	for _, body := range []string{
		call26("1", "echo", "", meta26("")),
		// The method exists only in the legacy era: the _meta decides.
		body26("1", "initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}`, meta26("")),
	} {
		r := c.send(body, "Mcp-Method", "tools/call", "Mcp-Name", "echo")
		e := r.wantError(t, http.StatusBadRequest, mcp.CodeHeaderMismatch, "1")
		if !strings.Contains(e.Message, "Mcp-Protocol-Version") {
			t.Fatalf("the error does not name the missing header: %q", e.Message)
		}
		if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
			t.Fatalf("a session %q was started", sid)
		}
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions, want 0", n)
	}
}

func TestCallGetAndDeleteNotAllowed(t *testing.T) {
	_, ts := serve(t, nil)
	legacy := newClient(t, ts)
	legacy.initialize("2025-11-25", "")
	c := newClient(t, ts)
	for _, m := range []string{"GET", "DELETE", "PUT"} {
		for _, sid := range []string{"", legacy.sid} {
			resp := c.do(m, "", "MCP-Protocol-Version", modern, "Mcp-Session-Id", sid)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
				t.Errorf("%s with a 2026-07-28 header (session %q): %s, Allow %q; want 405 with Allow: POST", m, sid, resp.Status, resp.Header.Get("Allow"))
			}
		}
	}
	// The legacy session was not DELETEd.
	if msgs := messages(t, legacy.do("POST", callBody(1, "echo", `{"text":"alive"}`))); len(msgs) != 1 || !strings.Contains(msgs[0], "alive") {
		t.Fatalf("the legacy session answered %q", msgs)
	}
}

func TestCallMessageKinds(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	one := call26("1", "echo", "", meta26(""))
	for _, batch := range []string{"[" + one + "]", "[" + one + "," + strings.Replace(one, `"id":1`, `"id":2`, 1) + "]"} {
		c.send(batch, hdr26("tools/call", "echo")...).wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "null")
	}
	// Without the header, a batch of one whose _meta is modern is still
	// one 2026-07-28 POST, and refused so.
	c.send("["+one+"]", "Mcp-Method", "tools/call", "Mcp-Name", "echo").wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "null")

	code, body := c.status("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "MCP-Protocol-Version", modern, "Mcp-Method", "notifications/cancelled")
	if code != http.StatusAccepted || body != "" {
		t.Fatalf("a notification: %d %q, want 202 without a body", code, body)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"result":{}}`, "MCP-Protocol-Version", modern).wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "null")
	c.send(`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, "MCP-Protocol-Version", modern).wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "null")
	c.send(`{"jsonrpc":"2.0","id":1,`, "MCP-Protocol-Version", modern).wantError(t, http.StatusBadRequest, jsonrpc.CodeParseError, "null")
}

func TestCallMeta(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	const (
		pv   = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
		caps = `"io.modelcontextprotocol/clientCapabilities":{}`
	)
	for _, tc := range []struct {
		name string
		meta string // "" for no _meta
		code int64  // 0: served
	}{
		{"no _meta", "", jsonrpc.CodeInvalidParams},
		{"_meta not an object", `"2026-07-28"`, jsonrpc.CodeInvalidParams},
		{"no protocolVersion", `{` + caps + `}`, jsonrpc.CodeInvalidParams},
		{"protocolVersion not a string", `{"io.modelcontextprotocol/protocolVersion":20260728,` + caps + `}`, jsonrpc.CodeInvalidParams},
		{"no clientCapabilities", `{` + pv + `}`, jsonrpc.CodeInvalidParams},
		{"clientCapabilities not an object", `{` + pv + `,"io.modelcontextprotocol/clientCapabilities":"all"}`, jsonrpc.CodeInvalidParams},
		{"clientInfo left out", `{` + pv + `,` + caps + `}`, 0},
		{"clientInfo malformed", `{` + pv + `,` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":1}}`, jsonrpc.CodeInvalidParams},
		{"logLevel debug", meta26("", `"io.modelcontextprotocol/logLevel":"debug"`), 0},
		{"logLevel unknown", meta26("", `"io.modelcontextprotocol/logLevel":"loud"`), jsonrpc.CodeInvalidParams},
		{"logLevel not a string", meta26("", `"io.modelcontextprotocol/logLevel":3`), jsonrpc.CodeInvalidParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := call26("7", "echo", `{"text":"ok"}`, tc.meta)
			if tc.meta != "" && tc.meta[0] != '{' {
				body = body26("7", "tools/call", `"name":"echo","arguments":{},"_meta":`+tc.meta, "")
			}
			r := c.send(body, hdr26("tools/call", "echo")...)
			if tc.code == 0 {
				if got := r.text(t, "7"); got != "ok" {
					t.Fatalf("echo answered %q", got)
				}
				return
			}
			r.wantError(t, http.StatusBadRequest, tc.code, "7")
		})
	}
}

// TestCallRemovedMethods checks that the methods 2026-07-28 removed, and
// methods nobody defines, are -32601 with 404 even with a well-formed
// _meta and headers.
func TestCallRemovedMethods(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	for _, tc := range []struct{ method, members string }{
		{"initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}`},
		{"ping", ""},
		{"logging/setLevel", `"level":"debug"`},
		{"resources/subscribe", `"uri":"file:///a.txt"`},
		{"resources/unsubscribe", `"uri":"file:///a.txt"`},
		{"no/such/method", ""},
	} {
		r := c.send(body26(`"m"`, tc.method, tc.members, meta26("")), hdr26(tc.method, "")...)
		r.wantError(t, http.StatusNotFound, jsonrpc.CodeMethodNotFound, `"m"`)
	}
}

// TestCallUnsupportedVersion checks -32022: a version the server does not
// serve per request, named alike in the header and _meta, is answered with
// the versions it does serve, each of which server/discover lists too.
func TestCallUnsupportedVersion(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	discovered := discoverVersions(t, c)
	for _, v := range []string{"v999", "1900-01-01", "2025-11-25"} {
		meta := strings.Replace(meta26(""), modern, v, 1)
		r := c.send(call26("3", "echo", "", meta), "MCP-Protocol-Version", v, "Mcp-Method", "tools/call", "Mcp-Name", "echo")
		e := r.wantError(t, http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion, "3")
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		if err := json.Unmarshal(e.Data, &data); err != nil || len(data.Supported) == 0 || data.Requested != v {
			t.Fatalf("%s: data %s (%v), want the supported versions and requested %q", v, e.Data, err, v)
		}
		for _, s := range data.Supported {
			if !slices.Contains(discovered, s) {
				t.Errorf("%s: -32022 offers %q, which server/discover does not list (%q)", v, s, discovered)
			}
		}
		var typed mcp.UnsupportedProtocolVersionError
		if err := typed.UnmarshalJSON([]byte(r.raw[0])); err != nil {
			t.Fatal(err)
		}
		if err := typed.ValidateVersion(mcp.Version20260728); err != nil {
			t.Fatalf("%s: not a valid UnsupportedProtocolVersionError: %v\n%s", v, err, r.raw[0])
		}
	}
	// The header and _meta disagreeing is a mismatch, whichever is known.
	bad := strings.Replace(meta26(""), modern, "v999", 1)
	c.send(call26("4", "echo", "", bad), hdr26("tools/call", "echo")...).wantError(t, http.StatusBadRequest, mcp.CodeHeaderMismatch, "4")
	c.send(call26("5", "echo", "", meta26("")), "MCP-Protocol-Version", "v999", "Mcp-Method", "tools/call", "Mcp-Name", "echo").
		wantError(t, http.StatusBadRequest, mcp.CodeHeaderMismatch, "5")
}

// discoverVersions returns the supportedVersions of server/discover.
func discoverVersions(t *testing.T, c *client) []string {
	t.Helper()
	r := c.send(body26(`"d"`, "server/discover", "", meta26("")), hdr26("server/discover", "")...)
	r.result(t, `"d"`)
	var res mcp.DiscoverResult
	if err := res.UnmarshalJSON(r.resp.Result); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.SupportedVersions, modern) {
		t.Fatalf("server/discover lists %q, without %s", res.SupportedVersions, modern)
	}
	return res.SupportedVersions
}

// serveOnly is a Server that serves only legacy sessions.
type serveOnly struct{ s *server.Server }

func (o serveOnly) Serve(ctx context.Context, t jsonrpc.Transport) error { return o.s.Serve(ctx, t) }

// TestCallOnLegacyOnlyServer checks the answer of a Handler whose Server
// cannot serve 2026-07-28 requests: the UnsupportedProtocolVersionError
// the spec requires, which lists the supported versions in data.
func TestCallOnLegacyOnlyServer(t *testing.T) {
	h := NewHandler(serveOnly{newMCP(t)}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	c := newClient(t, ts)
	r := c.send(call26("1", "echo", "", meta26("")), hdr26("tools/call", "echo")...)
	e := r.wantError(t, http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion, "1")
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil || len(data.Supported) == 0 || data.Requested != modern {
		t.Errorf("data %s (%v): want the versions the server speaks and requested %q", e.Data, err, modern)
	}
	for _, v := range data.Supported {
		if pv := mcp.ProtocolVersion(v); !pv.Supported() || pv.Era() != mcp.EraLegacy {
			t.Errorf("a legacy-only server offers %q", v)
		}
	}
	var typed mcp.UnsupportedProtocolVersionError
	if err := typed.UnmarshalJSON([]byte(r.raw[0])); err != nil {
		t.Fatal(err)
	}
	if err := typed.ValidateVersion(mcp.Version20260728); err != nil {
		t.Errorf("not a valid UnsupportedProtocolVersionError: %v\n%s", err, r.raw[0])
	}
	// Legacy clients are served as before.
	legacy := newClient(t, ts)
	legacy.initialize("2025-11-25", "")
}

func TestCallStandardHeaders(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), nil)
	c := newClient(t, ts)
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	echo := call26("1", "echo", `{"text":"x"}`, meta26(""))
	prompt := body26("1", "prompts/get", `"name":"greet","arguments":{"name":"Ada"}`, meta26(""))
	read := body26("1", "resources/read", `"uri":"file:///a.txt"`, meta26(""))
	readUTF8 := body26("1", "resources/read", `"uri":"file:///t/caf\u00e9"`, meta26(""))
	list := body26("1", "tools/list", "", meta26(""))
	for _, tc := range []struct {
		name string
		body string
		hdr  [][2]string // sent as they are: names are not canonicalized
		ok   bool
	}{
		{"tools/call", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"}}, true},
		{"names in lower case", echo, [][2]string{{"mcp-protocol-version", modern}, {"mcp-method", "tools/call"}, {"mcp-name", "echo"}}, true},
		{"names in upper case", echo, [][2]string{{"MCP-METHOD", "tools/call"}, {"MCP-NAME", "echo"}}, true},
		{"whitespace around values", echo, [][2]string{{"Mcp-Method", "  tools/call\t"}, {"Mcp-Name", " echo "}}, true},
		{"Mcp-Name in Base64", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", b64("echo")}}, true},
		{"no Mcp-Method", echo, [][2]string{{"Mcp-Name", "echo"}}, false},
		{"no Mcp-Name", echo, [][2]string{{"Mcp-Method", "tools/call"}}, false},
		{"no MCP-Protocol-Version", echo, [][2]string{{"MCP-Protocol-Version", ""}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"}}, false},
		{"another Mcp-Method", echo, [][2]string{{"Mcp-Method", "tools/list"}, {"Mcp-Name", "echo"}}, false},
		{"Mcp-Method in another case", echo, [][2]string{{"Mcp-Method", "Tools/Call"}, {"Mcp-Name", "echo"}}, false},
		{"another Mcp-Name", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "who"}}, false},
		{"Mcp-Name in another case", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "ECHO"}}, false},
		{"Mcp-Name twice", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"}, {"Mcp-Name", "echo"}}, false},
		{"Mcp-Name in Base64 of another name", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", b64("who")}}, false},
		{"Mcp-Name in broken Base64", echo, [][2]string{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "=?base64?!!!?="}}, false},
		{"prompts/get", prompt, [][2]string{{"Mcp-Method", "prompts/get"}, {"Mcp-Name", "greet"}}, true},
		{"prompts/get without Mcp-Name", prompt, [][2]string{{"Mcp-Method", "prompts/get"}}, false},
		{"prompts/get of another name", prompt, [][2]string{{"Mcp-Method", "prompts/get"}, {"Mcp-Name", "greeting"}}, false},
		{"resources/read", read, [][2]string{{"Mcp-Method", "resources/read"}, {"Mcp-Name", "file:///a.txt"}}, true},
		{"resources/read without Mcp-Name", read, [][2]string{{"Mcp-Method", "resources/read"}}, false},
		{"resources/read of another URI", read, [][2]string{{"Mcp-Method", "resources/read"}, {"Mcp-Name", "file:///b.txt"}}, false},
		{"resources/read of a non-ASCII URI in Base64", readUTF8, [][2]string{{"Mcp-Method", "resources/read"}, {"Mcp-Name", b64("file:///t/café")}}, true},
		{"resources/read of a non-ASCII URI sent raw", readUTF8, [][2]string{{"Mcp-Method", "resources/read"}, {"Mcp-Name", "file:///t/café"}}, false},
		{"tools/list needs no Mcp-Name", list, [][2]string{{"Mcp-Method", "tools/list"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := c.request(context.Background(), "POST", tc.body, "MCP-Protocol-Version", modern)
			for _, kv := range tc.hdr {
				for k := range req.Header {
					if k != kv[0] && strings.EqualFold(k, kv[0]) {
						delete(req.Header, k) // the spelling under test replaces the default
					}
				}
				if kv[1] != "" {
					req.Header[kv[0]] = append(req.Header[kv[0]], kv[1])
				}
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r := readReply(t, resp)
			if !tc.ok {
				r.wantError(t, http.StatusBadRequest, mcp.CodeHeaderMismatch, "1")
				return
			}
			if rt := r.result(t, "1")["resultType"]; rt != "complete" {
				t.Fatalf("resultType %v: %s", rt, r.raw)
			}
		})
	}
}

func TestCallParamHeaders(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), nil)
	c := newClient(t, ts)
	for _, tc := range []struct {
		name string
		args string
		hdr  [][2]string
		ok   bool
	}{
		{"plain value", `{"region":"us-west1","query":"q"}`, [][2]string{{"Mcp-Param-Region", "us-west1"}}, true},
		{"name in lower case", `{"region":"us-west1"}`, [][2]string{{"mcp-param-region", "us-west1"}}, true},
		{"Base64 value", `{"region":"Hello, 世界"}`, [][2]string{{"Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="}}, true},
		{"Base64 of leading space", `{"region":" padded "}`, [][2]string{{"Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?="}}, true},
		{"integer", `{"region":"r","count":42}`, [][2]string{{"Mcp-Param-Region", "r"}, {"Mcp-Param-Count", "42"}}, true},
		{"integer compared as a number", `{"region":"r","count":42}`, [][2]string{{"Mcp-Param-Region", "r"}, {"Mcp-Param-Count", "42.0"}}, true},
		{"no argument, no header", `{"query":"q"}`, nil, true},
		{"another value", `{"region":"us-west1"}`, [][2]string{{"Mcp-Param-Region", "eu-west1"}}, false},
		{"value in another case", `{"region":"us-west1"}`, [][2]string{{"Mcp-Param-Region", "US-WEST1"}}, false},
		{"Base64 of another value", `{"region":"us-west1"}`, [][2]string{{"Mcp-Param-Region", "=?base64?ZXUtd2VzdDE=?="}}, false},
		{"header missing, value in the body", `{"region":"us-west1"}`, nil, false},
		{"header present, value not in the body", `{"query":"q"}`, [][2]string{{"Mcp-Param-Region", "us-west1"}}, false},
		{"header present, value null", `{"region":null}`, [][2]string{{"Mcp-Param-Region", "null"}}, false},
		{"another integer", `{"region":"r","count":42}`, [][2]string{{"Mcp-Param-Region", "r"}, {"Mcp-Param-Count", "43"}}, false},
		{"header twice", `{"region":"r"}`, [][2]string{{"Mcp-Param-Region", "r"}, {"Mcp-Param-Region", "r"}}, false},
		{"non-ASCII sent raw", `{"region":"Hello, 世界"}`, [][2]string{{"Mcp-Param-Region", "Hello, 世界"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := c.request(context.Background(), "POST", call26("1", "region", tc.args, meta26("")), hdr26("tools/call", "region")...)
			for _, kv := range tc.hdr {
				req.Header[kv[0]] = append(req.Header[kv[0]], kv[1])
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r := readReply(t, resp)
			if !tc.ok {
				e := r.wantError(t, http.StatusBadRequest, mcp.CodeHeaderMismatch, "1")
				if !strings.Contains(strings.ToLower(e.Message), "mcp-param-") {
					t.Fatalf("the error does not name the header: %q", e.Message)
				}
				return
			}
			var in struct{ Region *string }
			json.Unmarshal([]byte(tc.args), &in)
			want := "region "
			if in.Region != nil {
				want += *in.Region
			}
			if got := r.text(t, "1"); got != want {
				t.Fatalf("region answered %q, want %q", got, want)
			}
		})
	}
	// Only tools/call mirrors arguments: the headers of another method are
	// not checked against anything.
	r := c.send(body26("2", "tools/list", "", meta26("")), hdr26("tools/list", "", "Mcp-Param-Region", "anything")...)
	r.result(t, "2")
}

// TestAddToolRefusesBadHeaderAnnotation checks that a tool whose
// inputSchema breaks the x-mcp-header rules is refused by AddTool, with an
// error that names the tool and the annotation, and is not listed.
func TestAddToolRefusesBadHeaderAnnotation(t *testing.T) {
	s := newMCP26(t, nil)
	for _, tc := range []struct{ name, schema string }{
		{"bad_number", `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`},
		{"bad_untyped", `{"type":"object","properties":{"n":{"x-mcp-header":"N"}}}`},
		{"bad_root", `{"type":"object","x-mcp-header":"Root"}`},
		{"bad_items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`},
		{"bad_name", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"Has Space"}}}`},
		{"bad_empty_name", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":""}}}`},
		{"bad_not_string", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":7}}}`},
		{"bad_duplicate", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"same"}}}`},
	} {
		var def mcp.Tool
		if err := json.Unmarshal([]byte(`{"name":"`+tc.name+`","inputSchema":`+tc.schema+`}`), &def); err != nil {
			t.Fatal(err)
		}
		err := s.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return textResult("never"), nil
		}, rawschema.Validate())
		if err == nil {
			t.Errorf("%s: AddTool accepted %s", tc.name, tc.schema)
			continue
		}
		if !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), "x-mcp-header") {
			t.Errorf("%s: the error %q names neither the tool nor x-mcp-header", tc.name, err)
		}
	}
	_, ts := serveEngine(t, s, nil)
	r := newClient(t, ts).send(body26("1", "tools/list", "", meta26("")), hdr26("tools/list", "")...)
	r.result(t, "1")
	if strings.Contains(string(r.resp.Result), `"bad_`) {
		t.Fatalf("a refused tool is listed: %s", r.resp.Result)
	}
	if !strings.Contains(string(r.resp.Result), `"x-mcp-header":"Region"`) {
		t.Fatalf("the valid annotated tool is not listed as registered: %s", r.resp.Result)
	}
}

// TestCallAnswerJSON checks that a request that causes no notification is
// answered with one application/json body: a complete result carrying the
// server's identity.
func TestCallAnswerJSON(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	// Asking for progress does not make a stream of an answer that has none.
	r := c.send(call26("1", "echo", `{"text":"j"}`, meta26("", `"progressToken":"t1"`, `"io.modelcontextprotocol/logLevel":"debug"`)), hdr26("tools/call", "echo")...)
	if r.sse || r.header.Get("Content-Type") != "application/json" || len(r.raw) != 1 {
		t.Fatalf("answered as %q with %d messages", r.header.Get("Content-Type"), len(r.raw))
	}
	res := r.result(t, "1")
	if res["resultType"] != "complete" {
		t.Fatalf("resultType %v", res["resultType"])
	}
	info, _ := res["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
	if info["name"] != "test" || info["version"] != "1" {
		t.Fatalf("_meta %v, want the serverInfo test 1", res["_meta"])
	}
	var typed mcp.CallToolResultResponse
	if err := typed.UnmarshalJSON([]byte(r.raw[0])); err != nil {
		t.Fatal(err)
	}
	if err := typed.ValidateVersion(mcp.Version20260728); err != nil {
		t.Fatalf("not a valid CallToolResultResponse: %v\n%s", err, r.raw[0])
	}
}

// TestCallAnswerSSE checks that a request whose handler reports progress
// and logs is answered with an SSE stream: its notifications, then the
// response, and no request of the server's own (chatty's Elicit becomes
// an InputRequiredResult).
func TestCallAnswerSSE(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	meta := meta26(`{"elicitation":{}}`, `"progressToken":7`, `"io.modelcontextprotocol/logLevel":"debug"`)
	r := c.send(call26("2", "chatty", "", meta), hdr26("tools/call", "chatty")...)
	if !r.sse || r.header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("answered as %q, X-Accel-Buffering %q; want an SSE stream with X-Accel-Buffering: no", r.header.Get("Content-Type"), r.header.Get("X-Accel-Buffering"))
	}
	if got := r.methods(); got != "notifications/progress notifications/message" {
		t.Fatalf("the stream carried %q before the response, want progress then message", got)
	}
	var progress mcp.ProgressNotification
	if err := progress.UnmarshalJSON([]byte(r.raw[0])); err != nil || progress.ValidateVersion(mcp.Version20260728) != nil {
		t.Fatalf("progress %s: %v", r.raw[0], err)
	}
	if !strings.Contains(r.raw[0], `"progressToken":7,`) || !strings.Contains(r.raw[0], `"message":"half"`) {
		t.Fatalf("progress %s, want the token 7 as sent", r.raw[0])
	}
	var log mcp.LoggingMessageNotification
	if err := log.UnmarshalJSON([]byte(r.raw[1])); err != nil || log.ValidateVersion(mcp.Version20260728) != nil {
		t.Fatalf("log %s: %v", r.raw[1], err)
	}
	if log.Params.Level != mcp.LoggingLevelWarning || log.Params.Logger != "chatty" {
		t.Fatalf("log %s", r.raw[1])
	}
	ir := r.inputRequired(t, "2")
	if len(ir.requests) != 1 {
		t.Fatalf("%d questions, want chatty's one", len(ir.requests))
	}
	for _, raw := range r.raw {
		if strings.Contains(raw, `"method":"elicitation/create"`) && !strings.Contains(raw, `"inputRequests"`) {
			t.Fatalf("the server sent a request of its own: %s", raw)
		}
	}
	// Progress alone makes a stream too.
	r = c.send(call26("3", "chatty", "", meta26(`{"elicitation":{}}`, `"progressToken":"only"`)), hdr26("tools/call", "chatty")...)
	if got := r.methods(); !r.sse || got != "notifications/progress" {
		t.Fatalf("with a progressToken only, the answer (SSE %t) carried %q", r.sse, got)
	}
	r.inputRequired(t, "3")
}

// TestCallLogLevel checks that log messages go out only at or above the
// level the request's _meta asks for, and not at all without one.
func TestCallLogLevel(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	for _, tc := range []struct {
		level string // "" for none
		sent  bool   // chatty logs at warning
	}{
		{"", false},
		{"debug", true},
		{"warning", true},
		{"error", false},
		{"emergency", false},
	} {
		var extra []string
		if tc.level != "" {
			extra = append(extra, `"io.modelcontextprotocol/logLevel":"`+tc.level+`"`)
		}
		r := c.send(call26("3", "chatty", "", meta26(`{"elicitation":{}}`, extra...)), hdr26("tools/call", "chatty")...)
		want := ""
		if tc.sent {
			want = "notifications/message"
		}
		if got := r.methods(); got != want {
			t.Errorf("logLevel %q: notifications %q, want %q", tc.level, got, want)
		}
		if r.sse != tc.sent {
			t.Errorf("logLevel %q: SSE %t, want %t", tc.level, r.sse, tc.sent)
		}
		r.inputRequired(t, "3")
	}
}

// TestCallJSONResponseOption checks that HandlerOptions.JSONResponse
// answers 2026-07-28 requests with one JSON body, dropping their
// notifications, but keeps subscriptions/listen a stream.
func TestCallJSONResponseOption(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{JSONResponse: true})
	c := newClient(t, ts)
	meta := meta26(`{"elicitation":{}}`, `"progressToken":"p"`, `"io.modelcontextprotocol/logLevel":"debug"`)
	r := c.send(call26("1", "chatty", "", meta), hdr26("tools/call", "chatty")...)
	if r.sse || len(r.notes) != 0 {
		t.Fatalf("answered as %q with %q", r.header.Get("Content-Type"), r.raw)
	}
	r.inputRequired(t, "1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.hc.Do(c.request(ctx, "POST", listen26(`"l"`, `{"toolsListChanged":true}`), hdr26("subscriptions/listen", "")...))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("subscriptions/listen answered as %q", ct)
	}
	ev, err := newSSE(resp).next()
	if err != nil || method(t, ev.data) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event %+v (%v)", ev, err)
	}
}

// TestCallClientGoneCancels checks that closing the connection of a
// 2026-07-28 request cancels its handler's ctx.
func TestCallClientGoneCancels(t *testing.T) {
	h, ts := serve(t, nil)
	o := observe(srvOf(h), "tools/call")
	c := newClient(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		resp, err := c.hc.Do(c.request(ctx, "POST", call26("1", "wait", "", meta26("")), hdr26("tools/call", "wait")...))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-o.started
	cancel()
	select {
	case cause := <-o.ended:
		if !errors.Is(cause, context.Canceled) {
			t.Fatalf("the handler ended with ctx cause %v, want context.Canceled", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's ctx did not end when the client went away")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the client's request ended with %v", err)
	}
	// The endpoint serves on.
	if got := c.send(call26("2", "echo", `{"text":"after"}`, meta26("")), hdr26("tools/call", "echo")...).text(t, "2"); got != "after" {
		t.Fatalf("echo answered %q", got)
	}
}

// TestCallContext checks what a 2026-07-28 handler's ctx tells: the HTTP
// request, the identity Authenticate gave, and the same as the principal.
func TestCallContext(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), &HandlerOptions{Authenticate: byUser})
	c := newClient(t, ts)
	for _, tc := range []struct{ user, who, principal string }{
		{"alice", "hello|alice|true", "alice"},
		{"", "hello|<nil>|true", "<nil>"},
	} {
		r := c.send(call26("1", "who", "", meta26("")), hdr26("tools/call", "who", "X-Test", "hello", "X-User", tc.user)...)
		if got := r.text(t, "1"); got != tc.who {
			t.Errorf("user %q: who answered %q, want %q", tc.user, got, tc.who)
		}
		r = c.send(call26("2", "principal", "", meta26("")), hdr26("tools/call", "principal", "X-User", tc.user)...)
		if got := r.text(t, "2"); got != tc.principal {
			t.Errorf("user %q: principal answered %q, want %q", tc.user, got, tc.principal)
		}
	}
}

// TestCallStatelessOption checks that HandlerOptions.Stateless, which
// serves legacy requests on throwaway sessions, serves 2026-07-28 ones as
// ever, without a session.
func TestCallStatelessOption(t *testing.T) {
	h, ts := serve(t, &HandlerOptions{Stateless: true})
	c := newClient(t, ts)
	if got := c.send(call26("1", "echo", `{"text":"s"}`, meta26("")), hdr26("tools/call", "echo")...).text(t, "1"); got != "s" {
		t.Fatalf("echo answered %q", got)
	}
	round := c.send(call26("2", "chatty", "", meta26(`{"elicitation":{}}`)), hdr26("tools/call", "chatty")...).inputRequired(t, "2")
	r := c.send(retry26("3", "chatty", "", round.accept(t, "Ada"), round.state, meta26(`{"elicitation":{}}`)), hdr26("tools/call", "chatty")...)
	if got := r.text(t, "3"); got != "accept:Ada" {
		t.Fatalf("the retry answered %q", got)
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions, want 0", n)
	}
}

// TestCallHostAndOrigin checks that the DNS-rebinding protection covers
// 2026-07-28 requests: 403 for a foreign Host or Origin.
func TestCallHostAndOrigin(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	body := call26("1", "echo", "", meta26(""))
	for _, hdr := range [][]string{{"Host", "evil.example"}, {"Origin", "http://evil.example"}} {
		if code, _ := c.status("POST", body, append(hdr26("tools/call", "echo"), hdr...)...); code != http.StatusForbidden {
			t.Errorf("%s %s: %d, want 403", hdr[0], hdr[1], code)
		}
	}
	if code, _ := c.status("POST", body, hdr26("tools/call", "echo", "Origin", ts.URL)...); code != http.StatusOK {
		t.Errorf("Origin of the server itself: %d, want 200", code)
	}
}

// TestCallErrorStatus checks the errors a handler's lookup gives, with
// their HTTP status: what the server lacks is -32602 with 400 in
// 2026-07-28, a missing resource included (not the legacy -32002).
func TestCallErrorStatus(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), nil)
	c := newClient(t, ts)
	for _, tc := range []struct {
		name, method, members, header string
	}{
		{"unknown tool", "tools/call", `"name":"nope","arguments":{}`, "nope"},
		{"tools/call without a name", "tools/call", `"arguments":{}`, ""},
		{"unknown prompt", "prompts/get", `"name":"nope"`, "nope"},
		{"prompt without its required argument", "prompts/get", `"name":"greet","arguments":{}`, "greet"},
		{"unknown resource", "resources/read", `"uri":"file:///nope"`, "file:///nope"},
	} {
		e := c.send(body26("1", tc.method, tc.members, meta26("")), hdr26(tc.method, tc.header)...).wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidParams, "1")
		if tc.name == "unknown resource" && !strings.Contains(string(e.Data), `"uri":"file:///nope"`) {
			t.Errorf("%s: data %s, want the URI", tc.name, e.Data)
		}
	}
}

// TestCallConcurrentNotifications checks that notifications a handler
// sends from several goroutines at once all arrive, whole, before the
// response.
func TestCallConcurrentNotifications(t *testing.T) {
	s := newMCP(t)
	const workers, each = 8, 25
	addTool(t, s, "fan", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					server.Progress(ctx, float64(w*each+i), workers*each, "")
				}
			})
		}
		wg.Wait()
		return textResult("done"), nil
	})
	_, ts := serveEngine(t, s, &HandlerOptions{KeepAlive: time.Millisecond})
	r := newClient(t, ts).send(call26("1", "fan", "", meta26("", `"progressToken":"f"`)), hdr26("tools/call", "fan")...)
	if got := r.text(t, "1"); got != "done" {
		t.Fatalf("fan answered %q", got)
	}
	seen := map[float64]bool{}
	for _, n := range r.notes {
		var p struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
		}
		if err := json.Unmarshal(n.Params, &p); n.Method != mcp.MethodProgressNotification || err != nil || p.ProgressToken != "f" {
			t.Fatalf("notification %s %s", n.Method, n.Params)
		}
		seen[p.Progress] = true
	}
	if len(r.notes) != workers*each || len(seen) != workers*each {
		t.Fatalf("%d notifications, %d distinct, want %d", len(r.notes), len(seen), workers*each)
	}
}

// TestCallDuplicateKeysAgree checks that a body naming a mirrored value
// twice cannot make the server act on another value than the one its
// headers were checked against: it is refused, or served as the header
// says.
func TestCallDuplicateKeysAgree(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), nil)
	c := newClient(t, ts)
	for _, tc := range []struct {
		name, body, want string
		hdr              []string
	}{
		{"tool name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","name":"echo","arguments":{"text":"echo ran"},"_meta":` + meta26("") + `}}`,
			"echo ran", hdr26("tools/call", "echo")},
		{"tool name, other order", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"who","arguments":{"text":"echo ran"},"_meta":` + meta26("") + `}}`,
			"echo ran", hdr26("tools/call", "echo")},
		{"mirrored argument", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"region","arguments":{"region":"eu","region":"us"},"_meta":` + meta26("") + `}}`,
			"region us", hdr26("tools/call", "region", "Mcp-Param-Region", "us")},
		{"mirrored argument, other order", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"region","arguments":{"region":"us","region":"eu"},"_meta":` + meta26("") + `}}`,
			"region us", hdr26("tools/call", "region", "Mcp-Param-Region", "us")},
	} {
		r := c.send(tc.body, tc.hdr...)
		if r.resp.Error != nil {
			if r.status != http.StatusBadRequest {
				t.Errorf("%s: refused with %d %q, want 400", tc.name, r.status, r.raw)
			}
			continue
		}
		if got := r.text(t, "1"); got != tc.want {
			t.Errorf("%s: the server acted on %q, not what the headers say (%q)", tc.name, got, tc.want)
		}
	}
}
