package streamable

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// ListenAndServe serves h on addr until ctx ends, then shuts down
// gracefully: it stops accepting connections, closes h if it is an
// io.Closer (a *Handler ends its sessions, and so their streams), and
// waits up to ten seconds for requests in progress. An addr without a
// host, such as ":3000", binds 127.0.0.1 only: a local server is not
// exposed to the network unless asked to be. It returns nil after ctx
// ended, and the error otherwise.
func ListenAndServe(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", listenAddr(addr))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		if c, ok := h.(io.Closer); ok {
			c.Close()
		}
	}()
	err = srv.Shutdown(sctx)
	<-closed
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// listenAddr puts 127.0.0.1 in an address without a host.
func listenAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}
