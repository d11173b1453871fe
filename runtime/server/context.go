package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// requestInfo is what a handler's ctx knows of the request it serves.
type requestInfo struct {
	session       *Session
	id            jsonrpc.ID
	progressToken []byte // raw JSON, nil when the client asked for none
}

type requestKey struct{}

func withRequest(ctx context.Context, info *requestInfo) context.Context {
	return context.WithValue(ctx, requestKey{}, info)
}

func requestOf(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestKey{}).(*requestInfo)
	return info
}

// ErrNoSession is returned by the helpers below when ctx does not belong
// to a request a Server is handling.
var ErrNoSession = errors.New("server: ctx does not belong to a request of an MCP session")

// ErrNotInitialized is returned when a helper would send the client a
// request before it said it is initialized.
var ErrNotInitialized = errors.New("server: the client has not finished initializing")

// CapabilityError is returned when the client did not declare the
// capability a helper needs.
type CapabilityError struct {
	Capability string
}

func (e *CapabilityError) Error() string {
	return "server: the client does not support " + e.Capability
}

// SessionFrom returns the session that the request ctx belongs to, or nil.
func SessionFrom(ctx context.Context) *Session {
	if info := requestOf(ctx); info != nil {
		return info.session
	}
	return nil
}

// Progress reports progress on the current request, when the client asked
// for it with a progress token; otherwise it does nothing. total and
// message are left out when zero.
func Progress(ctx context.Context, progress, total float64, message string) error {
	info := requestOf(ctx)
	if info == nil {
		return ErrNoSession
	}
	if info.progressToken == nil {
		return nil
	}
	p := make([]byte, 0, 96)
	p = append(p, `{"progressToken":`...)
	p = append(p, info.progressToken...)
	p = append(p, `,"progress":`...)
	var err error
	if p, err = jsonrpc.AppendFloatChecked(p, progress); err != nil {
		return err
	}
	if total != 0 {
		p = append(p, `,"total":`...)
		if p, err = jsonrpc.AppendFloatChecked(p, total); err != nil {
			return err
		}
	}
	if message != "" {
		p = append(p, `,"message":`...)
		p = jsonrpc.AppendString(p, message)
	}
	p = append(p, '}')
	return info.session.conn.Notify(ctx, mcp.MethodProgressNotification, p)
}

// Log sends a log message to the client of the current request, when its
// level is at least the one the client set with logging/setLevel. data is
// encoded as JSON.
func Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	info := requestOf(ctx)
	if info == nil {
		return ErrNoSession
	}
	return info.session.Log(ctx, level, logger, data)
}

// Log sends a log message to this session's client, filtered by the level
// it set.
func (s *Session) Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	idx := -1
	for i, l := range levels {
		if l == level {
			idx = i
		}
	}
	if idx < 0 {
		return errors.New("server: unknown logging level " + string(level))
	}
	s.mu.Lock()
	min := s.minLevel
	s.mu.Unlock()
	if idx < min {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	params, err := (&mcp.LoggingMessageNotificationParams{Level: level, Logger: logger, Data: raw}).MarshalJSON()
	if err != nil {
		return err
	}
	s.notify(ctx, mcp.MethodLoggingMessageNotification, params)
	return nil
}

// clientAPI returns the typed caller of the client's methods, after
// checking that the client is initialized and declared the capability.
func clientAPI(ctx context.Context, capability string, has func(*mcp.ClientCapabilities) bool) (*mcp.ClientAPI, error) {
	info := requestOf(ctx)
	if info == nil {
		return nil, ErrNoSession
	}
	s := info.session
	if s.state.Load() != stateInitialized {
		return nil, ErrNotInitialized
	}
	client := s.ClientInfo()
	if client == nil || !has(&client.Capabilities) {
		return nil, &CapabilityError{Capability: capability}
	}
	return &mcp.ClientAPI{Caller: s.conn}, nil
}

// Elicit asks the user, through the client, for input.
func Elicit(ctx context.Context, params *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	api, err := clientAPI(ctx, "elicitation", func(c *mcp.ClientCapabilities) bool { return c.Elicitation != nil })
	if err != nil {
		return nil, err
	}
	return api.Elicit(ctx, params)
}

// CreateMessage asks the client to sample its language model.
func CreateMessage(ctx context.Context, params *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	api, err := clientAPI(ctx, "sampling", func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil })
	if err != nil {
		return nil, err
	}
	return api.CreateMessage(ctx, params)
}

// ListRoots asks the client for its roots.
func ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	api, err := clientAPI(ctx, "roots", func(c *mcp.ClientCapabilities) bool { return c.Roots != nil })
	if err != nil {
		return nil, err
	}
	return api.ListRoots(ctx, nil)
}
