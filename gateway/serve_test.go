package gateway

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// serveOver serves the virtual server name of g to a client of opts over
// an in-memory pipe, as ServeStdio does over stdin and stdout; done
// yields what Serve returned.
func serveOver(t testing.TB, g *Gateway, name string, opts *client.Options) (s *client.Session, done <-chan error) {
	t.Helper()
	a, b := transport.NewPipe()
	served := make(chan error, 1)
	go func() { served <- g.Serve(context.Background(), name, a) }()
	s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, served
}

// waitServed returns what Serve returned, failing the test if it does
// not return within ten seconds.
func waitServed(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

// TestServeOneClient: a virtual server served to one client over a
// transport lists and routes as over HTTP in either era, keeps its
// session across a reload that keeps the server, and ends it when a
// reload removes the server.
func TestServeOneClient(t *testing.T) {
	a, b := upstreamYAML(t, "a", nil, ""), upstreamYAML(t, "b", nil, "")
	// No listen: serving over a transport needs no HTTP address.
	cfg := parse(t, "servers:\n"+serverYAML("default", "", a)+serverYAML("second", "", b))
	g := startConfig(t, cfg, nil)
	for name, era := range map[string]mcp.Era{"legacy": mcp.EraLegacy, "2026-07-28": mcp.EraModern} {
		t.Run(name, func(t *testing.T) {
			s, done := serveOver(t, g, "second", &client.Options{Era: era})
			if got := toolNames(t, s); !slices.Equal(got, []string{"b__echo", "b__secret_write", "b__big"}) {
				t.Fatalf("tools of the second server: %q", got)
			}
			res, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "b__echo"})
			if err != nil || firstText(res) != "b:echo" {
				t.Fatalf("call: %v, %q", err, firstText(res))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := waitServed(t, done); err != nil {
				t.Fatalf("Serve after the client closed: %v", err)
			}
		})
	}

	s, done := serveOver(t, g, "second", &client.Options{Era: mcp.EraLegacy})
	c := upstreamYAML(t, "c", nil, "")
	if err := g.Reload(parse(t, "servers:\n"+serverYAML("default", "", a)+serverYAML("second", "", b, c))); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		if got := toolNames(t, s); !slices.Contains(got, "c__echo") {
			return errors.New("the session does not list the added upstream's tools yet")
		}
		return nil
	})
	if err := g.Reload(parse(t, "servers:\n"+serverYAML("default", "", a))); err != nil {
		t.Fatal(err)
	}
	if err := waitServed(t, done); !errors.Is(err, ErrServerRemoved) {
		t.Fatalf("Serve after its server was removed: %v, want ErrServerRemoved", err)
	}
	if _, err := s.ListTools(context.Background(), nil); err == nil {
		t.Fatal("a session of a removed server still answers")
	}
}

// TestServeHasNoPrincipal: rules over the principal's claims deny the
// client of Serve, which no one authenticated, and rules that do not
// look at the caller let it in.
func TestServeHasNoPrincipal(t *testing.T) {
	rules := "    authz:\n      rules:\n        - allow: 'principal.claims.?role.orValue(\"\") == \"admin\"'\n        - allow: 'request.kind == \"tool\" && request.name == \"a__echo\"'\n"
	g := startConfig(t, parse(t, "servers:\n"+serverYAML("default", rules, upstreamYAML(t, "a", nil, ""))), nil)
	s, _ := serveOver(t, g, "default", &client.Options{Era: mcp.EraModern})
	if got := toolNames(t, s); !slices.Equal(got, []string{"a__echo"}) {
		t.Fatalf("tools the unauthenticated client sees: %q", got)
	}
	if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__secret_write"}); err == nil {
		t.Fatal("a tool only an admin may call was called")
	}
}

func TestServeErrors(t *testing.T) {
	cfg := parse(t, "servers:\n"+serverYAML("default", "", upstreamYAML(t, "a", nil, "")))
	g, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	serveErr := func(name string) error {
		a, b := transport.NewPipe()
		defer b.Close()
		err := g.Serve(context.Background(), name, a)
		// The transport is closed either way: the client's read ends.
		if _, rerr := b.Read(context.Background()); rerr == nil {
			t.Errorf("Serve(%q) left the transport open", name)
		}
		return err
	}
	if err := serveErr("default"); err == nil || !strings.Contains(err.Error(), "before Start") {
		t.Fatalf("Serve before Start: %v", err)
	}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := serveErr("nope"); err == nil || !strings.Contains(err.Error(), `no virtual server "nope"`) {
		t.Fatalf("Serve of an unknown server: %v", err)
	}

	s, done := serveOver(t, g, "default", &client.Options{Era: mcp.EraLegacy})
	if got := toolNames(t, s); len(got) != 3 {
		t.Fatalf("tools: %q", got)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := waitServed(t, done); err != nil {
		t.Fatalf("Serve after Close: %v, want nil", err)
	}
	if err := serveErr("default"); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Fatalf("Serve after Close: %v", err)
	}
}

// BenchmarkServe calls a tool of a stdio upstream through the gateway
// served over an in-memory transport, in either era: what the gateway
// costs per call, with the client's share, without an HTTP hop.
//
//	go test -run '^$' -bench BenchmarkServe -benchmem ./gateway
func BenchmarkServe(b *testing.B) {
	g := startConfig(b, parse(b, "servers:\n"+serverYAML("default", "", upstreamConfig(b, "a", nil, ""))), nil)
	for name, era := range map[string]mcp.Era{"legacy": mcp.EraLegacy, "2026-07-28": mcp.EraModern} {
		b.Run(name, func(b *testing.B) {
			s, _ := serveOver(b, g, "default", &client.Options{Era: era})
			p := &mcp.CallToolRequestParams{Name: "a__echo"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.CallTool(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
