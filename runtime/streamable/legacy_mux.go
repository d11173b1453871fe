package streamable

import (
	"context"
	"errors"
	"net/http"
)

// Mux serves one Server over both HTTP transports, for clients old and
// new: Streamable HTTP at /mcp, and the HTTP+SSE transport of 2024-11-05
// at /sse (GET, the stream) and /message (POST). Mounted under a prefix
// with http.StripPrefix, the endpoint event still names the right path.
//
// Serving other paths, or different options per transport, takes a
// Handler, a LegacyHandler and an http.ServeMux of one's own, which is
// all Mux is.
type Mux struct {
	// Streamable serves /mcp.
	Streamable *Handler
	// Legacy serves /sse and /message.
	Legacy *LegacyHandler

	mux http.ServeMux
}

// NewMux returns a Mux serving srv. Both transports take what applies
// to them from opts: AllowedHosts, Authenticate, MaxBodyBytes, Logger,
// MaxSessions and MaxSessionsPerIdentity apply to the legacy one too,
// whose sessions are counted apart from the Streamable ones. Nil opts are
// the zero HandlerOptions.
func NewMux(srv Server, opts *HandlerOptions) *Mux {
	if opts == nil {
		opts = &HandlerOptions{}
	}
	m := &Mux{
		Streamable: NewHandler(srv, opts),
		Legacy: NewLegacyHandler(srv, &LegacyOptions{
			Endpoint:     "message", // beside /sse, wherever the Mux is mounted
			AllowedHosts: opts.AllowedHosts,
			Authenticate: opts.Authenticate,
			MaxBodyBytes: opts.MaxBodyBytes,
			Logger:       opts.Logger,

			MaxSessions:            opts.MaxSessions,
			MaxSessionsPerIdentity: opts.MaxSessionsPerIdentity,
		}),
	}
	m.Legacy.optsName = "HandlerOptions"
	m.mux.Handle("/mcp", m.Streamable)
	m.mux.Handle("/sse", m.Legacy)
	m.mux.Handle("/message", m.Legacy)
	return m
}

// ServeHTTP implements http.Handler.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

// Close ends the sessions of both transports and waits for them.
func (m *Mux) Close() error {
	m.Streamable.Close()
	return m.Legacy.Close()
}

// Shutdown shuts both transports down gracefully, at once, within ctx:
// see Handler.Shutdown.
func (m *Mux) Shutdown(ctx context.Context) error {
	var legacyErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		legacyErr = m.Legacy.Shutdown(ctx)
	}()
	err := m.Streamable.Shutdown(ctx)
	<-done
	return errors.Join(err, legacyErr)
}
