//go:build redis

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The -redis mode against a real redis-server (`make redis`): two
// replicas sharing one Redis and one state key serve each other's
// 2026-07-28 tasks and input rounds, record their sessions there, and
// tell each other's clients of list changes and resource updates.

// startRedis starts a redis-server on a free port, stopped when t ends,
// and returns its URL.
func startRedis(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("the -redis test needs a redis-server on PATH: install it (apt-get install redis-server, or `make redis`)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--logfile", "redis.log")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// openShared pings with a timeout of its own; wait for the port first.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "redis://" + addr + "/0"
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s does not listen: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// replica is one everything server of the -redis mode behind httptest.
type replica struct {
	url string
	sh  *shared
	e   *everything
}

// newReplica starts a replica on the Redis of url with the state keys.
// The X-User header names the request's principal.
func newReplica(t *testing.T, url string, keys [][]byte) *replica {
	t.Helper()
	sh, err := openShared(testContext(t), url, keys)
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEverythingShared(nil, sh)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.SetStateKeys(keys...); err != nil {
		t.Fatal(err)
	}
	leave, err := sh.joinBus(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(e.srv, sh.handlerOptions(&streamable.HandlerOptions{
		Authenticate: func(r *http.Request) (any, error) { return r.Header.Get("X-User"), nil },
	}))
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
		leave()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.srv.Close(ctx)
		sh.close()
	})
	return &replica{url: ts.URL, sh: sh, e: e}
}

// rpcAnswer is a JSON-RPC response as the test reads it.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	header http.Header
}

// post sends body to the replica as user, with the headers given in
// pairs, and returns the response to it (from JSON or an SSE stream).
func (r *replica) post(t *testing.T, user, body string, hdr ...string) *rpcAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, r.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-User", user)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msgs [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				msgs = append(msgs, bytes.TrimSpace(d))
			}
		}
	} else {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		msgs = append(msgs, b.Bytes())
	}
	for _, m := range msgs {
		var a rpcAnswer
		if json.Unmarshal(m, &a) == nil && a.ID != nil && (a.Result != nil || a.Error != nil) {
			a.header = resp.Header
			return &a
		}
	}
	t.Fatalf("%s answered %d with no response: %q", r.url, resp.StatusCode, msgs)
	return nil
}

// modernCall is a 2026-07-28 request's body and headers.
func modernCall(id, method, name, caps, members string) (string, []string) {
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"redis-test","version":"1"}}`
	if members != "" {
		params += "," + members
	}
	params += "}"
	hdr := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		hdr = append(hdr, "Mcp-Name", name)
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`, hdr
}

func (r *replica) modern(t *testing.T, user, id, method, name, caps, members string) *rpcAnswer {
	t.Helper()
	body, hdr := modernCall(id, method, name, caps, members)
	return r.post(t, user, body, hdr...)
}

func TestRedisReplicas(t *testing.T) {
	url := startRedis(t)
	keys, err := stateKeys(func(string) string {
		return "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := newReplica(t, url, keys), newReplica(t, url, keys)

	// A task created through A is polled through B until it completes.
	const taskCaps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	created := a.modern(t, "alice", "1", "tools/call", "slow_compute", taskCaps,
		`"name":"slow_compute","arguments":{"seconds":0.2,"label":"shared"}`)
	if created.Error != nil {
		t.Fatalf("slow_compute on A: %+v", created.Error)
	}
	var task struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
		Status     string `json:"status"`
	}
	if err := json.Unmarshal(created.Result, &task); err != nil || task.ResultType != "task" || task.TaskID == "" {
		t.Fatalf("slow_compute on A did not create a task: %s %v", created.Result, err)
	}
	getTask := `"taskId":"` + task.TaskID + `"`
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := b.modern(t, "alice", "2", "tasks/get", task.TaskID, taskCaps, getTask)
		if got.Error != nil {
			t.Fatalf("tasks/get on B: %+v", got.Error)
		}
		if err := json.Unmarshal(got.Result, &task); err != nil {
			t.Fatal(err)
		}
		if task.Status == "completed" {
			if !strings.Contains(string(got.Result), "shared: computed in 0.2s") {
				t.Fatalf("the completed task on B has not its result: %s", got.Result)
			}
			break
		}
		if task.Status != "working" || time.Now().After(deadline) {
			t.Fatalf("tasks/get on B: %s", got.Result)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Another principal does not find it, on either replica.
	for _, r := range []*replica{a, b} {
		got := r.modern(t, "bob", "3", "tasks/get", task.TaskID, taskCaps, getTask)
		if got.Error == nil || got.Error.Code != -32602 {
			t.Fatalf("bob's tasks/get of alice's task: %s %+v, want -32602", got.Result, got.Error)
		}
	}

	// An input_required round started on A completes on B.
	const call = `"name":"test_input_required_result_elicitation","arguments":{}`
	first := a.modern(t, "alice", "4", "tools/call", "test_input_required_result_elicitation", allCaps, call)
	var ir struct {
		ResultType   string `json:"resultType"`
		RequestState string `json:"requestState"`
	}
	if first.Error != nil || json.Unmarshal(first.Result, &ir) != nil || ir.ResultType != "input_required" || ir.RequestState == "" {
		t.Fatalf("round 1 on A: %s %+v", first.Result, first.Error)
	}
	answer := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"` + ir.RequestState + `"`
	second := b.modern(t, "alice", "5", "tools/call", "test_input_required_result_elicitation", allCaps, call+answer)
	if second.Error != nil || !strings.Contains(string(second.Result), "Hello, Alice!") {
		t.Fatalf("round 2 on B: %s %+v", second.Result, second.Error)
	}

	// A legacy session A runs is recorded where B's store reads it.
	init := a.post(t, "alice", `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"redis-test","version":"1"}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	if init.Error != nil || sid == "" {
		t.Fatalf("initialize on A: %s %+v, session %q", init.Result, init.Error, sid)
	}
	if _, err := b.sh.sessions.Get(testContext(t), sid); err != nil {
		t.Fatalf("B's session store does not have A's session %s: %v", sid, err)
	}
}

// TestRedisReplicasShareChanges checks that a tool-list change and a
// resource update made on replica A reach a legacy session's GET stream
// and a 2026-07-28 subscriptions/listen stream on replica B, over the
// Redis bus.
func TestRedisReplicasShareChanges(t *testing.T) {
	url := startRedis(t)
	keys, err := stateKeys(func(string) string {
		return "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := newReplica(t, url, keys), newReplica(t, url, keys)

	// A legacy session on B, subscribed to the watched resource, with its
	// GET stream open.
	init := b.post(t, "alice", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"redis-test","version":"1"}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	if init.Error != nil || sid == "" {
		t.Fatalf("initialize on B: %s %+v, session %q", init.Result, init.Error, sid)
	}
	session := []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"}
	b.send(t, "alice", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session...).Body.Close()
	if sub := b.post(t, "alice", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+watchedURI+`"}}`, session...); sub.Error != nil {
		t.Fatalf("resources/subscribe on B: %+v", sub.Error)
	}
	legacy := events(t, b.send(t, "alice", http.MethodGet, "", session...))

	// A 2026-07-28 subscriptions/listen on B.
	body, hdr := modernCall("3", "subscriptions/listen", "", "{}",
		`"notifications":{"toolsListChanged":true,"resourceSubscriptions":["`+watchedURI+`"]}`)
	modern := events(t, b.send(t, "alice", http.MethodPost, body, hdr...))
	waitEvent(t, "the listen stream", modern, "notifications/subscriptions/acknowledged")

	if got := a.modern(t, "alice", "4", "tools/call", "test_trigger_tool_change", "{}", `"name":"test_trigger_tool_change","arguments":{}`); got.Error != nil {
		t.Fatalf("test_trigger_tool_change on A: %+v", got.Error)
	}
	waitEvent(t, "the legacy GET stream", legacy, "notifications/tools/list_changed")
	waitEvent(t, "the listen stream", modern, "notifications/tools/list_changed")

	// B lists the tool A added, and so does a replica started afterwards.
	lists := func(r *replica) bool {
		got := r.modern(t, "alice", "5", "tools/list", "", "{}", "")
		return got.Error == nil && strings.Contains(string(got.Result), `"`+dynamicTool+`"`)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !lists(b) {
		if time.Now().After(deadline) {
			t.Fatalf("B does not list %s after A added it", dynamicTool)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c := newReplica(t, url, keys); !lists(c) {
		t.Fatalf("a replica started after the change does not list %s", dynamicTool)
	}

	a.e.touchWatched(testContext(t))
	waitEvent(t, "the legacy GET stream", legacy, `"method":"notifications/resources/updated","params":{"uri":"`+watchedURI+`"}`)
	waitEvent(t, "the listen stream", modern, "notifications/resources/updated")
}

// send sends a request with body (none when empty) to the replica as
// user, with the headers given in pairs, and returns the response.
func (r *replica) send(t *testing.T, user, method, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, r.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-User", user)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		t.Fatalf("%s %s: %d %s", method, r.url, resp.StatusCode, b.Bytes())
	}
	return resp
}

// events returns the data of each SSE event of resp as it arrives; the
// stream is closed when the test ends.
func events(t *testing.T, resp *http.Response) <-chan string {
	t.Helper()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("not an SSE stream: %s", resp.Header.Get("Content-Type"))
	}
	out := make(chan string, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				out <- string(bytes.TrimSpace(d))
			}
		}
	}()
	// Before the replicas' cleanup, which waits for open requests.
	t.Cleanup(func() { resp.Body.Close(); <-done })
	return out
}

// waitEvent waits for an event of stream containing want, skipping
// others.
func waitEvent(t *testing.T, name string, stream <-chan string, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case d := <-stream:
			if strings.Contains(d, want) {
				return
			}
		case <-timeout:
			t.Fatalf("%s carried no %s", name, want)
		}
	}
}

// TestRedisBadURL checks that a bad -redis URL and an unreachable Redis
// are errors that do not repeat the password.
func TestRedisBadURL(t *testing.T) {
	for _, u := range []string{"http://user:s3cret@127.0.0.1:1/0", "redis://user:s3cret@127.0.0.1:6379/x", "redis://:s3cret@127.0.0.1:1/0", "redis://user:s3cret@[::1/0"} {
		_, err := openShared(testContext(t), u, nil)
		if err == nil {
			t.Errorf("%q was taken", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error repeats the password: %v", err)
		}
	}
}

// A legacy session started on one replica is served by the other, as a
// load balancer without sticky routing sends its requests: calls, a
// question to the client answered on the other replica, and DELETE.
func TestRedisReplicasShareLegacySessions(t *testing.T) {
	url := startRedis(t)
	keys, err := stateKeys(func(string) string {
		return "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := newReplica(t, url, keys), newReplica(t, url, keys)
	init := a.post(t, "alice", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"redis-test","version":"1"}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	if init.Error != nil || sid == "" {
		t.Fatalf("initialize on A: %+v, session %q", init.Error, sid)
	}
	session := []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"}
	b.send(t, "alice", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session...).Body.Close()

	if got := b.post(t, "alice", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`, session...); got.Error != nil {
		t.Fatalf("a call on B of A's session: %+v", got.Error)
	}
	req, _ := http.NewRequest(http.MethodPost, b.url, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-User", "mallory")
	for i := 0; i < len(session); i += 2 {
		req.Header.Set(session[i], session[i+1])
	}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another user with alice's session id on B: %v %v, want 404", err, resp.Status)
	} else {
		resp.Body.Close()
	}

	// test_elicitation asks the client from B; the answer goes to A.
	stream := events(t, b.send(t, "alice", http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Name?"}}}`, session...))
	var question struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	for question.Method != "elicitation/create" {
		select {
		case d := <-stream:
			json.Unmarshal([]byte(d), &question)
		case <-time.After(10 * time.Second):
			t.Fatal("B asked nothing")
		}
	}
	a.send(t, "alice", http.MethodPost, `{"jsonrpc":"2.0","id":`+string(question.ID)+`,"result":{"action":"accept","content":{"username":"ada","email":"ada@example.com"}}}`, session...).Body.Close()
	waitEvent(t, "B's stream", stream, `"id":4,"result"`)

	b.send(t, "alice", http.MethodDelete, "", session...).Body.Close()
	rec, err := a.sh.sessions.Get(testContext(t), sid)
	if err == nil {
		t.Fatalf("the record outlived DELETE: %+v", rec)
	}
}
