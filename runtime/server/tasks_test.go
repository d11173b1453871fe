package server

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// tasksCaps are the capabilities of a 2026-07-28 client that takes tasks.
const tasksCaps = `{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}`

// taskView is what the tests read of a task in either era's shapes.
type taskView struct {
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	TTLMs         *int64          `json:"ttlMs"`
	TTL           *int64          `json:"ttl"`
	Result        json.RawMessage `json:"result"`
	Error         *jsonrpc.Error  `json:"error"`
	InputRequests map[string]any  `json:"inputRequests"`
	Task          *taskView       `json:"task"` // a 2025-11-25 CreateTaskResult
}

func decodeTask(t *testing.T, raw []byte) taskView {
	t.Helper()
	var v taskView
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if v.Task != nil {
		return *v.Task
	}
	return v
}

// gate is a tool handler that waits for release (or its ctx) and records
// that it returned.
type gate struct {
	release  chan struct{}
	returned chan error
}

func newGate() *gate {
	return &gate{release: make(chan struct{}), returned: make(chan error, 2000)}
}

func (g *gate) handler(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	select {
	case <-g.release:
		g.returned <- nil
		return textOf("done"), nil
	case <-ctx.Done():
		g.returned <- ctx.Err()
		return nil, ctx.Err()
	}
}

// taskServer is a Server with the tool job, which may run as a task and
// runs g's handler.
func taskServer(t *testing.T, opts *Options, g *gate) *Server {
	t.Helper()
	s := New(mcp.Implementation{Name: "tasks", Version: "1"}, opts)
	addTool(t, s, "job", g.handler, WithTaskSupport(TaskOptional))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// modernCall serves one 2026-07-28 request on ctx, without a transport.
func modernCall(t *testing.T, ctx context.Context, s *Server, method, caps, members string) ([]byte, error) {
	t.Helper()
	params := "{" + modernMeta(caps)
	if members != "" {
		params += "," + members
	}
	return s.ServeCall(ctx, &Call{ID: jsonrpc.IntID(1), Method: method, Params: []byte(params + "}")})
}

// waitStatus polls tasks/get until the task has status want.
func waitStatus(t *testing.T, get func() ([]byte, error), want string) taskView {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		raw, err := get()
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		v := decodeTask(t, raw)
		if v.Status == want {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("task status %s, want %s", v.Status, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTaskModernLifecycle(t *testing.T) {
	g := newGate()
	s := taskServer(t, nil, g)
	ctx := context.Background()
	raw, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	created := decodeTask(t, raw)
	if created.ResultType != "task" || created.TaskID == "" || created.Status != "working" || created.TTLMs == nil {
		t.Fatalf("created = %s", raw)
	}
	get := func() ([]byte, error) {
		return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+created.TaskID+`"`)
	}
	if v := waitStatus(t, get, "working"); v.Result != nil {
		t.Fatalf("a working task has a result: %s", v.Result)
	}
	close(g.release)
	done := waitStatus(t, get, "completed")
	if !strings.Contains(string(done.Result), `"text":"done"`) || !strings.Contains(string(done.Result), `"resultType":"complete"`) {
		t.Fatalf("completed result = %s", done.Result)
	}
	// Without the extension the same tool answers synchronously, and the
	// tasks methods are refused with -32021.
	raw, err = modernCall(t, ctx, s, "tools/call", "{}", `"name":"job"`)
	if err != nil || decodeTask(t, raw).ResultType != "complete" {
		t.Fatalf("call without the extension = %s, %v", raw, err)
	}
	_, err = modernCall(t, ctx, s, "tasks/get", "{}", `"taskId":"`+created.TaskID+`"`)
	if code(t, err) != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("tasks/get without the extension: %v", err)
	}
}

func TestTaskCancelStopsHandler(t *testing.T) {
	t.Run("2026-07-28", func(t *testing.T) {
		g := newGate()
		s := taskServer(t, nil, g)
		ctx := context.Background()
		raw, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`)
		if err != nil {
			t.Fatal(err)
		}
		id := decodeTask(t, raw).TaskID
		out, err := modernCall(t, ctx, s, "tasks/cancel", tasksCaps, `"taskId":"`+id+`"`)
		if err != nil || string(out) == "" || strings.Contains(string(out), "taskId") {
			t.Fatalf("cancel ack = %s, %v", out, err)
		}
		select {
		case err := <-g.returned:
			if err == nil {
				t.Fatal("the handler finished instead of being cancelled")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("tasks/cancel did not stop the handler")
		}
		get := func() ([]byte, error) { return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`) }
		waitStatus(t, get, "cancelled")
		// Idempotent: cancelling again is acknowledged and changes nothing.
		if _, err := modernCall(t, ctx, s, "tasks/cancel", tasksCaps, `"taskId":"`+id+`"`); err != nil {
			t.Fatalf("second cancel: %v", err)
		}
		waitStatus(t, get, "cancelled")
	})
	t.Run("2025-11-25", func(t *testing.T) {
		g := newGate()
		s := taskServer(t, nil, g)
		p := start(t, s)
		init := p.initialize(t, "2025-11-25", "")
		if init.Capabilities.Tasks == nil || init.Capabilities.Extensions != nil {
			t.Fatalf("legacy capabilities = %+v", init.Capabilities)
		}
		raw, err := p.call(t, "tools/call", `{"name":"job","task":{"ttl":60000}}`)
		if err != nil {
			t.Fatal(err)
		}
		created := decodeTask(t, raw)
		if created.TaskID == "" || created.TTL == nil || *created.TTL != 60000 {
			t.Fatalf("created = %s", raw)
		}
		out, err := p.call(t, "tasks/cancel", `{"taskId":"`+created.TaskID+`"}`)
		if err != nil || decodeTask(t, out).Status != "cancelled" {
			t.Fatalf("cancel = %s, %v", out, err)
		}
		select {
		case <-g.returned:
		case <-time.After(5 * time.Second):
			t.Fatal("tasks/cancel did not stop the handler")
		}
		// 2025-11-25 refuses to cancel a task that has ended.
		if _, err := p.call(t, "tasks/cancel", `{"taskId":"`+created.TaskID+`"}`); code(t, err) != jsonrpc.CodeInvalidParams {
			t.Fatalf("cancelling a cancelled task: %v", err)
		}
		if _, err := p.call(t, "tasks/result", `{"taskId":"`+created.TaskID+`"}`); err == nil {
			t.Fatal("tasks/result of a cancelled task succeeded")
		}
	})
}

// fakeClock is a clock the tests move.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestTaskResultUntilTTL(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	store := tasks.NewMemoryStore(tasks.Options{Now: clock.Now})
	g := newGate()
	close(g.release)
	s := taskServer(t, &Options{TaskStore: store, TaskTTL: time.Minute}, g)
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	raw, err := p.call(t, "tools/call", `{"name":"job","task":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	id := decodeTask(t, raw).TaskID
	// tasks/result waits for the end, then returns the tool's result.
	out, err := p.call(t, "tasks/result", `{"taskId":"`+id+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"text":"done"`) || !strings.Contains(string(out), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
		t.Fatalf("tasks/result = %s", out)
	}
	clock.advance(59 * time.Second)
	if _, err := p.call(t, "tasks/result", `{"taskId":"`+id+`"}`); err != nil {
		t.Fatalf("tasks/result within the TTL: %v", err)
	}
	clock.advance(2 * time.Second)
	if _, err := p.call(t, "tasks/get", `{"taskId":"`+id+`"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("tasks/get after the TTL: %v", err)
	}
	if _, err := p.call(t, "tasks/result", `{"taskId":"`+id+`"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("tasks/result after the TTL: %v", err)
	}
}

func TestTaskRequired(t *testing.T) {
	s := New(mcp.Implementation{Name: "tasks", Version: "1"}, nil)
	addTool(t, s, "only_task", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("ran"), nil
	}, WithTaskSupport(TaskRequired))
	addTool(t, s, "never_task", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("ran"), nil
	})
	t.Cleanup(func() { s.Close(context.Background()) })
	_, err := modernCall(t, context.Background(), s, "tools/call", "{}", `"name":"only_task"`)
	e := rpcError(t, err)
	if e.Code != mcp.CodeMissingRequiredClientCapability || !strings.Contains(string(e.Data), `"io.modelcontextprotocol/tasks":{}`) {
		t.Fatalf("required task without the extension: %v %s", e, e.Data)
	}
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	if _, err := p.call(t, "tools/call", `{"name":"only_task"}`); code(t, err) != jsonrpc.CodeMethodNotFound {
		t.Fatalf("required task without the task param: %v", err)
	}
	if _, err := p.call(t, "tools/call", `{"name":"never_task","task":{}}`); code(t, err) != jsonrpc.CodeMethodNotFound {
		t.Fatalf("task param on a tool without task support: %v", err)
	}
	list, err := p.call(t, "tools/list", "")
	if err != nil || !strings.Contains(string(list), `"execution":{"taskSupport":"required"}`) {
		t.Fatalf("tools/list = %s, %v", list, err)
	}
}

// TestTaskOwnership checks that a task is found only by its requestor: the
// session that made it, or the principal.
func TestTaskOwnership(t *testing.T) {
	g := newGate()
	s := taskServer(t, nil, g)
	a, b := start(t, s), start(t, s)
	a.initialize(t, "2025-11-25", "")
	b.initialize(t, "2025-11-25", "")
	raw, err := a.call(t, "tools/call", `{"name":"job","task":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	id := decodeTask(t, raw).TaskID
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if _, err := b.call(t, m, `{"taskId":"`+id+`"}`); code(t, err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s of another session's task: %v", m, err)
		}
	}
	if _, err := modernCall(t, context.Background(), s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Errorf("an anonymous 2026-07-28 tasks/get of a session's task: %v", err)
	}
	list, err := b.call(t, "tasks/list", "")
	if err != nil || strings.Contains(string(list), id) {
		t.Errorf("another session's tasks/list = %s, %v", list, err)
	}
	if list, err = a.call(t, "tasks/list", ""); err != nil || !strings.Contains(string(list), id) {
		t.Errorf("the session's own tasks/list = %s, %v", list, err)
	}

	alice, bob := WithPrincipal(context.Background(), "alice"), WithPrincipal(context.Background(), "bob")
	raw, err = modernCall(t, alice, s, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	id = decodeTask(t, raw).TaskID
	if _, err := modernCall(t, bob, s, "tasks/cancel", tasksCaps, `"taskId":"`+id+`"`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Errorf("bob cancelling alice's task: %v", err)
	}
	if _, err := modernCall(t, alice, s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`); err != nil {
		t.Errorf("alice reading her task: %v", err)
	}
	close(g.release)
}

// TestTaskInput checks that a running 2026-07-28 task that asks for input
// waits in input_required until tasks/update answers, and that a legacy
// one asks its session's client directly.
func TestTaskInput(t *testing.T) {
	s := New(mcp.Implementation{Name: "tasks", Version: "1"}, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	addTool(t, s, "ask", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := Elicit(ctx, nameQuestion("Name?"), InputKey("who"))
		if err != nil {
			return nil, err
		}
		return textOf("Hello, " + nameOf(r)), nil
	}, WithTaskSupport(TaskOptional))
	ctx := context.Background()
	raw, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"ask"`)
	if err != nil {
		t.Fatal(err)
	}
	id := decodeTask(t, raw).TaskID
	get := func() ([]byte, error) { return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`) }
	v := waitStatus(t, get, "input_required")
	if _, ok := v.InputRequests["who"]; !ok || len(v.InputRequests) != 1 {
		t.Fatalf("inputRequests = %v", v.InputRequests)
	}
	// An answer to a key nobody asked is ignored; the task still waits.
	if _, err := modernCall(t, ctx, s, "tasks/update", tasksCaps, `"taskId":"`+id+`","inputResponses":{"other":{"x":1}}`); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, get, "input_required")
	if _, err := modernCall(t, ctx, s, "tasks/update", tasksCaps, `"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}}`); err != nil {
		t.Fatal(err)
	}
	if v := waitStatus(t, get, "completed"); !strings.Contains(string(v.Result), "Hello, Ada") {
		t.Fatalf("result = %s", v.Result)
	}

	p := start(t, s)
	p.requests = func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.Method != mcp.MethodElicit {
			return nil, jsonrpc.ErrMethodNotFound(req.Method)
		}
		return []byte(`{"action":"accept","content":{"name":"Grace"}}`), nil
	}
	p.initialize(t, "2025-11-25", `{"elicitation":{}}`)
	raw, err = p.call(t, "tools/call", `{"name":"ask","task":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	id = decodeTask(t, raw).TaskID
	out, err := p.call(t, "tasks/result", `{"taskId":"`+id+`"}`)
	if err != nil || !strings.Contains(string(out), "Hello, Grace") {
		t.Fatalf("legacy tasks/result = %s, %v", out, err)
	}
	// The session heard the task's status changes.
	n := p.note(t, mcp.MethodTaskStatusNotification)
	if !strings.Contains(string(n.Params), id) {
		t.Fatalf("status notification = %s", n.Params)
	}
}

// TestTaskInputBeforeTask checks a handler that gathers its input in
// rounds, then becomes a task with StartTask.
func TestTaskInputBeforeTask(t *testing.T) {
	s := New(mcp.Implementation{Name: "tasks", Version: "1"}, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	addTool(t, s, "ask_first", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := Elicit(ctx, nameQuestion("Name?"), InputKey("who"))
		if err != nil {
			return nil, err
		}
		if err := StartTask(ctx); err != nil {
			return nil, err
		}
		if TaskID(ctx) == "" {
			return nil, fmt.Errorf("no task id after StartTask")
		}
		return textOf("Hello, " + nameOf(r)), nil
	}, WithTaskSupport(TaskRequired), WithInputBeforeTask())
	ctx := context.Background()
	raw, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"ask_first"`)
	if err != nil {
		t.Fatal(err)
	}
	var round mcp.InputRequiredResult
	if err := json.Unmarshal(raw, &round); err != nil || round.ResultType != "input_required" || round.RequestState == "" {
		t.Fatalf("round 1 = %s, %v", raw, err)
	}
	raw, err = modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"ask_first","requestState":"`+round.RequestState+`","inputResponses":{"who":{"action":"accept","content":{"name":"Lin"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	created := decodeTask(t, raw)
	if created.ResultType != "task" || strings.Contains(string(raw), "requestState") {
		t.Fatalf("round 2 = %s", raw)
	}
	get := func() ([]byte, error) {
		return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+created.TaskID+`"`)
	}
	if v := waitStatus(t, get, "completed"); !strings.Contains(string(v.Result), "Hello, Lin") {
		t.Fatalf("result = %s", v.Result)
	}
}

// TestTasksConcurrent runs 1000 tasks at once: each is created, all run
// together within MaxRunningTasks, one more is refused, and once they end
// no goroutine is left and the memory they held is bounded.
func TestTasksConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 tasks")
	}
	const n = 1000
	base := testutil.Goroutines()
	g := newGate()
	s := New(mcp.Implementation{Name: "tasks", Version: "1"}, &Options{MaxRunningTasks: n})
	addTool(t, s, "job", g.handler, WithTaskSupport(TaskOptional))
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			raw, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`)
			if err != nil {
				errs <- err
				return
			}
			var v taskView
			if err := json.Unmarshal(raw, &v); err != nil || v.ResultType != "task" {
				errs <- fmt.Errorf("call %d: %s", i, raw)
				return
			}
			ids[i] = v.TaskID
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if perTask := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n; perTask > 64<<10 {
		t.Errorf("each running task holds %d bytes", perTask)
	}
	if _, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`); code(t, err) != jsonrpc.CodeInternalError {
		t.Fatalf("task %d beyond MaxRunningTasks: %v", n+1, err)
	}
	close(g.release)
	for range n {
		select {
		case <-g.returned:
		case <-time.After(10 * time.Second):
			t.Fatal("the tasks did not all finish")
		}
	}
	for _, id := range []string{ids[0], ids[n/2], ids[n-1]} {
		get := func() ([]byte, error) { return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`) }
		waitStatus(t, get, "completed")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.WaitGoroutines(t, base)
}

// TestTasksBothEras serves a legacy session and 2026-07-28 requests from
// one Server at once.
func TestTasksBothEras(t *testing.T) {
	g := newGate()
	close(g.release)
	s := taskServer(t, nil, g)
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	legacy, err := p.call(t, "tools/call", `{"name":"job","task":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	modern, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	lid, mid := decodeTask(t, legacy).TaskID, decodeTask(t, modern).TaskID
	waitStatus(t, func() ([]byte, error) { return p.call(t, "tasks/get", `{"taskId":"`+lid+`"}`) }, "completed")
	v := waitStatus(t, func() ([]byte, error) {
		return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+mid+`"`)
	}, "completed")
	if !strings.Contains(string(v.Result), "done") {
		t.Fatalf("modern result = %s", v.Result)
	}
	// 2026-07-28 removed tasks/list and tasks/result.
	for _, m := range []string{"tasks/list", "tasks/result"} {
		if _, err := modernCall(t, ctx, s, m, tasksCaps, `"taskId":"`+mid+`"`); code(t, err) != jsonrpc.CodeMethodNotFound {
			t.Errorf("2026-07-28 %s: %v", m, err)
		}
	}
}
