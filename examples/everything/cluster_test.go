//go:build cluster

package main

// Replicas of examples/everything sharing one Redis behind nginx
// round-robin, without stickiness (`make cluster`: cluster/up.sh starts
// them, CLUSTER_ENV names its cluster.env), driven over raw HTTP so that
// every status, header and SSE event id is seen as sent. Calls keep their
// answers when a replica is killed under them, a legacy session and its
// SSE streams outlive the replica that opened them, and a Redis that
// stops answering makes requests fail within a bound rather than hang.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/cluster"
)

// requestBound is the longest any request may take, an answer or an
// error; one that takes longer is a hang.
const requestBound = 30 * time.Second

// killGrace is how long after a replica's kill nginx may still send it a
// request: on a kept-alive connection it has not yet seen closed, a POST
// that nginx then does not send again (POST is not idempotent), so the
// client gets a 502 as for a call in flight.
const killGrace = time.Second

// legacyVersion is the protocol version of the legacy sessions.
const legacyVersion = "2025-11-25"

// clusterClient sends requests through the cluster's nginx, or straight
// to one replica.
type clusterClient struct {
	c    *cluster.Cluster
	http *http.Client
}

func newClusterClient(t *testing.T) *clusterClient {
	t.Helper()
	c, err := cluster.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return &clusterClient{c: c, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

// sseEvent is one SSE event, or the whole body of a JSON answer.
type sseEvent struct{ id, data string }

// reply is what one HTTP exchange gave back: a transport error, the body
// cut short included, comes with whatever arrived before it.
type reply struct {
	status  int
	replica int // the replica that answered, 0 when unknown
	header  http.Header
	events  []sseEvent
	err     error
	elapsed time.Duration
}

// rpcResponse is a JSON-RPC response as these tests read it.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// response is the first JSON-RPC response among the events, or nil.
func (r *reply) response() *rpcResponse {
	for _, e := range r.events {
		var a rpcResponse
		if json.Unmarshal([]byte(e.data), &a) == nil && a.ID != nil && (a.Result != nil || a.Error != nil) {
			return &a
		}
	}
	return nil
}

// failure says why r is not a successful answer, or "" when it is one.
func (r *reply) failure() string {
	switch {
	case r.err != nil:
		return r.err.Error()
	case r.status/100 != 2:
		return fmt.Sprintf("HTTP %d", r.status)
	}
	a := r.response()
	if a == nil {
		return "no JSON-RPC response"
	}
	if a.Error != nil {
		return fmt.Sprintf("JSON-RPC error %d %s", a.Error.Code, a.Error.Message)
	}
	return ""
}

func (r *reply) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replica %d, HTTP %d after %v", r.replica, r.status, r.elapsed.Round(time.Millisecond))
	if r.err != nil {
		fmt.Fprintf(&b, ", error: %v", r.err)
	}
	for _, e := range r.events {
		d := e.data
		if len(d) > 300 {
			d = d[:300] + "..."
		}
		fmt.Fprintf(&b, "\n\tid=%q %s", e.id, strings.TrimSpace(d))
	}
	return b.String()
}

// send sends a request to url and reads the whole answer; see stream.
func (cc *clusterClient) send(ctx context.Context, url, method, body string, hdr ...string) *reply {
	return cc.stream(ctx, url, method, body, nil, hdr...)
}

// stream sends a request to url (cc.c.URL for nginx) with the headers
// given in pairs, and reads the answer, calling onEvent, when not nil,
// with each SSE event as it arrives; onEvent returning false stops the
// reading there. The request is bounded by requestBound.
func (cc *clusterClient) stream(ctx context.Context, url, method, body string, onEvent func(sseEvent) bool, hdr ...string) *reply {
	ctx, cancel := context.WithTimeout(ctx, requestBound)
	defer cancel()
	start := time.Now()
	r := &reply{}
	defer func() { r.elapsed = time.Since(start) }()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		r.err = err
		return r
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := cc.http.Do(req)
	if err != nil {
		r.err = err
		return r
	}
	defer resp.Body.Close()
	r.status, r.header = resp.StatusCode, resp.Header
	r.replica = cc.c.Replica(resp.Header.Get(cluster.UpstreamHeader))
	if r.replica == 0 {
		// Straight to a replica: it is the one at the URL's address.
		r.replica = cc.c.Replica(req.URL.Host)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data, err := io.ReadAll(resp.Body)
		r.events = append(r.events, sseEvent{data: string(data)})
		r.err = err
		return r
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var ev sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if ev.id != "" || len(data) > 0 {
				ev.data = strings.Join(data, "\n")
				r.events = append(r.events, ev)
				if onEvent != nil && !onEvent(ev) {
					return r
				}
			}
			ev, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id = value
		case "data":
			data = append(data, value)
		}
	}
	r.err = sc.Err()
	if r.err == nil && ctx.Err() != nil {
		r.err = ctx.Err()
	}
	return r
}

// replicaURL is the MCP endpoint of replica i, bypassing nginx.
func (cc *clusterClient) replicaURL(i int) string {
	return "http://" + cc.c.Replicas[i-1] + endpoint
}

// modernBody is a 2026-07-28 request and its headers.
func modernBody(id int, method, name, caps, members string) (string, []string) {
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"cluster-test","version":"1"}},` + members + `}`
	hdr := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		hdr = append(hdr, "Mcp-Name", name)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params), hdr
}

// modern sends a 2026-07-28 request through nginx.
func (cc *clusterClient) modern(ctx context.Context, id int, method, name, caps, members string) *reply {
	body, hdr := modernBody(id, method, name, caps, members)
	return cc.send(ctx, cc.c.URL, http.MethodPost, body, hdr...)
}

// initialize opens a legacy session at url (nginx's, or a replica's) and
// sends notifications/initialized there; it returns the session id and
// the replica that opened it.
func (cc *clusterClient) initialize(t *testing.T, url string) (sid string, owner int) {
	t.Helper()
	r := cc.send(t.Context(), url, http.MethodPost,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+legacyVersion+`","capabilities":{},"clientInfo":{"name":"cluster-test","version":"1"}}}`)
	if f := r.failure(); f != "" {
		t.Fatalf("initialize at %s: %s\n%s", url, f, r)
	}
	sid = r.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize at %s gave no Mcp-Session-Id:\n%s", url, r)
	}
	n := cc.legacy(t.Context(), url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if n.err != nil || n.status != http.StatusAccepted {
		t.Errorf("notifications/initialized of session %s (opened on replica %d) at %s: want 202, got\n%s", sid, r.replica, url, n)
	}
	return sid, r.replica
}

// legacy POSTs body in session sid to url.
func (cc *clusterClient) legacy(ctx context.Context, url, sid, body string) *reply {
	return cc.send(ctx, url, http.MethodPost, body, "Mcp-Session-Id", sid, "MCP-Protocol-Version", legacyVersion)
}

// legacyCall is a tools/call request of a legacy session.
func legacyCall(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// toolText is the text of a CallToolResult's one text block.
func toolText(raw json.RawMessage) string {
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(raw, &res) != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" {
		return ""
	}
	return res.Content[0].Text
}

// needReplicas fails t unless the cluster has at least n replicas: a
// test that kills one needs another to go on.
func (cc *clusterClient) needReplicas(t *testing.T, n int) {
	t.Helper()
	if len(cc.c.Replicas) < n {
		t.Fatalf("this test needs a cluster of at least %d replicas, not %d (CLUSTER_REPLICAS)", n, len(cc.c.Replicas))
	}
}

// killReplica SIGKILLs replica i and restarts it when t ends, checking
// that nginx sends requests to it again.
func (cc *clusterClient) killReplica(t *testing.T, i int) {
	t.Helper()
	if err := cc.c.Kill(i); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed replica %d (%s)", i, cc.c.Replicas[i-1])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cc.c.Restart(ctx, i); err != nil {
			t.Fatalf("restart replica %d: %v", i, err)
		}
		// nginx leaves a failed replica out for fail_timeout (2s).
		body, hdr := modernBody(1, "tools/call", "test_simple_text", allCaps, `"name":"test_simple_text","arguments":{}`)
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := cc.send(ctx, cc.c.URL, http.MethodPost, body, hdr...)
			if r.replica == i && r.failure() == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the restarted replica %d gets no request through nginx within 10s; last:\n%s", i, r)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestClusterModernFailover runs a stream of 2026-07-28 tool calls from
// several clients through nginx and SIGKILLs a replica in the middle:
// every answer that arrives is the right one, the calls in flight on the
// dead replica fail with an error naming it (nginx's 502, or the stream
// cut short), never on another replica, and a retry succeeds, a second
// input round included, on the replicas left.
func TestClusterModernFailover(t *testing.T) {
	cc := newClusterClient(t)
	cc.needReplicas(t, 2)
	const victim, clients = 2, 4
	const runFor, killAt = 4 * time.Second, 1500 * time.Millisecond

	type failure struct {
		what   string
		r      *reply
		killed bool // it started before the kill, or within killGrace
	}
	var (
		mu       sync.Mutex
		failures []failure
		answered int
		killedAt time.Time
		perRep   = map[int]int{}
	)
	ctx := t.Context()
	start := time.Now()
	stop := start.Add(runFor)

	// attempt runs one call, then retries it after a failure, checking
	// every answer that arrives; it returns the last reply.
	attempt := func(what string, send func() *reply, check func(*reply) string) *reply {
		for try := 0; ; try++ {
			sent := time.Now()
			r := send()
			mu.Lock()
			if f := r.failure(); f != "" {
				failures = append(failures, failure{what, r, killedAt.IsZero() || sent.Before(killedAt.Add(killGrace))})
				mu.Unlock()
				if try == 5 {
					t.Errorf("%s: still failing after 5 retries:\n%s", what, r)
					return r
				}
				time.Sleep(100 * time.Millisecond)
				continue
			}
			answered++
			perRep[r.replica]++
			mu.Unlock()
			if msg := check(r); msg != "" {
				t.Errorf("%s: a wrong answer: %s\n%s", what, msg, r)
			}
			return r
		}
	}
	wantText := func(want string) func(*reply) string {
		return func(r *reply) string {
			if got := toolText(r.response().Result); got != want {
				return fmt.Sprintf("text %q, want %q", got, want)
			}
			return ""
		}
	}

	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			for n := 0; time.Now().Before(stop); n++ {
				id := w*100000 + n
				switch n % 3 {
				case 0:
					label := fmt.Sprintf("client %d call %d", w, n)
					attempt(label+" slow_compute", func() *reply {
						return cc.modern(ctx, id, "tools/call", "slow_compute", "{}",
							fmt.Sprintf(`"name":"slow_compute","arguments":{"seconds":0.4,"label":%q}`, label))
					}, wantText(label+": computed in 0.4s"))
				case 1:
					attempt(fmt.Sprintf("client %d call %d test_simple_text", w, n), func() *reply {
						return cc.modern(ctx, id, "tools/call", "test_simple_text", "{}", `"name":"test_simple_text","arguments":{}`)
					}, wantText("This is a simple text response for testing."))
				case 2:
					// Two rounds, each on whichever replica nginx picks: the
					// requestState sealed by one must open on another.
					const call = `"name":"test_input_required_result_elicitation","arguments":{}`
					var state string
					attempt(fmt.Sprintf("client %d call %d elicitation round 1", w, n), func() *reply {
						return cc.modern(ctx, id, "tools/call", "test_input_required_result_elicitation", allCaps, call)
					}, func(r *reply) string {
						var ir struct {
							ResultType   string `json:"resultType"`
							RequestState string `json:"requestState"`
						}
						if json.Unmarshal(r.response().Result, &ir) != nil || ir.ResultType != "input_required" || ir.RequestState == "" {
							return "not input_required with a requestState"
						}
						state = ir.RequestState
						return ""
					})
					if state == "" {
						continue
					}
					answer := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"` + state + `"`
					attempt(fmt.Sprintf("client %d call %d elicitation round 2", w, n), func() *reply {
						return cc.modern(ctx, id+1, "tools/call", "test_input_required_result_elicitation", allCaps, call+answer)
					}, wantText("Hello, Alice!"))
				}
			}
		})
	}
	time.Sleep(killAt)
	mu.Lock()
	killedAt = time.Now()
	mu.Unlock()
	cc.killReplica(t, victim)
	wg.Wait()

	t.Logf("%d answers (per replica: %v), %d failed attempts", answered, perRep, len(failures))
	for _, f := range failures {
		t.Logf("failed: %s: %s", f.what, f.r)
		switch {
		case f.r.replica != 0 && f.r.replica != victim:
			t.Errorf("%s failed on replica %d, which was not killed:\n%s", f.what, f.r.replica, f.r)
		case f.r.replica == 0:
			t.Errorf("%s failed without naming a replica (no %s header):\n%s", f.what, cluster.UpstreamHeader, f.r)
		case !f.killed:
			t.Errorf("%s was sent to replica %d %v after it was killed, and failed (nginx should have passed it to another):\n%s", f.what, victim, killGrace, f.r)
		}
	}
	for i := 1; i <= len(cc.c.Replicas); i++ {
		if perRep[i] == 0 {
			t.Errorf("replica %d answered nothing: is nginx round-robin over all replicas?", i)
		}
	}
}

// TestClusterLegacySession opens a legacy session through nginx and calls
// tools in it, one call after another, so that round-robin sends them to
// every replica; then kills the replica that opened it and goes on: every
// call must be answered, with the same Mcp-Session-Id, by any replica.
func TestClusterLegacySession(t *testing.T) {
	cc := newClusterClient(t)
	cc.needReplicas(t, 2)
	sid, owner := cc.initialize(t, cc.c.URL)
	t.Logf("session %s opened on replica %d", sid, owner)
	killed := 0
	calls := func(phase string, n, from int) {
		ok := map[int]int{}
		for i := range n {
			id := from + i
			r := cc.legacy(t.Context(), cc.c.URL, sid, legacyCall(id, "test_simple_text", "{}"))
			for try := 0; try < 3 && killed != 0 && r.replica == killed && r.status == http.StatusBadGateway; try++ {
				// Sent to the dead replica on a kept-alive connection
				// (killGrace); the retry goes elsewhere.
				t.Logf("%s: call %d: 502 from the killed replica %d, retrying", phase, id, killed)
				r = cc.legacy(t.Context(), cc.c.URL, sid, legacyCall(id, "test_simple_text", "{}"))
			}
			if f := r.failure(); f != "" {
				t.Errorf("%s: call %d of session %s (opened on replica %d) on replica %d: %s\n%s", phase, id, sid, owner, r.replica, f, r)
				continue
			}
			if got := toolText(r.response().Result); got != "This is a simple text response for testing." {
				t.Errorf("%s: call %d on replica %d: text %q", phase, id, r.replica, got)
			}
			if h := r.header.Get("Mcp-Session-Id"); h != "" && h != sid {
				t.Errorf("%s: call %d on replica %d answered for session %q, not %q", phase, id, r.replica, h, sid)
			}
			ok[r.replica]++
		}
		t.Logf("%s: answered per replica: %v", phase, ok)
	}
	calls("all replicas up", 3*len(cc.c.Replicas), 1)
	cc.killReplica(t, owner)
	killed = owner
	calls(fmt.Sprintf("replica %d, which opened the session, killed", owner), 3*len(cc.c.Replicas), 100)
}

// TestClusterSSEResume checks that a legacy session's SSE stream resumes,
// with Last-Event-ID through nginx, on a replica other than the one that
// wrote it, once that one is dead: a stream the client read only in part
// is replayed from the event store, and a stream the kill cut in the
// middle of its call is taken up.
func TestClusterSSEResume(t *testing.T) {
	cc := newClusterClient(t)
	cc.needReplicas(t, 2)
	sid, owner := cc.initialize(t, cc.c.URL)
	t.Logf("session %s opened on replica %d", sid, owner)
	ownerURL := cc.replicaURL(owner)

	// A call's stream, read whole from the replica that owns the session:
	// its log messages and result are in Redis.
	whole := cc.legacy(t.Context(), ownerURL, sid, legacyCall(1, "test_tool_with_logging", "{}"))
	if f := whole.failure(); f != "" || len(whole.events) < 3 || whole.events[0].id == "" {
		t.Fatalf("test_tool_with_logging on replica %d, straight: %s, want a priming event, log messages and the result\n%s", owner, f, whole)
	}
	// A call whose stream the kill cuts: the priming event, then nothing
	// for two seconds.
	var primed sseEvent
	cut := cc.stream(t.Context(), ownerURL, http.MethodPost, legacyCall(2, "slow_compute", `{"seconds":2,"label":"cut"}`), func(e sseEvent) bool {
		primed = e
		return false
	}, "Mcp-Session-Id", sid, "MCP-Protocol-Version", legacyVersion)
	if primed.id == "" {
		t.Fatalf("slow_compute on replica %d, straight: no priming event with an id\n%s", owner, cut)
	}
	cc.killReplica(t, owner)

	// Missed events: the client says it saw only the priming event of the
	// first stream; another replica replays the rest from Redis, the same.
	resumed := cc.send(t.Context(), cc.c.URL, http.MethodGet, "", "Mcp-Session-Id", sid, "MCP-Protocol-Version", legacyVersion, "Last-Event-ID", whole.events[0].id)
	if resumed.err != nil || resumed.status != http.StatusOK {
		t.Errorf("GET with Last-Event-ID %s (a complete stream of replica %d, now dead) through nginx: want 200 and the events after it, got\n%s", whole.events[0].id, owner, resumed)
	} else {
		var want, got []string
		for _, e := range whole.events[1:] {
			want = append(want, e.id+" "+e.data)
		}
		for _, e := range resumed.events {
			if e.data != "" {
				got = append(got, e.id+" "+e.data)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the replay on replica %d of the stream after %s differs from what replica %d sent:\nreplayed:\n\t%s\nsent:\n\t%s",
				resumed.replica, whole.events[0].id, owner, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}

	// The cut stream: another replica takes it up. Its call died with its
	// replica, so no result can come; the GET must be taken, not refused,
	// and must not hang past the bound.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	taken := cc.send(ctx, cc.c.URL, http.MethodGet, "", "Mcp-Session-Id", sid, "MCP-Protocol-Version", legacyVersion, "Last-Event-ID", primed.id)
	if taken.status != http.StatusOK {
		t.Errorf("GET with Last-Event-ID %s (a stream cut by the kill of replica %d) through nginx: want 200, got\n%s", primed.id, owner, taken)
	} else {
		t.Logf("the cut stream, resumed: %s", taken)
	}
}

// TestClusterRedisOutage stops Redis (SIGSTOP) while requests that need it
// run through nginx: each fails with an error within requestBound rather
// than hang, and the same requests succeed once Redis runs again.
func TestClusterRedisOutage(t *testing.T) {
	cc := newClusterClient(t)
	pid, err := cc.c.RedisPid()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const taskCaps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	created := cc.modern(ctx, 1, "tools/call", "slow_compute", taskCaps, `"name":"slow_compute","arguments":{"seconds":0,"label":"before"}`)
	var task struct {
		TaskID string `json:"taskId"`
	}
	if f := created.failure(); f != "" || json.Unmarshal(created.response().Result, &task) != nil || task.TaskID == "" {
		t.Fatalf("slow_compute as a task before the outage: %s\n%s", f, created)
	}
	// A legacy session opened before the outage, called on its own
	// replica: that a session is served by its replica alone is
	// TestClusterLegacySession's matter, not this test's.
	sid, owner := cc.initialize(t, cc.replicaURL(1))
	ownerURL := cc.replicaURL(owner)
	// The requests that read or write Redis: a task created (task store),
	// a task read, a legacy session opened (session store), and a call in
	// one, whose SSE events go to the event store: that one may still be
	// answered, its events only kept for a resumption that cannot come.
	requests := []struct {
		what      string
		send      func() *reply
		mayAnswer bool
	}{
		{"tasks: slow_compute as a task", func() *reply {
			return cc.modern(ctx, 2, "tools/call", "slow_compute", taskCaps, `"name":"slow_compute","arguments":{"seconds":0,"label":"during"}`)
		}, false},
		{"tasks/get", func() *reply {
			return cc.modern(ctx, 3, "tasks/get", task.TaskID, taskCaps, `"taskId":"`+task.TaskID+`"`)
		}, false},
		{"legacy initialize", func() *reply {
			return cc.send(ctx, cc.c.URL, http.MethodPost,
				`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"`+legacyVersion+`","capabilities":{},"clientInfo":{"name":"cluster-test","version":"1"}}}`)
		}, false},
		{"legacy tools/call on the session's replica", func() *reply {
			return cc.legacy(ctx, ownerURL, sid, legacyCall(5, "test_simple_text", "{}"))
		}, true},
	}
	// A 2026-07-28 call of a tool that keeps no state needs no Redis, and
	// must not suffer from its outage.
	stateless := func() *reply {
		return cc.modern(ctx, 6, "tools/call", "test_simple_text", "{}", `"name":"test_simple_text","arguments":{}`)
	}

	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(resume)
	t.Logf("stopped redis-server (pid %d)", pid)
	var wg sync.WaitGroup
	replies := make([]*reply, len(requests))
	for i, req := range requests {
		wg.Go(func() { replies[i] = req.send() })
	}
	for i := range cc.c.Replicas {
		// Not timed: that it makes no Redis round trip is
		// store/redis's TestRoundTripsPerCall; here it must answer.
		if r := stateless(); r.failure() != "" {
			t.Errorf("a stateless 2026-07-28 call (%d of %d) with Redis stopped: %s, want its answer\n%s", i+1, len(cc.c.Replicas), r.failure(), r)
		} else {
			t.Logf("a stateless 2026-07-28 call with Redis stopped: answered after %v", r.elapsed.Round(time.Millisecond))
		}
	}
	wg.Wait()
	for i, req := range requests {
		r := replies[i]
		f := r.failure()
		switch {
		case errors.Is(r.err, context.DeadlineExceeded) || r.elapsed >= requestBound:
			t.Errorf("%s with Redis stopped: no answer within %v (a hang)\n%s", req.what, requestBound, r)
		case f == "" && req.mayAnswer:
			t.Logf("%s with Redis stopped: answered after %v\n%s", req.what, r.elapsed.Round(time.Millisecond), r)
		case f == "":
			t.Errorf("%s with Redis stopped: succeeded, want an error saying the store does not answer\n%s", req.what, r)
		default:
			t.Logf("%s with Redis stopped: failed as it should, after %v: %s\n%s", req.what, r.elapsed.Round(time.Millisecond), f, r)
		}
	}

	resume()
	t.Logf("continued redis-server")
	for _, req := range requests {
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := req.send()
			if r.failure() == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: still failing 10s after Redis came back:\n%s", req.what, r)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
