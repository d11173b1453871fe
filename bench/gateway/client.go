package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/mcpgen/mcpgen/bench/echo"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// era is the protocol era of a downstream client.
type era string

const (
	// legacy is a 2025-11-25 session: initialize, then its id on every
	// request.
	legacy era = "2025-11-25"
	// modern is a stateless 2026-07-28 client: no initialize; every
	// request carries its _meta and the headers that mirror it.
	modern era = "2026-07-28"
)

var eras = []era{legacy, modern}

// caller makes one tools/call and checks its result. A caller is used by
// one goroutine at a time.
type caller interface {
	call(ctx context.Context) error
}

// The arguments each tool is called with, and a piece of text its result
// must hold.
var (
	toolArgs = map[string]string{toolEcho: `{"text":"` + echo.Text + `"}`, toolWork: `{}`}
	toolWant = map[string]string{toolEcho: echo.Text, toolWork: "done"}
)

// httpCaller is a lean Streamable HTTP client of one tool: its request
// body is built once, and its check of the response looks for bytes
// without decoding, so that most of the time a call takes is the
// server's, direct or through the gateway.
type httpCaller struct {
	hc   *http.Client
	url  string
	era  era
	tool string
	sid  string
	id   int64
	// pre and post surround the request id in the request body.
	pre, post []byte
	want      []byte
	body      []byte
	resp      []byte
}

// newHTTPCaller returns a caller of tool at url; a legacy one has opened
// its session.
func newHTTPCaller(ctx context.Context, hc *http.Client, url string, e era, tool string) (*httpCaller, error) {
	c := &httpCaller{hc: hc, url: url, era: e, tool: tool, want: []byte(toolWant[tool])}
	params := `{"name":"` + tool + `","arguments":` + toolArgs[tool]
	if e == modern {
		params += `,"_meta":` + modernMeta
	}
	c.pre = []byte(`{"jsonrpc":"2.0","id":`)
	c.post = []byte(`,"method":"tools/call","params":` + params + `}}`)
	if e == legacy {
		sid, err := openSession(ctx, hc, url)
		if err != nil {
			return nil, err
		}
		c.sid = sid
	}
	return c, nil
}

// modernMeta is what a 2026-07-28 client puts in every request's _meta.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-gateway","version":"1"}}`

func (c *httpCaller) call(ctx context.Context) error {
	c.id++
	c.body = append(strconv.AppendInt(append(c.body[:0], c.pre...), c.id, 10), c.post...)
	hdr := []string{"Mcp-Session-Id", c.sid, "MCP-Protocol-Version", string(legacy)}
	if c.era == modern {
		hdr = []string{"MCP-Protocol-Version", string(modern), "Mcp-Method", "tools/call", "Mcp-Name", c.tool}
	}
	status, data, err := post(ctx, c.hc, c.url, c.body, hdr, c.resp[:0])
	c.resp = data
	if err != nil {
		return err
	}
	if status != http.StatusOK || !bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte(`"isError":true`)) || !bytes.Contains(data, c.want) {
		return fmt.Errorf("tools/call %s: HTTP %d: %.300s", c.tool, status, bytes.TrimSpace(data))
	}
	return nil
}

// openSession opens a legacy session at url and returns its id.
func openSession(ctx context.Context, hc *http.Client, url string) (string, error) {
	body := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + string(legacy) + `","capabilities":{},"clientInfo":{"name":"bench-gateway","version":"1"}}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return "", err
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return "", fmt.Errorf("initialize: HTTP %d, session %q: %.300s", resp.StatusCode, sid, data)
	}
	status, data, err := post(ctx, hc, url, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", string(legacy)}, nil)
	if err != nil {
		return "", err
	}
	if status != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: HTTP %d: %.300s", status, data)
	}
	return sid, nil
}

// closeSession ends a legacy session with DELETE.
func closeSession(ctx context.Context, hc *http.Client, url, sid string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", string(legacy))
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE session: HTTP %d", resp.StatusCode)
	}
	return nil
}

// post sends body with the headers given in pairs and reads the whole
// answer, JSON or SSE, into buf.
func post(ctx context.Context, hc *http.Client, url string, body []byte, hdr []string, buf []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, buf, err
	}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json, text/event-stream"}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, buf, err
	}
	defer resp.Body.Close()
	b := bytes.NewBuffer(buf)
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes(), err
}

// newHTTPClient keeps up to conns connections alive to one host.
func newHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        max(conns, 2),
		MaxIdleConnsPerHost: max(conns, 2),
		DisableCompression:  true,
	}}
}

// sessionCaller calls a tool on an mcpgen client session, which the
// callers of one stdio upstream share: it multiplexes their requests on
// the process's stdin and stdout, as the gateway's own session with the
// upstream does.
type sessionCaller struct {
	s    *client.Session
	tool string
	args json.RawMessage
	want string
}

func newSessionCaller(s *client.Session, tool string) *sessionCaller {
	return &sessionCaller{s: s, tool: tool, args: json.RawMessage(toolArgs[tool]), want: toolWant[tool]}
}

func (c *sessionCaller) call(ctx context.Context) error {
	r, err := c.s.CallTool(ctx, &mcp.CallToolRequestParams{Name: c.tool, Arguments: c.args})
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", c.tool, err)
	}
	if r.IsError || len(r.Content) == 0 {
		return fmt.Errorf("tools/call %s: an error result or no content", c.tool)
	}
	if tc, ok := r.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != c.want {
		return fmt.Errorf("tools/call %s: want the text %q", c.tool, c.want)
	}
	return nil
}

var errNoCallers = errors.New("no callers")
