package tasks

import (
	"context"
	"errors"
	"io"
	"log"
	"os"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgen/mcpgen/bench/servers/mcpgen/echo"
	mcpgoecho "github.com/mcpgen/mcpgen/bench/servers/mcpgo/echo"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// Server is one library's server under comparison in the legacy era.
type Server struct {
	// Name labels the server in benchmark names.
	Name string
	// Serve runs a new server, with the echo tool able to run as a task,
	// over rwc until the peer closes it, and closes rwc on return. Only
	// one Serve of a Server runs at a time.
	Serve func(ctx context.Context, rwc io.ReadWriteCloser) error
}

// Servers lists the servers that serve 2025-11-25 tasks.
var Servers = []Server{
	{"mcpgen", serveMCPGen},
	{"mcpgo", serveMCPGo},
}

// newMCPGen returns mcpgen's server with the echo tool, which runs as a
// task whenever the client can take one.
func newMCPGen() (*server.Server, error) {
	s := server.New(mcp.Implementation{Name: "mcpgen-tasks", Version: "1.0.0"}, nil)
	return s, echo.AddTool(s, server.WithTaskSupport(server.TaskOptional))
}

// serveMCPGen serves one stream with mcpgen, then closes the server, which
// ends its tasks' handlers and drops their records.
func serveMCPGen(ctx context.Context, rwc io.ReadWriteCloser) error {
	s, err := newMCPGen()
	if err != nil {
		rwc.Close()
		return err
	}
	err = s.Serve(ctx, transport.NewStream(rwc, rwc, transport.StreamOptions{}))
	return errors.Join(err, closeMCPGen(ctx, s))
}

// closeMCPGen closes s, waiting a while for its tasks' handlers to return
// even when ctx has ended.
func closeMCPGen(ctx context.Context, s *server.Server) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return s.Close(ctx)
}

// serveMCPGo serves one stream with mcp-go's stdio server. The server
// declares tasks for tool calls, as mcp-go asks before it serves tasks/*,
// and the echo tool allows a task.
//
// mcp-go keeps its stdio session in a package variable, so only one
// serveMCPGo may run in a process at a time. Its notifications go through
// that variable's channel too, where the previous server's notification
// writer, not yet gone, may take one meant for the next session and fail
// to write it to its closed pipe ("mcpgo: Error writing notification");
// BenchmarkTask's notes/task then falls short of 1 by about one per
// server replaced.
func serveMCPGo(ctx context.Context, rwc io.ReadWriteCloser) error {
	defer rwc.Close()
	stop := context.AfterFunc(ctx, func() { rwc.Close() })
	defer stop()
	s := mcpgoserver.NewMCPServer("mcpgo-tasks", "0.0.0",
		mcpgoserver.WithToolCapabilities(false),
		mcpgoserver.WithTaskCapabilities(false, false, true))
	mcpgoecho.AddTool(s, mcpgomcp.WithTaskSupport(mcpgomcp.TaskSupportOptional))
	stdio := mcpgoserver.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(os.Stderr, "mcpgo: ", 0))
	err := stdio.Listen(ctx, rwc, rwc)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
