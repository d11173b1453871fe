package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// Task status notifications (2026-07-28, the tasks extension): a client
// that declares the extension names task ids in the filter of
// subscriptions/listen (notifications.taskIds), and the stream then
// carries a notifications/tasks for each change of those tasks' status,
// each the task's DetailedTask as tasks/get would return it at that
// moment. The server agrees to the ids of the requestor's own tasks
// (another requestor's id is left out of the acknowledgement, as an
// unknown one), and sends each task's current state right after the
// acknowledgement, so a client that starts listening after a change
// misses nothing. Changes collapse like the listener's other
// notifications: a task that changes twice before its notification goes
// out is sent once, as it is then.
//
// Only the changes this process makes are seen, unless the replicas share
// a bus (JoinBus): then a change another replica makes to a task in the
// shared store is announced on the bus by the task's id, and this process
// reads the task from the store before it notifies.

// MaxListenTasks bounds the task ids one subscriptions/listen may name.
const MaxListenTasks = 1000

// listenTasks reads notifications.taskIds of a subscriptions/listen and
// returns the ids the server agrees to report, sorted, and whether the
// client asked for any: nil, false when the filter names no taskIds.
func (s *Server) listenTasks(ctx context.Context, r *request, f mcp.SubscriptionFilter) ([]string, bool, error) {
	raw, ok := f.Extra["taskIds"]
	if !ok {
		return nil, false, nil
	}
	if !declaresTasks(r.capabilities()) {
		return nil, true, missingTasksExtension("subscriptions/listen of notifications.taskIds")
	}
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, true, jsonrpc.ErrInvalidParams("invalid params: notifications.taskIds: an array of task ids: " + err.Error())
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) > MaxListenTasks {
		return nil, true, jsonrpc.ErrInvalidParams("invalid params: notifications.taskIds: " + strconv.Itoa(len(ids)) + " task ids; one subscription may name at most " + strconv.Itoa(MaxListenTasks))
	}
	owner := taskOwner(r)
	agreed := ids[:0]
	for _, id := range ids {
		_, err := s.taskStore.Get(ctx, owner, id)
		switch {
		case err == nil:
			agreed = append(agreed, id)
		case !errors.Is(err, tasks.ErrNotFound):
			return nil, true, s.storeError("get", id, err)
		}
	}
	return agreed, true, nil
}

// withTaskIDs returns the acknowledged filter f with the task ids the
// server agreed to report.
func withTaskIDs(f mcp.SubscriptionFilter, ids []string) (mcp.SubscriptionFilter, error) {
	raw, err := (&mcptasks.TaskSubscriptionAcknowledgedNotifications{TaskIds: append([]string{}, ids...)}).MarshalJSON()
	if err != nil {
		return f, err
	}
	var m struct {
		TaskIDs json.RawMessage `json:"taskIds"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return f, err
	}
	if m.TaskIDs == nil {
		m.TaskIDs = json.RawMessage(`[]`)
	}
	f.Extra = map[string]json.RawMessage{"taskIds": m.TaskIDs}
	return f, nil
}

// taskChanged tells the open subscriptions that name task id that its
// status changed, here and, on a bus, in the other replicas.
func (s *Server) taskChanged(id string) {
	s.tellTaskChanged(id)
	s.broadcast(change{Kind: changeTask, Task: id})
}

// tellTaskChanged tells this process's open subscriptions that name task
// id that its status changed.
func (s *Server) tellTaskChanged(id string) {
	s.eachListener(func(l *listener) { l.taskChanged(id) })
}

// taskChanged records a change of task id, when the listener reports it.
func (l *listener) taskChanged(id string) {
	if _, ok := slices.BinarySearch(l.tasks, id); !ok {
		return
	}
	l.mu.Lock()
	if l.changedTasks == nil {
		l.changedTasks = map[string]bool{}
	}
	l.changedTasks[id] = true
	l.mu.Unlock()
	l.signal()
}

// sendTaskStatus sends the notifications/tasks of a task whose status
// changed, as its record is now. A task that has expired since is not
// reported, nor one the store cannot read now (the failure is logged; the
// client's polls still see the task): only a failure to send ends the
// subscription.
func (s *Server) sendTaskStatus(ctx context.Context, r *request, l *listener, id string, meta []byte) error {
	rec, err := s.taskStore.Get(ctx, l.taskOwner, id)
	if err != nil {
		if !errors.Is(err, tasks.ErrNotFound) {
			s.log.Error("the task store failed", "op", "get", "task", id, "error", err)
		}
		return nil
	}
	raw, err := detailedJSON(rec, jsonMember{"_meta", meta})
	if err != nil {
		s.log.Error("a task status notification does not encode", "task", id, "error", err)
		return nil
	}
	return r.notify(ctx, mcptasks.MethodTaskStatusNotification, raw)
}
