package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Choosing the era of a connection.
//
// With no version or era pinned, Connect probes the server with
// server/discover in the newest 2026-07-28-era version it speaks, as the
// specification asks of a client that speaks both eras, on stdio and on
// HTTP alike:
//
//   - a DiscoverResult: the server is modern; the Session uses the newest
//     version both list;
//   - a modern error (-32020, -32021, -32022): the server is modern but
//     refused the probe; with -32022 the Session uses a version of the
//     error's supported list, of either era;
//   - any other error, or no answer within ProbeTimeout: the server is of
//     the legacy era; the Session initializes on the same connection.
//
// What Connect learns is remembered per server (a transport that names its
// server, ServerKeyer), so that the next Connect to it skips the probe; a
// Connect that fails on what it remembered forgets it.

// ServerKeyer is implemented by transports that can name the server they
// reach, so that a Client remembers the era it speaks: the Streamable HTTP
// transport names its endpoint, the subprocess transport its command line.
type ServerKeyer interface {
	ServerKey() string
}

// DefaultProbeTimeout bounds the server/discover probe when
// Options.ProbeTimeout is zero. A legacy server over stdio may never
// answer a request it gets before initialize.
const DefaultProbeTimeout = 10 * time.Second

// modernErrorCodes are the error codes only a 2026-07-28-era server
// sends: a probe refused with one of them reached a modern server.
var modernErrorCodes = []int64{mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion}

// eraMemo is what a Client remembers of a server it connected to.
type eraMemo struct {
	version  mcp.ProtocolVersion
	discover *mcp.DiscoverResult // nil for a legacy server
}

// memory remembers, per server key, the era each server speaks.
type memory struct {
	mu   sync.Mutex
	byID map[string]eraMemo
}

func (m *memory) get(key string) (eraMemo, bool) {
	if key == "" {
		return eraMemo{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byID[key]
	return e, ok
}

func (m *memory) put(key string, e eraMemo) {
	if key == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID == nil {
		m.byID = map[string]eraMemo{}
	}
	m.byID[key] = e
}

func (m *memory) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byID, key)
}

func serverKey(t jsonrpc.Transport) string {
	if k, ok := t.(ServerKeyer); ok {
		return k.ServerKey()
	}
	return ""
}

// pick returns the first of ours that offered lists, or "".
func pick(ours []mcp.ProtocolVersion, offered []string) mcp.ProtocolVersion {
	for _, v := range ours {
		if slices.Contains(offered, string(v)) {
			return v
		}
	}
	return ""
}

// errLegacyServer reports a probe that found a server of the legacy era.
var errLegacyServer = errors.New("client: the server does not speak the 2026-07-28 era")

// discover sends server/discover in version v and returns the result,
// errLegacyServer when the answer shows a legacy server, or the error that
// ended the probe: a modern refusal, the transport's failure, or ctx's end.
func (s *Session) discover(ctx context.Context, v mcp.ProtocolVersion, timeout time.Duration) (*mcp.DiscoverResult, error) {
	probe, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params, err := s.requestMeta(nil, v, s.client.capsJSON)
	if err != nil {
		return nil, err
	}
	raw, err := s.conn.Call(probe, mcp.MethodDiscover, params)
	if err != nil {
		e, isRPC := errors.AsType[*jsonrpc.Error](err)
		switch {
		case isRPC && slices.Contains(modernErrorCodes, e.Code):
			return nil, err
		case isRPC:
			// The fallback must not hang on one code: legacy servers answer
			// a request before initialize with whatever they answer.
			return nil, fmt.Errorf("%w: it answered server/discover with %w", errLegacyServer, err)
		case ctx.Err() == nil && probe.Err() != nil:
			return nil, fmt.Errorf("%w: it did not answer server/discover within %v", errLegacyServer, timeout)
		}
		return nil, err
	}
	res := new(mcp.DiscoverResult)
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("%w: its server/discover result does not decode: %w", errLegacyServer, err)
	}
	if len(res.SupportedVersions) == 0 {
		// Some legacy servers answer any request they do not know with an
		// empty result: that is no discovery.
		return nil, fmt.Errorf("%w: its server/discover result lists no supported versions", errLegacyServer)
	}
	if err := res.ValidateVersion(v); err != nil {
		s.client.log.Warn("client: the server's server/discover result breaks the schema", "err", err)
	}
	return res, nil
}

// negotiate finds the era and version of a fresh Session's server and
// readies the Session for it: a modern Session needs nothing more, a
// legacy one is initialized.
func (c *Client) negotiate(ctx context.Context, s *Session, key string) error {
	o := &c.opts
	if v := o.ProtocolVersion; v != "" {
		if !v.Supported() {
			return &VersionError{Requested: v}
		}
		if v.Era() == mcp.EraLegacy {
			return s.initialize(ctx, v)
		}
		return c.connectModern(ctx, s, key, v, nil)
	}
	if memo, ok := c.eras.get(key); ok {
		if memo.discover == nil {
			return s.initialize(ctx, memo.version)
		}
		return c.connectModern(ctx, s, key, memo.version, memo.discover)
	}
	if o.Era == mcp.EraLegacy {
		return s.initialize(ctx, DefaultProtocolVersion)
	}
	err := c.connectModern(ctx, s, key, mcp.EraModern.Versions()[0], nil)
	if errors.Is(err, errLegacyServer) && o.Era != mcp.EraModern {
		c.log.Debug("client: the server is of the legacy era; initializing", "probe", err)
		if err := s.initialize(ctx, DefaultProtocolVersion); err != nil {
			return err
		}
		c.eras.put(key, eraMemo{version: s.ProtocolVersion()})
		return nil
	}
	return err
}

// connectModern readies s for a 2026-07-28-era server in version v,
// probing with server/discover unless known is what a probe found before.
func (c *Client) connectModern(ctx context.Context, s *Session, key string, v mcp.ProtocolVersion, known *mcp.DiscoverResult) error {
	res := known
	if res == nil {
		var err error
		res, err = s.discover(ctx, v, c.opts.probeTimeout())
		if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e.Code == mcp.CodeUnsupportedProtocolVersion {
			return c.retryVersion(ctx, s, key, v, e, false)
		}
		if err != nil {
			return err
		}
		if pick(mcp.EraModern.Versions(), res.SupportedVersions) == "" {
			// A server that speaks the era's wire but none of its versions
			// this package knows: the legacy ones it lists are the way in.
			if lv := pick(mcp.EraLegacy.Versions(), res.SupportedVersions); lv != "" && c.opts.ProtocolVersion == "" && c.opts.Era != mcp.EraModern {
				return s.initialize(ctx, lv)
			}
			return &VersionError{Requested: v, Offered: mcp.ProtocolVersion(firstOf(res.SupportedVersions))}
		}
		if !slices.Contains(res.SupportedVersions, string(v)) {
			v = pick(mcp.EraModern.Versions(), res.SupportedVersions)
		}
	}
	s.startModern(v, res)
	c.eras.put(key, eraMemo{version: v, discover: res})
	return nil
}

// retryVersion answers -32022 to the probe: the server is modern but does
// not speak v; it may speak another version, of either era. A server
// whose list names v itself is asked once more, as the specification has
// a client retry with a version of the list; again is that second try.
func (c *Client) retryVersion(ctx context.Context, s *Session, key string, v mcp.ProtocolVersion, e *jsonrpc.Error, again bool) error {
	var data mcp.UnsupportedProtocolVersionErrorErrorData
	if err := data.UnmarshalJSON(e.Data); err != nil {
		return fmt.Errorf("client: the server does not speak %s and says not which versions it does: %w", v, err)
	}
	pinned := c.opts.ProtocolVersion != ""
	mv := pick(mcp.EraModern.Versions(), data.Supported)
	if mv == v && !again {
		res, err := s.discover(ctx, v, c.opts.probeTimeout())
		if e2, ok := errors.AsType[*jsonrpc.Error](err); ok && e2.Code == mcp.CodeUnsupportedProtocolVersion {
			return c.retryVersion(ctx, s, key, v, e2, true)
		}
		if err != nil {
			return err
		}
		return c.connectModern(ctx, s, key, v, res)
	}
	if mv != "" && mv != v && !pinned {
		return c.connectModern(ctx, s, key, mv, nil)
	}
	if lv := pick(mcp.EraLegacy.Versions(), data.Supported); lv != "" && !pinned && c.opts.Era != mcp.EraModern {
		return s.initialize(ctx, lv)
	}
	return &VersionError{Requested: v, Offered: mcp.ProtocolVersion(firstOf(data.Supported))}
}

func firstOf(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
