// Package echo is the floor of the echo benchmark: a one-tool MCP server
// written against encoding/json alone, doing the least work a correct server
// can do. Every library server is measured against it.
package echo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// JSON-RPC error codes the server answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// latestVersion is answered when the client asks for a protocol version the
// server does not know.
const latestVersion = "2025-11-25"

var knownVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", latestVersion}

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
	Code    int    `json:"code"`
	Message string `json:"message"`
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
	Tools []tool `json:"tools"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callToolResult struct {
	Content []textContent `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

var (
	nullID     = json.RawMessage("null")
	emptyObj   = json.RawMessage("{}")
	toolsCap   = json.RawMessage(`{"tools":{}}`)
	toolsList  = listToolsResult{Tools: []tool{{Name: "echo", InputSchema: json.RawMessage(echoSchema)}}}
	serverInfo = implementation{Name: "floor", Version: "0.0.0"}
)

// Handle answers one JSON-RPC message and returns the response line without
// its newline, or nil when the message needs no response (a notification or
// a response from the client).
func Handle(msg []byte) []byte {
	var req request
	if err := json.Unmarshal(msg, &req); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return marshal(response{ID: nullID, Error: &rpcError{codeParseError, "parse error"}})
		}
		return marshal(response{ID: nullID, Error: &rpcError{codeInvalidRequest, "invalid request"}})
	}
	if req.Method == "" {
		if req.ID != nil && (req.Result != nil || req.Error != nil) {
			return nil // a response to a request we never send
		}
		return marshal(response{ID: nullID, Error: &rpcError{codeInvalidRequest, "invalid request"}})
	}
	if req.ID == nil {
		return nil // notifications/initialized and every other notification
	}
	result, rerr := dispatch(req.Method, req.Params)
	return marshal(response{ID: req.ID, Result: result, Error: rerr})
}

func dispatch(method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpcError{codeInvalidParams, "invalid initialize params"}
		}
		v := latestVersion
		for _, k := range knownVersions {
			if p.ProtocolVersion == k {
				v = k
			}
		}
		return initializeResult{ProtocolVersion: v, Capabilities: toolsCap, ServerInfo: serverInfo}, nil
	case "ping":
		return emptyObj, nil
	case "tools/list":
		return toolsList, nil
	case "tools/call":
		return callTool(params)
	}
	return nil, &rpcError{codeMethodNotFound, "method not found: " + method}
}

func callTool(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{codeInvalidParams, "invalid tools/call params"}
	}
	if p.Name != "echo" {
		return callToolResult{Content: []textContent{{"text", "unknown tool: " + p.Name}}, IsError: true}, nil
	}
	var args struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(p.Arguments, &args); err != nil || args.Text == nil {
		return nil, &rpcError{codeInvalidParams, "echo: arguments.text must be a string"}
	}
	return callToolResult{Content: []textContent{{"text", *args.Text}}}, nil
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
// server-to-client stream) is not offered.
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
		resp := Handle(body)
		if resp == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}), nil
}
