package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/bus"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

const watchedURI = "test://watched"

// replicaServer returns a Server with the resource watchedURI, on b until
// the test ends.
func replicaServer(t *testing.T, b bus.Bus, opts *Options) *Server {
	t.Helper()
	s := newServer(opts)
	read := func(context.Context, *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}
	if err := s.AddResource(mcp.Resource{URI: watchedURI, Name: "w"}, read); err != nil {
		t.Fatal(err)
	}
	join(t, s, b)
	return s
}

// join puts s on b's topic "t" until the test ends.
func join(t *testing.T, s *Server, b bus.Bus) {
	t.Helper()
	leave, err := s.JoinBus(context.Background(), b, "t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(leave)
}

// legacyWatcher starts a 2025-11-25 session on s subscribed to watchedURI.
func legacyWatcher(t *testing.T, s *Server) *peer {
	t.Helper()
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	if _, err := p.call(t, "resources/subscribe", `{"uri":"`+watchedURI+`"}`); err != nil {
		t.Fatal(err)
	}
	return p
}

// listenOn opens a 2026-07-28 subscriptions/listen on p with the filter's
// members, and waits for its acknowledgement.
func listenOn(t *testing.T, p *peer, caps, filter string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Call(ctx, "subscriptions/listen", []byte(`{`+modernMeta(caps)+`,"notifications":{`+filter+`}}`))
	}()
	t.Cleanup(func() { cancel(); <-done })
	p.note(t, mcp.MethodSubscriptionsAcknowledgedNotification)
}

// noNote fails when p receives a notification within a short while.
func noNote(t *testing.T, p *peer) {
	t.Helper()
	select {
	case n := <-p.notes:
		t.Fatalf("unexpected %s %s", n.Method, n.Params)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestBusChangesReachOtherReplicas checks that a list change and a
// resource update on one Server reach the legacy sessions and the
// subscriptions/listen requests of another on the same bus.
func TestBusChangesReachOtherReplicas(t *testing.T) {
	m := bus.NewMemory(0)
	defer m.Close()
	a, b := replicaServer(t, m, nil), replicaServer(t, m, nil)
	legacy := legacyWatcher(t, b)
	modern := start(t, b)
	listenOn(t, modern, "", `"toolsListChanged":true,"resourceSubscriptions":["`+watchedURI+`"]`)

	echoTool(t, a)
	legacy.note(t, mcp.MethodToolListChangedNotification)
	if n := modern.note(t, mcp.MethodToolListChangedNotification); !strings.Contains(string(n.Params), "subscriptionId") {
		t.Errorf("tools/list_changed on the listen stream without its subscription id: %s", n.Params)
	}
	a.ResourceUpdated(context.Background(), watchedURI)
	if n := legacy.note(t, mcp.MethodResourceUpdatedNotification); string(n.Params) != `{"uri":"`+watchedURI+`"}` {
		t.Errorf("resources/updated on the legacy session: %s", n.Params)
	}
	if n := modern.note(t, mcp.MethodResourceUpdatedNotification); !strings.Contains(string(n.Params), watchedURI) {
		t.Errorf("resources/updated on the listen stream: %s", n.Params)
	}
	a.ResourceUpdated(context.Background(), "test://unwatched")
	noNote(t, legacy)
	noNote(t, modern)
}

// gatedBus holds every Publish until open is closed.
type gatedBus struct {
	bus.Bus
	open      chan struct{}
	published chan struct{} // a message per Publish that went through
}

func (g *gatedBus) Publish(ctx context.Context, topic string, msg []byte) error {
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := g.Bus.Publish(ctx, topic, msg)
	g.published <- struct{}{}
	return err
}

// TestBusOwnMessagesIgnored checks that a Server does not tell its
// clients twice of its own change when the bus brings it back.
func TestBusOwnMessagesIgnored(t *testing.T) {
	m := bus.NewMemory(0)
	defer m.Close()
	gated := &gatedBus{Bus: m, open: make(chan struct{}), published: make(chan struct{}, 16)}
	a, b := replicaServer(t, gated, nil), replicaServer(t, m, nil)
	p := legacyWatcher(t, a)

	// The local notification goes out while the bus holds the message;
	// then the bus delivers it, to a too, before b's update.
	echoTool(t, a)
	p.note(t, mcp.MethodToolListChangedNotification)
	close(gated.open)
	<-gated.published
	b.ResourceUpdated(context.Background(), watchedURI)
	if n := p.next(t); n.Method != mcp.MethodResourceUpdatedNotification {
		t.Fatalf("after a's tool change came back from the bus: %s %s, want only b's resources/updated", n.Method, n.Params)
	}
	noNote(t, p)
}

// TestBusDropsMalformedMessages checks that what does not decode as a
// change message is dropped with one log line however many arrive, and
// that the next good message is still delivered.
func TestBusDropsMalformedMessages(t *testing.T) {
	m := bus.NewMemory(0)
	defer m.Close()
	var logs testutil.SyncBuffer
	s := replicaServer(t, m, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	p := legacyWatcher(t, s)
	ctx := context.Background()
	for _, msg := range []string{
		``,
		`not json`,
		`[1,2]`,
		`{"v":2,"origin":"x","kind":"list","method":"notifications/tools/list_changed"}`,
		`{"v":1,"kind":"list","method":"notifications/tools/list_changed"}`,
		`{"v":1,"origin":"x","kind":"list","method":"tools/call"}`,
		`{"v":1,"origin":"x","kind":"resource"}`,
		`{"v":1,"origin":"x","kind":"task"}`,
		`{"v":1,"origin":"x","kind":"explode"}`,
		`{"v":1,"origin":"x","kind":"resource","uri":"` + watchedURI + `","pad":"` + strings.Repeat("x", MaxBusMessage) + `"}`,
	} {
		if err := m.Publish(ctx, "t", []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Publish(ctx, "t", []byte(`{"v":1,"origin":"x","kind":"list","method":"notifications/tools/list_changed"}`)); err != nil {
		t.Fatal(err)
	}
	if n := p.next(t); n.Method != mcp.MethodToolListChangedNotification {
		t.Fatalf("after the malformed messages: %s %s, want the good message's tools/list_changed", n.Method, n.Params)
	}
	if n := strings.Count(logs.String(), "malformed"); n != 1 {
		t.Errorf("%d log lines about malformed messages, want 1:\n%s", n, logs.String())
	}
}

// failingBus fails every Publish while fail is set.
type failingBus struct {
	bus.Bus
	mu        sync.Mutex
	fail      bool
	published chan []byte
}

func (f *failingBus) Publish(ctx context.Context, topic string, msg []byte) error {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	defer func() { f.published <- msg }()
	if fail {
		return errors.New("connection refused")
	}
	return f.Bus.Publish(ctx, topic, msg)
}

// TestBusPublishFailure checks that a bus that fails to publish fails no
// local change, and is logged once per outage.
func TestBusPublishFailure(t *testing.T) {
	m := bus.NewMemory(0)
	defer m.Close()
	f := &failingBus{Bus: m, fail: true, published: make(chan []byte, 16)}
	var logs testutil.SyncBuffer
	s := replicaServer(t, f, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	p := legacyWatcher(t, s)
	for range 3 {
		s.ResourceUpdated(context.Background(), watchedURI)
		p.note(t, mcp.MethodResourceUpdatedNotification)
		<-f.published
	}
	if n := strings.Count(logs.String(), "publish failed"); n != 1 {
		t.Errorf("%d log lines about failed publishing over 3 failures, want 1:\n%s", n, logs.String())
	}
	f.mu.Lock()
	f.fail = false
	f.mu.Unlock()
	s.ResourceUpdated(context.Background(), watchedURI)
	<-f.published
	deadline := time.Now().Add(5 * time.Second)
	// Not "works again" alone: the failure's line says that too.
	for !strings.Contains(logs.String(), "publishing works again") {
		if time.Now().After(deadline) {
			t.Fatalf("no log line when publishing worked again:\n%s", logs.String())
		}
		time.Sleep(time.Millisecond)
	}
	if !strings.Contains(logs.String(), "lost=3") {
		t.Errorf("the recovery does not count the 3 changes lost:\n%s", logs.String())
	}
}

// TestBusLeave checks that leave and the end of JoinBus's ctx end the
// membership and its goroutines, that a Server is on one bus at a time,
// and that after leave changes no longer cross.
func TestBusLeave(t *testing.T) {
	m := bus.NewMemory(0)
	defer m.Close()
	a, b := newServer(nil), replicaServer(t, m, nil)
	before := runtime.NumGoroutine()

	leave, err := a.JoinBus(context.Background(), m, "t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.JoinBus(context.Background(), m, "t"); err == nil {
		t.Fatal("a second JoinBus while on a bus succeeded")
	}
	leave()
	leave() // a second leave is harmless
	waitGoroutines(t, before)

	// Leaving by ctx; then a may join again.
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := a.JoinBus(ctx, m, "t"); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitGoroutines(t, before)
	leave, err = a.JoinBus(context.Background(), m, "t")
	if err != nil {
		t.Fatalf("JoinBus after the last membership's ctx ended: %v", err)
	}
	leave()
	waitGoroutines(t, before)

	p := legacyWatcher(t, a)
	b.ResourceUpdated(context.Background(), watchedURI)
	noNote(t, p)
}

// waitGoroutines waits until no more than n goroutines run.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBusTaskStatus checks that a task's status change on one Server
// reaches a subscriptions/listen of that task on another sharing its task
// store and bus.
func TestBusTaskStatus(t *testing.T) {
	m := bus.NewMemory(0)
	defer m.Close()
	store := tasks.NewMemoryStore(tasks.Options{})
	g := newGate()
	a := taskServer(t, &Options{TaskStore: store}, g)
	b := taskServer(t, &Options{TaskStore: store}, newGate())
	join(t, a, m)
	join(t, b, m)
	alice := WithPrincipal(context.Background(), "alice")

	raw, err := modernCall(t, alice, a, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	id := decodeTask(t, raw).TaskID
	p := startWith(t, b, alice)
	listenOn(t, p, tasksCaps, `"taskIds":["`+id+`"]`)
	status := func() string {
		t.Helper()
		n := p.note(t, mcptasks.MethodTaskStatusNotification)
		var v taskView
		if err := json.Unmarshal(n.Params, &v); err != nil || v.TaskID != id {
			t.Fatalf("notifications/tasks %s; want one of task %s", n.Params, id)
		}
		return v.Status
	}
	if got := status(); got != "working" { // the state when listening began
		t.Fatalf("first notifications/tasks: %s, want working", got)
	}
	close(g.release)
	for status() != "completed" {
	}
}

// A tasks/update or tasks/cancel that reaches a replica other than the
// one running the task is carried to it over the bus.
func TestBusTaskUpdateAndCancel(t *testing.T) {
	g := newGate()
	a, b := taskReplicas(t, g, "ask", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := Elicit(ctx, nameQuestion("Name?"), InputKey("who"))
		if err != nil {
			return nil, err
		}
		return textOf("Hello, " + nameOf(r)), nil
	}, nil)
	ctx := context.Background()
	call := func(s *Server, method, members string) []byte { return mustCall(t, s, method, members) }

	id := decodeTask(t, call(a, "tools/call", `"name":"ask"`)).TaskID
	get := func() ([]byte, error) { return modernCall(t, ctx, b, "tasks/get", tasksCaps, `"taskId":"`+id+`"`) }
	waitStatus(t, get, "input_required")
	call(b, "tasks/update", `"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}}`)
	if v := waitStatus(t, get, "completed"); !strings.Contains(string(v.Result), "Hello, Ada") {
		t.Fatalf("result = %s", v.Result)
	}

	job := decodeTask(t, call(a, "tools/call", `"name":"job"`)).TaskID
	call(b, "tasks/cancel", `"taskId":"`+job+`"`)
	select {
	case err := <-g.returned:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler returned %v, want its ctx cancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancel on replica b never stopped the handler on replica a")
	}
}

// slowUpdates is a task store whose Updates take a while, as a store a
// replica reaches over the network may.
type slowUpdates struct {
	tasks.Store
	delay time.Duration
}

func (s slowUpdates) Update(ctx context.Context, owner, id string, from tasks.Status, c tasks.Change) (tasks.Task, error) {
	time.Sleep(s.delay)
	return s.Store.Update(ctx, owner, id, from, c)
}

// A tasks/update that answers some of the questions of a task another
// replica runs is acknowledged once that replica has taken the answers:
// a tasks/get right after it, on any replica, no longer lists them.
func TestBusTaskUpdateReadsAnswered(t *testing.T) {
	// The replica that runs the task writes its records slowly.
	slow := func(i int, st tasks.Store) tasks.Store {
		if i == 0 {
			return slowUpdates{st, 50 * time.Millisecond}
		}
		return st
	}
	a, b := taskReplicas(t, newGate(), "two", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var wg sync.WaitGroup
		var first, second *mcp.ElicitResult
		var err1, err2 error
		wg.Go(func() { first, err1 = Elicit(ctx, nameQuestion("First?"), InputKey("q1")) })
		wg.Go(func() { second, err2 = Elicit(ctx, nameQuestion("Second?"), InputKey("q2")) })
		wg.Wait()
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		return textOf(nameOf(first) + " and " + nameOf(second)), nil
	}, slow)
	ctx := context.Background()
	call := func(s *Server, method, members string) []byte { return mustCall(t, s, method, members) }
	id := decodeTask(t, call(a, "tools/call", `"name":"two"`)).TaskID
	get := func() ([]byte, error) { return modernCall(t, ctx, b, "tasks/get", tasksCaps, `"taskId":"`+id+`"`) }
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if v := decodeTask(t, call(b, "tasks/get", `"taskId":"`+id+`"`)); len(v.InputRequests) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task never asked both questions")
		}
	}

	call(b, "tasks/update", `"taskId":"`+id+`","inputResponses":{"q1":{"action":"accept","content":{"name":"Ada"}},"nope":{}}`)
	v := decodeTask(t, call(b, "tasks/get", `"taskId":"`+id+`"`))
	if _, ok := v.InputRequests["q1"]; ok || v.Status != "input_required" || len(v.InputRequests) != 1 {
		t.Fatalf("after answering q1 on the other replica: status %s, inputRequests %v; want input_required with q2 alone", v.Status, v.InputRequests)
	}
	call(b, "tasks/update", `"taskId":"`+id+`","inputResponses":{"q2":{"action":"accept","content":{"name":"Grace"}}}`)
	if v := waitStatus(t, get, "completed"); !strings.Contains(string(v.Result), "Ada and Grace") {
		t.Fatalf("result = %s", v.Result)
	}
}

// taskReplicas returns two task Servers on one bus and one task store,
// each with the tool job running g's handler and the tool name running h,
// both as tasks; through, when set, is the store replica i reaches the
// shared one through.
func taskReplicas(t *testing.T, g *gate, name string, h ToolHandler, through func(i int, st tasks.Store) tasks.Store) (a, b *Server) {
	t.Helper()
	m := bus.NewMemory(0)
	t.Cleanup(func() { m.Close() })
	store := tasks.NewMemoryStore(tasks.Options{})
	servers := make([]*Server, 2)
	for i := range servers {
		var st tasks.Store = store
		if through != nil {
			st = through(i, store)
		}
		s := taskServer(t, &Options{TaskStore: st}, g)
		addTool(t, s, name, h, WithTaskSupport(TaskOptional))
		join(t, s, m)
		servers[i] = s
	}
	return servers[0], servers[1]
}

// mustCall serves one 2026-07-28 request with the tasks extension on s
// and returns its result.
func mustCall(t *testing.T, s *Server, method, members string) []byte {
	t.Helper()
	raw, err := modernCall(t, context.Background(), s, method, tasksCaps, members)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return raw
}
