// Package echo is the floor of the echo benchmark: a one-tool MCP server
// written against encoding/json alone, doing the least work a correct server
// can do. Every library server is measured against it.
//
// It serves both eras from one process, deciding per request: a request
// whose params._meta names protocol version 2026-07-28 is served on its own,
// with no initialize, and its result carries resultType and the server's
// identity; anything else is the legacy era, where the floor keeps no
// session state either (it never needs any to answer). In 2026-07-28 it
// serves tools/list and tools/call only: initialize and ping are gone from
// that era, and server/discover is left out, as the benchmark's client
// never asks for it.
package echo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// JSON-RPC error codes the server answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602

	// The codes 2026-07-28 adds.
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// latestVersion is answered when the client asks for a protocol version the
// server does not know.
const latestVersion = "2025-11-25"

var knownVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", latestVersion}

// modernVersion is the one version the floor serves per request, without
// initialize.
const modernVersion = "2026-07-28"

// The _meta keys of 2026-07-28.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// echoSchema is the input schema of the echo tool.
const echoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// requestMeta is the part of a request's params._meta that 2026-07-28
// defines. A request whose _meta names a protocol version is of that era.
type requestMeta struct {
	ProtocolVersion    *string         `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         *implementation `json:"io.modelcontextprotocol/clientInfo"`
}

// resultMeta is the _meta of a 2026-07-28 result.
type resultMeta struct {
	ServerInfo *implementation `json:"io.modelcontextprotocol/serverInfo"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      implementation  `json:"serverInfo"`
}

type tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type listToolsResult struct {
	Tools      []tool      `json:"tools"`
	ResultType string      `json:"resultType,omitempty"`
	Meta       *resultMeta `json:"_meta,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callToolResult struct {
	Content    []textContent `json:"content"`
	IsError    bool          `json:"isError,omitempty"`
	ResultType string        `json:"resultType,omitempty"`
	Meta       *resultMeta   `json:"_meta,omitempty"`
}

var (
	nullID     = json.RawMessage("null")
	emptyObj   = json.RawMessage("{}")
	toolsCap   = json.RawMessage(`{"tools":{}}`)
	toolsList  = listToolsResult{Tools: []tool{{Name: "echo", InputSchema: json.RawMessage(echoSchema)}}}
	serverInfo = implementation{Name: "floor", Version: "0.0.0"}
	modernMeta = &resultMeta{ServerInfo: &serverInfo}
)

// Handle answers one JSON-RPC message arriving on a stream and returns the
// response line without its newline, or nil when the message needs no
// response (a notification or a response from the client).
func Handle(msg []byte) []byte {
	resp, _ := handle(msg, nil)
	return resp
}

// handle answers one message that arrived with the given HTTP headers, nil
// on a stream. It returns the response, or nil, and the HTTP status to send
// it with: 2026-07-28 gives some errors a status of their own.
func handle(msg []byte, header http.Header) ([]byte, int) {
	var req request
	if err := json.Unmarshal(msg, &req); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return marshal(response{ID: nullID, Error: &rpcError{Code: codeParseError, Message: "parse error"}}), http.StatusOK
		}
		return marshal(response{ID: nullID, Error: &rpcError{Code: codeInvalidRequest, Message: "invalid request"}}), http.StatusOK
	}
	if req.Method == "" {
		if req.ID != nil && (req.Result != nil || req.Error != nil) {
			return nil, http.StatusAccepted // a response to a request we never send
		}
		return marshal(response{ID: nullID, Error: &rpcError{Code: codeInvalidRequest, Message: "invalid request"}}), http.StatusOK
	}
	if req.ID == nil {
		return nil, http.StatusAccepted // notifications/initialized and every other notification
	}
	result, modern, rerr := dispatch(req.Method, req.Params, header)
	status := http.StatusOK
	if modern && rerr != nil {
		status = modernStatus(rerr.Code)
	}
	return marshal(response{ID: req.ID, Result: result, Error: rerr}), status
}

// dispatch serves one request. Each method decodes its params once, _meta
// included, and modern reports whether the request is of 2026-07-28.
func dispatch(method string, params json.RawMessage, header http.Header) (result any, modern bool, rerr *rpcError) {
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string       `json:"protocolVersion"`
			Meta            *requestMeta `json:"_meta"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, false, &rpcError{Code: codeInvalidParams, Message: "invalid initialize params"}
		}
		if p.Meta.modern() {
			return nil, true, removed(method)
		}
		v := latestVersion
		for _, k := range knownVersions {
			if p.ProtocolVersion == k {
				v = k
			}
		}
		return initializeResult{ProtocolVersion: v, Capabilities: toolsCap, ServerInfo: serverInfo}, false, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      *requestMeta    `json:"_meta"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, false, &rpcError{Code: codeInvalidParams, Message: "invalid tools/call params"}
		}
		if modern, rerr = checkMeta(p.Meta, method, p.Name, header); rerr != nil {
			return nil, modern, rerr
		}
		res, rerr := callTool(p.Name, p.Arguments)
		if res != nil && modern {
			res.ResultType, res.Meta = "complete", modernMeta
		}
		if res == nil { // a nil *callToolResult is not a nil result
			return nil, modern, rerr
		}
		return res, modern, rerr
	}
	// The other methods take no params the floor reads but _meta.
	var p struct {
		Meta *requestMeta `json:"_meta"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			if method != "ping" && method != "tools/list" {
				return nil, false, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + method}
			}
			return nil, false, &rpcError{Code: codeInvalidParams, Message: "invalid " + method + " params"}
		}
	}
	if modern, rerr = checkMeta(p.Meta, method, "", header); rerr != nil {
		return nil, modern, rerr
	}
	switch method {
	case "ping":
		if modern {
			return nil, true, removed(method)
		}
		return emptyObj, false, nil
	case "tools/list":
		if modern {
			return listToolsResult{Tools: toolsList.Tools, ResultType: "complete", Meta: modernMeta}, true, nil
		}
		return toolsList, false, nil
	}
	return nil, modern, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + method}
}

// modern reports whether the request that m is the _meta of is of
// 2026-07-28: it names a protocol version.
func (m *requestMeta) modern() bool { return m != nil && m.ProtocolVersion != nil }

// checkMeta reads the era of a request from its _meta and, for a 2026-07-28
// request, checks what that era requires of it: client capabilities, a
// version the floor serves, and, over HTTP, headers that agree with the
// body (MCP-Protocol-Version, Mcp-Method, and Mcp-Name for tools/call).
func checkMeta(m *requestMeta, method, name string, header http.Header) (modern bool, rerr *rpcError) {
	if !m.modern() {
		if header != nil && header.Get("Mcp-Protocol-Version") == modernVersion {
			return true, &rpcError{Code: codeInvalidParams, Message: "params._meta." + metaProtocolVersion + ": required"}
		}
		return false, nil
	}
	v := *m.ProtocolVersion
	if len(m.ClientCapabilities) == 0 || m.ClientCapabilities[0] != '{' {
		return true, &rpcError{Code: codeInvalidParams, Message: "params._meta.io.modelcontextprotocol/clientCapabilities: required object"}
	}
	if header != nil {
		if got := header.Get("Mcp-Protocol-Version"); got != v {
			return true, mismatch("Mcp-Protocol-Version", got, v)
		}
	}
	if v != modernVersion {
		data, _ := json.Marshal(struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}{[]string{modernVersion}, v})
		return true, &rpcError{Code: codeUnsupportedVersion, Message: "unsupported protocol version", Data: data}
	}
	if header != nil {
		if got := header.Get("Mcp-Method"); got != method {
			return true, mismatch("Mcp-Method", got, method)
		}
		if got := header.Get("Mcp-Name"); method == "tools/call" && got != name {
			return true, mismatch("Mcp-Name", got, name)
		}
	}
	return true, nil
}

func mismatch(header, got, want string) *rpcError {
	return &rpcError{Code: codeHeaderMismatch, Message: "header mismatch: " + header + " is " + strconv.Quote(got) + ", the body says " + strconv.Quote(want)}
}

// removed is the error for a method 2026-07-28 does not have.
func removed(method string) *rpcError {
	return &rpcError{Code: codeMethodNotFound, Message: "method not found in " + modernVersion + ": " + method}
}

// modernStatus is the HTTP status of a 2026-07-28 error response.
func modernStatus(code int) int {
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeParseError, codeInvalidRequest, codeInvalidParams, codeHeaderMismatch, codeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func callTool(name string, arguments json.RawMessage) (*callToolResult, *rpcError) {
	if name != "echo" {
		return &callToolResult{Content: []textContent{{"text", "unknown tool: " + name}}, IsError: true}, nil
	}
	var args struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(arguments, &args); err != nil || args.Text == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "echo: arguments.text must be a string"}
	}
	return &callToolResult{Content: []textContent{{"text", *args.Text}}}, nil
}

func marshal(r response) []byte {
	r.JSONRPC = "2.0"
	b, err := json.Marshal(r)
	if err != nil {
		// Every value above marshals; reaching here is a bug in this file.
		panic(err)
	}
	return b
}

// Serve speaks newline-delimited JSON-RPC over rwc, one message a line,
// until rwc reaches EOF or ctx is done. It closes rwc when it returns.
//
// Responses are flushed only when no further input is already buffered, so
// pipelined requests share write calls.
func Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	stop := context.AfterFunc(ctx, func() { rwc.Close() })
	defer stop()
	defer rwc.Close()

	r := bufio.NewReaderSize(rwc, 64<<10)
	w := bufio.NewWriterSize(rwc, 64<<10)
	var long []byte
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if resp := Handle(line); resp != nil {
				w.Write(resp)
				w.WriteByte('\n')
			}
		}
		if err != nil {
			w.Flush()
			if err == io.EOF || ctx.Err() != nil {
				return nil
			}
			return err
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}

// HTTP returns a Streamable HTTP handler in JSON-response mode: each POST
// carries one message and is answered with application/json, or 202 when
// the message needs no response. The server keeps no sessions, so GET (the
// server-to-client stream) is not offered. A 2026-07-28 request's headers
// are checked against its body.
func HTTP() (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		resp, status := handle(body, r.Header)
		if resp == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(resp)
	}), nil
}
