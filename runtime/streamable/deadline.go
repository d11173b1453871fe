package streamable

import (
	"io"
	"net/http"
	"time"
)

// An http.Server's ReadTimeout and WriteTimeout bound a whole exchange
// (ReadTimeout from the start of the request, WriteTimeout from the end
// of its headers), which would cut the long responses of this transport:
// an SSE stream, or a tools/call that takes minutes. Worse, a ReadTimeout
// that expires after the body was read cancels the request's context, so
// the stream ends although nothing was wrong. So the handlers of this
// package take the server's timeouts per step instead: ReadTimeout bounds
// reading the request, body included, and is lifted once the body is
// read; WriteTimeout bounds each write, renewed before it, so that a
// client that stops reading is cut off while one that reads a long stream
// is not. A request served outside an http.Server, or by one without
// these timeouts, is left as it is.

// withDeadlines returns w and r adapted to the timeouts of the
// http.Server serving r, as described above.
func withDeadlines(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || srv.ReadTimeout <= 0 && srv.WriteTimeout <= 0 {
		return w, r
	}
	rc := http.NewResponseController(w)
	if srv.ReadTimeout > 0 {
		if r.Body == nil || r.Body == http.NoBody {
			rc.SetReadDeadline(time.Time{})
		} else {
			r2 := *r // a shallow copy, as handlers must not modify r
			r2.Body = &liftingBody{ReadCloser: r.Body, rc: rc}
			r = &r2
		}
	}
	if srv.WriteTimeout > 0 {
		w = &renewingWriter{ResponseWriter: w, rc: rc, timeout: srv.WriteTimeout}
	}
	return w, r
}

// liftingBody is a request body that lifts the connection's read
// deadline once it has been read to its end. A body that fails to be read
// in time keeps the deadline, and its connection is closed.
type liftingBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (b *liftingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// renewingWriter is a ResponseWriter that gives each write and flush
// timeout to complete.
type renewingWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *renewingWriter) renew() { w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *renewingWriter) Write(p []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(p)
}

// FlushError is what http.ResponseController.Flush calls.
func (w *renewingWriter) FlushError() error {
	w.renew()
	return w.rc.Flush()
}

// Flush implements http.Flusher.
func (w *renewingWriter) Flush() { w.FlushError() }

// Unwrap gives http.ResponseController the ResponseWriter underneath.
func (w *renewingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
