package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The labels of the request metrics. name is a tool's or prompt's name as
// the virtual server lists it, or the prompt or template a completion is
// for: only names the gateway registered, so their number is bounded by
// what the upstreams offer. A resource read has an empty name, since a
// template's URIs are the client's to choose.
var requestLabels = []string{"server", "upstream", "kind", "method", "name"}

// latencyBuckets spans a cached or local answer (100 µs) to a slow tool
// or an approval round (a minute), in seconds.
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// metrics is the gateway's Prometheus registry: the request metrics,
// written by observe, and the state read at each scrape (upstream
// health, downstream sessions, quarantined tools).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // requestLabels + outcome
	errors   *prometheus.CounterVec   // requestLabels + error_type
	latency  *prometheus.HistogramVec // requestLabels
	inFlight *prometheus.GaugeVec     // requestLabels
	// quarantined counts the quarantined tools at scrape time; it is
	// g.quarantinedCount, a field so that tests can stand in for pinning.
	quarantined func() int
	serve       http.Handler
}

// series is one entryKey's metrics, looked up once: the common outcome,
// ok, and the latency never go through a label lookup again.
type series struct {
	labels   []string
	ok       prometheus.Counter
	latency  prometheus.Observer
	inFlight prometheus.Gauge
}

func newMetrics(g *Gateway) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpgen_gateway_requests_total",
			Help: "Requests forwarded (or refused on the way), by virtual server, upstream, kind, MCP method, registered name and outcome (ok, tool_error, rejected, canceled, timeout, error).",
		}, append(requestLabels[:len(requestLabels):len(requestLabels)], "outcome")),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpgen_gateway_request_errors_total",
			Help: "Requests that did not end ok, by error.type: a JSON-RPC error code, tool_error, timeout, canceled or _OTHER.",
		}, append(requestLabels[:len(requestLabels):len(requestLabels)], "error_type")),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpgen_gateway_request_duration_seconds",
			Help:    "Time from a request's arrival at the virtual server to its answer, governance included.",
			Buckets: latencyBuckets,
		}, requestLabels),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mcpgen_gateway_requests_in_flight",
			Help: "Requests being served.",
		}, requestLabels),
		quarantined: g.quarantinedCount,
	}
	m.reg.MustRegister(m.requests, m.errors, m.latency, m.inFlight,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpgen_gateway_quarantined_tools",
			Help: "Tools whose definition differs from the lock file, or is not in it, and are held back until approved.",
		}, func() float64 { return float64(m.quarantined()) }),
		&stateCollector{g: g},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.serve = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{g.log}})
	return m
}

func (m *metrics) handler() http.Handler { return m.serve }

func (m *metrics) series(k entryKey, method string) *series {
	labels := []string{k.server, k.upstream, string(k.kind), method, k.name}
	return &series{
		labels:   labels,
		ok:       m.requests.WithLabelValues(append(labels[:len(labels):len(labels)], "ok")...),
		latency:  m.latency.WithLabelValues(labels...),
		inFlight: m.inFlight.WithLabelValues(labels...),
	}
}

// record counts one request that ended with out after d.
func (m *metrics) record(s *series, out outcome, d time.Duration) {
	s.latency.Observe(d.Seconds())
	if out.label == "ok" {
		s.ok.Inc()
		return
	}
	m.requests.WithLabelValues(append(s.labels[:len(s.labels):len(s.labels)], out.label)...).Inc()
	m.errors.WithLabelValues(append(s.labels[:len(s.labels):len(s.labels)], out.errType)...).Inc()
}

// stateCollector reads the gateway's state at scrape time.
type stateCollector struct{ g *Gateway }

var (
	upstreamUpDesc = prometheus.NewDesc("mcpgen_gateway_upstream_up",
		"1 while the gateway holds a session with the upstream, 0 while it is disconnected or reconnecting.",
		[]string{"server", "upstream"}, nil)
	sessionsDesc = prometheus.NewDesc("mcpgen_gateway_downstream_sessions",
		"Downstream sessions open on the virtual server's endpoint (2025-era sessions; 2026-07-28 requests hold none).",
		[]string{"server"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- upstreamUpDesc
	ch <- sessionsDesc
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	for name, v := range c.g.servers() {
		for _, u := range v.upstreams() {
			up := 0.0
			if _, err := u.session(); err == nil {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(upstreamUpDesc, prometheus.GaugeValue, up, name, u.cfg.Name)
		}
		if e := c.g.endpointOf(name); e != nil {
			ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(e.sessions()), name)
		}
	}
}

// slogPrinter writes promhttp's errors (a collector that failed during a
// scrape) to the gateway's log.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Warn("metrics", "err", fmt.Sprint(v...)) }

// metricsServer serves /metrics on telemetry.metricsListen.
type metricsServer struct {
	srv  *http.Server
	addr net.Addr
	done chan struct{} // closed when Serve returns
}

func serveMetrics(addr string, h http.Handler, log *slog.Logger) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("telemetry.metricsListen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	s := &metricsServer{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		addr: ln.Addr(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "addr", addr, "err", err)
		}
	}()
	return s, nil
}

// close stops the listener, letting scrapes in progress finish until ctx
// ends, and waits for Serve to return.
func (s *metricsServer) close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.srv.Close())
	}
	<-s.done
	return err
}
