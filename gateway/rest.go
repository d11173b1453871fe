package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// RESTConfig is the REST facade of the aggregated tools, for clients that
// do not speak MCP: each virtual server NAME gets an OpenAPI 3.1 document
// at GET /rest/NAME/openapi.json and its tools at POST
// /rest/NAME/tools/{tool} ("default" also at /rest/openapi.json and
// /rest/tools/{tool}). It sits behind the same auth as the MCP endpoints,
// and every call goes through the virtual server as an MCP call of the
// caller's, so authorization, policy and audit apply unchanged.
type RESTConfig struct {
	// MaxBodyBytes bounds a call's request body; zero means
	// DefaultRESTMaxBodyBytes.
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
	// TimeoutMs bounds a request, answered 504 when it runs out; zero
	// means DefaultRESTTimeout.
	TimeoutMs int `yaml:"timeoutMs"`
}

// Defaults of the REST facade.
const (
	DefaultRESTMaxBodyBytes = 1 << 20
	DefaultRESTTimeout      = 60 * time.Second
)

func (c *RESTConfig) validate(bad badFunc) error {
	if c.MaxBodyBytes < 0 {
		return bad(0, "rest.maxBodyBytes: must not be negative")
	}
	if c.TimeoutMs < 0 {
		return bad(0, "rest.timeoutMs: must not be negative")
	}
	return nil
}

// restFacade serves the REST endpoints of every virtual server.
type restFacade struct {
	f       *front
	maxBody int64
	timeout time.Duration
	schemas schemaCache
}

func newRESTFacade(c *RESTConfig, f *front) *restFacade {
	r := &restFacade{f: f, maxBody: c.MaxBodyBytes, timeout: time.Duration(c.TimeoutMs) * time.Millisecond}
	if r.maxBody == 0 {
		r.maxBody = DefaultRESTMaxBodyBytes
	}
	if r.timeout == 0 {
		r.timeout = DefaultRESTTimeout
	}
	return r
}

// mount adds the REST endpoints to mux: those of every virtual server
// NAME under /rest/NAME, and those of "default" also under /rest. The
// name is looked up on every request, so that a server a reload added or
// removed is served, or not, at once.
func (r *restFacade) mount(mux *http.ServeMux) {
	for _, base := range []string{"/rest/{server}", "/rest"} {
		named := func(req *http.Request) (name, at string) {
			if name = req.PathValue("server"); name == "" {
				return "default", "/rest"
			}
			return name, "/rest/" + name
		}
		mux.Handle("GET "+base+"/openapi.json", restErrors(r.f.guard(r.bounded(func(w http.ResponseWriter, req *http.Request) {
			name, at := named(req)
			e := r.f.lookup(name)
			if e == nil {
				http.NotFound(w, req)
				return
			}
			r.document(w, req, e, name, at)
		}))))
		mux.Handle("POST "+base+"/tools/{tool}", restErrors(r.f.guard(r.bounded(func(w http.ResponseWriter, req *http.Request) {
			name, _ := named(req)
			e := r.f.lookup(name)
			if e == nil {
				http.NotFound(w, req)
				return
			}
			r.call(w, req, e)
		}))))
	}
}

// restErrors gives the refusals of the OAuth middleware, which answers
// as an MCP transport does (a JSON-RPC error), the facade's own shape:
// {"error": message}, status and challenge unchanged.
func restErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ew := &errorShaper{ResponseWriter: w}
		next.ServeHTTP(ew, req)
		ew.flush()
	})
}

// errorShaper holds back the body of an error answer (they are small:
// it keeps at most maxShapedError bytes) to rewrite it when it is a
// JSON-RPC error.
type errorShaper struct {
	http.ResponseWriter
	status int // of an error answer held back; 0 when passing through
	body   []byte
}

const maxShapedError = 64 << 10

func (e *errorShaper) WriteHeader(status int) {
	if status >= 400 && e.status == 0 && e.body == nil {
		e.status = status
		return
	}
	e.ResponseWriter.WriteHeader(status)
}

func (e *errorShaper) Write(p []byte) (int, error) {
	if e.status == 0 {
		return e.ResponseWriter.Write(p)
	}
	if len(e.body)+len(p) > maxShapedError {
		e.flush()
		return e.ResponseWriter.Write(p)
	}
	e.body = append(e.body, p...)
	return len(p), nil
}

// Unwrap gives http.ResponseController the ResponseWriter underneath.
func (e *errorShaper) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// flush sends what was held back, rewritten when it is a JSON-RPC
// error.
func (e *errorShaper) flush() {
	if e.status == 0 {
		return
	}
	status, body := e.status, e.body
	e.status, e.body = 0, nil
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) == nil && m.JSONRPC != "" && m.Error.Message != "" {
		e.Header().Del("Content-Length")
		writeJSONError(e.ResponseWriter, status, m.Error.Message)
		return
	}
	e.ResponseWriter.WriteHeader(status)
	_, _ = e.ResponseWriter.Write(body)
}

// bounded gives a REST request its timeout. The http.Server's
// ReadTimeout and WriteTimeout bound a whole exchange, which would cut a
// call longer than they are (and a ReadTimeout that expires after the
// body was read cancels the request's ctx): so, as streamable's handlers
// do, the read deadline is lifted once the body is read (liftRead), and
// the write deadline leaves room for the facade's own timeout.
func (r *restFacade) bounded(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx, cancel := context.WithTimeout(req.Context(), r.timeout)
		defer cancel()
		if srv, _ := req.Context().Value(http.ServerContextKey).(*http.Server); srv != nil && srv.WriteTimeout > 0 {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(r.timeout + srv.WriteTimeout))
		}
		h(w, req.WithContext(ctx))
	})
}

// liftRead lifts the connection's read deadline of a request whose body
// has been read.
func liftRead(w http.ResponseWriter, req *http.Request) {
	if srv, _ := req.Context().Value(http.ServerContextKey).(*http.Server); srv != nil && srv.ReadTimeout > 0 {
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
}

// restMeta is the _meta of the facade's requests: it is a 2026-07-28
// client that declares no capabilities, so that what needs one (an
// approval, asked through elicitation) is refused as for any such client.
var restMeta = &mcp.RequestMetaObject{
	ProtocolVersion:    string(mcp.Version20260728),
	ClientCapabilities: &mcp.ClientCapabilities{},
	ClientInfo:         &mcp.Implementation{Name: "mcpgen-gateway/rest", Version: "0.1.0"},
}

// request serves one request of the caller of ctx on the virtual server
// of e, in this process, as a stateless 2026-07-28 request: the
// principal (and verified token) the guard put in ctx reach the handlers
// as they would over HTTP, and the middleware (rules, policy, audit) runs
// as for any request. What the request would send its client meanwhile
// (progress, log messages) is dropped. It decodes the result into res.
func request(ctx context.Context, e *endpoint, method string, params, res any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	out, err := e.srv.ServeCall(ctx, &server.Call{ID: jsonrpc.IntID(1), Method: method, Params: raw})
	if err != nil {
		return err
	}
	if bytes.Contains(out, []byte(`"input_required"`)) { // else it is no round: decode once
		var kind struct {
			ResultType string `json:"resultType"`
		}
		if err := json.Unmarshal(out, &kind); err != nil {
			return err
		}
		if kind.ResultType == "input_required" {
			return errAsksInput
		}
	}
	return json.Unmarshal(out, res)
}

// errAsksInput is a request that asked its caller for input, which a REST
// call has no way to give.
var errAsksInput = errors.New("the request asks its caller for input, which a REST call cannot give")

// maxToolPages bounds the pages of tools/list visibleTools reads.
const maxToolPages = 1000

// visibleTools lists the tools of e as the caller of ctx may see them.
func visibleTools(ctx context.Context, e *endpoint) ([]mcp.Tool, error) {
	var tools []mcp.Tool
	p := &mcp.PaginatedRequestParams{Meta: restMeta}
	for range maxToolPages {
		var page mcp.ListToolsResult
		if err := request(ctx, e, mcp.MethodListTools, p, &page); err != nil {
			return nil, err
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, nil
		}
		p.Cursor = page.NextCursor
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxToolPages)
}

// document serves the OpenAPI document of the tools the caller may see.
func (r *restFacade) document(w http.ResponseWriter, req *http.Request, e *endpoint, name, base string) {
	ctx := req.Context()
	liftRead(w, req)
	tools, err := visibleTools(ctx, e)
	if err != nil {
		r.fail(w, ctx, err)
		return
	}
	doc, err := openAPI(name, base, tools, r.f)
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "cannot build the OpenAPI document: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "private, no-store") // the document depends on who asks
	_, _ = w.Write(doc)
}

// call serves POST tools/{tool}: the body is the tool's arguments, the
// answer its structuredContent, or its content when it has none.
func (r *restFacade) call(w http.ResponseWriter, req *http.Request, e *endpoint) {
	ctx := req.Context()
	tool := req.PathValue("tool")
	args, status, msg := readArguments(w, req, r.maxBody)
	liftRead(w, req)
	if status != 0 {
		writeJSONError(w, status, msg)
		return
	}
	def, ok := e.tool(ctx, tool)
	if !ok {
		writeJSONError(w, http.StatusNotFound, "no tool "+strconv.Quote(tool)+" on this server")
		return
	}
	if err := r.schemas.check(&def, args); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid arguments for tool "+tool+": "+err.Error())
		return
	}
	var res mcp.CallToolResult
	err := request(ctx, e, mcp.MethodCallTool, &mcp.CallToolRequestParams{Name: tool, Arguments: args, Meta: restMeta}, &res)
	if err == nil {
		err = ctx.Err() // a handler cut short may still answer, with an error result
	}
	if err != nil {
		r.fail(w, ctx, err)
		return
	}
	if res.IsError {
		writeToolError(w, &res)
		return
	}
	body := []byte(res.StructuredContent)
	if len(body) == 0 {
		if body, err = json.Marshal(res.Content); err != nil {
			writeJSONError(w, http.StatusBadGateway, "the tool's result cannot be encoded: "+err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(body)
}

// readArguments reads the body of a call: a JSON object, or nothing for
// no arguments. A non-zero status says why it is refused.
func readArguments(w http.ResponseWriter, req *http.Request, limit int64) (json.RawMessage, int, string) {
	data, err := io.ReadAll(http.MaxBytesReader(w, req.Body, limit))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, http.StatusRequestEntityTooLarge, "the request body is larger than " + strconv.FormatInt(limit, 10) + " bytes (rest.maxBodyBytes)"
		}
		return nil, http.StatusBadRequest, "cannot read the request body"
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return json.RawMessage("{}"), 0, ""
	}
	if ct := req.Header.Get("Content-Type"); ct != "" && !isJSONType(ct) {
		return nil, http.StatusUnsupportedMediaType, "the body must be application/json"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, http.StatusBadRequest, "the body must be a JSON object of the tool's arguments"
	}
	return json.RawMessage(data), 0, ""
}

func isJSONType(ct string) bool {
	t, _, _ := strings.Cut(ct, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	return t == "application/json" || strings.HasSuffix(t, "+json")
}

// writeToolError answers a result the tool marked as an error: the
// upstream failed the call, 502, with its text and content.
func writeToolError(w http.ResponseWriter, res *mcp.CallToolResult) {
	var text []string
	for _, c := range res.Content {
		if t, ok := c.Value.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	msg := strings.Join(text, "\n")
	if msg == "" {
		msg = "the tool failed"
	}
	data, err := json.Marshal(struct {
		Error   string             `json:"error"`
		Content []mcp.ContentBlock `json:"content"`
	}{msg, res.Content})
	if err != nil {
		writeJSONError(w, http.StatusBadGateway, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write(append(data, '\n'))
}

// fail answers an error of a request with its HTTP status:
// see restStatus.
func (r *restFacade) fail(w http.ResponseWriter, ctx context.Context, err error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		writeJSONError(w, http.StatusGatewayTimeout, "the request took longer than rest.timeoutMs ("+r.timeout.String()+")")
		return
	}
	if ctx.Err() != nil {
		return // the client went away
	}
	if errors.Is(err, errAsksInput) {
		writeJSONError(w, http.StatusForbidden, err.Error())
		return
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		writeJSONError(w, restStatus(je), je.Message)
		return
	}
	writeJSONError(w, http.StatusBadGateway, "the call failed: "+err.Error())
}

// restStatus is the HTTP status of a JSON-RPC error a call got. The
// codes mcpgen gives its own errors echo an HTTP status as -31000-S
// (server.CodeInsufficientScope is -31403, server.CodeRateLimited
// -31429): such a code answers with S, so that the gateway's refusals
// (authorization -31403, rate limits -31429, an unavailable upstream
// -31502 or -31503, a timeout -31504) keep their meaning. An unknown tool
// is 404, other invalid params 400, a capability the REST client cannot
// have (elicitation, for an approval) 403, and anything else 502.
func restStatus(e *jsonrpc.Error) int {
	switch {
	case e.Code <= -31400 && e.Code > -31600:
		return int(-31000 - e.Code)
	case e.Code == jsonrpc.CodeInvalidParams && strings.Contains(e.Message, "unknown tool"):
		return http.StatusNotFound
	case e.Code == jsonrpc.CodeInvalidParams:
		return http.StatusBadRequest
	case e.Code == mcp.CodeMissingRequiredClientCapability:
		return http.StatusForbidden
	}
	return http.StatusBadGateway
}

// schemaCache compiles tools' input schemas once per distinct schema, to
// check a call's arguments before it is made. It is bounded: when full it
// starts over.
type schemaCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]func([]byte) error
}

// maxCachedSchemas bounds the schemaCache.
const maxCachedSchemas = 1024

// check validates args against the tool's input schema. A schema that
// does not compile is left to the upstream, which checks its own
// arguments anyway.
func (c *schemaCache) check(def *mcp.Tool, args json.RawMessage) error {
	raw, err := json.Marshal(def.InputSchema)
	if err != nil {
		return nil
	}
	key := sha256.Sum256(raw)
	c.mu.Lock()
	validate, ok := c.m[key]
	c.mu.Unlock()
	if !ok {
		validate, _ = rawschema.Compile("schema.json", raw)
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxCachedSchemas {
			c.m = map[[sha256.Size]byte]func([]byte) error{}
		}
		c.m[key] = validate
		c.mu.Unlock()
	}
	if validate == nil {
		return nil
	}
	return validate(args)
}
