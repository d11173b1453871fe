package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// scripted is a server whose answers a test writes: it records every
// request, and answers with answer(method, params, n), n counting the
// requests of that method from 1.
type scripted struct {
	conn   *jsonrpc.Conn
	answer func(method string, params []byte, n int) ([]byte, error)

	mu   sync.Mutex
	reqs []scriptedReq
	seen map[string]int
}

type scriptedReq struct {
	id     jsonrpc.ID
	method string
	params []byte
}

func (f *scripted) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		return nil, nil
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, scriptedReq{req.ID, req.Method, bytes.Clone(req.Params)})
	f.seen[req.Method]++
	n := f.seen[req.Method]
	f.mu.Unlock()
	return f.answer(req.Method, req.Params, n)
}

func (f *scripted) requests(method string) []scriptedReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []scriptedReq
	for _, r := range f.reqs {
		if r.method == method {
			out = append(out, r)
		}
	}
	return out
}

// discovered answers server/discover as a 2026-07-28 server does.
const discovered = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}}}`

// startScripted serves f over a pipe and connects a client with opts.
func startScripted(t *testing.T, opts *client.Options, answer func(method string, params []byte, n int) ([]byte, error)) (*client.Session, *scripted, error) {
	t.Helper()
	a, b := transport.NewPipe()
	f := &scripted{answer: answer, seen: map[string]int{}}
	f.conn = jsonrpc.NewConn(b, f, jsonrpc.Options{})
	go f.conn.Run(context.Background())
	t.Cleanup(func() {
		f.conn.Close()
		f.conn.Wait()
	})
	if opts == nil {
		opts = &client.Options{}
	}
	if opts.Elicit == nil {
		opts.Elicit = func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "rounds", Version: "1"}, opts).Connect(ctx, a)
	if err == nil {
		t.Cleanup(func() { sess.Close() })
	}
	return sess, f, err
}

const askQ = `{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}`

func TestRequestStateEchoedAsItCame(t *testing.T) {
	const state = `"st\u00e9 \\\"quoted\\\" \ud83d\ude00"` // escapes a re-encoding would change
	sess, f, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			switch n {
			case 1:
				return []byte(`{"resultType":"input_required","inputRequests":{"a":` + askQ + `},"requestState":` + state + `}`), nil
			case 2:
				return []byte(`{"resultType":"input_required","inputRequests":{"b":` + askQ + `}}`), nil
			}
			return []byte(`{"content":[{"type":"text","text":"done"}]}`), nil // no resultType: complete
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "t", Arguments: json.RawMessage(`{"x":1}`)})
	if err != nil || r.Content[0].Value.(*mcp.TextContent).Text != "done" {
		t.Fatalf("CallTool: %+v %v", r, err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 3 {
		t.Fatalf("%d tools/call requests, want 3", len(calls))
	}
	ids := map[string]bool{}
	for _, c := range calls {
		ids[c.id.String()] = true
	}
	if len(ids) != 3 {
		t.Errorf("retries reused an id: %v", ids)
	}
	first, second, third := string(calls[0].params), string(calls[1].params), string(calls[2].params)
	if strings.Contains(first, "inputResponses") || strings.Contains(first, "requestState") {
		t.Errorf("the first call carries round state: %s", first)
	}
	if !strings.Contains(second, `"requestState":`+state) {
		t.Errorf("the state did not come back as it was sent:\n%s", second)
	}
	if !strings.Contains(second, `"inputResponses":{"a":{"action":"accept"}}`) || strings.Contains(second, `"b"`) {
		t.Errorf("round 2 answers: %s", second)
	}
	if strings.Contains(third, "requestState") {
		t.Errorf("a state was sent though round 2 had none: %s", third)
	}
	if !strings.Contains(third, `"inputResponses":{"b":{"action":"accept"}}`) {
		t.Errorf("round 3 answers: %s", third)
	}
	for _, c := range calls {
		if !strings.Contains(string(c.params), `"arguments":{"x":1}`) || !strings.Contains(string(c.params), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
			t.Errorf("a round lost the params: %s", c.params)
		}
	}
}

func TestRoundsBoundedAndChecked(t *testing.T) {
	sess, f, err := startScripted(t, &client.Options{MaxInputRounds: 3}, func(method string, params []byte, n int) ([]byte, error) {
		switch {
		case method == mcp.MethodDiscover:
			return []byte(discovered), nil
		case method == mcp.MethodCallTool && strings.Contains(string(params), `"name":"odd"`):
			return []byte(`{"resultType":"task","content":[]}`), nil
		case method == mcp.MethodCallTool:
			return []byte(`{"resultType":"input_required","inputRequests":{"a":` + askQ + `}}`), nil
		case method == mcp.MethodListTools:
			return []byte(`{"resultType":"input_required","inputRequests":{"a":` + askQ + `}}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "forever"})
	if err == nil || !strings.Contains(err.Error(), "3 rounds") || len(f.requests(mcp.MethodCallTool)) != 4 {
		t.Errorf("an endless asker: %v after %d requests", err, len(f.requests(mcp.MethodCallTool)))
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "odd"}); err == nil || !strings.Contains(err.Error(), `"task"`) {
		t.Errorf("an unknown resultType: %v", err)
	}
	if _, err := sess.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "may do only for") {
		t.Errorf("input asked on tools/list: %v", err)
	}
}

func TestConcurrentRoundsIsolated(t *testing.T) {
	sess, f, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		if method == mcp.MethodDiscover {
			return []byte(discovered), nil
		}
		var p struct {
			Name           string          `json:"name"`
			InputResponses json.RawMessage `json:"inputResponses"`
		}
		json.Unmarshal(params, &p)
		if p.InputResponses == nil {
			return []byte(`{"resultType":"input_required","inputRequests":{"` + p.Name + `":` + askQ + `},"requestState":"state-of-` + p.Name + `"}`), nil
		}
		return []byte(`{"resultType":"complete","content":[{"type":"text","text":"` + p.Name + `"}]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			name := fmt.Sprintf("tool%d", i)
			r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: name})
			if err != nil || r.Content[0].Value.(*mcp.TextContent).Text != name {
				t.Errorf("%s: %+v %v", name, r, err)
			}
		})
	}
	wg.Wait()
	for _, c := range f.requests(mcp.MethodCallTool) {
		var p struct {
			Name           string                     `json:"name"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   *string                    `json:"requestState"`
		}
		json.Unmarshal(c.params, &p)
		if p.RequestState != nil && *p.RequestState != "state-of-"+p.Name {
			t.Errorf("%s carried %s", p.Name, *p.RequestState)
		}
		for k := range p.InputResponses {
			if k != p.Name {
				t.Errorf("%s answered %s", p.Name, k)
			}
		}
	}
}

func TestProbeOutcomes(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     client.Options
		discover func(n int) ([]byte, error)
		wantEra  mcp.Era
		wantVer  mcp.ProtocolVersion
		wantErr  string
		probes   int
	}{
		{name: "modern", discover: func(int) ([]byte, error) { return []byte(discovered), nil }, wantEra: mcp.EraModern, wantVer: "2026-07-28", probes: 1},
		{name: "method not found", discover: func(int) ([]byte, error) { return nil, jsonrpc.ErrMethodNotFound("server/discover") }, wantEra: mcp.EraLegacy, wantVer: "2025-11-25", probes: 1},
		{name: "invalid params", discover: func(int) ([]byte, error) { return nil, jsonrpc.ErrInvalidParams("not initialized") }, wantEra: mcp.EraLegacy, wantVer: "2025-11-25", probes: 1},
		{name: "empty result", discover: func(int) ([]byte, error) { return []byte(`{}`), nil }, wantEra: mcp.EraLegacy, wantVer: "2025-11-25", probes: 1},
		{name: "silence", opts: client.Options{ProbeTimeout: 50 * time.Millisecond}, discover: func(int) ([]byte, error) { time.Sleep(300 * time.Millisecond); return nil, errors.New("too late") }, wantEra: mcp.EraLegacy, wantVer: "2025-11-25", probes: 1},
		{name: "-32022 to a legacy version", discover: func(int) ([]byte, error) {
			e := jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "no")
			e.Data = []byte(`{"supported":["2025-06-18"],"requested":"2026-07-28"}`)
			return nil, e
		}, wantEra: mcp.EraLegacy, wantVer: "2025-06-18", probes: 1},
		{name: "-32022 to the same version, then served", discover: func(n int) ([]byte, error) {
			if n == 1 {
				e := jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "not yet")
				e.Data = []byte(`{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
				return nil, e
			}
			return []byte(discovered), nil
		}, wantEra: mcp.EraModern, wantVer: "2026-07-28", probes: 2},
		{name: "pinned modern, legacy server", opts: client.Options{Era: mcp.EraModern}, discover: func(int) ([]byte, error) { return nil, jsonrpc.ErrMethodNotFound("server/discover") }, wantErr: "does not speak the 2026-07-28 era", probes: 1},
		{name: "header mismatch is modern", discover: func(int) ([]byte, error) { return nil, jsonrpc.NewError(mcp.CodeHeaderMismatch, "mismatch") }, wantErr: "mismatch", probes: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			sess, f, err := startScripted(t, &opts, func(method string, params []byte, n int) ([]byte, error) {
				switch method {
				case mcp.MethodDiscover:
					return c.discover(n)
				case mcp.MethodInitialize:
					var p mcp.InitializeRequestParams
					json.Unmarshal(params, &p)
					return []byte(`{"protocolVersion":"` + p.ProtocolVersion + `","capabilities":{},"serverInfo":{"name":"legacy","version":"1"}}`), nil
				}
				return nil, jsonrpc.ErrMethodNotFound(method)
			})
			if got := len(f.requests(mcp.MethodDiscover)); got != c.probes {
				t.Errorf("%d probes, want %d", got, c.probes)
			}
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("Connect: %v, want an error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sess.Era() != c.wantEra || sess.ProtocolVersion() != c.wantVer {
				t.Errorf("era %v version %s, want %v %s", sess.Era(), sess.ProtocolVersion(), c.wantEra, c.wantVer)
			}
		})
	}
}

func TestRequestMeta(t *testing.T) {
	sess, f, err := startScripted(t, &client.Options{LogLevel: mcp.LoggingLevelWarning}, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodListTools:
			return []byte(`{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.ListTools(context.Background(), &mcp.PaginatedRequestParams{}); err != nil {
		t.Fatal(err)
	}
	// Every request carries these members in its _meta.
	wantMeta := []struct{ key, want string }{
		{"io.modelcontextprotocol/protocolVersion", `"2026-07-28"`},
		{"io.modelcontextprotocol/clientCapabilities", `{"elicitation":{}}`},
		{"io.modelcontextprotocol/clientInfo", `{"name":"rounds","version":"1"}`},
		{"io.modelcontextprotocol/logLevel", `"warning"`},
	}
	for _, r := range append(f.requests(mcp.MethodDiscover), f.requests(mcp.MethodListTools)...) {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(r.params, &p); err != nil {
			t.Fatal(err)
		}
		for _, m := range wantMeta {
			if got := string(p.Meta[m.key]); got != m.want {
				t.Errorf("%s: _meta %s = %s, want %s", r.method, m.key, got, m.want)
			}
		}
	}
}

func TestListCacheClearedByNotification(t *testing.T) {
	var server *scripted
	sess, f, err := startScripted(t, &client.Options{CacheLists: true}, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodListTools:
			return []byte(`{"resultType":"complete","tools":[],"ttlMs":600000,"cacheScope":"private"}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	server = f
	list := func() {
		if _, err := sess.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	list()
	list()
	if n := len(server.requests(mcp.MethodListTools)); n != 1 {
		t.Fatalf("%d requests for two cached lists", n)
	}
	server.conn.Notify(context.Background(), mcp.MethodToolListChangedNotification, nil)
	deadline := time.Now().Add(5 * time.Second)
	for len(server.requests(mcp.MethodListTools)) < 2 && time.Now().Before(deadline) {
		list()
		time.Sleep(time.Millisecond)
	}
	if n := len(server.requests(mcp.MethodListTools)); n != 2 {
		t.Errorf("after list_changed: %d requests, want 2", n)
	}
}

func TestUnsupportedVersionPinned(t *testing.T) {
	_, _, err := startScripted(t, &client.Options{ProtocolVersion: mcp.Version20260728}, func(method string, params []byte, n int) ([]byte, error) {
		e := jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "no")
		e.Data = []byte(`{"supported":["2027-01-01"],"requested":"2026-07-28"}`)
		return nil, e
	})
	var ve *client.VersionError
	if !errors.As(err, &ve) || ve.Offered != "2027-01-01" {
		t.Errorf("Connect: %v", err)
	}
}
