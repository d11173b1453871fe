package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// stdio serves s over a pair of pipes, as a process does over its stdin
// and stdout: the test writes the client's lines and reads the server's.
type stdio struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error // Serve's result
}

func serveStdio(t *testing.T, s *Server, ctx context.Context) *stdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdio{in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		p.done <- s.Serve(ctx, transport.NewStream(inR, outW, transport.StreamOptions{}))
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // let a blocked write finish
		<-p.done
	})
	return p
}

func (p *stdio) write(t *testing.T, lines ...string) {
	t.Helper()
	if err := p.send(lines...); err != nil {
		t.Fatal(err)
	}
}

// send writes lines from any goroutine; it fails once the server is gone.
func (p *stdio) send(lines ...string) error {
	_, err := io.WriteString(p.in, strings.Join(lines, "\n")+"\n")
	return err
}

// read returns the next message the server wrote, failing the test at
// the end of its output.
func (p *stdio) read(t *testing.T) jsonrpc.Message {
	t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("server output ended: %v", err)
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		t.Fatalf("server wrote %s: %v", line, err)
	}
	return m
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`

// A client may write its first requests right after initialize and
// close its input: they are served after initialize, and answered.
func TestPipelinedStart(t *testing.T) {
	for run := range 20 {
		s := newServer(nil)
		echoTool(t, s)
		p := serveStdio(t, s, context.Background())
		p.write(t, initLine,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
		p.in.Close()
		got := map[string]string{}
		for range 3 {
			m := p.read(t)
			if m.Error != nil {
				t.Fatalf("run %d: request %v answered %d %s", run, m.ID, m.Error.Code, m.Error.Message)
			}
			got[m.ID.String()] = string(m.Result)
		}
		if !strings.Contains(got["0"], `"protocolVersion":"2025-11-25"`) || !strings.Contains(got["1"], `"echo"`) || !strings.Contains(got["2"], `"hi"`) {
			t.Fatalf("run %d: answers %v", run, got)
		}
		if err := <-p.done; err != nil {
			t.Fatalf("Serve = %v", err)
		}
		p.done <- nil // for the cleanup
	}
}

// objectTool is the definition of a tool taking any object.
func objectTool(t *testing.T, name string) mcp.Tool {
	t.Helper()
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	return def
}

// addAsk registers a tool that asks the client for a sampling before
// it answers: a round trip from the server while it handles the call.
func addAsk(t *testing.T, s *Server) {
	t.Helper()
	err := s.AddTool(objectTool(t, "ask"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		res, err := CreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 1})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: res.Model}}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// More calls than MaxInFlight, each asking the client something, all
// complete: the client's answers are read while calls wait for room, and
// a ping meanwhile is answered.
func TestRoundTripsBeyondInFlight(t *testing.T) {
	const calls = 1000
	s := newServer(nil)
	addAsk(t, s)
	p := serveStdio(t, s, context.Background())
	p.write(t, initLine)
	if m := p.read(t); m.Error != nil {
		t.Fatal(m.Error)
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var lines []string
	for i := range calls {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{"name":"ask"}}`, i))
	}
	go p.send(append(lines, `{"jsonrpc":"2.0","id":"ping","method":"ping"}`)...)
	results, pinged := 0, false
	var answers sync.WaitGroup
	defer answers.Wait()
	for results < calls || !pinged {
		m := p.read(t)
		switch {
		case m.Kind() == jsonrpc.MessageRequest && m.Method == mcp.MethodCreateMessage:
			answers.Go(func() {
				p.send(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"!"}}}`)
			})
		case m.ID.String() == `"ping"`:
			pinged = true
		case m.Kind() == jsonrpc.MessageResponse:
			if m.Error != nil || !strings.Contains(string(m.Result), `"text":"m"`) {
				t.Fatalf("call %v answered %s %v", m.ID, m.Result, m.Error)
			}
			results++
		}
	}
}

// SIGTERM, which ends Serve's ctx, lets the calls in flight finish and
// be answered before Serve returns; a request read afterwards is refused.
func TestShutdownServesCallsInFlight(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 3)
	s := newServer(nil)
	s.AddTool(objectTool(t, "slow"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-release
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	ctx, sigterm := context.WithCancel(context.Background())
	p := serveStdio(t, s, ctx)
	p.write(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.read(t)
	for i := range 3 {
		p.write(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`, i+1))
	}
	for range 3 {
		<-started
	}
	sigterm()
	p.write(t, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if m := p.read(t); m.ID.String() != "9" || m.Error == nil || !strings.Contains(m.Error.Message, "shutting down") {
		t.Errorf("request after SIGTERM answered %v %s %v, want a shutting-down error", m.ID, m.Result, m.Error)
	}
	close(release)
	for range 3 {
		if m := p.read(t); m.Error != nil || !strings.Contains(string(m.Result), "done") {
			t.Errorf("call %v answered %s %v", m.ID, m.Result, m.Error)
		}
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
		p.done <- nil
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return once the calls were answered")
	}
}

// A subscriptions/listen request on a stream ends with its graceful
// completion as soon as the shutdown begins.
func TestShutdownEndsListen(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	ctx, sigterm := context.WithCancel(context.Background())
	p := serveStdio(t, s, ctx)
	p.write(t, `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if m := p.read(t); m.Method != mcp.MethodSubscriptionsAcknowledgedNotification {
		t.Fatalf("first message %s %s %v, want the acknowledgement", m.Method, m.Result, m.Error)
	}
	sigterm()
	m := p.read(t)
	var res mcp.SubscriptionsListenResult
	if m.ID.String() != `"l"` || m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.Meta.SubscriptionID.IsZero() {
		t.Errorf("listen ended with %v %s %v, want its graceful completion", m.ID, m.Result, m.Error)
	}
}

// A client that stops reading holds up no broadcast: registering tools
// returns, and the other clients hear of the changes.
func TestBroadcastPastStalledClient(t *testing.T) {
	s := newServer(nil)
	stalled := serveStdio(t, s, context.Background())
	reading := serveStdio(t, s, context.Background())
	for _, p := range []*stdio{stalled, reading} {
		p.write(t, initLine)
		p.read(t)
		p.write(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	// The pipe holds nothing: the stalled client's first notification
	// blocks its session's writer from now on.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			if err := s.AddTool(objectTool(t, fmt.Sprintf("t%d", i)), func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				return nil, nil
			}); err != nil {
				t.Error(err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("AddTool waited for a client that does not read")
	}
	if m := reading.read(t); m.Method != mcp.MethodToolListChangedNotification {
		t.Errorf("the reading client got %s, want the list change", m.Method)
	}
}

// A legacy handler reporting progress learns when nobody hears it: once
// the session is gone, Progress fails instead of returning nil forever.
func TestProgressFailsOnceSessionEnds(t *testing.T) {
	s := newServer(&Options{DrainTimeout: -1})
	started, ended := make(chan struct{}), make(chan error, 1)
	s.AddTool(objectTool(t, "report"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(started)
		for {
			if err := Progress(ctx, 1, 0, ""); err != nil {
				ended <- err
				return nil, err
			}
			time.Sleep(time.Millisecond)
		}
	})
	p := serveStdio(t, s, context.Background())
	go io.Copy(io.Discard, p.out)
	p.write(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report","_meta":{"progressToken":1}}}`)
	<-started
	p.in.Close()
	select {
	case err := <-ended:
		if !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Progress failed with %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Progress kept succeeding after the session ended")
	}
}
