package echo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"
)

// bins holds the server binaries, built once by TestMain.
var bins map[string]string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "echo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins, err = Build(context.Background(), dir, Servers)
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// conformance checks a server through c: the handshake, tools/list,
// tools/call, an unknown method, and pipelined calls when window > 1.
func conformance(t *testing.T, c *Client, window int) {
	t.Helper()
	res, err := c.Initialize()
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var init struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    map[string]any `json:"capabilities"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		t.Fatalf("initialize result %s: %v", res, err)
	}
	if init.ProtocolVersion != ProtocolVersion {
		t.Errorf("protocolVersion = %q, want %q", init.ProtocolVersion, ProtocolVersion)
	}
	if init.ServerInfo.Name == "" {
		t.Errorf("initialize result %s has no serverInfo.name", res)
	}
	if _, ok := init.Capabilities["tools"]; !ok {
		t.Errorf("initialize result %s has no tools capability", res)
	}

	res, err = c.Call("tools/list", nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		t.Fatalf("tools/list result %s: %v", res, err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
		t.Fatalf("tools/list = %s, want the echo tool alone", res)
	}
	wantSchema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string"}},
		"required":   []any{"text"},
	}
	if got := list.Tools[0].InputSchema; !reflect.DeepEqual(got, wantSchema) {
		t.Errorf("echo inputSchema = %v, want %v", got, wantSchema)
	}

	checkEchoResult(t, c.Call)
	checkUnknownAndPipelined(t, c, window, "ping")
}

// modernConformance checks a server through a 2026-07-28 client c, which
// sends no initialize: tools/list and tools/call answered as complete
// results naming the server, the methods the era removed, an unknown
// method, and pipelined calls when window > 1.
func modernConformance(t *testing.T, c *Client, window int) {
	t.Helper()
	// Call checks that every result is complete and names the server.
	res, err := c.Call("tools/list", nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
		t.Fatalf("tools/list = %s (%v), want the echo tool alone", res, err)
	}

	call, res := checkEchoResult(t, c.Call)
	if call.ResultType != "complete" || call.Meta[metaServerInfo].Name == "" {
		t.Errorf("tools/call result = %s, want resultType complete and the server's name in _meta", res)
	}
	checkUnknownAndPipelined(t, c, window, "tools/list")
}

// echoCall is what the checks read of an echo tools/call result.
type echoCall struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError    bool   `json:"isError"`
	ResultType string `json:"resultType"`
	Meta       map[string]struct {
		Name string `json:"name"`
	} `json:"_meta"`
}

// checkEchoResult makes one echo tools/call through call, with text that
// needs escaping, and checks that it answers one text block of it.
func checkEchoResult(t *testing.T, call func(method string, params any) (json.RawMessage, error)) (echoCall, json.RawMessage) {
	t.Helper()
	const text = "ünïcode \"quoted\" \\ and\nnewline"
	res, err := call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	var r echoCall
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatalf("tools/call result %s: %v", res, err)
	}
	if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != text {
		t.Errorf("tools/call result = %s, want one text block %q", res, text)
	}
	return r, res
}

// checkUnknownAndPipelined checks that an unknown method gets -32601, that
// pipelined calls with window in flight all complete, and that the client
// can make the call after afterwards.
func checkUnknownAndPipelined(t *testing.T, c *Client, window int, after string) {
	t.Helper()
	_, err := c.Call("no/such/method", map[string]any{})
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32601 {
		t.Errorf("unknown method: error %v, want code -32601", err)
	}
	const calls = 200
	if n, err := c.Echo(calls, window, time.Time{}); err != nil || n != calls {
		t.Errorf("Echo(%d, %d) = %d, %v; want %d calls", calls, window, n, err, calls)
	}
	// The client must be usable again after a pipelined run.
	if _, err := c.Call(after, nil); err != nil {
		t.Errorf("%s after Echo: %v", after, err)
	}
}

// check runs the conformance checks of c's era.
func check(t *testing.T, c *Client, window int) {
	t.Helper()
	if c.era == Modern {
		modernConformance(t, c, window)
	} else {
		conformance(t, c, window)
	}
}

func TestServersStdio(t *testing.T) {
	for _, e := range entries {
		t.Run(e.String(), func(t *testing.T) {
			p, err := Start(bins[e.Name], e.Era)
			if err != nil {
				t.Fatal(err)
			}
			check(t, p.Client, 8)
			if _, err := p.CPU(); err != nil {
				t.Error(err)
			}
			if rss, err := p.PeakRSS(); err != nil || rss <= 0 {
				t.Errorf("PeakRSS = %d, %v", rss, err)
			}
			if err := p.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestServersInProcess(t *testing.T) {
	for _, e := range entries {
		if e.Serve == nil {
			continue
		}
		t.Run(e.String(), func(t *testing.T) {
			c, err := Pipe(context.Background(), e.Server, e.Era)
			if err != nil {
				t.Fatal(err)
			}
			check(t, c.Client, 1)
			if err := c.Close(); err != nil {
				t.Errorf("server returned %v after the pipe closed", err)
			}
		})
	}
}

func TestMembers(t *testing.T) {
	tests := []struct {
		msg                string
		id, result, rpcErr string
		wantErr            bool
	}{
		{msg: `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a}\"]"}]}}`,
			id: `7`, result: `{"content":[{"type":"text","text":"a}\"]"}]}`},
		{msg: ` { "result" : [1, {"x":[]}] , "id" : 12 } `, id: `12`, result: `[1, {"x":[]}]`},
		{msg: `{"id":"s","error":{"code":-32601,"message":"m"}}`, id: `"s"`, rpcErr: `{"code":-32601,"message":"m"}`},
		{msg: `{"method":"notifications/progress","params":{}}`},
		{msg: `{}`},
		{msg: `[]`, wantErr: true},
		{msg: `{"id":1,"result":{"a":"b"}`, wantErr: true},
		{msg: `{"id":}`, wantErr: true},
		{msg: `{"id":1 "x":2}`, wantErr: true},
	}
	for _, tt := range tests {
		id, result, rpcErr, err := members([]byte(tt.msg))
		if (err != nil) != tt.wantErr {
			t.Errorf("members(%s) error = %v, want error %v", tt.msg, err, tt.wantErr)
			continue
		}
		if string(id) != tt.id || string(result) != tt.result || string(rpcErr) != tt.rpcErr {
			t.Errorf("members(%s) = %q, %q, %q; want %q, %q, %q",
				tt.msg, id, result, rpcErr, tt.id, tt.result, tt.rpcErr)
		}
	}
}

func TestMember(t *testing.T) {
	obj := []byte(`{"content":[{"type":"text","text":"resultType"}],"resultType" : "complete","_meta":{"k":1}}`)
	tests := []struct{ key, want string }{
		{"resultType", `"complete"`},
		{"_meta", `{"k":1}`},
		{"content", `[{"type":"text","text":"resultType"}]`},
		{"absent", ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, err := member(obj, tt.key)
			if err != nil || string(got) != tt.want {
				t.Errorf("member(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
			}
		})
	}
	if _, err := member([]byte(`[1]`), "a"); err == nil {
		t.Error("member of an array: no error")
	}
}

func TestDialectParams(t *testing.T) {
	modern := newDialect(Modern, "c")
	tests := []struct {
		d      dialect
		params any
		want   string
	}{
		{newDialect(Legacy, ""), nil, ""},
		{newDialect(Legacy, ""), map[string]any{"a": 1}, `{"a":1}`},
		{modern, nil, "{" + string(modern.meta) + "}"},
		{modern, map[string]any{}, "{" + string(modern.meta) + "}"},
		{modern, map[string]any{"a": 1}, "{" + string(modern.meta) + `,"a":1}`},
	}
	for _, tt := range tests {
		got, err := tt.d.params(tt.params)
		if err != nil || string(got) != tt.want {
			t.Errorf("%v params(%v) = %s, %v; want %s", tt.d.era, tt.params, got, err, tt.want)
		}
		if len(got) > 0 && !json.Valid(got) {
			t.Errorf("%v params(%v) = %s: not JSON", tt.d.era, tt.params, got)
		}
	}
	if _, err := modern.params([]int{1}); err == nil {
		t.Error("modern params of an array: no error")
	}
	call := modern.appendCall(nil, 42)
	var req struct {
		ID     int `json:"id"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(call, &req); err != nil || req.ID != 42 ||
		string(req.Params.Meta[metaProtocolVersion]) != `"`+ModernVersion+`"` || string(req.Params.Meta[metaClientCapabilities]) != `{}` {
		t.Errorf("modern echo call %s (%v): want id 42 and the version and capabilities in _meta", call, err)
	}
}

func TestMedian(t *testing.T) {
	if got := Median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("Median odd = %v, want 3", got)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median even = %v, want 2.5", got)
	}
}

func TestQuantile(t *testing.T) {
	xs := []time.Duration{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.5, 5}, {0.9, 9}, {1, 10}} {
		if got := Quantile(xs, tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := Quantile(nil, 0.5); got != 0 {
		t.Errorf("Quantile(nil) = %v, want 0", got)
	}
}

func TestStarts(t *testing.T) {
	results, err := Starts(context.Background(), bins, Servers, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if r.Server != Servers[i].Name || len(r.Times) != 2 || slices.Contains(r.Times, 0) {
			t.Errorf("result %d = %+v, want two times of %s", i, r, Servers[i].Name)
		}
	}
}
