package echo

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHandle(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want string // "" means no response
	}{
		{"initialize known version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0.0.0"}}}`},
		{"initialize each known version", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0.0.0"}}}`},
		{"initialize unknown version", `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
			`{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0.0.0"}}}`},
		{"initialized notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"response from client", `{"jsonrpc":"2.0","id":9,"result":{}}`, ""},
		{"ping", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}}`},
		{"tools/call echo", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\u00e9\""}}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hé\""}]}}`},
		{"text not a string", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"echo: arguments.text must be a string"}}`},
		{"text missing", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"echo: arguments.text must be a string"}}`},
		{"text null", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":null}}}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"echo: arguments.text must be a string"}}`},
		{"arguments missing", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo"}}`,
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"echo: arguments.text must be a string"}}`},
		{"params missing", `{"jsonrpc":"2.0","id":11,"method":"tools/call"}`,
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"invalid tools/call params"}}`},
		{"unknown tool", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"unknown tool: nope"}],"isError":true}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":13,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":13,"error":{"code":-32601,"message":"method not found: resources/list"}}`},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, ""},
		{"parse error", `{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"not an object", `[1,2]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`},
		{"no method", `{"jsonrpc":"2.0","id":14}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Handle([]byte(tt.msg))); got != tt.want {
				t.Errorf("Handle(%s)\n got %s\nwant %s", tt.msg, got, tt.want)
			}
		})
	}
}

// meta is the _meta of a 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`

// completeResult is what ends a 2026-07-28 result.
const completeResult = `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"floor","version":"0.0.0"}}`

func TestHandleModern(t *testing.T) {
	echoHeaders := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}
	tests := []struct {
		name   string
		msg    string
		header http.Header // nil: a stream
		want   string
		status int
	}{
		{"tools/call on a stream", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`, nil,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],` + completeResult + `}}`, 200},
		{"tools/call over HTTP", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`, echoHeaders,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}],` + completeResult + `}}`, 200},
		{"tools/list", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`, nil,
			`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}],` + completeResult + `}}`, 200},
		{"initialize is gone", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2026-07-28",` + meta + `}}`, nil,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"method not found in 2026-07-28: initialize"}}`, 404},
		{"ping is gone", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{` + meta + `}}`, nil,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found in 2026-07-28: ping"}}`, 404},
		{"no capabilities", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"params._meta.io.modelcontextprotocol/clientCapabilities: required object"}}`, 400},
		{"unsupported version", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, nil,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}`, 400},
		{"Mcp-Name disagrees", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`,
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"other"}},
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32020,"message":"header mismatch: Mcp-Name is \"other\", the body says \"echo\""}}`, 400},
		{"Mcp-Method missing", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{` + meta + `}}`,
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}},
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32020,"message":"header mismatch: Mcp-Method is \"\", the body says \"tools/list\""}}`, 400},
		{"header without _meta", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`, http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}},
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"params._meta.io.modelcontextprotocol/protocolVersion: required"}}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, status := handle([]byte(tt.msg), tt.header)
			if string(got) != tt.want || status != tt.status {
				t.Errorf("handle(%s)\n got %d %s\nwant %d %s", tt.msg, status, got, tt.status, tt.want)
			}
		})
	}
}

// TestServePipelined sends several requests in one write and checks that
// every one is answered, in order, and that Serve returns at EOF.
func TestServePipelined(t *testing.T) {
	client, server := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), server) }()

	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n\n")
	for i := range 50 {
		in.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i%10) + `,"method":"ping"}` + "\n")
	}
	go client.Write([]byte(in.String()))

	r := bufio.NewReader(client)
	for i := range 50 {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.ID != i%10 || string(resp.Result) != "{}" {
			t.Fatalf("response %d = %s (%v), want id %d with result {}", i, line, err, i%10)
		}
	}
	client.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v at EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the peer closed")
	}
}
