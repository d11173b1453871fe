package main

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// everything is the conformance server: the engine with all of the
// suite's tools, resources and prompts registered.
type everything struct {
	srv *server.Server
	sh  *shared // the state in Redis with -redis; nil in memory
	// watched counts the changes of test://watched-resource.
	watched atomic.Int64

	dynMu   sync.Mutex
	dynamic map[string]bool // the dynamic entries listed now (tools_changes.go)
}

// newEverything registers the tools, resources and prompts, which the
// annotated functions in tools*.go, prompts.go and resources.go declare
// and mcpgen_gen.go adds, and the completion handler, which no directive
// can declare. Its tasks are kept in memory.
func newEverything(log *slog.Logger) (*everything, error) {
	return newEverythingShared(log, nil)
}

// taskLease is the tasks' lease with -redis (see server.Options.TaskLease).
const taskLease = 15 * time.Second

// newEverythingShared is newEverything with the tasks and the rate
// limits' buckets kept in Redis when sh is not nil (-redis).
func newEverythingShared(log *slog.Logger, sh *shared) (*everything, error) {
	// Tasks suggest polling every 100ms: the suite and the tests wait on
	// short tasks, and the default second would slow them down.
	opts := &server.Options{Logger: log, TaskPollInterval: 100 * time.Millisecond}
	if sh != nil {
		opts.TaskStore = sh.tasks
		opts.RateLimitStore = sh.rates
		// A replica that dies leaves its tasks to be failed by the
		// others within this, instead of working until they expire.
		opts.TaskLease = taskLease
	}
	e := &everything{
		sh:      sh,
		dynamic: map[string]bool{},
		srv:     server.New(mcp.Implementation{Name: "mcpgen-everything", Version: "1.0.0"}, opts),
	}
	if err := Register(e.srv); err != nil {
		return nil, err
	}
	if err := RegisterEverything(e.srv, e); err != nil {
		return nil, err
	}
	e.srv.SetCompletion(complete)
	return e, nil
}

// watchLoop changes test://watched-resource every interval, telling the
// subscribed clients, until ctx ends.
func (e *everything) watchLoop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			e.touchWatched(ctx)
		}
	}
}

// touchWatched records a change of test://watched-resource and notifies
// its subscribers.
func (e *everything) touchWatched(ctx context.Context) {
	e.watched.Add(1)
	e.srv.ResourceUpdated(ctx, watchedURI)
}

// pause waits for d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// text is a content block of text.
func text(s string) mcp.ContentBlock { return mcp.ContentBlock{Value: &mcp.TextContent{Text: s}} }
