package client

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/internal/validator"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// What a Session learns from tools/list and applies to the calls after it,
// in both eras:
//
//   - over a transport that mirrors tool parameters into HTTP headers
//     (Streamable HTTP), a tool whose x-mcp-header annotations break the
//     rules is left out of the list, with a log line naming it and why, as
//     the specification requires of such clients; the annotations of the
//     others become the Mcp-Param-* headers of their calls;
//   - a tool's outputSchema is compiled once, and the structuredContent of
//     every result of that tool that is not an error is checked against it;
//   - the tools' schemas stay as the server wrote them, byte for byte: the
//     list is edited as raw JSON, element by element, never re-encoded.

// toolInfo is what a Session knows of one listed tool.
type toolInfo struct {
	headers     []mcpheader.Param
	output      func([]byte) error // validates against the outputSchema; nil without one
	taskSupport string             // the 2025-11-25 execution.taskSupport; "" for none, which means forbidden
}

// toolBook holds the tools a Session has listed, by name.
type toolBook struct {
	mu     sync.Mutex
	byName map[string]*toolInfo
	// outputs counts the tools with an outputSchema: without any, a
	// result is not looked at for one.
	outputs atomic.Int32
}

func (b *toolBook) get(name string) *toolInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byName[name]
}

func (b *toolBook) headers(name string) []mcpheader.Param {
	if t := b.get(name); t != nil {
		return t.headers
	}
	return nil
}

func (b *toolBook) put(name string, t *toolInfo) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byName == nil {
		b.byName = map[string]*toolInfo{}
	}
	if old := b.byName[name]; old != nil && old.output != nil {
		b.outputs.Add(-1)
	}
	if t.output != nil {
		b.outputs.Add(1)
	}
	b.byName[name] = t
}

// OutputError reports a tool result whose structuredContent does not match
// the outputSchema the tool declared.
type OutputError struct {
	Tool string
	Err  error
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("client: tool %s returned structuredContent that does not match its outputSchema: %v", e.Tool, e.Err)
}

func (e *OutputError) Unwrap() error { return e.Err }

// received applies what the Session knows to a result before the typed
// API decodes it, and learns from it.
func (s *Session) received(method string, params, raw []byte) ([]byte, error) {
	switch method {
	case mcp.MethodListTools:
		out, err := s.listed(raw)
		if err != nil {
			return nil, err
		}
		raw = out
	case mcp.MethodCallTool:
		if s.tools.outputs.Load() == 0 {
			break
		}
		if err := s.checkOutput(toolName(params), raw); err != nil {
			return nil, err
		}
	}
	s.cache.put(method, params, raw)
	return raw, nil
}

// mirrorsHeaders reports whether the Session's transport copies tool
// parameters into HTTP headers.
func (s *Session) mirrorsHeaders() bool {
	m, ok := s.transport.(interface{ MirrorsHeaders() bool })
	return ok && m.MirrorsHeaders()
}

// listed records the tools of a tools/list result and leaves out those
// the Session's transport cannot call.
func (s *Session) listed(raw []byte) ([]byte, error) {
	top, err := members(raw)
	if err != nil {
		return nil, fmt.Errorf("client: tools/list result: %w", err)
	}
	var list []byte
	for _, m := range top {
		if m.key == "tools" {
			list = m.value
		}
	}
	elems, err := elements(list)
	if err != nil {
		return nil, fmt.Errorf("client: tools/list result: tools: %w", err)
	}
	mirror := s.mirrorsHeaders()
	kept := elems[:0:0]
	for _, e := range elems {
		if t, name, ok := s.learnTool(e, mirror); ok {
			s.tools.put(name, t)
			kept = append(kept, e)
		}
	}
	if len(kept) == len(elems) {
		return raw, nil
	}
	return object(set(top, "tools", array(kept))), nil
}

// learnTool reads what the Session needs of one tool definition, or
// reports false for a tool the transport cannot call.
func (s *Session) learnTool(def []byte, mirror bool) (*toolInfo, string, bool) {
	var sc jsonrpc.Scanner
	sc.Reset(memberOf(def, "name"))
	name, err := sc.String()
	if err != nil {
		return nil, "", true // a definition the typed API will refuse: not this check's to judge
	}
	t := &toolInfo{}
	if ts := memberOf(memberOf(def, "execution"), "taskSupport"); ts != nil {
		sc.Reset(ts)
		t.taskSupport, _ = sc.String()
	}
	if in := memberOf(def, "inputSchema"); in != nil {
		params, err := mcpheader.Params(in)
		switch {
		case err != nil && mirror:
			s.client.log.Warn("client: tool left out of tools/list: its x-mcp-header annotations break the rules", "tool", name, "reason", err)
			return nil, name, false
		case err == nil:
			t.headers = params
		}
	}
	if out := memberOf(def, "outputSchema"); out != nil {
		if t.output, err = validator.Compile("tool/"+name+"/output", out); err != nil {
			s.client.log.Warn("client: the tool's outputSchema cannot be used: its results are not checked", "tool", name, "err", err)
		}
	}
	return t, name, true
}

// checkOutput checks a tools/call result against the tool's outputSchema.
func (s *Session) checkOutput(name string, raw []byte) error {
	t := s.tools.get(name)
	if t == nil || t.output == nil {
		return nil
	}
	if v := memberOf(raw, "isError"); string(v) == "true" {
		return nil // a failure is not the output the schema describes
	}
	sc := memberOf(raw, "structuredContent")
	if sc == nil {
		return &OutputError{Tool: name, Err: errors.New("the result has no structuredContent")}
	}
	if err := t.output(sc); err != nil {
		return &OutputError{Tool: name, Err: err}
	}
	return nil
}

// elements reads the raw elements of a JSON array.
func elements(arr []byte) ([][]byte, error) {
	if len(arr) == 0 {
		return nil, nil
	}
	var sc jsonrpc.Scanner
	sc.Reset(arr)
	if err := sc.ArrayStart(); err != nil {
		return nil, err
	}
	var out [][]byte
	for {
		more, err := sc.NextElem()
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		v, err := sc.Raw()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// array encodes raw elements as a JSON array.
func array(elems [][]byte) []byte {
	out := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// listCache keeps the results of list requests for as long as their
// ttlMs says, when Options.CacheLists asks for it. It belongs to one
// Session, and so to one set of credentials: a private result is never
// served to anyone else. A list-changed notification empties its list's
// entries.
type listCache struct {
	on      bool
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	raw     []byte
	expires time.Time
}

// cacheable are the methods whose results carry caching hints.
var cacheable = map[string]bool{
	mcp.MethodListTools: true, mcp.MethodListPrompts: true, mcp.MethodListResources: true,
	mcp.MethodListResourceTemplates: true, mcp.MethodReadResource: true,
}

// cacheKey is the method and the params that matter to the result: the
// cursor of a list, the URI of a read.
func cacheKey(method string, params []byte) string {
	key := method
	for _, k := range []string{"cursor", "uri"} {
		if v := memberOf(params, k); v != nil {
			key += "\x00" + k + "=" + string(v)
		}
	}
	return key
}

func (c *listCache) get(method string, params []byte) []byte {
	if !c.on || !cacheable[method] || memberOf(params, "inputResponses") != nil {
		return nil
	}
	key := cacheKey(method, params)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !time.Now().Before(e.expires) {
		delete(c.entries, key)
		return nil
	}
	return e.raw
}

func (c *listCache) put(method string, params, raw []byte) {
	if !c.on || !cacheable[method] || memberOf(params, "inputResponses") != nil || memberOf(params, "requestState") != nil {
		return // a retry's result depends on what is not in the key
	}
	var ttl int64
	if v := memberOf(raw, "ttlMs"); v != nil {
		var sc jsonrpc.Scanner
		sc.Reset(v)
		ttl, _ = sc.Int64()
	}
	if ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[cacheKey(method, params)] = cacheEntry{raw: raw, expires: time.Now().Add(time.Duration(ttl) * time.Millisecond)}
}

// invalidate empties the entries of the lists a notification says changed.
func (c *listCache) invalidate(methods ...string) {
	if !c.on {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.entries {
		for _, m := range methods {
			if strings.HasPrefix(key, m) {
				delete(c.entries, key)
			}
		}
	}
}
