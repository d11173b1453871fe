package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"

	"github.com/mcpgen/mcpgen/gateway"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The transports an upstream is reached over.
const (
	overStdio = "stdio"
	overHTTP  = "http"
)

var transports = []string{overStdio, overHTTP}

// The ways to the upstream a row compares. viaProxy, over HTTP only, is
// a reverse proxy in the gateway's place copying bytes (startProxy): the
// least an HTTP intermediary costs on this machine.
//
// viaRelay, for 2026-07-28 rows over either transport, is a bare HTTP
// handler in the gateway's place handing each request to an mcpgen
// client session of the upstream (startRelay): what an intermediary
// built on mcpgen's client costs before it does anything of its own, so
// that what the gateway costs beyond it is its engine and governance.
//
// viaGatewayStdio, over stdio only, is the gateway served over stdio
// (mcpgen-gateway serve --stdio) as a process of its own, which the
// callers share one client session of, as they share the direct one: a
// client that starts its servers as processes, with the gateway in their
// place.
//
// viaPipe, over stdio only, is the yardstick of viaGatewayStdio: a
// process in the gateway's place that starts the upstream process and
// copies bytes both ways (servePipe), the least a process between a
// client and its stdio server costs.
const (
	viaDirect       = "direct"
	viaGateway      = "gateway"
	viaProxy        = "proxy"
	viaRelay        = "relay"
	viaGatewayStdio = "gateway-stdio"
	viaPipe         = "pipe"
)

// ways returns the ways a row of transport and era is measured: the
// relay serves 2026-07-28 requests only, which need no session.
func ways(transport string, e era) []string {
	switch {
	case transport == overHTTP && e == modern:
		return []string{viaDirect, viaGateway, viaProxy, viaRelay}
	case transport == overHTTP:
		return []string{viaDirect, viaGateway, viaProxy}
	case e == modern:
		return []string{viaDirect, viaGateway, viaRelay, viaGatewayStdio, viaPipe}
	}
	return []string{viaDirect, viaGateway, viaGatewayStdio, viaPipe}
}

// rig is one upstream transport's setup: the gateway, in this process,
// serving Streamable HTTP in front of an upstream process with an empty
// prefix, and the way to reach the same kind of upstream directly. Over
// HTTP, direct calls go to the very process the gateway forwards to; over
// stdio, to a second process of the same program, through an mcpgen
// client session per era, since a stdio server has one client.
type rig struct {
	transport string
	hc        *http.Client

	gw     *gateway.Gateway
	gwURL  string
	stop   context.CancelFunc
	served chan error

	proxy    *http.Server // the reverse proxy, over HTTP
	proxyTr  *http.Transport
	proxyURL string

	relay    *http.Server
	relayURL string
	// relayHTTP is the relay's client session over HTTP; over stdio it
	// is the direct 2026-07-28 session of procs.
	relayHTTP *client.Session

	up *httpUpstream // over HTTP
	// procs are the client sessions with processes of this program over
	// stdio, by the way they serve and era, opened on first use: the
	// direct upstream, the gateway served over stdio (whose configuration
	// is gwYAML) and the pipe, each in front of its own upstream process.
	procs  map[procKey]*client.Session
	gwYAML string
}

// procKey names a session of rig.procs.
type procKey struct {
	via string
	era era
}

// newRig starts the upstream and the gateway of transport.
func newRig(ctx context.Context, transport string) (r *rig, err error) {
	r = &rig{transport: transport, hc: newHTTPClient(64), procs: map[procKey]*client.Session{}}
	defer func() {
		if err != nil {
			_ = r.close()
		}
	}()
	var upstreamYAML string
	switch transport {
	case overHTTP:
		if r.up, err = startHTTPUpstream(); err != nil {
			return nil, err
		}
		if err := r.startProxy(); err != nil {
			return nil, err
		}
		if r.relayHTTP, err = connect(ctx, streamable.NewClientTransport(r.up.url, nil), modern); err != nil {
			return nil, err
		}
		if err := r.startRelay(r.relayHTTP); err != nil {
			return nil, err
		}
		upstreamYAML = fmt.Sprintf("        url: %q\n", r.up.url)
	case overStdio:
		argv, env, err := upstreamCommand("stdio")
		if err != nil {
			return nil, err
		}
		upstreamYAML = fmt.Sprintf("        command: [%q]\n        env: {%s: %s}\n", argv[0], upstreamEnv, env[len(upstreamEnv)+1:])
		s, err := r.procSession(ctx, viaDirect, modern)
		if err != nil {
			return nil, err
		}
		if err := r.startRelay(s); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown transport %q", transport)
	}
	yaml := "listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n      - name: up\n        prefix: \"\"\n" + upstreamYAML
	r.gwYAML = yaml
	cfg, err := gateway.ParseConfig("bench-gateway.yaml", []byte(yaml))
	if err != nil {
		return nil, err
	}
	if r.gw, err = gateway.New(cfg, nil); err != nil {
		return nil, err
	}
	if err := r.gw.Start(ctx); err != nil {
		r.gw = nil
		return nil, err
	}
	ln, err := streamable.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r.gwURL = "http://" + ln.Addr().String() + "/mcp"
	var sctx context.Context
	sctx, r.stop = context.WithCancel(context.Background())
	r.served = make(chan error, 1)
	h := r.gw.Handler()
	go func() { r.served <- streamable.Serve(sctx, ln, h, nil) }()
	return r, nil
}

// startProxy serves the reverse proxy to the HTTP upstream on loopback:
// each request goes out as it came on a pooled connection, and the
// response comes back as it is read, flushed at every read so that event
// streams pass at once.
func (r *rig) startProxy() error {
	target, err := url.Parse(r.up.url)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	r.proxyTr = &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	r.proxy = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, in *http.Request) {
		out := in.Clone(in.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = target.Scheme, target.Host, "", ""
		resp, err := r.proxyTr.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		maps.Copy(w.Header(), resp.Header)
		rc := http.NewResponseController(w)
		// The request's body is still being sent upstream when the first
		// event of a stream comes back and is flushed to the client.
		_ = rc.EnableFullDuplex()
		w.WriteHeader(resp.StatusCode)
		bp := copyBufs.Get().(*[]byte)
		defer copyBufs.Put(bp)
		buf := *bp
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				_ = rc.Flush()
			}
			if err != nil {
				return
			}
		}
	})}
	r.proxyURL = "http://" + ln.Addr().String() + target.Path
	go func() { _ = r.proxy.Serve(ln) }()
	return nil
}

// copyBufs are the reverse proxy's copy buffers, reused so that the hop
// allocates no more than it must.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// startRelay serves the relay to the 2026-07-28 client session s on
// loopback: each POST is one request, whose params go to the upstream as
// they came (Session.Forward) and whose raw result comes back as the
// response, as JSON.
func (r *rig) startRelay(s *client.Session) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	r.relay = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, in *http.Request) {
		body, err := io.ReadAll(in.Body)
		if err != nil {
			return
		}
		m, err := jsonrpc.DecodeMessage(body)
		if err != nil || m.Kind() != jsonrpc.MessageRequest {
			http.Error(w, "one JSON-RPC request, please", http.StatusBadRequest)
			return
		}
		var out []byte
		if res, err := s.Forward(in.Context(), m.Method, m.Params); err != nil {
			e, ok := errors.AsType[*jsonrpc.Error](err)
			if !ok {
				e = jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())
			}
			out = jsonrpc.AppendError(nil, m.ID, e)
		} else {
			out = jsonrpc.AppendResult(nil, m.ID, res)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})}
	r.relayURL = "http://" + ln.Addr().String() + "/mcp"
	go func() { _ = r.relay.Serve(ln) }()
	return nil
}

// connect opens a client session of era over t, closing t if it fails.
func connect(ctx context.Context, t jsonrpc.Transport, e era) (*client.Session, error) {
	opts := &client.Options{ProtocolVersion: mcp.ProtocolVersion(e)}
	s, err := client.New(mcp.Implementation{Name: "bench-gateway", Version: "1"}, opts).Connect(ctx, t)
	if err != nil {
		_ = t.Close()
		return nil, err
	}
	return s, nil
}

// url is where HTTP callers of via go; "" for a direct stdio upstream.
func (r *rig) url(via string) string {
	switch {
	case via == viaGateway:
		return r.gwURL
	case via == viaProxy:
		return r.proxyURL
	case via == viaRelay:
		return r.relayURL
	case r.transport == overHTTP:
		return r.up.url
	}
	return ""
}

// callers returns n callers of tool in era through via; close ends the
// sessions they opened.
func (r *rig) callers(ctx context.Context, via string, e era, tool string, n int) (cs []caller, close func(), err error) {
	url := r.url(via)
	var sids []string
	close = func() {
		for _, sid := range sids {
			_ = closeSession(context.Background(), r.hc, url, sid)
		}
	}
	if url == "" {
		s, err := r.procSession(ctx, via, e)
		if err != nil {
			return nil, nil, err
		}
		for range n {
			cs = append(cs, newSessionCaller(s, tool))
		}
		return cs, func() {}, nil
	}
	for range n {
		c, err := newHTTPCaller(ctx, r.hc, url, e, tool)
		if err != nil {
			close()
			return nil, nil, err
		}
		if c.sid != "" {
			sids = append(sids, c.sid)
		}
		cs = append(cs, c)
	}
	return cs, close, nil
}

// procSession returns the session of era with the process that via
// calls over stdio, started on first use.
func (r *rig) procSession(ctx context.Context, via string, e era) (*client.Session, error) {
	k := procKey{via, e}
	if s := r.procs[k]; s != nil {
		return s, nil
	}
	var s *client.Session
	var err error
	switch via {
	case viaDirect:
		s, err = connectProcess(ctx, "stdio", e)
	case viaGatewayStdio:
		s, err = connectProcess(ctx, "gateway", e, gatewayConfigEnv+"="+r.gwYAML)
	case viaPipe:
		s, err = connectProcess(ctx, "pipe", e)
	default:
		err = errors.New("not a process")
	}
	if err != nil {
		return nil, fmt.Errorf("%s over stdio, %s: %w", via, e, err)
	}
	r.procs[k] = s
	return s, nil
}

// connectProcess starts this program as a stdio server of mode (see
// upstreamEnv), with more environment, and opens a client session of era
// to it.
func connectProcess(ctx context.Context, mode string, e era, env ...string) (*client.Session, error) {
	argv, modeEnv, err := upstreamCommand(mode)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), modeEnv), env...)
	t, err := client.CommandTransport(cmd, nil)
	if err != nil {
		return nil, err
	}
	return connect(ctx, t, e)
}

// close stops everything the rig started.
func (r *rig) close() error {
	var errs []error
	for _, s := range r.procs {
		errs = append(errs, s.Close())
	}
	if r.stop != nil {
		r.stop()
		if err := <-r.served; !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
	}
	if r.gw != nil {
		errs = append(errs, r.gw.Close())
	}
	if r.proxy != nil {
		errs = append(errs, r.proxy.Close())
	}
	if r.proxyTr != nil {
		r.proxyTr.CloseIdleConnections()
	}
	if r.relay != nil {
		errs = append(errs, r.relay.Close())
	}
	if r.relayHTTP != nil {
		errs = append(errs, r.relayHTTP.Close())
	}
	r.hc.CloseIdleConnections()
	if r.up != nil {
		errs = append(errs, r.up.close())
	}
	return errors.Join(errs...)
}
