package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// exampleServer returns a server with an echo tool, served over an
// in-memory pipe; the client gets the other end. stop ends the server.
func exampleServer(opts *server.Options, tools ...func(*server.Server)) (clientEnd jsonrpc.Transport, s *server.Server, stop func()) {
	s = server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, opts)
	err := s.AddTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(p.Arguments)}}}}, nil
	})
	if err != nil {
		panic(err)
	}
	for _, add := range tools {
		add(s)
	}
	serverEnd, clientEnd := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, serverEnd) }()
	return clientEnd, s, func() {
		cancel()
		<-done
	}
}

// exampleText returns the text of a result's first block.
func exampleText(r *mcp.CallToolResult) string {
	return r.Content[0].Value.(*mcp.TextContent).Text
}

// Connect finds the server's era by itself: a server of 2026-07-28 answers
// the server/discover probe, and every request then carries its protocol
// version and the client's capabilities in _meta, with no session.
func ExampleClient_Connect() {
	t, _, stop := exampleServer(nil)
	defer stop()

	c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	sess, err := c.Connect(context.Background(), t) // or a streamable.NewClientTransport, or CommandTransport
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"say":"hi"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(sess.ProtocolVersion(), sess.Era() == mcp.EraModern, exampleText(r))
	// Output:
	// 2026-07-28 true {"say":"hi"}
}

// The same call in a session of the legacy era: with ProtocolVersion
// pinned to 2025-11-25 (or against a server that does not answer
// server/discover), Connect opens a session with initialize. The calls
// are the same.
func ExampleClient_Connect_legacy() {
	t, _, stop := exampleServer(nil)
	defer stop()

	c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &client.Options{ProtocolVersion: mcp.Version20251125})
	sess, err := c.Connect(context.Background(), t)
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"say":"hi"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(sess.ProtocolVersion(), sess.Era() == mcp.EraLegacy, sess.InitializeResult().ServerInfo.Name, exampleText(r))
	// Output:
	// 2025-11-25 true demo {"say":"hi"}
}

// exampleAddConfirm adds a tool that asks the user to confirm before it runs.
func exampleAddConfirm(s *server.Server) {
	err := s.AddTool(mcp.Tool{Name: "wipe"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		q := &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
			Message: "Wipe the disk?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
				Properties: map[string]mcp.PrimitiveSchemaDefinition{"sure": {Value: &mcp.BooleanSchema{}}},
			},
		}}
		r, err := server.Elicit(ctx, q, server.InputKey("confirm"))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "answer: " + string(r.Action)}}}}, nil
	})
	if err != nil {
		panic(err)
	}
}

// By default a Session answers a 2026-07-28 server's InputRequiredResult
// with the Client's handlers and retries. Under ManualInput the round comes
// back to the caller as an *InputRequiredError instead, holding the
// questions (inputRequests, by key) and the requestState to send back with
// the answers.
func ExampleManualInput() {
	t, _, stop := exampleServer(nil, exampleAddConfirm)
	defer stop()
	c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &client.Options{
		Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ClientCapabilitiesElicitation{}},
	})
	sess, err := c.Connect(context.Background(), t)
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	ctx := client.ManualInput(context.Background())
	_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "wipe"})
	var ir *client.InputRequiredError
	if !errors.As(err, &ir) {
		panic(err)
	}
	for key, req := range ir.Result.InputRequests {
		e, ok := req.Value.(*mcp.ElicitRequest)
		fmt.Println(ir.Method, key, ok && e.Params.Value.(*mcp.ElicitRequestFormParams).Message == "Wipe the disk?")
	}
	fmt.Println(ir.Result.RequestState != "")
	// Output:
	// tools/call confirm true
	// true
}

// A tool that may run as a task: StartToolTask returns a handle at once,
// while the handler runs on; Wait follows the task to its result. The
// client's Options.Tasks lets calls become tasks (in 2026-07-28 it
// declares the tasks extension).
func ExampleSession_StartToolTask() {
	release := make(chan struct{})
	addExport := func(s *server.Server) {
		err := s.AddTool(mcp.Tool{Name: "export"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			<-release // the work, which takes a while
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "exported 42 rows"}}}}, nil
		}, server.WithTaskSupport(server.TaskOptional))
		if err != nil {
			panic(err)
		}
	}
	t, _, stop := exampleServer(&server.Options{TaskPollInterval: time.Millisecond}, addExport)
	defer stop()
	c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &client.Options{Tasks: true})
	sess, err := c.Connect(context.Background(), t)
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	task, err := sess.StartToolTask(context.Background(), &mcp.CallToolRequestParams{Name: "export"})
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status(), task.ID() != "")
	close(release)
	r, err := task.Wait(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status(), exampleText(r))
	// Output:
	// working true
	// completed exported 42 rows
}

// Listen keeps a 2026-07-28 subscriptions/listen open: here, to hear that
// the server's tools changed.
func ExampleSession_Listen() {
	t, s, stop := exampleServer(nil)
	defer stop()
	c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	sess, err := c.Connect(context.Background(), t)
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	sub, err := sess.Listen(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		panic(err)
	}
	defer sub.Close()
	fmt.Println("acknowledged:", sub.Acknowledged().ToolsListChanged)

	s.RemoveTool("echo")
	change, err := sub.Next(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(change.Method)
	// Output:
	// acknowledged: true
	// notifications/tools/list_changed
}
