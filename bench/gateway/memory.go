package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// sessionMemory returns the heap a server in this process holds per
// downstream client at url: for legacy, n sessions opened and left open;
// for modern, n clients that each made one call and went away, which a
// stateless server should hold nothing for. The sessions are closed
// before it returns. The heap counted includes the session ids this
// function keeps, about 48 bytes a session.
func sessionMemory(ctx context.Context, hc *http.Client, url string, e era, n int) (float64, error) {
	sids := make([]string, 0, n)
	defer func() {
		for _, sid := range sids {
			_ = closeSession(context.Background(), hc, url, sid)
		}
	}()
	// One call first, so that what every client shares (a connection,
	// the server's pools) is in place before the baseline.
	if c, err := newHTTPCaller(ctx, hc, url, e, toolEcho); err != nil {
		return 0, err
	} else if err := c.call(ctx); err != nil {
		return 0, err
	} else if c.sid != "" {
		sids = append(sids, c.sid)
	}
	base := heapInUse()
	for range n {
		switch e {
		case legacy:
			sid, err := openSession(ctx, hc, url)
			if err != nil {
				return 0, err
			}
			sids = append(sids, sid)
		case modern:
			c, err := newHTTPCaller(ctx, hc, url, e, toolEcho)
			if err != nil {
				return 0, err
			}
			if err := c.call(ctx); err != nil {
				return 0, err
			}
		}
	}
	grown := int64(heapInUse()) - int64(base)
	return float64(grown) / float64(n), nil
}

// directServer serves the upstream's handler in this process, for
// sessionMemory to compare the gateway with: the same server the
// gateway forwards to, with nothing in front.
type directServer struct {
	url    string
	stop   context.CancelFunc
	served chan error
}

func startDirectServer() (*directServer, error) {
	h, err := upstreamHandler()
	if err != nil {
		return nil, err
	}
	ln, err := streamable.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	d := &directServer{url: "http://" + ln.Addr().String() + "/mcp", stop: stop, served: make(chan error, 1)}
	go func() { d.served <- streamable.Serve(ctx, ln, h, nil) }()
	return d, nil
}

func (d *directServer) close() error {
	d.stop()
	if err := <-d.served; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
