// Package server is mcpgen's MCP server engine. It serves tools, prompts,
// resources and completions registered on a Server to every client, in
// both eras of the protocol at once, and takes care of the protocol around
// them: capabilities derived from what is registered, cancellation,
// progress, logging, pagination, list-changed notifications and resource
// subscriptions.
//
// The engine is request-scoped. Every request is served with one request
// context: its protocol version, the client's capabilities and identity,
// the log level it asked for, and the principal the transport
// authenticated. A request of the stateless era (2026-07-28) fills it from
// its own _meta and belongs to no session (ServeCall); a request of a
// legacy session (2024-11-05 to 2025-11-25) fills it from the session's
// initialize (Serve). One stream or endpoint may carry both, interleaved.
//
// Handlers reach their client through the helpers of this package that
// take the handler's ctx (Progress, Log, Elicit, CreateMessage, ListRoots,
// ClientCapabilities, PrincipalFrom). They never see how the request
// arrived: in a legacy session Elicit sends the client a request and waits
// for its answer; in 2026-07-28 it ends the round with an
// InputRequiredResult and the client's retry replays the handler with the
// answer (see mrtr.go for the rule this puts on handlers).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/internal/schemarules"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/uritemplate"
)

// Options configure a Server. The zero Options are ready to use.
type Options struct {
	// Instructions tell clients how to use the server; sent in the
	// initialize result.
	Instructions string
	// Logger receives what the server cannot tell a client: handler
	// panics, failed notifications. Nil discards it.
	Logger *slog.Logger
	// PageSize is how many items a list result holds before it gives a
	// nextCursor. Zero means 100.
	PageSize int
	// MaxInFlight bounds the requests one session (a stream, or a legacy
	// Streamable HTTP session) handles at once; zero means
	// jsonrpc.DefaultMaxInFlight. The requests beyond it wait in order,
	// up to MaxQueued (zero: jsonrpc.DefaultMaxQueued); the ones beyond
	// that are answered at once with a -32603 error saying the server is
	// busy, as are those that would make the waiting requests' params
	// exceed MaxQueuedBytes (zero: jsonrpc.DefaultMaxQueuedBytes, 64 MiB).
	// Responses and cancellations from the client are read whatever the
	// handlers are doing.
	MaxInFlight    int
	MaxQueued      int
	MaxQueuedBytes int
	// DrainTimeout is the grace period of a session's graceful shutdown:
	// when Serve's ctx ends (SIGTERM, for a process whose ctx ends with
	// it) or the client closes its end of a stream, the requests already
	// read are still served for up to that long, the client's answers to
	// the server's own requests still read, and subscriptions/listen
	// requests end with their graceful completion; what is left is then
	// answered with an error saying the server shut down. Zero means
	// jsonrpc.DefaultDrainTimeout (10s); a negative value does not wait.
	DrainTimeout time.Duration
	// OnRootsListChanged is called when a client of a legacy session says
	// its roots changed; s.ListRoots asks it for the new ones.
	OnRootsListChanged func(ctx context.Context, s *Session)
	// Caching is what 2026-07-28 results of list and read methods and of
	// server/discover say about caching them. The zero value, immediately
	// stale and private, is the safe default; a resource registered with
	// ResourceCaching, or a read result that sets its own cacheScope,
	// overrides it.
	Caching Caching
	// StateTTL is how long a requestState the server hands out in a
	// 2026-07-28 InputRequiredResult stays good: the time a user has to
	// answer. Zero means DefaultStateTTL.
	StateTTL time.Duration
	// MaxInputRounds bounds the rounds of input one 2026-07-28 request
	// may take. Zero means DefaultMaxInputRounds.
	MaxInputRounds int
	// TaskStore keeps the records of tasks (see WithTaskSupport); nil
	// means a tasks.MemoryStore with its default bounds, made by New.
	// Replicas behind one endpoint share one store.
	TaskStore tasks.Store
	// TaskTTL is how long a finished task's result is kept when the
	// client asks for no TTL (2025-11-25 lets it ask); the store may cap
	// it. Zero means DefaultTaskTTL.
	TaskTTL time.Duration
	// TaskPollInterval is the polling interval tasks suggest to clients.
	// Zero means DefaultTaskPollInterval.
	TaskPollInterval time.Duration
	// TaskLease, for replicas sharing TaskStore, is how long a running
	// task's record may go unrefreshed before another replica reading it
	// takes its replica for dead and fails it (see tasklease.go). The
	// replica running it refreshes it every third of the lease: one store
	// update per running task. Zero means no lease: a task whose
	// replica died stays working until it expires.
	TaskLease time.Duration
	// MaxRunningTasks bounds the handlers this Server runs as tasks at
	// once; a call that would start one more is refused with a -32603
	// error saying the server is busy. Zero means DefaultMaxRunningTasks.
	MaxRunningTasks int
	// ToolCallLimit limits the tools/call requests of each caller, across
	// all tools, with a token bucket per caller; a call beyond it is
	// refused with CodeRateLimited (see ratelimit.go for who a caller is).
	// The zero value sets no limit. WithRateLimit limits one tool.
	ToolCallLimit RateLimit
	// MaxRateLimitKeys bounds the token buckets kept for the rate limits;
	// zero means DefaultMaxRateLimitKeys, and below 32 it is 32.
	MaxRateLimitKeys int
	// RateLimitStore keeps the token buckets of the rate limits where
	// every replica sees them, so that a limit holds across replicas; a
	// call is refused when the store fails (see ratestore.go). Nil keeps
	// them in this process, bounded by MaxRateLimitKeys.
	RateLimitStore RateLimitStore
}

// Defaults for Options left zero.
const (
	DefaultStateTTL       = 15 * time.Minute
	DefaultMaxInputRounds = 16
)

func (o *Options) stateTTL() time.Duration {
	if o.StateTTL <= 0 {
		return DefaultStateTTL
	}
	return o.StateTTL
}

func (o *Options) maxInputRounds() int {
	if o.MaxInputRounds <= 0 {
		return DefaultMaxInputRounds
	}
	return o.MaxInputRounds
}

// ToolHandler answers tools/call for one tool. A returned error becomes an
// isError result whose text the model can read; a *jsonrpc.Error is sent as
// a protocol error instead.
type ToolHandler func(ctx context.Context, params *mcp.CallToolRequestParams) (*mcp.CallToolResult, error)

// PromptHandler answers prompts/get for one prompt.
type PromptHandler func(ctx context.Context, params *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error)

// ResourceHandler answers resources/read for one resource.
type ResourceHandler func(ctx context.Context, params *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error)

// TemplateHandler answers resources/read for URIs that match a resource
// template; vars holds the template's variables by name.
type TemplateHandler func(ctx context.Context, params *mcp.ReadResourceRequestParams, vars map[string]string) (*mcp.ReadResourceResult, error)

// CompletionHandler answers completion/complete.
type CompletionHandler func(ctx context.Context, params *mcp.CompleteRequestParams) (*mcp.CompleteResult, error)

// Request is what a Middleware sees of a request: the session it arrived
// on (nil for a 2026-07-28 request, which has none), its id, method, raw
// params and protocol version. The result is the decoded result type; a
// 2026-07-28 round that asks the client for input ends with an
// *mcp.InputRequiredResult.
type Request struct {
	Session         *Session
	ID              jsonrpc.ID
	Method          string
	Params          []byte
	ProtocolVersion mcp.ProtocolVersion
}

// HandlerFunc handles one request.
type HandlerFunc func(ctx context.Context, req *Request) (mcp.Message, error)

// Middleware wraps the dispatch of every request, for tracing, auth or
// metrics, without touching generated code.
type Middleware func(next HandlerFunc) HandlerFunc

// Server holds what is registered and serves it to any number of
// sessions. Its methods are safe for concurrent use, and registering while
// sessions run notifies them that the list changed.
type Server struct {
	info mcp.Implementation
	// infoMeta is the _meta of a 2026-07-28 result that has none: the
	// server's identity. It is shared, and never modified.
	infoMeta mcp.ResultMetaObject
	opts     Options
	log      *slog.Logger

	// chain is the middleware around the dispatch, rebuilt by Use: the
	// one 2026-07-28 requests run through. Sessions keep the chain of the
	// moment they started.
	chain atomic.Pointer[HandlerFunc]
	// seal protects what clients hand back (requestState, cursors).
	seal atomic.Pointer[seal.Sealer]

	mu         sync.RWMutex
	tools      []*tool
	prompts    []*prompt
	resources  []*resource
	templates  []*template
	completion CompletionHandler
	middleware []Middleware
	sessions   map[*Session]struct{}

	scoped atomic.Bool // something registered requires scopes (CheckScopes)

	listenMu  sync.Mutex
	listeners map[*listener]struct{} // open subscriptions/listen requests

	// taskStore keeps the records of tasks; running are the tasks this
	// process runs, by id, and starting the slots reserved for tasks
	// being created; taskWG waits for their handlers (Close).
	taskStore   tasks.Store
	tasksMu     sync.Mutex
	running     map[string]*taskRun
	starting    int
	tasksClosed bool
	taskWG      sync.WaitGroup

	// rates holds the callers' token buckets of the rate limits.
	rates *rateLimits

	// bus is the Server's membership of the bus it shares with its
	// replicas, nil when on none; busMu serializes JoinBus.
	busMu sync.Mutex
	bus   atomic.Pointer[busLink]
}

type tool struct {
	def     mcp.Tool
	handler ToolHandler
	scopes  []string // the OAuth scopes a call needs (WithScopes)
	// The tool's validators of its arguments and structuredContent: given
	// with it, made by its compile from its schemas, or, for a schema that
	// accepts any object, nil (arguments) and anyObject (structuredContent).
	// validateOutput is nil when the tool has no output schema and was
	// given no validator.
	validateInput, validateOutput func([]byte) error
	// compile, given with WithSchemaCompiler, makes validators of the
	// tool's raw schemas.
	compile func(name string, schema []byte) (func([]byte) error, error)
	// headers are the input properties mirrored into Mcp-Param-* HTTP
	// headers (x-mcp-header), checked against the arguments.
	headers []mcpheader.Param
	// taskSupport says whether the tool may run as a task ("" is
	// TaskForbidden); inputBeforeTask that its handler starts the task
	// itself, with StartTask, after gathering its input.
	taskSupport     TaskSupport
	inputBeforeTask bool
	// rateLimit is each caller's limit on calls of the tool, nil for none
	// (WithRateLimit).
	rateLimit *RateLimit
}

// ToolOption adjusts how a tool is served.
type ToolOption func(*tool)

// WithInputValidator checks arguments with validate instead of the input
// schema; generated handlers pass their generated validators here.
func WithInputValidator(validate func(args []byte) error) ToolOption {
	return func(t *tool) { t.validateInput = validate }
}

// InputCheckedByHandler says that the handler decodes and checks its own
// arguments, answering invalid ones with an error (which becomes an
// isError result), so the server does not check them again. Generated
// handlers, whose decoders validate as they decode, register with it: the
// arguments are read once.
func InputCheckedByHandler() ToolOption {
	return func(t *tool) { t.validateInput = func([]byte) error { return nil } }
}

// WithOutputValidator checks structuredContent with validate instead of
// the output schema.
func WithOutputValidator(validate func(structured []byte) error) ToolOption {
	return func(t *tool) { t.validateOutput = validate }
}

// WithSchemaCompiler validates the tool against its own schemas: its
// arguments against its inputSchema and its structuredContent against its
// outputSchema, with the validators compile makes of them, once, when the
// tool is added. name identifies the schema ("echo/input") in compile's
// errors; validate returns an error that says where and why a value
// fails. WithInputValidator and WithOutputValidator take the place of the
// validator they name.
//
// Package rawschema's Validate is this option with mcpgen's JSON Schema
// validator: the way to serve a tool whose schemas are written by hand. It
// lives apart from this package because the validator costs every process
// that links it milliseconds at start-up, so that servers whose tools all
// come with generated validators do not link it.
func WithSchemaCompiler(compile func(name string, schema []byte) (validate func(value []byte) error, err error)) ToolOption {
	return func(t *tool) { t.compile = compile }
}

type prompt struct {
	def     mcp.Prompt
	handler PromptHandler
	scopes  []string // PromptScopes
}

type resource struct {
	def     mcp.Resource
	handler ResourceHandler
	caching *Caching // nil: the server's
	scopes  []string // ResourceScopes
}

// ResourceOption adjusts how a resource is served.
type ResourceOption func(*resource)

// ResourceCaching sets what the resource's 2026-07-28 read results say
// about caching them, instead of Options.Caching. A read result that sets
// its own cacheScope overrides both.
func ResourceCaching(c Caching) ResourceOption {
	return func(r *resource) { r.caching = &c }
}

type template struct {
	def     mcp.ResourceTemplate
	tmpl    *uritemplate.Template
	handler TemplateHandler
	scopes  []string // ResourceScopes
}

// New returns a Server that introduces itself as info.
func New(info mcp.Implementation, opts *Options) *Server {
	s := &Server{info: info, sessions: map[*Session]struct{}{}}
	s.infoMeta.ServerInfo = &s.info
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.seal.Store(seal.NewRandom())
	s.taskStore = s.opts.TaskStore
	if s.taskStore == nil {
		s.taskStore = tasks.NewMemoryStore(tasks.Options{DefaultTTL: s.opts.taskTTL()})
	}
	s.running = map[string]*taskRun{}
	s.rates = newRateLimits(s.opts.MaxRateLimitKeys)
	s.rebuildChain()
	return s
}

// SetStateKeys sets the keys that seal what the server hands clients to
// give back: the requestState of 2026-07-28 multi round-trip requests and
// pagination cursors (AES-256-GCM; each key is 32 bytes). The first key
// seals; all of them open, so that a key can be rotated out. Replicas
// behind one endpoint must share them, or a retry that reaches another
// replica is refused. Without it each Server seals with a random key of
// its own, made by New: fine for one process, and states do not outlive
// it. States and cursors sealed under the previous keys stop opening.
func (s *Server) SetStateKeys(keys ...[]byte) error {
	sl, err := seal.New(keys...)
	if err != nil {
		return fmt.Errorf("server: state keys: %w", err)
	}
	s.seal.Store(sl)
	return nil
}

func (s *Server) sealer() *seal.Sealer { return s.seal.Load() }

// Use adds middleware around the dispatch of every request; the first
// added is the outermost. Sessions started afterwards, and every
// 2026-07-28 request from then on, use it.
func (s *Server) Use(mw ...Middleware) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.middleware = append(s.middleware, mw...)
	s.rebuildChain()
}

// rebuildChain wraps the dispatch in the middleware. s.mu is held, or s is
// new.
func (s *Server) rebuildChain() {
	var h HandlerFunc = s.dispatch
	for i := len(s.middleware) - 1; i >= 0; i-- {
		h = s.middleware[i](h)
	}
	s.chain.Store(&h)
}

func (s *Server) currentChain() HandlerFunc { return *s.chain.Load() }

// AddTool registers a tool. Its arguments are checked against its input
// schema before the handler runs, and its structuredContent against its
// output schema, if any, before it is sent: arguments that do not match
// get an isError result naming the problem, and a structuredContent that
// does not match is reported as an internal error instead of being sent.
//
// What checks them is settled once, here: a validator given with the tool
// (WithInputValidator, WithOutputValidator; generated handlers bring
// theirs), or one compiled from the tool's schema (WithSchemaCompiler:
// rawschema.Validate() for schemas written by hand). A schema that accepts
// any object, that of a tool without arguments, needs neither. AddTool
// refuses a tool with a schema that nothing would hold its values to, and
// one whose schema breaks the 2026-07-28 rules for schemas.
func (s *Server) AddTool(def mcp.Tool, h ToolHandler, opts ...ToolOption) error {
	if def.Name == "" {
		return errors.New("server: a tool needs a name")
	}
	if h == nil {
		return fmt.Errorf("server: tool %s has no handler", def.Name)
	}
	if err := def.ValidateVersion(mcp.Version20251125); err != nil {
		return fmt.Errorf("server: tool %s: %w", def.Name, err)
	}
	// Keep the definition as it will go out: one encode and decode, here,
	// compacts raw schemas written with line breaks (an indented constant,
	// say), which the encoder would otherwise compact on every tools/list.
	raw, err := def.MarshalJSON()
	if err != nil {
		return fmt.Errorf("server: tool %s: %w", def.Name, err)
	}
	def = mcp.Tool{}
	if err := def.UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("server: tool %s: %w", def.Name, err)
	}
	if err := checkMetaKeys(def.Meta); err != nil {
		return fmt.Errorf("server: tool %s: _meta: %w", def.Name, err)
	}
	t := &tool{def: def, handler: h}
	if def.Execution != nil {
		t.taskSupport = TaskSupport(def.Execution.TaskSupport)
	}
	for _, o := range opts {
		o(t)
	}
	s.noteScopes(t.scopes)
	if err := t.checkRateLimit(); err != nil {
		return fmt.Errorf("server: tool %s: %w", def.Name, err)
	}
	switch t.taskSupport {
	case "", TaskForbidden:
		// Forbidden is the default, left unsaid; a fresh ToolExecution
		// drops the presence a decoded one carries, which would write
		// "taskSupport":"".
		if e := t.def.Execution; e != nil {
			t.def.Execution = nil
			if len(e.Extra) > 0 {
				t.def.Execution = &mcp.ToolExecution{Extra: e.Extra}
			}
		}
	case TaskOptional, TaskRequired:
		exec := mcp.ToolExecution{}
		if t.def.Execution != nil {
			exec = *t.def.Execution
		}
		exec.TaskSupport = mcp.ToolExecutionTaskSupport(t.taskSupport)
		t.def.Execution = &exec
	default:
		return fmt.Errorf("server: tool %s: unknown task support %q", def.Name, t.taskSupport)
	}
	in, err := def.InputSchema.MarshalJSON()
	if err == nil {
		err = t.validateInputWith(def.Name+"/input", in)
	}
	if err != nil {
		return fmt.Errorf("server: tool %s: input schema: %w", def.Name, err)
	}
	if t.headers, err = mcpheader.Params(in); err != nil {
		return fmt.Errorf("server: tool %s: input schema: x-mcp-header: %w", def.Name, err)
	}
	if def.OutputSchema != nil {
		out, err := def.OutputSchema.MarshalJSON()
		if err == nil {
			err = t.validateOutputWith(def.Name+"/output", out)
		}
		if err != nil {
			return fmt.Errorf("server: tool %s: output schema: %w", def.Name, err)
		}
	}
	s.mu.Lock()
	s.tools = slices.DeleteFunc(s.tools, func(o *tool) bool { return o.def.Name == def.Name })
	s.tools = append(s.tools, t)
	s.mu.Unlock()
	s.notifyAll(mcp.MethodToolListChangedNotification)
	return nil
}

// RemoveTool unregisters the named tool, reporting whether it existed.
func (s *Server) RemoveTool(name string) bool {
	return remove(s, &s.tools, func(t *tool) bool { return t.def.Name == name }, mcp.MethodToolListChangedNotification)
}

// AddPrompt registers a prompt.
func (s *Server) AddPrompt(def mcp.Prompt, h PromptHandler, opts ...PromptOption) error {
	if def.Name == "" || h == nil {
		return errors.New("server: a prompt needs a name and a handler")
	}
	if err := checkMetaKeys(def.Meta); err != nil {
		return fmt.Errorf("server: prompt %s: _meta: %w", def.Name, err)
	}
	s.mu.Lock()
	s.prompts = slices.DeleteFunc(s.prompts, func(o *prompt) bool { return o.def.Name == def.Name })
	p := &prompt{def: def, handler: h}
	for _, o := range opts {
		o(p)
	}
	s.noteScopes(p.scopes)
	s.prompts = append(s.prompts, p)
	s.mu.Unlock()
	s.notifyAll(mcp.MethodPromptListChangedNotification)
	return nil
}

// RemovePrompt unregisters the named prompt, reporting whether it existed.
func (s *Server) RemovePrompt(name string) bool {
	return remove(s, &s.prompts, func(p *prompt) bool { return p.def.Name == name }, mcp.MethodPromptListChangedNotification)
}

// RemoveResource unregisters the resource with the URI, reporting whether
// it existed.
func (s *Server) RemoveResource(uri string) bool {
	return remove(s, &s.resources, func(r *resource) bool { return r.def.URI == uri }, mcp.MethodResourceListChangedNotification)
}

// RemoveResourceTemplate unregisters the resource template with the URI
// template, reporting whether it existed.
func (s *Server) RemoveResourceTemplate(uriTemplate string) bool {
	return remove(s, &s.templates, func(t *template) bool { return t.def.URITemplate == uriTemplate }, mcp.MethodResourceListChangedNotification)
}

// remove deletes the entries of a list that match, and tells the clients
// when there were any.
func remove[E any](s *Server, list *[]E, match func(E) bool, changed string) bool {
	s.mu.Lock()
	n := len(*list)
	*list = slices.DeleteFunc(*list, match)
	removed := len(*list) != n
	s.mu.Unlock()
	if removed {
		s.notifyAll(changed)
	}
	return removed
}

// AddResource registers a resource with a fixed URI.
func (s *Server) AddResource(def mcp.Resource, h ResourceHandler, opts ...ResourceOption) error {
	if def.URI == "" || h == nil {
		return errors.New("server: a resource needs a URI and a handler")
	}
	if err := checkMetaKeys(def.Meta); err != nil {
		return fmt.Errorf("server: resource %s: _meta: %w", def.URI, err)
	}
	r := &resource{def: def, handler: h}
	for _, o := range opts {
		o(r)
	}
	s.noteScopes(r.scopes)
	s.mu.Lock()
	s.resources = slices.DeleteFunc(s.resources, func(o *resource) bool { return o.def.URI == def.URI })
	s.resources = append(s.resources, r)
	s.mu.Unlock()
	s.notifyAll(mcp.MethodResourceListChangedNotification)
	return nil
}

// AddResourceTemplate registers a resource template (RFC 6570); reads of
// URIs it matches go to h with the template's variables. Of the
// ResourceOptions, ResourceScopes applies to templates; the others are
// ignored.
func (s *Server) AddResourceTemplate(def mcp.ResourceTemplate, h TemplateHandler, opts ...ResourceOption) error {
	if h == nil {
		return errors.New("server: a resource template needs a handler")
	}
	tmpl, err := uritemplate.Parse(def.URITemplate)
	if err != nil {
		return fmt.Errorf("server: resource template %s: %w", def.Name, err)
	}
	if err := checkMetaKeys(def.Meta); err != nil {
		return fmt.Errorf("server: resource template %s: _meta: %w", def.Name, err)
	}
	s.mu.Lock()
	s.templates = slices.DeleteFunc(s.templates, func(o *template) bool { return o.def.URITemplate == def.URITemplate })
	var ro resource
	for _, o := range opts {
		o(&ro)
	}
	s.noteScopes(ro.scopes)
	s.templates = append(s.templates, &template{def: def, tmpl: tmpl, handler: h, scopes: ro.scopes})
	s.mu.Unlock()
	s.notifyAll(mcp.MethodResourceListChangedNotification)
	return nil
}

// SetCompletion sets the handler of completion/complete.
func (s *Server) SetCompletion(h CompletionHandler) {
	s.mu.Lock()
	s.completion = h
	s.mu.Unlock()
}

// ResourceUpdated tells every client subscribed to uri that it changed:
// legacy sessions that sent resources/subscribe, and 2026-07-28
// subscriptions/listen requests that name it. On a bus (JoinBus), the
// other replicas tell theirs.
//
// It does not wait for any client: each session sends its changes on its
// own, collapsing repeats while its client is slow to read, so a client
// that stops reading holds up nobody else. ctx is not used.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	s.tellResourceUpdated(uri)
	s.broadcast(change{Kind: changeResource, URI: uri})
}

// tellResourceUpdated tells this process's clients subscribed to uri that
// it changed.
func (s *Server) tellResourceUpdated(uri string) {
	for _, sess := range s.liveSessions() {
		sess.post("", uri)
	}
	s.eachListener(func(l *listener) { l.resourceUpdated(uri) })
}

// Serve runs one session over t until the transport closes or ctx ends;
// either begins a graceful shutdown, bounded by Options.DrainTimeout. It
// returns nil when the session ended that way.
func (s *Server) Serve(ctx context.Context, t jsonrpc.Transport) error {
	sess := s.newSession(t)
	s.mu.Lock()
	s.sessions[sess] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, sess)
		s.mu.Unlock()
	}()
	sendCtx, stopSending := context.WithCancel(context.WithoutCancel(ctx))
	sess.tasks.Go(func() { sess.sendChanges(sendCtx) })
	err := sess.conn.Run(ctx)
	stopSending()
	sess.conn.Wait()
	sess.tasks.Wait()
	if errors.Is(err, jsonrpc.ErrClosed) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// ServeStdio serves one session over the process's stdin and stdout.
func (s *Server) ServeStdio(ctx context.Context) error {
	t, err := transport.Stdio(transport.StdioOptions{})
	if err != nil {
		return err
	}
	return s.Serve(ctx, t)
}

func (s *Server) liveSessions() []*Session {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Session, 0, len(s.sessions))
	for sess := range s.sessions {
		out = append(out, sess)
	}
	return out
}

// notifyAll sends a list-changed notification to every initialized
// session and to every subscription that asked for it, here and, on a
// bus, in the other replicas.
func (s *Server) notifyAll(method string) {
	s.tellListChanged(method)
	s.broadcast(change{Kind: changeList, Method: method})
}

// tellListChanged sends a list-changed notification to this process's
// clients.
func (s *Server) tellListChanged(method string) {
	for _, sess := range s.liveSessions() {
		sess.post(method, "")
	}
	s.eachListener(func(l *listener) { l.changed(method) })
}

// capabilitiesFor says what the server offers to a client of one era:
// tasks are the 2025-11-25 capability in one and an extension in the
// other.
func (s *Server) capabilitiesFor(modern bool) mcp.ServerCapabilities {
	caps := s.capabilities()
	if !s.hasTaskTools() {
		return caps
	}
	if modern {
		caps.Extensions = map[string]mcp.JSONObject{ExtensionTasks: {}}
	} else {
		caps.Tasks = &mcp.ServerCapabilitiesTasks{List: []byte(`{}`), Cancel: []byte(`{}`),
			Requests: &mcp.ServerCapabilitiesTasksRequests{Tools: &mcp.ServerCapabilitiesTasksRequestsTools{Call: []byte(`{}`)}}}
	}
	return caps
}

// capabilities says what the server offers, from what is registered.
func (s *Server) capabilities() mcp.ServerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	caps := mcp.ServerCapabilities{
		Logging: []byte(`{}`),
		Tools:   &mcp.ServerCapabilitiesTools{ListChanged: true},
	}
	if len(s.prompts) > 0 {
		caps.Prompts = &mcp.ServerCapabilitiesPrompts{ListChanged: true}
	}
	if len(s.resources) > 0 || len(s.templates) > 0 {
		caps.Resources = &mcp.ServerCapabilitiesResources{ListChanged: true, Subscribe: true}
	}
	if s.completion != nil {
		caps.Completions = []byte(`{}`)
	}
	return caps
}

// validateInputWith settles how the tool's arguments are checked against
// its input schema, which the tool came with unless it was given a
// validator instead.
func (t *tool) validateInputWith(name string, schema []byte) error {
	validate, err := t.validator(name, schema, t.validateInput != nil)
	if err != nil || validate == nil {
		return err
	}
	t.validateInput = func(args []byte) error {
		if len(args) == 0 {
			args = []byte(`{}`) // absent arguments are no arguments
		}
		return validate(args)
	}
	return nil
}

// validateOutputWith settles how the tool's structuredContent is checked
// against its output schema.
func (t *tool) validateOutputWith(name string, schema []byte) error {
	validate, err := t.validator(name, schema, t.validateOutput != nil)
	if err != nil {
		return err
	}
	if validate != nil {
		t.validateOutput = validate
	} else if t.validateOutput == nil {
		t.validateOutput = anyObject
	}
	return nil
}

// validator checks that one of the tool's schemas keeps the 2026-07-28
// rules for schemas (a dialect mcpgen supports, 2020-12 when none is
// named; no reference that would have to be fetched; bounded depth and
// size, so that a hostile schema cannot make validation expensive) and,
// unless the tool has a validator of its own (given), makes one: compiled
// by the tool's compile when it has one; none, for nothing to check, when
// the schema accepts any object; and otherwise an error, since nothing
// else would hold the values to the schema.
func (t *tool) validator(name string, schema []byte, given bool) (func([]byte) error, error) {
	if _, err := schemarules.Check(schema, schemarules.Limits{}); err != nil {
		return nil, err
	}
	switch {
	case given:
		return nil, nil
	case t.compile != nil:
		validate, err := t.compile(name, schema)
		if err == nil && validate == nil {
			err = errors.New("the schema compiler returned no validator")
		}
		return validate, err
	case schemarules.AcceptsAnyObject(schema):
		return nil, nil
	}
	return nil, errors.New("nothing would hold values to it: add the tool with the option rawschema.Validate() " +
		"(package github.com/mcpgen/mcpgen/runtime/rawschema) to validate against the schema, " +
		"or give it a validator of its own (WithInputValidator, WithOutputValidator)")
}

// anyObject checks that structuredContent is a JSON object, all that an
// output schema that accepts any object asks of it.
func anyObject(structured []byte) error {
	var sc jsonrpc.Scanner
	sc.Reset(structured)
	if k := sc.Peek(); k != jsonrpc.KindObject {
		return fmt.Errorf("expected an object, got %s", k)
	}
	if err := sc.Skip(); err != nil {
		return err
	}
	return sc.End()
}
