package auth

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// MetadataHandler serves the Protected Resource Metadata document (RFC
// 9728) to GET and HEAD, to anyone: it is how a client that was refused
// learns where to get a token. Mount serves it at MetadataURL's path.
func (m *Middleware) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*") // a public document browser-based clients must read
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("Content-Length", strconv.Itoa(len(m.document)))
		if r.Method == http.MethodGet {
			w.Write(m.document)
		}
	})
}

// Mount serves, on mux, the MCP endpoint h guarded by the Middleware at
// path (empty means the path of the resource URI, "/" when it has none),
// and the Protected Resource Metadata at the path of MetadataURL. The
// patterns are method-less paths, so every method reaches them.
//
// Streamable HTTP sessions are bound to the Principal only when h was
// made with HandlerOptions.Authenticate set to Authenticate (and a legacy
// HTTP+SSE handler with LegacyOptions.Authenticate): without it,
// 2026-07-28 requests still carry the principal, but sessions belong to
// no one.
func (m *Middleware) Mount(mux *http.ServeMux, path string, h http.Handler) error {
	if h == nil {
		return errors.New("auth: Mount: no handler")
	}
	if path == "" {
		u, err := url.Parse(m.opts.Resource)
		if err != nil {
			return err
		}
		if path = u.EscapedPath(); path == "" {
			path = "/"
		}
	}
	mu, err := url.Parse(m.metadataURL)
	if err != nil {
		return err
	}
	if err := handle(mux, mu.EscapedPath(), m.MetadataHandler()); err != nil {
		return err
	}
	return handle(mux, path, m.Wrap(h))
}

// handle registers a handler, turning the panic of a conflicting or
// malformed pattern into an error.
func handle(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errors.New("auth: Mount: " + pattern + ": " + panicText(v))
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

func panicText(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "invalid pattern"
}
