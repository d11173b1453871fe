package streamable

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcpclient "github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// dialAndCall dials url, connects, calls echo and returns the transport
// the probe chose.
func dialAndCall(t *testing.T, url string) jsonrpc.Transport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := DialClientTransport(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := mcpclient.New(mcp.Implementation{Name: "dial-test", Version: "1"}, &mcpclient.Options{ProtocolVersion: mcp.Version20250326}).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"probe"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, res); got != "probe" {
		t.Errorf("echo answered %q", got)
	}
	return tr.(*probe).t
}

// countGETs wraps h, counting the GET requests it serves.
func countGETs(h http.Handler, n *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			n.Add(1)
		}
		h.ServeHTTP(w, r)
	})
}

func TestDialFallsBackToLegacy(t *testing.T) {
	_, ts := serveLegacy(t, nil)
	if _, ok := dialAndCall(t, ts.URL+"/sse").(*legacyClient); !ok {
		t.Error("the probe did not choose HTTP+SSE for a legacy-only server")
	}
}

func TestDialKeepsStreamable(t *testing.T) {
	h := NewHandler(newMCP(t), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	if _, ok := dialAndCall(t, ts.URL).(*legacyClient); ok {
		t.Error("the probe chose HTTP+SSE for a Streamable HTTP server")
	}
}

func TestDialMux(t *testing.T) {
	m := NewMux(newMCP(t), nil)
	ts := httptest.NewServer(m)
	t.Cleanup(func() {
		m.Close()
		ts.Close()
	})
	if _, ok := dialAndCall(t, ts.URL+"/mcp").(*legacyClient); ok {
		t.Error("/mcp: the probe chose HTTP+SSE")
	}
	if _, ok := dialAndCall(t, ts.URL+"/sse").(*legacyClient); !ok {
		t.Error("/sse: the probe did not choose HTTP+SSE")
	}
}

func TestDialDoesNotFallBackOnAuthFailure(t *testing.T) {
	var gets atomic.Int32
	h := NewHandler(newMCP(t), &HandlerOptions{Authenticate: func(*http.Request) (any, error) {
		return nil, errors.New("no token")
	}})
	ts := httptest.NewServer(countGETs(h, &gets))
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := DialClientTransport(ctx, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mcpclient.New(mcp.Implementation{Name: "dial-test", Version: "1"}, nil).Connect(ctx, tr)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Connect: %v, want the server's 401", err)
	}
	if gets.Load() != 0 {
		t.Errorf("%d GETs: the probe fell back on 401", gets.Load())
	}
}

func TestDialNeitherTransport(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := DialClientTransport(ctx, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	err = tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err == nil || !strings.Contains(err.Error(), "neither transport") {
		t.Errorf("Write: %v, want an error naming both attempts", err)
	}
	if _, err := tr.Read(ctx); err == nil {
		t.Error("Read succeeded after a failed probe")
	}
}

func TestDialBadURL(t *testing.T) {
	for _, u := range []string{"ftp://example.com/mcp", "://nope"} {
		if _, err := DialClientTransport(context.Background(), u, nil); err == nil {
			t.Errorf("DialClientTransport(%q) succeeded", u)
		}
	}
}

func TestDialCloseBeforeWrite(t *testing.T) {
	tr, err := DialClientTransport(context.Background(), "http://127.0.0.1:1/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if err := tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Write after Close: %v, want jsonrpc.ErrClosed", err)
	}
	if _, err := tr.Read(context.Background()); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Read after Close: %v, want jsonrpc.ErrClosed", err)
	}
}

// TestDialFallsBackForClientOfBothEras dials an HTTP+SSE server with a
// client of both eras, whose first request is a 2026-07-28 one: its
// refusal, a JSON-RPC error in a 400, must still send the probe to
// HTTP+SSE.
func TestDialFallsBackForClientOfBothEras(t *testing.T) {
	_, ts := serveLegacy(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := DialClientTransport(ctx, ts.URL+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := mcpclient.New(mcp.Implementation{Name: "dial-test", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, ok := tr.(*probe).t.(*legacyClient); !ok {
		t.Error("the probe did not choose HTTP+SSE for a legacy-only server")
	}
}
