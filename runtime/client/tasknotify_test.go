package client_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// countingServer is a tasks server whose tool job runs until release is
// closed; it counts the tasks/get it answers.
type countingServer struct {
	*server.Server
	release chan struct{}
	gets    atomic.Int64
}

func newCountingServer(t *testing.T) *countingServer {
	t.Helper()
	// A poll interval far longer than the test: a Wait that polled would
	// sit out a whole minute, so only notifications can end it in time.
	cs := &countingServer{Server: server.New(mcp.Implementation{Name: "tasks", Version: "1"}, &server.Options{TaskPollInterval: time.Minute}), release: make(chan struct{})}
	def := mcp.Tool{Name: "job", InputSchema: mcp.ToolInputSchema{}}
	err := cs.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		select {
		case <-cs.release:
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "released"}}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, server.WithTaskSupport(server.TaskOptional))
	if err != nil {
		t.Fatal(err)
	}
	cs.Use(func(next server.HandlerFunc) server.HandlerFunc {
		return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
			if req.Method == "tasks/get" {
				cs.gets.Add(1)
			}
			return next(ctx, req)
		}
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cs.Close(ctx)
	})
	return cs
}

// TestTaskWaitOnNotifications checks that with Options.TaskNotifications a
// Wait is told the task's end by notifications/tasks instead of polling,
// over stdio framing and over Streamable HTTP.
func TestTaskWaitOnNotifications(t *testing.T) {
	transports := []struct {
		name    string
		connect func(t *testing.T, cs *countingServer) jsonrpc.Transport
	}{
		{"stream", func(t *testing.T, cs *countingServer) jsonrpc.Transport {
			a, b := transport.NewPipe()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- cs.Serve(ctx, a) }()
			t.Cleanup(func() { cancel(); <-done })
			return b
		}},
		{"http", func(t *testing.T, cs *countingServer) jsonrpc.Transport {
			ts := httptest.NewServer(streamable.NewHandler(cs.Server, nil))
			t.Cleanup(ts.Close)
			return streamable.NewClientTransport(ts.URL, nil)
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := newCountingServer(t)
			c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{Era: mcp.EraModern, TaskNotifications: true})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sess, err := c.Connect(ctx, tr.connect(t, cs))
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "job"})
			if err != nil || task.ID() == "" {
				t.Fatalf("StartToolTask = %v, %v", task, err)
			}
			go func() {
				// Release once the Wait below listens: the server then has a
				// listener; a release before it would be seen in the state
				// sent after the acknowledgement, which is fine too.
				time.Sleep(50 * time.Millisecond)
				close(cs.release)
			}()
			res, err := task.Wait(ctx)
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if len(res.Content) != 1 {
				t.Fatalf("result %+v", res)
			}
			if n := cs.gets.Load(); n != 0 {
				t.Errorf("%d tasks/get during a Wait on notifications; want none", n)
			}
		})
	}
}
