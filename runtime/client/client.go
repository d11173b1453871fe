package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// DefaultProtocolVersion is the version a Client asks for in initialize
// when it falls back to the legacy era with no version pinned.
const DefaultProtocolVersion = mcp.Version20251125

// Options configure a Client. The zero Options are ready to use: a client
// with no capabilities that speaks 2026-07-28 to servers that do, and the
// legacy era, from DefaultProtocolVersion down, to the others.
type Options struct {
	// Capabilities are declared to the server: in initialize, or in the
	// _meta of every 2026-07-28 request. Handlers set below add their
	// capability when it is missing here: sampling for CreateMessage,
	// elicitation for Elicit, roots (with listChanged) for Roots.
	Capabilities mcp.ClientCapabilities

	// CreateMessage answers sampling/createMessage: a legacy server's
	// request, or the input a 2026-07-28 server asks for in its result.
	// Nil answers -32601.
	CreateMessage func(ctx context.Context, params *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error)
	// Elicit answers elicitation/create, in both eras as CreateMessage.
	// Nil answers -32601.
	Elicit func(ctx context.Context, params *mcp.ElicitRequestParams) (*mcp.ElicitResult, error)
	// Roots answers roots/list, in both eras as CreateMessage. Nil answers
	// -32601.
	Roots func(ctx context.Context) ([]mcp.Root, error)

	// The callbacks below receive the server's notifications, one at a
	// time and in the order they arrived, on a goroutine of the Session;
	// they may call the Session (say, ListTools on OnToolsListChanged) but
	// must not call its Close or Wait. A notification whose params do not
	// decode or validate is logged and dropped.

	// OnProgress receives notifications/progress. Each request but
	// initialize and server/discover asks for progress with a token of the
	// Session's own, unless its params carry one already or
	// CallerProgressTokens is set.
	OnProgress func(params *mcp.ProgressNotificationParams)
	// CallerProgressTokens makes OnProgress hear only of the requests whose
	// params carry a progressToken of the caller's: the Session adds none
	// of its own for OnProgress, so servers are not asked for progress
	// that nobody awaits. A proxy forwarding its own clients' requests
	// wants this. RequestTimeout still adds a token, to hear of progress.
	CallerProgressTokens bool
	// OnLog receives notifications/message.
	OnLog func(params *mcp.LoggingMessageNotificationParams)
	// OnToolsListChanged is called on notifications/tools/list_changed.
	OnToolsListChanged func()
	// OnPromptsListChanged is called on notifications/prompts/list_changed.
	OnPromptsListChanged func()
	// OnResourcesListChanged is called on notifications/resources/list_changed.
	OnResourcesListChanged func()
	// OnResourceUpdated is called on notifications/resources/updated.
	OnResourceUpdated func(uri string)

	// ProtocolVersion pins the version: a legacy one is asked for in
	// initialize, with no server/discover probe; a 2026-07-28-era one is
	// spoken per request, with no fallback to initialize. Empty lets
	// Connect negotiate (see Era).
	ProtocolVersion mcp.ProtocolVersion

	// Era limits the negotiation when ProtocolVersion is empty:
	// mcp.EraModern never falls back to initialize, mcp.EraLegacy
	// initializes at once. Zero tries 2026-07-28 first, as a client of both
	// eras should, and falls back for a legacy server.
	Era mcp.Era

	// ProbeTimeout bounds the wait for the answer to the server/discover
	// probe, past which the server is taken to be of the legacy era. Zero
	// means DefaultProbeTimeout.
	ProbeTimeout time.Duration

	// LogLevel, when set, asks for the server's log messages at that level
	// and above: in the _meta of each 2026-07-28 request, with
	// logging/setLevel after initialize in a legacy session whose server
	// offers logging.
	LogLevel mcp.LoggingLevel

	// MaxInputRounds bounds the rounds of input a 2026-07-28 request may
	// take before the call fails. Zero means DefaultMaxInputRounds.
	MaxInputRounds int

	// CacheLists keeps the results of list requests (and resources/read)
	// for the ttlMs the server gives them, within each Session; a
	// list-changed notification clears its list.
	CacheLists bool

	// Logger receives what the Client cannot tell the server: dropped
	// notifications, panics in callbacks, failed writes. Nil discards it.
	Logger *slog.Logger

	// RequestTimeout, when positive, bounds the wait for the response to
	// each request. Such a request carries a progress token, and each
	// notifications/progress for it starts the timeout afresh. Zero means
	// no timeout.
	RequestTimeout time.Duration

	// MaxRequestTimeout, when positive, bounds the wait for a request with
	// a RequestTimeout however much progress the server reports, counted
	// from when the request was sent.
	MaxRequestTimeout time.Duration

	// Tasks lets tools/call run as a task (see Session.StartToolTask) and
	// makes CallTool wait for one as for any result: a 2026-07-28 request
	// declares the io.modelcontextprotocol/tasks extension, and in a
	// legacy session a call of a tool whose execution.taskSupport (from
	// tools/list) allows it asks for a task when the server offers them.
	// A CallTool whose ctx ends while its task runs cancels the task.
	Tasks bool

	// TaskNotifications makes a Task's Wait in 2026-07-28 listen for the
	// task's status notifications (subscriptions/listen naming its id)
	// instead of polling tasks/get at the server's interval. It polls
	// anyway every MaxTaskPollInterval, and falls back to polling when the
	// server does not agree to report the task or the subscription ends.
	// Legacy sessions are not affected: their tasks/result waits.
	TaskNotifications bool

	// TaskTTL, when positive, is the ttl a legacy tools/call asks its
	// task to be kept for; zero leaves it to the server. The 2026-07-28
	// extension has the server choose.
	TaskTTL time.Duration
}

func (o *Options) probeTimeout() time.Duration {
	if o.ProbeTimeout <= 0 {
		return DefaultProbeTimeout
	}
	return o.ProbeTimeout
}

func (o *Options) maxInputRounds() int {
	if o.MaxInputRounds <= 0 {
		return DefaultMaxInputRounds
	}
	return o.MaxInputRounds
}

// Client connects to MCP servers with one identity, set of handlers and
// callbacks. It may serve any number of Sessions at once.
type Client struct {
	info mcp.Implementation
	opts Options
	caps mcp.ClientCapabilities
	log  *slog.Logger
	// capsJSON and infoJSON are the capabilities and identity as the
	// _meta of 2026-07-28 requests carries them, encoded once; taskCapsJSON
	// the capabilities with the tasks extension, for the requests that
	// declare it.
	capsJSON, infoJSON, taskCapsJSON []byte
	// eras remembers the era of the servers connected to.
	eras memory
}

// New returns a Client that introduces itself as info. opts may be nil.
func New(info mcp.Implementation, opts *Options) *Client {
	c := &Client{info: info}
	if opts != nil {
		c.opts = *opts
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.caps = c.opts.Capabilities
	if c.opts.CreateMessage != nil && c.caps.Sampling == nil {
		c.caps.Sampling = &mcp.ClientCapabilitiesSampling{}
	}
	if c.opts.Elicit != nil && c.caps.Elicitation == nil {
		c.caps.Elicitation = &mcp.ClientCapabilitiesElicitation{}
	}
	if c.opts.Roots != nil && c.caps.Roots == nil {
		c.caps.Roots = &mcp.ClientCapabilitiesRoots{ListChanged: true}
	}
	var err error
	if c.capsJSON, err = c.caps.MarshalJSON(); err != nil {
		c.log.Error("client: the capabilities do not encode; declaring none", "err", err)
		c.capsJSON = []byte(`{}`)
	}
	c.taskCapsJSON = withTasksExtension(c.caps, c.log)
	if c.opts.Tasks {
		c.capsJSON = c.taskCapsJSON
	}
	if c.infoJSON, err = c.info.MarshalJSON(); err != nil {
		c.log.Error("client: the client info does not encode; sending none", "err", err)
		c.infoJSON = []byte(`{"name":"","version":""}`)
	}
	return c
}

// Capabilities returns the capabilities the Client declares.
func (c *Client) Capabilities() mcp.ClientCapabilities { return c.caps }

// VersionError reports a protocol version the Client cannot use: one it
// was configured to ask for, or the one the server answered with.
type VersionError struct {
	Requested mcp.ProtocolVersion // what the client asked for
	Offered   mcp.ProtocolVersion // what the server chose or offers; empty when the request was refused before sending
}

// Error names both versions.
func (e *VersionError) Error() string {
	if e.Offered == "" {
		return fmt.Sprintf("client: protocol version %q is not a version this client supports", e.Requested)
	}
	return fmt.Sprintf("client: the server chose protocol version %q, which this client does not support (it asked for %q)", e.Offered, e.Requested)
}

// supported reports whether v is a legacy-era version this package knows.
func supported(v mcp.ProtocolVersion) bool {
	return v.Supported() && v.Era() == mcp.EraLegacy
}

// Connect makes a Session with the server over t, in the era the server
// speaks (see Options.ProtocolVersion and Options.Era): a 2026-07-28
// server is probed with server/discover and spoken to per request, a
// legacy one initialized. The Session owns t from now on, and closes it
// when it ends, also when Connect fails. ctx bounds the negotiation only;
// the Session lives until Close or until the server goes away.
//
// If the server speaks no version the client does, Connect closes the
// connection and returns a *VersionError.
func (c *Client) Connect(ctx context.Context, t jsonrpc.Transport) (*Session, error) {
	if v := c.opts.ProtocolVersion; v != "" && !v.Supported() {
		t.Close()
		return nil, &VersionError{Requested: v}
	}
	s := newSession(c, t)
	key := serverKey(t)
	if err := c.negotiate(ctx, s, key); err != nil {
		s.Close()
		c.eras.forget(key)
		return nil, err
	}
	return s, nil
}

// initialize runs the legacy handshake on s, asking for version v.
func (s *Session) initialize(ctx context.Context, v mcp.ProtocolVersion) error {
	c := s.client
	s.version.Store(v)
	params := &mcp.InitializeRequestParams{
		Capabilities:    c.caps,
		ClientInfo:      c.info,
		ProtocolVersion: string(v),
	}
	res, err := s.Initialize(ctx, params)
	if err != nil {
		return fmt.Errorf("client: initialize: %w", err)
	}
	got := mcp.ProtocolVersion(res.ProtocolVersion)
	if !supported(got) {
		return &VersionError{Requested: v, Offered: got}
	}
	s.init = res
	s.version.Store(got)
	s.ready.Store(true)
	if err := s.conn.Notify(ctx, mcp.MethodInitializedNotification, nil); err != nil {
		return fmt.Errorf("client: notifications/initialized: %w", err)
	}
	if l := c.opts.LogLevel; l != "" && len(res.Capabilities.Logging) != 0 {
		if _, err := s.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: l}); err != nil {
			return fmt.Errorf("client: logging/setLevel: %w", err)
		}
	}
	return nil
}

// ErrRequestTimeout is wrapped by the error of a request that ran out of
// Options.RequestTimeout or Options.MaxRequestTimeout.
var ErrRequestTimeout = errors.New("request timed out")
