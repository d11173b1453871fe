package echo

import (
	"io"
	"net/http"
)

// Direct is a [Doer] that serves each request with a handler in this
// process: no network, no HTTP server, no HTTP client. What a call costs
// through it is what the handler costs, which is what the in-process HTTP
// benchmarks measure. It reuses one response and one response writer, so
// that it allocates nothing itself; it serves one request at a time, and a
// response is valid until the next request.
//
// The handler runs on the caller's goroutine with the request's own
// context, as net/http would run it, except that the request carries no
// connection: no remote or local address, and a context that never ends.
type Direct struct {
	h    http.Handler
	w    directWriter
	resp http.Response
}

// NewDirect returns a Direct serving requests with h.
func NewDirect(h http.Handler) *Direct {
	return &Direct{h: h, w: directWriter{header: make(http.Header)}}
}

// Do serves req with the handler and returns its response. It never fails.
func (d *Direct) Do(req *http.Request) (*http.Response, error) {
	d.w.reset()
	d.h.ServeHTTP(&d.w, req)
	if req.Body != nil {
		req.Body.Close() // as net/http does once the handler returns
	}
	status := d.w.status
	if status == 0 {
		status = http.StatusOK
	}
	d.w.body.b, d.w.body.off = d.w.buf, 0
	d.resp = http.Response{StatusCode: status, Header: d.w.header, Body: &d.w.body, Request: req}
	return &d.resp, nil
}

// directWriter is the http.ResponseWriter of a Direct: headers, status and
// body kept for the response, its buffers kept across requests.
type directWriter struct {
	header http.Header
	status int
	buf    []byte
	body   directBody
}

func (w *directWriter) reset() {
	clear(w.header)
	w.status = 0
	w.buf = w.buf[:0]
}

func (w *directWriter) Header() http.Header { return w.header }

func (w *directWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *directWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Flush implements http.Flusher, for handlers that stream: everything is
// kept until the handler returns.
func (w *directWriter) Flush() {}

// directBody reads back what the handler wrote.
type directBody struct {
	b   []byte
	off int
}

func (b *directBody) Read(p []byte) (int, error) {
	if b.off >= len(b.b) {
		return 0, io.EOF
	}
	n := copy(p, b.b[b.off:])
	b.off += n
	return n, nil
}

func (b *directBody) Close() error { return nil }
