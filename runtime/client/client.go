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

// DefaultProtocolVersion is the version a Client asks for when
// Options.ProtocolVersion is empty.
const DefaultProtocolVersion = mcp.Version20251125

// Options configure a Client. The zero Options are ready to use: a client
// with no capabilities that asks for DefaultProtocolVersion.
type Options struct {
	// Capabilities are declared to the server in initialize. Handlers set
	// below add their capability when it is missing here: sampling for
	// CreateMessage, elicitation for Elicit, roots (with listChanged) for
	// Roots.
	Capabilities mcp.ClientCapabilities

	// CreateMessage answers sampling/createMessage. Nil answers -32601.
	CreateMessage func(ctx context.Context, params *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error)
	// Elicit answers elicitation/create. Nil answers -32601.
	Elicit func(ctx context.Context, params *mcp.ElicitRequestParams) (*mcp.ElicitResult, error)
	// Roots answers roots/list. Nil answers -32601.
	Roots func(ctx context.Context) ([]mcp.Root, error)

	// The callbacks below receive the server's notifications, one at a
	// time and in the order they arrived, on a goroutine of the Session;
	// they may call the Session (say, ListTools on OnToolsListChanged) but
	// must not call its Close or Wait. A notification whose params do not
	// decode or validate is logged and dropped.

	// OnProgress receives notifications/progress.
	OnProgress func(params *mcp.ProgressNotificationParams)
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

	// ProtocolVersion is the version asked for in initialize; empty means
	// DefaultProtocolVersion. It must be a legacy-era version.
	ProtocolVersion mcp.ProtocolVersion

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
}

// Client connects to MCP servers with one identity, set of handlers and
// callbacks. It may serve any number of Sessions at once.
type Client struct {
	info mcp.Implementation
	opts Options
	caps mcp.ClientCapabilities
	log  *slog.Logger
}

// New returns a Client that introduces itself as info. opts may be nil.
func New(info mcp.Implementation, opts *Options) *Client {
	c := &Client{info: info}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.ProtocolVersion == "" {
		c.opts.ProtocolVersion = DefaultProtocolVersion
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
	return c
}

// Capabilities returns the capabilities the Client declares in initialize.
func (c *Client) Capabilities() mcp.ClientCapabilities { return c.caps }

// VersionError reports a protocol version the Client cannot use: one it
// was configured to ask for, or the one the server answered with.
type VersionError struct {
	Requested mcp.ProtocolVersion // what the client asked for
	Offered   mcp.ProtocolVersion // what the server chose; empty when the request was refused before sending
}

// Error names both versions.
func (e *VersionError) Error() string {
	if e.Offered == "" {
		return fmt.Sprintf("client: protocol version %q is not a legacy-era version this client supports", e.Requested)
	}
	return fmt.Sprintf("client: the server chose protocol version %q, which this client does not support (it asked for %q)", e.Offered, e.Requested)
}

// supported reports whether v is a legacy-era version this package knows.
func supported(v mcp.ProtocolVersion) bool {
	return v.Supported() && v.Era() == mcp.EraLegacy
}

// Connect runs the initialize handshake over t and returns the Session.
// The Session owns t from now on, and closes it when it ends, also when
// Connect fails. ctx bounds the handshake only; the Session lives until
// Close or until the server goes away.
//
// If the server answers with a protocol version the client does not
// support, Connect closes the connection and returns a *VersionError.
func (c *Client) Connect(ctx context.Context, t jsonrpc.Transport) (*Session, error) {
	if !supported(c.opts.ProtocolVersion) {
		t.Close()
		return nil, &VersionError{Requested: c.opts.ProtocolVersion}
	}
	s := newSession(c, t)
	params := &mcp.InitializeRequestParams{
		Capabilities:    c.caps,
		ClientInfo:      c.info,
		ProtocolVersion: string(c.opts.ProtocolVersion),
	}
	res, err := s.Initialize(ctx, params)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("client: initialize: %w", err)
	}
	v := mcp.ProtocolVersion(res.ProtocolVersion)
	if !supported(v) {
		s.Close()
		return nil, &VersionError{Requested: c.opts.ProtocolVersion, Offered: v}
	}
	s.init = res
	s.version.Store(v)
	s.ready.Store(true)
	if err := s.conn.Notify(ctx, mcp.MethodInitializedNotification, nil); err != nil {
		s.Close()
		return nil, fmt.Errorf("client: notifications/initialized: %w", err)
	}
	return s, nil
}

// ErrRequestTimeout is wrapped by the error of a request that ran out of
// Options.RequestTimeout or Options.MaxRequestTimeout.
var ErrRequestTimeout = errors.New("request timed out")
