package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// rest sends a request to the REST facade and returns its status and
// body, checking that every answer but a 200 is a JSON error.
func rest(t *testing.T, method, u, key, contentType, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(APIKeyHeader, key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 && resp.StatusCode != 405 {
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(data, &e); err != nil || e.Error == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d is not a JSON error: %s", method, u, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, data
}

func TestRESTCall(t *testing.T) {
	t.Setenv("GW_TEST_ALICE", aliceKey)
	_, ts := startFront(t, `auth:
  keys:
    - {subject: alice, key: {env: GW_TEST_ALICE}, claims: {role: admin}}
rest:
  maxBodyBytes: 1024
  timeoutMs: 300
`)
	for _, c := range []struct {
		name, path, key, contentType, body string
		status                             int
		want                               string // in the body
	}{
		{"content", "/rest/tools/a__echo", aliceKey, "", "", 200, `"text":"a:echo"`},
		{"structured", "/rest/default/tools/add", aliceKey, "application/json", `{"a":1,"b":2}`, 200, `{"sum":3}`},
		{"caller", "/rest/tools/whoami", aliceKey, "", "{}", 200, `"sub":"alice"`},
		{"caller claims", "/rest/tools/whoami", aliceKey, "", "{}", 200, `"role":"admin"`},
		{"schema", "/rest/tools/add", aliceKey, "", `{"a":"one","b":2}`, 400, `invalid arguments for tool add`},
		{"missing", "/rest/tools/add", aliceKey, "", `{"a":1}`, 400, `missing property`},
		{"not an object", "/rest/tools/add", aliceKey, "", `[1,2]`, 400, "must be a JSON object"},
		{"not json", "/rest/tools/add", aliceKey, "", `{"a":`, 400, "must be a JSON object"},
		{"media type", "/rest/tools/add", aliceKey, "text/plain", `{}`, 415, "application/json"},
		{"no key", "/rest/tools/a__echo", "", "", "", 401, `{"error":"unauthorized: this gateway needs an API key`},
		{"wrong key", "/rest/default/tools/a__echo", "x" + aliceKey, "", "", 401, `{"error":"unauthorized: the API key is not valid"}`},
		{"denied", "/rest/tools/denied", aliceKey, "", "", 403, "refused by the test"},
		{"unknown", "/rest/tools/nope", aliceKey, "", "", 404, `no tool \"nope\"`},
		{"excluded prefix", "/rest/tools/echo", aliceKey, "", "", 404, "no tool"},
		{"too large", "/rest/tools/add", aliceKey, "", `{"a":"` + strings.Repeat("x", 2000) + `"}`, 413, "larger than 1024 bytes"},
		{"limited", "/rest/tools/limited", aliceKey, "", "", 429, "refused by the test"},
		{"upstream failure", "/rest/tools/broken", aliceKey, "", "", 502, "connection lost"},
		{"unavailable", "/rest/tools/unavailable", aliceKey, "", "", 503, "refused by the test"},
		{"timeout", "/rest/tools/slow", aliceKey, "", "", 504, "rest.timeoutMs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := rest(t, "POST", ts.URL+c.path, c.key, c.contentType, c.body)
			if status != c.status || !strings.Contains(string(body), c.want) {
				t.Fatalf("%d %s, want %d with %s", status, body, c.status, c.want)
			}
			if strings.Contains(string(body), aliceKey) {
				t.Fatalf("the key is in the answer: %s", body)
			}
		})
	}
	if status, _ := rest(t, "GET", ts.URL+"/rest/tools/a__echo", aliceKey, "", ""); status != 405 {
		t.Errorf("GET of a tool: %d, want 405", status)
	}
}

func TestRESTOAuthCaller(t *testing.T) {
	is := newTestIssuer(t)
	_, ts := startFront(t, "auth:\n  oauth: {issuer: "+is.srv.URL+", audience: "+testAudience+", jwksUri: "+is.srv.URL+"/jwks}\nrest: {}\n")
	// The middleware's refusals are in the facade's shape (rest checks it).
	if status, body := rest(t, "POST", ts.URL+"/rest/tools/whoami", "", "", ""); status != 401 || !strings.Contains(string(body), "needs an OAuth access token") {
		t.Fatalf("no token: %d %s", status, body)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/rest/tools/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+is.token(t, map[string]any{"sub": "dave", "scope": "a b", "team": "red"}))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var w whoami
	if err := json.NewDecoder(resp.Body).Decode(&w); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if w.Sub != "dave" || w.Iss != is.srv.URL || !slices.Equal(w.Scopes, []string{"a", "b"}) || w.Claims["team"] != "red" {
		t.Fatalf("the REST caller is seen as %+v", w)
	}
}

func TestRESTOpenAPI(t *testing.T) {
	t.Setenv("GW_TEST_ALICE", aliceKey)
	_, ts := startFront(t, "auth:\n  keys:\n    - {subject: alice, key: {env: GW_TEST_ALICE}}\nrest: {}\n")
	for _, base := range []string{"/rest", "/rest/default"} {
		t.Run(strings.TrimPrefix(base, "/"), func(t *testing.T) {
			status, data := rest(t, "GET", ts.URL+base+"/openapi.json", aliceKey, "", "")
			if status != 200 {
				t.Fatalf("%d %s", status, data)
			}
			checkOpenAPI(t, data, base)
		})
	}
	if status, _ := rest(t, "GET", ts.URL+"/rest/openapi.json", "", "", ""); status != 401 {
		t.Errorf("the document without a key: %d, want 401", status)
	}
}

// checkOpenAPI checks that data is an OpenAPI 3.1 document of the test's
// tools: the structure the specification requires, every reference
// resolving, every schema compiling as JSON Schema 2020-12, and the
// schemas of add accepting and refusing what its tool does.
func checkOpenAPI(t *testing.T, data []byte, base string) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	str := func(v any) string { s, _ := v.(string); return s }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	if doc["openapi"] != "3.1.0" || str(obj(doc["info"])["title"]) == "" || str(obj(doc["info"])["version"]) == "" {
		t.Fatalf("openapi/info: %v %v", doc["openapi"], doc["info"])
	}
	if servers, _ := doc["servers"].([]any); len(servers) != 1 || obj(servers[0])["url"] != base {
		t.Fatalf("servers %v, want %s", doc["servers"], base)
	}
	paths := obj(doc["paths"])
	for _, tool := range []string{"a__echo", "a__big", "add", "whoami", "denied"} {
		if paths["/tools/"+tool] == nil {
			t.Errorf("no path for %s", tool)
		}
	}
	schemes := obj(obj(doc["components"])["securitySchemes"])
	if obj(schemes["apiKey"])["name"] != APIKeyHeader || obj(schemes["bearer"])["scheme"] != "bearer" || len(doc["security"].([]any)) != 2 {
		t.Errorf("security: %v %v", schemes, doc["security"])
	}
	// Every reference resolves within the document.
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/") {
				var at any = doc
				for _, part := range strings.Split(ref[2:], "/") {
					at = obj(at)[part]
				}
				if at == nil {
					t.Errorf("$ref %s resolves to nothing", ref)
				}
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(doc)
	// The operations: unique ids, a JSON body, a 200 and the errors.
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noSchemaLoader{})
	raw, _ := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	const docURL = "mcpgen:///openapi.json"
	if err := c.AddResource(docURL, raw); err != nil {
		t.Fatal(err)
	}
	compile := func(pointer ...string) *jsonschema.Schema {
		t.Helper()
		for i, p := range pointer {
			pointer[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		}
		s, err := c.Compile(docURL + "#/" + url.PathEscape(strings.Join(pointer, "/")))
		if err != nil {
			t.Fatalf("schema at %q: %v", pointer, err)
		}
		return s
	}
	ids := map[string]bool{}
	for path, item := range paths {
		op := obj(obj(item)["post"])
		id := str(op["operationId"])
		if id == "" || ids[id] {
			t.Errorf("%s: operationId %q empty or not unique", path, id)
		}
		ids[id] = true
		if obj(op["requestBody"])["required"] != true {
			t.Errorf("%s: the body is not required", path)
		}
		compile("paths", path, "post", "requestBody", "content", "application/json", "schema")
		compile("paths", path, "post", "responses", "200", "content", "application/json", "schema")
		for _, status := range []string{"400", "401", "403", "404", "413", "429", "502", "504"} {
			if obj(obj(op["responses"])[status])["$ref"] == nil {
				t.Errorf("%s: no %s response", path, status)
			}
		}
	}
	compile("components", "schemas", "Error")
	in := compile("paths", "/tools/add", "post", "requestBody", "content", "application/json", "schema")
	out := compile("paths", "/tools/add", "post", "responses", "200", "content", "application/json", "schema")
	content := compile("paths", "/tools/a__echo", "post", "responses", "200", "content", "application/json", "schema")
	check := func(s *jsonschema.Schema, value string, ok bool) {
		t.Helper()
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(value))
		if err := s.Validate(v); (err == nil) != ok {
			t.Errorf("%s: valid %v, want %v (%v)", value, err == nil, ok, err)
		}
	}
	check(in, `{"a":1,"b":2}`, true)
	check(in, `{"a":"1","b":2}`, false)
	check(out, `{"sum":3}`, true)
	check(out, `{}`, false)
	check(content, `[{"type":"text","text":"x"}]`, true)
	check(content, `{"type":"text"}`, false)
	if add := obj(obj(paths["/tools/add"])["post"]); add["summary"] != "Add" || add["description"] != "Adds a and b." {
		t.Errorf("add: %v", add)
	}
}

// TestRESTOutlastsServerTimeouts calls a tool that takes longer than the
// http.Server's ReadTimeout and WriteTimeout, which bound a whole
// exchange: the facade's own timeout governs the call.
func TestRESTOutlastsServerTimeouts(t *testing.T) {
	g, _ := startFront(t, "rest: {timeoutMs: 5000}\n")
	ts := httptest.NewUnstartedServer(g.Handler())
	ts.Config.ReadTimeout = 50 * time.Millisecond
	ts.Config.WriteTimeout = 50 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	status, body := rest(t, "POST", ts.URL+"/rest/tools/nap", "", "application/json", "{}")
	if status != 200 || !strings.Contains(string(body), "rested") {
		t.Fatalf("%d %s", status, body)
	}
}

// TestOAuthIntrospection checks opaque tokens with the issuer's
// introspection endpoint, the gateway authenticating there with a secret
// read from a file.
func TestOAuthIntrospection(t *testing.T) {
	const issuer = "https://as.example"
	secretFile := t.TempDir() + "/secret"
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		active := id == "gw" && secret == "s3cret" && r.PostFormValue("token") == "opaque-erin"
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"active": active, "sub": "erin", "iss": issuer, "aud": testAudience, "scope": "x y", "exp": time.Now().Add(time.Hour).Unix(), "dept": "qa"})
	}))
	t.Cleanup(as.Close)
	_, ts := startFront(t, "auth:\n  oauth:\n    issuer: "+issuer+"\n    audience: "+testAudience+"\n    introspection: {endpoint: "+as.URL+", clientId: gw, clientSecret: {file: "+secretFile+"}}\nrest: {}\n")
	req, _ := http.NewRequest("POST", ts.URL+"/rest/tools/whoami", nil)
	req.Header.Set("Authorization", "Bearer opaque-erin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var w whoami
	err = json.NewDecoder(resp.Body).Decode(&w)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || w.Sub != "erin" || w.Iss != issuer || !slices.Equal(w.Scopes, []string{"x", "y"}) || w.Claims["dept"] != "qa" {
		t.Fatalf("%d %v %+v", resp.StatusCode, err, w)
	}
	req, _ = http.NewRequest("POST", ts.URL+"/rest/tools/whoami", nil)
	req.Header.Set("Authorization", "Bearer opaque-mallory")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("an inactive token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// BenchmarkRESTCall compares a tool call through the REST facade with the
// same call over MCP (a stateless 2026-07-28 POST), both over loopback
// HTTP to the gateway, which forwards it to a stdio upstream.
func BenchmarkRESTCall(b *testing.B) {
	b.Setenv("GW_TEST_ALICE", aliceKey)
	_, ts := startFront(b, "auth:\n  keys:\n    - {subject: alice, key: {env: GW_TEST_ALICE}}\nrest: {}\n")
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer hc.CloseIdleConnections()
	const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
	for _, c := range []struct {
		name, path, body string
		header           map[string]string
	}{
		{"rest", "/rest/tools/a__echo", `{"text":"hi"}`, nil},
		{"mcp", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"hi"},"_meta":` + meta + `}}`,
			map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "a__echo"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, ts.URL+c.path, strings.NewReader(c.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(APIKeyHeader, aliceKey)
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !bytes.Contains(data, []byte("a:echo")) {
					b.Fatalf("%d %s", resp.StatusCode, data)
				}
			}
		})
	}
}

// noSchemaLoader refuses every document the OpenAPI document's schemas
// would fetch: they must resolve inside it.
type noSchemaLoader struct{}

func (noSchemaLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not refer to other documents (%s)", url)
}
