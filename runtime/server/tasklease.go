package server

import (
	"context"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// A task's lease
//
// Replicas sharing one task store each run the tasks they created. A
// replica that dies (killed, out of memory, its machine gone) leaves its
// tasks' records working for ever, and a client polling one would wait
// for a result that never comes. With Options.TaskLease set, each replica
// stores its running tasks afresh at a third of the lease, and a replica
// that reads a task not ended, not its own, and not stored for a whole
// lease fails it, so the client learns it must call again.
//
// The refresh stores the task as it stands, so lastUpdatedAt reads as the
// last time its replica was known to run it. It is not told to the
// task's listeners: nothing they can see changed.

// orphanMessage is the status message of a task whose replica stopped.
const orphanMessage = "the server running the task stopped before it finished; call the tool again"

// taskLease is Options.TaskLease; zero means no lease.
func (o *Options) taskLease() time.Duration { return max(o.TaskLease, 0) }

// keepAlive stores the run afresh every third of the lease until the run
// ends. It runs on a goroutine of the Server's taskWG.
func (run *taskRun) keepAlive(lease time.Duration) {
	t := time.NewTicker(lease / 3)
	defer t.Stop()
	for {
		select {
		case <-run.done:
			return
		case <-t.C:
		}
		run.mu.Lock()
		if run.gone || run.status.Terminal() {
			run.mu.Unlock()
			return
		}
		c := tasks.Change{Status: run.status, Message: run.message, InputRequests: run.inputs}
		ctx, cancel := context.WithTimeout(context.Background(), lease/3)
		rec, err := run.srv.taskStore.Update(ctx, run.owner, run.id, run.status, c)
		cancel()
		switch {
		case err == nil:
			run.status = rec.Status
		case errors.Is(err, tasks.ErrConflict) || errors.Is(err, tasks.ErrNotFound):
			// Cancelled, deleted or expired meanwhile: the next set
			// finds out and stops the handler.
		default:
			run.srv.log.Warn("cannot refresh a running task's record", "task", run.id, "error", err)
		}
		run.mu.Unlock()
	}
}

// readTask returns owner's task id from the store, failing it first when
// its lease ran out (see above).
func (s *Server) readTask(ctx context.Context, owner, id string) (tasks.Task, error) {
	rec, err := s.taskStore.Get(ctx, owner, id)
	lease := s.opts.taskLease()
	if err != nil || lease == 0 || rec.Status.Terminal() || time.Since(rec.Updated) < lease || s.localTask(owner, id) != nil {
		return rec, err
	}
	failed, err := s.taskStore.Update(ctx, owner, id, rec.Status, tasks.Change{
		Status: tasks.StatusFailed,
		Error:  &tasks.Error{Code: jsonrpc.CodeInternalError, Message: orphanMessage},
	})
	if errors.Is(err, tasks.ErrConflict) {
		return s.taskStore.Get(ctx, owner, id) // it moved on: alive after all, or failed by another reader
	}
	if err != nil {
		return rec, nil // the next read tries again
	}
	s.log.Warn("failed a task whose server stopped", "task", id, "last_updated", rec.Updated)
	s.taskChanged(id)
	return failed, nil
}
