package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/bus"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// cluster is n replicas, each a Handler over an engine of its own, that
// share one session store, one event store and one bus, as replicas
// behind a load balancer share Redis.
type cluster struct {
	handlers []*Handler
	servers  []*httptest.Server
	engines  []*server.Server
	events   *MemoryEventStore
	sessions *MemorySessionStore
}

func newCluster(t *testing.T, n int, engine func(i int) *server.Server) *cluster {
	t.Helper()
	b := bus.NewMemory(0)
	t.Cleanup(func() { b.Close() })
	return newClusterOn(t, n, b, engine)
}

// newClusterOn is newCluster over the bus b.
func newClusterOn(t *testing.T, n int, b bus.Bus, engine func(i int) *server.Server) *cluster {
	t.Helper()
	c := &cluster{events: NewMemoryEventStore(0, 0), sessions: NewMemorySessionStore()}
	for i := range n {
		srv := engine(i)
		h, ts := serveEngine(t, srv, &HandlerOptions{Sessions: c.sessions, Events: c.events, Bus: b})
		c.handlers = append(c.handlers, h)
		c.servers = append(c.servers, ts)
		c.engines = append(c.engines, srv)
	}
	return c
}

// at points the client at replica i.
func (c *client) at(cl *cluster, i int) *client {
	c.url = cl.servers[i].URL
	return c
}

// addWarn registers the tool warn, which logs a warning and answers ok.
func addWarn(t testing.TB, s *server.Server) {
	addTool(t, s, "warn", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if err := server.Log(ctx, mcp.LoggingLevelWarning, "warn", "careful"); err != nil {
			return nil, err
		}
		return textResult("ok"), nil
	})
}

func engines(t *testing.T) func(int) *server.Server {
	return func(int) *server.Server {
		s := newMCP(t)
		addWarn(t, s)
		return s
	}
}

// result returns the text of a tools/call response among msgs, and the
// methods of the other messages.
func result(t *testing.T, msgs []string) (text string, methods []string) {
	t.Helper()
	for _, m := range msgs {
		if mm := method(t, m); mm != "" {
			methods = append(methods, mm)
			continue
		}
		var r struct {
			Result struct {
				Content []struct{ Text string }
			}
			Error *struct{ Message string }
		}
		if err := json.Unmarshal([]byte(m), &r); err != nil {
			t.Fatalf("response %s: %v", m, err)
		}
		if r.Error != nil {
			t.Fatalf("error response %s", m)
		}
		if len(r.Result.Content) > 0 {
			text = r.Result.Content[0].Text
		}
	}
	return text, methods
}

func TestReplicaServesAnotherReplicasSession(t *testing.T) {
	cl := newCluster(t, 3, engines(t))
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	for i, replica := range []int{1, 2, 0, 1} {
		resp := c.at(cl, replica).do("POST", callBody(i+1, "echo", `{"text":"hi"}`))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("call on replica %d: %s", replica, resp.Status)
		}
		if text, _ := result(t, messages(t, resp)); text != "hi" {
			t.Fatalf("call on replica %d answered %q", replica, text)
		}
	}
	for i, h := range cl.handlers {
		if h.byIDForTest(c.sid) == nil {
			t.Fatalf("replica %d does not run the session", i)
		}
	}
	if n := cl.sessions.Len(); n != 1 {
		t.Fatalf("the store holds %d records, want 1", n)
	}

	// A DELETE on one replica ends the session on all of them.
	if code, body := c.at(cl, 2).status("DELETE", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	eventually(t, "every replica ends the session", func() bool {
		for _, h := range cl.handlers {
			if h.byIDForTest(c.sid) != nil {
				return false
			}
		}
		return true
	})
	for i := range cl.handlers {
		if code, _ := c.at(cl, i).status("POST", callBody(9, "echo", `{"text":"hi"}`)); code != http.StatusNotFound {
			t.Fatalf("call on replica %d after DELETE: %d, want 404", i, code)
		}
	}
	if n := cl.sessions.Len(); n != 0 {
		t.Fatalf("the store holds %d records after DELETE", n)
	}
}

// slowBus is a bus.Memory whose subscribers hear each message late, as
// the replicas of a loaded machine do: a replica may get the client's
// next request before what the bus brings it.
type slowBus struct {
	*bus.Memory
	delay time.Duration
}

func (b slowBus) Subscribe(ctx context.Context, topic string, deliver func([]byte)) (func(), error) {
	return b.Memory.Subscribe(ctx, topic, func(msg []byte) {
		time.Sleep(b.delay)
		deliver(msg)
	})
}

// uncounted hides a bus's PublishCount: a bus that cannot say how many
// subscriptions took a message.
type uncounted struct{ bus.Bus }

// A DELETE is answered once no replica runs the session any more, on a
// bus that counts its receivers, whichever replica it reaches: the one
// that runs the session or one that does not. On a bus that cannot count
// the session still ends everywhere, later.
func TestReplicaDeleteEndsTheSessionEverywhereFirst(t *testing.T) {
	for _, tc := range []struct {
		name    string
		counted bool
		via     int  // the replica the DELETE reaches; 0 and 1 run the session
		silent  bool // a subscriber that never confirms is counted: waited for until endConfirmWait
	}{
		{"on a replica that runs it", true, 1, false},
		{"on a replica that does not", true, 2, false},
		{"on a bus that cannot count", false, 1, false},
		{"with a subscriber that never confirms", true, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := bus.NewMemory(0)
			t.Cleanup(func() { m.Close() })
			var b bus.Bus = slowBus{m, 50 * time.Millisecond}
			if !tc.counted {
				b = uncounted{b}
			}
			if tc.silent {
				stop, err := m.Subscribe(t.Context(), DefaultBusTopic, func([]byte) {})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(stop)
			}
			cl := newClusterOn(t, 3, b, engines(t))
			c := newClient(t, cl.servers[0])
			c.initialize("2025-11-25", "")
			if code, body := c.at(cl, 1).status("POST", callBody(1, "echo", `{"text":"hi"}`)); code != http.StatusOK {
				t.Fatalf("call on replica 1: %d %s", code, body)
			}
			if code, body := c.at(cl, tc.via).status("DELETE", ""); code != http.StatusNoContent {
				t.Fatalf("DELETE on replica %d: %d %s", tc.via, code, body)
			}
			gone := func() bool {
				for _, h := range cl.handlers {
					if h.byIDForTest(c.sid) != nil {
						return false
					}
				}
				return true
			}
			if !tc.counted {
				eventually(t, "every replica ends the session", gone)
			} else if !gone() {
				t.Fatal("DELETE answered while a replica still runs the session")
			}
			for i := range cl.handlers {
				if code, _ := c.at(cl, i).status("POST", callBody(9, "echo", `{"text":"hi"}`)); code != http.StatusNotFound {
					t.Fatalf("call on replica %d after DELETE: %d, want 404", i, code)
				}
			}
		})
	}
}

// gatedSessions holds the first Get after armed, once it read the
// record, until release is closed; held closes when it does.
type gatedSessions struct {
	*MemorySessionStore
	armed   atomic.Bool
	held    chan struct{}
	release chan struct{}
}

func (g *gatedSessions) Get(ctx context.Context, id string) (SessionRecord, error) {
	rec, err := g.MemorySessionStore.Get(ctx, id)
	if g.armed.CompareAndSwap(true, false) {
		close(g.held)
		<-g.release
	}
	return rec, err
}

// A replica that read a session's record just before the DELETE, and so
// heard its end before it ran the session, does not serve it after the
// DELETE was answered.
func TestReplicaAdoptingWhileTheSessionEnds(t *testing.T) {
	b := bus.NewMemory(0)
	t.Cleanup(func() { b.Close() })
	store := &gatedSessions{MemorySessionStore: NewMemorySessionStore(), held: make(chan struct{}), release: make(chan struct{})}
	events := NewMemoryEventStore(0, 0)
	var hs []*Handler
	var urls []string
	for range 2 {
		h, ts := serveEngine(t, newMCP(t), &HandlerOptions{Sessions: store, Events: events, Bus: b})
		hs, urls = append(hs, h), append(urls, ts.URL)
	}
	c := &client{t: t, url: urls[0], hc: &http.Client{Timeout: 10 * time.Second}}
	c.initialize("2025-11-25", "")

	store.armed.Store(true)
	var once sync.Once
	release := func() { once.Do(func() { close(store.release) }) }
	t.Cleanup(release) // a failure below must not leave replica 1 held, nor its Close waiting
	adopter := *c
	adopter.url = urls[1]
	req := adopter.request(t.Context(), "POST", callBody(1, "echo", `{"text":"late"}`))
	answered := make(chan int, 1)
	go func() {
		resp, err := adopter.hc.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-store.held // replica 1 has read the record
	if code, body := c.status("DELETE", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE on replica 0: %d %s", code, body)
	}
	release()
	if code := <-answered; code != http.StatusNotFound {
		t.Fatalf("the call replica 1 took up before the DELETE, answered after it: %d, want 404", code)
	}
	if hs[1].byIDForTest(c.sid) != nil {
		t.Fatal("replica 1 runs the deleted session")
	}
}

// countedSessions counts the reads of its records.
type countedSessions struct {
	*MemorySessionStore
	gets atomic.Int64
}

func (c *countedSessions) Get(ctx context.Context, id string) (SessionRecord, error) {
	c.gets.Add(1)
	return c.MemorySessionStore.Get(ctx, id)
}

// A replica serving a session reads its record now and then, which keeps a
// store's idle expiry from dropping the record of a session in use on that
// replica alone; not on every request.
func TestReplicaKeepsTheRecordOfASessionInUse(t *testing.T) {
	b := bus.NewMemory(0)
	t.Cleanup(func() { b.Close() })
	store := &countedSessions{MemorySessionStore: NewMemorySessionStore()}
	_, ts := serveEngine(t, newMCP(t), &HandlerOptions{Sessions: store, Events: NewMemoryEventStore(0, 0), Bus: b})
	c := newClient(t, ts)
	c.initialize("2025-11-25", "")
	for i := range 5 {
		if code, body := c.status("POST", callBody(i+1, "echo", `{"text":"hi"}`)); code != http.StatusOK {
			t.Fatalf("call %d: %d %s", i+1, code, body)
		}
	}
	if n := store.gets.Load(); n != 0 {
		t.Fatalf("5 calls on the session's replica read its record %d times, want none within recordKeepEvery", n)
	}

	defer func(every time.Duration) { recordKeepEvery = every }(recordKeepEvery)
	recordKeepEvery = 0
	if code, body := c.status("POST", callBody(6, "echo", `{"text":"hi"}`)); code != http.StatusOK {
		t.Fatalf("call 6: %d %s", code, body)
	}
	eventually(t, "a read of the record once recordKeepEvery has passed", func() bool { return store.gets.Load() > 0 })
}

func TestReplicaRefusesAnotherOwnersSession(t *testing.T) {
	b := bus.NewMemory(0)
	t.Cleanup(func() { b.Close() })
	sessions, events := NewMemorySessionStore(), NewMemoryEventStore(0, 0)
	auth := func(r *http.Request) (any, error) { return r.Header.Get("X-User"), nil }
	var urls []string
	for range 2 {
		_, ts := serveEngine(t, newMCP(t), &HandlerOptions{Sessions: sessions, Events: events, Bus: b, Authenticate: auth})
		urls = append(urls, ts.URL)
	}
	c := &client{t: t, url: urls[0], hc: &http.Client{Timeout: 10 * time.Second}}
	resp := c.do("POST", initBody("2025-11-25", ""), "X-User", "ada")
	resp.Body.Close()
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	c.url = urls[1]
	if code, _ := c.status("POST", callBody(1, "echo", `{"text":"x"}`), "X-User", "eve"); code != http.StatusNotFound {
		t.Fatalf("another user's call on the other replica: %d, want 404", code)
	}
	if code, _ := c.status("DELETE", "", "X-User", "eve"); code != http.StatusNotFound {
		t.Fatalf("another user's DELETE on the other replica: %d, want 404", code)
	}
	if code, _ := c.status("POST", callBody(2, "echo", `{"text":"x"}`), "X-User", "ada"); code != http.StatusOK {
		t.Fatalf("the owner's call on the other replica: %d, want 200", code)
	}
}

// An identity without a stable text keeps its session on its replica.
func TestReplicaKeepsAnUnnamedOwnersSession(t *testing.T) {
	type user struct{ name []string }
	b := bus.NewMemory(0)
	t.Cleanup(func() { b.Close() })
	sessions, events := NewMemorySessionStore(), NewMemoryEventStore(0, 0)
	u := &user{name: []string{"ada"}}
	auth := func(r *http.Request) (any, error) { return u, nil }
	var urls []string
	for range 2 {
		_, ts := serveEngine(t, newMCP(t), &HandlerOptions{Sessions: sessions, Events: events, Bus: b, Authenticate: auth})
		urls = append(urls, ts.URL)
	}
	c := &client{t: t, url: urls[0], hc: &http.Client{Timeout: 10 * time.Second}}
	c.initialize("2025-11-25", "")
	c.url = urls[1]
	if code, _ := c.status("POST", callBody(1, "echo", `{"text":"x"}`)); code != http.StatusNotFound {
		t.Fatalf("call on the other replica: %d, want 404", code)
	}
}

// The client answers a replica's question on another replica.
func TestReplicaRelaysTheClientsResponse(t *testing.T) {
	cl := newCluster(t, 3, engines(t))
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", `{"elicitation":{}}`)

	resp := c.at(cl, 1).do("POST", callBody(1, "chatty", ""))
	defer resp.Body.Close()
	sse := newSSE(resp)
	var question string
	for question == "" {
		ev, err := sse.next()
		if err != nil {
			t.Fatalf("the stream ended before the question: %v", err)
		}
		if ev.data != "" && method(t, ev.data) == "elicitation/create" {
			question = ev.data
		}
	}
	var q struct{ ID json.RawMessage }
	json.Unmarshal([]byte(question), &q)
	answer := `{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"accept","content":{"name":"Ada"}}}`
	if code, body := c.at(cl, 2).status("POST", answer); code != http.StatusAccepted {
		t.Fatalf("the answer on another replica: %d %s", code, body)
	}
	var rest []string
	for {
		ev, err := sse.next()
		if err != nil {
			break
		}
		if ev.data != "" {
			rest = append(rest, ev.data)
		}
	}
	if text, _ := result(t, rest); text != "accept:Ada" {
		t.Fatalf("chatty answered %q, after %q", text, rest)
	}
}

func TestReplicaSharesTheLogLevel(t *testing.T) {
	cl := newCluster(t, 2, engines(t))
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	// Replica 1 brings the session up before the level changes, and
	// hears of the change from the bus.
	if _, methods := result(t, messages(t, c.at(cl, 1).do("POST", callBody(1, "warn", "")))); !containsMethod(methods, "notifications/message") {
		t.Fatalf("warn logged nothing at the default level: %q", methods)
	}
	setLevel := `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`
	if code, body := c.at(cl, 0).status("POST", setLevel); code != http.StatusOK {
		t.Fatalf("setLevel: %d %s", code, body)
	}
	eventually(t, "replica 1 applies the level", func() bool {
		_, methods := result(t, messages(t, c.at(cl, 1).do("POST", callBody(3, "warn", ""))))
		return !containsMethod(methods, "notifications/message")
	})
	rec, err := cl.sessions.Get(t.Context(), c.sid)
	if err != nil || rec.LogLevel != "error" {
		t.Fatalf("record %+v, %v: want level error", rec, err)
	}

	// A replica that brings the session up later reads it from the record.
	cl2 := newCluster(t, 2, engines(t))
	c2 := newClient(t, cl2.servers[0])
	c2.initialize("2025-11-25", "")
	if code, _ := c2.status("POST", setLevel); code != http.StatusOK {
		t.Fatalf("setLevel: %d", code)
	}
	if _, methods := result(t, messages(t, c2.at(cl2, 1).do("POST", callBody(3, "warn", "")))); containsMethod(methods, "notifications/message") {
		t.Fatalf("warn logged at level error on a replica brought up later: %q", methods)
	}
}

func containsMethod(methods []string, m string) bool {
	for _, x := range methods {
		if x == m {
			return true
		}
	}
	return false
}

// What a replica without the GET stream sends there reaches the client
// through the replica that holds it, and the client's answer finds its
// way back.
func TestReplicaRelaysToTheGetStream(t *testing.T) {
	roots := make(chan string, 1)
	cl := newCluster(t, 3, func(int) *server.Server {
		return server.New(mcp.Implementation{Name: "test", Version: "1"}, &server.Options{
			OnRootsListChanged: func(ctx context.Context, s *server.Session) {
				r, err := s.ListRoots(ctx)
				if err != nil {
					roots <- "error: " + err.Error()
					return
				}
				roots <- r.Roots[0].URI
			},
		})
	})
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", `{"roots":{"listChanged":true}}`)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	get, err := c.hc.Do(c.at(cl, 0).request(ctx, "GET", ""))
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", err, get.Status)
	}
	defer get.Body.Close()
	sse := newSSE(get)
	// Replica 1 brings the session up; a GET stream taken on replica 0
	// after that would be announced, this one was before.
	if code, body := c.at(cl, 1).status("POST", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); code != http.StatusAccepted {
		t.Fatalf("list_changed: %d %s", code, body)
	}
	var ask string
	for ask == "" {
		ev, err := sse.next()
		if err != nil {
			select {
			case r := <-roots:
				t.Fatalf("the GET stream ended: %v; the callback got %s", err, r)
			default:
			}
			t.Fatalf("the GET stream ended: %v", err)
		}
		if ev.data != "" {
			ask = ev.data
		}
	}
	if method(t, ask) != "roots/list" {
		t.Fatalf("the GET stream carried %s", ask)
	}
	var q struct{ ID json.RawMessage }
	json.Unmarshal([]byte(ask), &q)
	answer := `{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"roots":[{"uri":"file:///ada"}]}}`
	if code, body := c.at(cl, 2).status("POST", answer); code != http.StatusAccepted {
		t.Fatalf("the answer: %d %s", code, body)
	}
	select {
	case got := <-roots:
		if got != "file:///ada" {
			t.Fatalf("roots/list gave %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer never reached the replica that asked")
	}
}

// A GET stream cut on one replica resumes on another with Last-Event-ID.
func TestReplicaResumesAnotherReplicasGetStream(t *testing.T) {
	cl := newCluster(t, 2, engines(t))
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	ctx, cancel := context.WithCancel(t.Context())
	get, err := c.hc.Do(c.at(cl, 0).request(ctx, "GET", ""))
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v", err)
	}
	sse := newSSE(get)
	prime, err := sse.next()
	if err != nil || !prime.hasID {
		t.Fatalf("no priming event: %+v %v", prime, err)
	}
	addEcho(t, cl.engines[0]) // a list change on replica 0's stream
	ev, err := sse.next()
	if err != nil || !strings.Contains(ev.data, "notifications/tools/list_changed") {
		t.Fatalf("GET stream: %+v %v", ev, err)
	}
	cancel()
	get.Body.Close()
	eventually(t, "replica 0 lets go of the stream", func() bool {
		s := cl.handlers[0].byIDForTest(c.sid)
		s.mu.Lock()
		defer s.mu.Unlock()
		return !s.standalone.attached
	})

	// Resumed on replica 1 from the priming event: replica 0's event is
	// replayed, then replica 1's own follow on the same response.
	ctx2, cancel2 := context.WithCancel(t.Context())
	defer cancel2()
	resumed, err := c.hc.Do(c.at(cl, 1).request(ctx2, "GET", "", "Last-Event-ID", prime.id))
	if err != nil || resumed.StatusCode != http.StatusOK {
		t.Fatalf("resume on replica 1: %v %v", err, resumed.Status)
	}
	defer resumed.Body.Close()
	rs := newSSE(resumed)
	first, err := rs.next()
	if err != nil || first.id != ev.id || first.data != ev.data {
		t.Fatalf("resumed with %+v %v, want %+v", first, err, ev)
	}
	cl.engines[1].RemoveTool("echo")
	next, err := rs.next()
	if err != nil || !strings.Contains(next.data, "notifications/tools/list_changed") {
		t.Fatalf("the resumed stream then carried %+v %v", next, err)
	}
	if next.id == ev.id || strings.Split(next.id, "-")[0] == strings.Split(ev.id, "-")[0] {
		t.Fatalf("replica 1's event id %q is not of a stream of its own (replica 0's was %q)", next.id, ev.id)
	}
}

func TestReplicaNumbersApart(t *testing.T) {
	seen := map[uint64]bool{}
	for range 100 {
		b := randomBase()
		if b == 0 || b >= 1<<52 || b&(1<<streamBaseBits-1) != 0 || seen[b] {
			t.Fatalf("base %d", b)
		}
		seen[b] = true
	}
	for _, tc := range []struct {
		identity any
		want     string
		ok       bool
	}{
		{nil, "", true},
		{"ada", "string:ada", true},
		{42, "int:42", true},
		{[]string{"ada"}, "", false},
		{struct{ A string }{"a"}, "", false},
	} {
		got, ok := ownerKey(tc.identity)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ownerKey(%#v) = %q, %t; want %q, %t", tc.identity, got, ok, tc.want, tc.ok)
		}
	}
}

func TestReplicaDropsMalformedBusMessages(t *testing.T) {
	cl := newCluster(t, 1, engines(t))
	h := cl.handlers[0]
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	for _, msg := range []string{
		``, `{`, `[]`, `{"o":"x"}`, `{"o":"x","s":"` + c.sid + `","k":"nonsense"}`,
		`{"o":"x","s":"` + c.sid + `","k":"response","f":"not json"}`,
		`{"o":"x","s":"` + c.sid + `","k":"cancel","f":{"jsonrpc":"2.0"}}`,
		`{"o":"x","s":"` + c.sid + `","k":"apply","m":"tools/call","f":{}}`,
		`{"o":"x","s":"` + c.sid + `","k":"standalone","f":{"jsonrpc":"2.0","method":"x"}}`,
		`{"o":"x","s":"unknown","k":"end"}`,
	} {
		h.delivered([]byte(msg))
	}
	h.delivered(make([]byte, maxRelayBytes+1))
	if text, _ := result(t, messages(t, c.do("POST", callBody(1, "echo", `{"text":"still"}`)))); text != "still" {
		t.Fatalf("after malformed bus messages the session answered %q", text)
	}
}

// A task one replica runs for a session is the session's on the others.
func TestReplicaSharesTheSessionsTasks(t *testing.T) {
	store := tasks.NewMemoryStore(tasks.Options{})
	release := make(chan struct{})
	cl := newCluster(t, 2, func(int) *server.Server {
		s := server.New(mcp.Implementation{Name: "test", Version: "1"}, &server.Options{TaskStore: store})
		var def mcp.Tool
		json.Unmarshal([]byte(`{"name":"job","inputSchema":{"type":"object"}}`), &def)
		err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return textResult("done"), nil
		}, server.WithTaskSupport(server.TaskOptional))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", `{"tasks":{}}`)
	msgs := messages(t, c.do("POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},"task":{"ttl":60000}}}`))
	var created struct {
		Result struct{ Task struct{ TaskID string } }
	}
	if len(msgs) != 1 || json.Unmarshal([]byte(msgs[0]), &created) != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("tools/call with a task answered %q", msgs)
	}
	get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + created.Result.Task.TaskID + `"}}`
	if msgs := messages(t, c.at(cl, 1).do("POST", get)); len(msgs) != 1 || !strings.Contains(msgs[0], `"status":"working"`) {
		t.Fatalf("tasks/get on the other replica: %q", msgs)
	}
	close(release)
	eventually(t, "the task completes", func() bool {
		msgs := messages(t, c.at(cl, 1).do("POST", get))
		return len(msgs) == 1 && strings.Contains(msgs[0], `"status":"completed"`)
	})

	// Another session, on the same replica, does not see it.
	other := newClient(t, cl.servers[1])
	other.initialize("2025-11-25", `{"tasks":{}}`)
	if msgs := messages(t, other.do("POST", get)); len(msgs) != 1 || !strings.Contains(msgs[0], `"error"`) {
		t.Fatalf("another session's tasks/get: %q", msgs)
	}
}

func TestReplicaRemembersTheSessionsState(t *testing.T) {
	s := &session{}
	steps := []struct {
		method, params string
		changed        bool
		level          string
		subs           string
	}{
		{"logging/setLevel", `{"level":"error"}`, true, "error", ""},
		{"logging/setLevel", `{"level":"error"}`, false, "error", ""},
		{"resources/subscribe", `{"uri":"file:///a"}`, true, "error", "file:///a"},
		{"resources/subscribe", `{"uri":"file:///b"}`, true, "error", "file:///a file:///b"},
		{"resources/subscribe", `{"uri":"file:///a"}`, false, "error", "file:///a file:///b"},
		{"resources/unsubscribe", `{"uri":"file:///a"}`, true, "error", "file:///b"},
		{"resources/unsubscribe", `{"uri":"file:///zzz"}`, false, "error", "file:///b"},
		{"resources/subscribe", `not json`, false, "error", "file:///b"},
	}
	for _, st := range steps {
		if got := s.remember(st.method, []byte(st.params)); got != st.changed {
			t.Errorf("%s %s changed the record: %t, want %t", st.method, st.params, got, st.changed)
		}
		if s.record.LogLevel != st.level || strings.Join(s.record.Subscriptions, " ") != st.subs {
			t.Errorf("after %s %s: level %q, subscriptions %q", st.method, st.params, s.record.LogLevel, s.record.Subscriptions)
		}
	}
	for i := range maxRecordedSubscriptions + 10 {
		s.remember("resources/subscribe", []byte(`{"uri":"file:///`+strconv.Itoa(i)+`"}`))
	}
	if n := len(s.record.Subscriptions); n != maxRecordedSubscriptions {
		t.Errorf("the record keeps %d subscriptions, want the bound %d", n, maxRecordedSubscriptions)
	}
}

// A cancellation sent to another replica stops the request.
func TestReplicaRelaysTheClientsCancellation(t *testing.T) {
	cl := newCluster(t, 2, engines(t))
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	c.at(cl, 1).status("POST", callBody(1, "echo", `{"text":"up"}`)) // replica 1 runs the session
	done := make(chan []string, 1)
	req := c.request(context.Background(), "POST", callBody(7, "wait", ""))
	go func() {
		resp, err := c.hc.Do(req)
		if err != nil {
			done <- []string{err.Error()}
			return
		}
		done <- messages(t, resp)
	}()
	eventually(t, "replica 1 serves the call", func() bool {
		return slices.Contains(cl.handlers[1].byIDForTest(c.sid).requestIDsForTest(), "7")
	})
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
	if code, body := c.at(cl, 0).status("POST", cancel); code != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", code, body)
	}
	select {
	case msgs := <-done:
		for _, m := range msgs {
			if method(t, m) == "" {
				t.Fatalf("the cancelled call was answered: %q", msgs)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation never reached the replica serving the call")
	}
}

// A POST's stream cut on one replica resumes on another, which follows
// the events the first one goes on writing until the response.
func TestReplicaFollowsAnotherReplicasPostStream(t *testing.T) {
	release := make(chan struct{})
	cl := newCluster(t, 2, func(int) *server.Server {
		s := newMCP(t)
		addTool(t, s, "slow", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if err := server.Log(ctx, mcp.LoggingLevelWarning, "slow", "almost"); err != nil {
				return nil, err
			}
			return textResult("late"), nil
		})
		return s
	})
	c, prime := cutCall(t, cl, "slow")

	resumed, err := c.hc.Do(c.at(cl, 1).request(t.Context(), "GET", "", "Last-Event-ID", prime.id))
	if err != nil || resumed.StatusCode != http.StatusOK {
		t.Fatalf("resume on replica 1: %v %v", err, resumed.Status)
	}
	defer resumed.Body.Close()
	close(release)
	var got []string
	rs := newSSE(resumed)
	for {
		ev, err := rs.next()
		if err != nil {
			break // the stream ends after the response
		}
		if ev.data != "" {
			got = append(got, ev.data)
		}
	}
	text, methods := result(t, got)
	if text != "late" || !containsMethod(methods, "notifications/message") {
		t.Fatalf("the resumed stream carried %q", got)
	}
}

// notifications/initialized sent to another replica: the replica that
// answered initialize still asks the client questions.
func TestReplicaInitializedElsewhere(t *testing.T) {
	cl := newCluster(t, 2, engines(t))
	c := newClient(t, cl.servers[0])
	resp := c.do("POST", initBody("2025-11-25", `{"elicitation":{}}`))
	resp.Body.Close()
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if code, _ := c.at(cl, 1).status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Fatalf("notifications/initialized on replica 1: %d", code)
	}
	resp = c.at(cl, 0).do("POST", callBody(1, "chatty", ""))
	defer resp.Body.Close()
	sse := newSSE(resp)
	for {
		ev, err := sse.next()
		if err != nil {
			t.Fatalf("the stream ended without a question: %v", err)
		}
		if ev.data == "" {
			continue
		}
		if method(t, ev.data) == "elicitation/create" {
			return
		}
		if method(t, ev.data) == "" {
			t.Fatalf("chatty answered without asking: %s", ev.data)
		}
	}
}

// shortTails makes a followed stream's probes quick for one test.
func shortTails(t *testing.T) {
	probe, dead := tailProbe, tailDead
	tailProbe, tailDead = 50*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { tailProbe, tailDead = probe, dead })
}

// A followed stream whose writer is alive but quiet for longer than the
// probes' bound is not ended: the writer answers the probes.
func TestReplicaKeepsFollowingAQuietStream(t *testing.T) {
	shortTails(t)
	release := make(chan struct{})
	cl := newCluster(t, 2, func(int) *server.Server {
		s := newMCP(t)
		addTool(t, s, "slow", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return textResult("late"), nil
		})
		return s
	})
	c, prime := cutCall(t, cl, "slow")
	resumed, err := c.hc.Do(c.at(cl, 1).request(t.Context(), "GET", "", "Last-Event-ID", prime.id))
	if err != nil || resumed.StatusCode != http.StatusOK {
		t.Fatalf("resume on replica 1: %v", err)
	}
	defer resumed.Body.Close()
	time.Sleep(4 * tailDead) // quiet for longer than a dead writer may be
	close(release)
	if text, _ := result(t, messages(t, resumed)); text != "late" {
		t.Fatal("the stream of a live but quiet replica was ended before its response")
	}
}

// A followed stream that no replica writes any more (its replica died)
// ends once the probes go unanswered, instead of holding the client.
func TestReplicaEndsTheStreamOfADeadReplica(t *testing.T) {
	shortTails(t)
	cl := newCluster(t, 2, engines(t))
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	// Events of a POST stream of a replica that has gone: stored, with
	// no last one.
	const num = 5 << streamBaseBits
	for seq := uint64(1); seq <= 2; seq++ {
		frame := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` + strconv.FormatUint(seq, 10) + `}}`)
		if err := cl.events.Append(t.Context(), c.sid, Event{Stream: num + 1, Seq: seq, Data: frame}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, err := c.hc.Do(c.at(cl, 1).request(ctx, "GET", "", "Last-Event-ID", eventID(num+1, 1)))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: %v", err)
	}
	defer resp.Body.Close()
	got := messages(t, resp) // returns once the stream ends
	if ctx.Err() != nil {
		t.Fatal("the stream of a dead replica was still open after 10 s")
	}
	if len(got) != 1 || !strings.Contains(got[0], `"data":2`) {
		t.Fatalf("the resumed stream carried %q, want the one stored event after the first", got)
	}
}

// cutCall starts a session on replica 0, calls tool there and breaks the
// connection after the priming event: the call goes on, its stream into
// the Events store. It returns the client and that event.
func cutCall(t *testing.T, cl *cluster, tool string) (*client, event) {
	t.Helper()
	c := newClient(t, cl.servers[0])
	c.initialize("2025-11-25", "")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp, err := c.hc.Do(c.request(ctx, "POST", callBody(5, tool, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	prime, err := newSSE(resp).next()
	if err != nil || !prime.hasID {
		t.Fatalf("no priming event: %+v %v", prime, err)
	}
	return c, prime
}
