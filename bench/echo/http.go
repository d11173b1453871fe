package echo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPSession is one MCP client over Streamable HTTP: a POST per message,
// sent through a Doer (a keep-alive http.Client that sessions may share,
// or a handler in this process). Like [Client], it is the same for every
// server: [HTTPSession.Echo] builds its request body by appending bytes
// into a buffer it reuses, and reads the response without decoding it,
// whether the server answers with application/json or, despite being
// asked not to, with an SSE stream; [HTTPSession.Call] uses
// encoding/json and is for setup and tests.
//
// A legacy session begins with initialize and carries the Mcp-Session-Id
// the server gave; a 2026-07-28 one sends no initialize, carries its
// _meta in every request and MCP-Protocol-Version, Mcp-Method and Mcp-Name
// headers, and takes a session id from the server for an error.
//
// An HTTPSession is not safe for concurrent use.
type HTTPSession struct {
	dialect
	hc     Doer
	req    *http.Request // reused once the previous response is closed
	body   *reusableBody
	nextID int64
	sid    string // the Mcp-Session-Id the server gave, if any

	line []byte // a request body
	resp []byte // a response body
	data []byte // the data of an SSE event
}

// Doer sends one HTTP request and returns its response; *http.Client is
// one, and so is [Direct].
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// NewHTTPSession returns a legacy-era session, not yet initialized, with
// the MCP endpoint at url.
func NewHTTPSession(hc Doer, url string) (*HTTPSession, error) {
	return newHTTPSession(hc, url, newDialect(Legacy, ""))
}

// NewModernHTTPSession returns a 2026-07-28 client of the MCP endpoint at
// url, which names itself client in its requests' clientInfo.
func NewModernHTTPSession(hc Doer, url, client string) (*HTTPSession, error) {
	s, err := newHTTPSession(hc, url, newDialect(Modern, client))
	if err != nil {
		return nil, err
	}
	s.req.Header.Set(headerProtocolVersion, ModernVersion)
	s.callHeaders("tools/call", "echo")
	return s, nil
}

// NewEraHTTPSession returns a session of era, named client when modern.
func NewEraHTTPSession(hc Doer, url string, era Era, client string) (*HTTPSession, error) {
	if era == Modern {
		return NewModernHTTPSession(hc, url, client)
	}
	return NewHTTPSession(hc, url)
}

func newHTTPSession(hc Doer, url string, d dialect) (*HTTPSession, error) {
	body := &reusableBody{closed: make(chan struct{}, 1)}
	req, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	return &HTTPSession{dialect: d, hc: hc, req: req, body: body, nextID: 1}, nil
}

// The headers of Streamable HTTP the client sends.
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerSessionID       = "Mcp-Session-Id"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// callHeaders sets the Mcp-Method header, and Mcp-Name unless name is "",
// as 2026-07-28 mirrors them from the body.
func (s *HTTPSession) callHeaders(method, name string) {
	s.req.Header.Set(headerMethod, method)
	if name != "" {
		s.req.Header.Set(headerName, name)
	} else {
		s.req.Header.Del(headerName)
	}
}

// NewHTTPClient returns a client keeping up to conns connections alive to
// one host, with no proxy and no compression.
func NewHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        max(conns, 2),
		MaxIdleConnsPerHost: max(conns, 2),
		DisableCompression:  true,
	}}
}

// reusableBody is a request body that is refilled for every request. A
// transport may close a body after RoundTrip returns, and reads it until
// then, so the bytes under it must not change before Close: closed tells
// when.
type reusableBody struct {
	bytes.Reader
	closed chan struct{}
	inUse  bool
}

func (b *reusableBody) Close() error {
	select {
	case b.closed <- struct{}{}:
	default: // closed twice
	}
	return nil
}

// SessionID returns the Mcp-Session-Id the server gave, or "" if none.
func (s *HTTPSession) SessionID() string { return s.sid }

// Initialize performs the MCP handshake, initialize then
// notifications/initialized, and returns the initialize result. The
// session's later requests carry the Mcp-Session-Id it gave, if any, and
// the protocol version it negotiated. Only a legacy session has one.
func (s *HTTPSession) Initialize() (json.RawMessage, error) {
	if s.era != Legacy {
		return nil, fmt.Errorf("initialize: a %s client sends none", s.era)
	}
	res, err := s.Call("initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "echo-bench", "version": "0.0.0"},
	})
	if err != nil {
		return nil, err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion == "" {
		return nil, fmt.Errorf("initialize: result %s has no protocolVersion", res)
	}
	s.req.Header.Set(headerProtocolVersion, init.ProtocolVersion)
	return res, s.Notify("notifications/initialized", nil)
}

// Call sends one request and returns its result or an *RPCError. params
// may be nil. A 2026-07-28 session adds its _meta to params, sends the
// headers that mirror the method and the name params holds, and checks
// that the result is complete.
func (s *HTTPSession) Call(method string, params any) (json.RawMessage, error) {
	p, err := s.dialect.params(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	id := s.nextID
	s.nextID++
	b, err := appendMessage(nil, id, method, p)
	if err != nil {
		return nil, err
	}
	if s.era == Modern {
		s.callHeaders(method, nameParam(method, p))
		defer s.callHeaders("tools/call", "echo")
	}
	msg, err := s.roundTrip(b, id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("%s: decode %q: %w", method, msg, err)
	}
	if m.Error != nil {
		return nil, m.Error
	}
	if m.Result == nil {
		return nil, fmt.Errorf("%s: response %q has neither result nor error", method, msg)
	}
	if s.era == Modern {
		if err := checkComplete(m.Result); err != nil {
			return nil, fmt.Errorf("%s: result %s: %w", method, m.Result, err)
		}
	}
	return m.Result, nil
}

// nameParam returns what 2026-07-28 mirrors into Mcp-Name: the name of a
// tools/call or prompts/get, the uri of a resources/read; "" otherwise.
func nameParam(method string, params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	json.Unmarshal(params, &p)
	switch method {
	case "tools/call", "prompts/get":
		return p.Name
	case "resources/read":
		return p.URI
	}
	return ""
}

// Notify sends a notification. params may be nil.
func (s *HTTPSession) Notify(method string, params any) error {
	var p []byte
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return fmt.Errorf("%s: encode params: %w", method, err)
		}
	}
	b, err := appendMessage(nil, 0, method, p)
	if err != nil {
		return err
	}
	if _, err := s.roundTrip(b, 0); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Echo calls the echo tool with [Text] once and checks the result.
func (s *HTTPSession) Echo() error {
	id := s.nextID
	s.nextID++
	s.line = s.appendCall(s.line[:0], id)
	msg, err := s.roundTrip(s.line, id)
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	_, result, rpcErr, err := members(msg)
	if err != nil {
		return fmt.Errorf("echo: %w: %q", err, msg)
	}
	if rpcErr != nil {
		return fmt.Errorf("echo: call %d: error %s", id, rpcErr)
	}
	if err := s.checkEcho(result); err != nil {
		return fmt.Errorf("echo: call %d: %w: %s", id, err, result)
	}
	return nil
}

// Delete ends the session with DELETE, if the server gave it an id.
func (s *HTTPSession) Delete() error {
	if s.sid == "" {
		return nil
	}
	s.awaitBody()
	s.req.Method = http.MethodDelete
	s.req.Body, s.req.ContentLength = nil, 0
	resp, err := s.hc.Do(s.req)
	s.req.Method = http.MethodPost
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE: %s", resp.Status)
	}
	s.forget()
	return nil
}

// forget makes the session a new one, not yet initialized, returning the
// id of the old one. Its buffers and connection stay.
func (s *HTTPSession) forget() string {
	sid := s.sid
	s.sid = ""
	s.req.Header.Del(headerSessionID)
	s.req.Header.Del(headerProtocolVersion)
	s.nextID = 1
	return sid
}

// resume makes the session the one with the given id, already initialized
// with [ProtocolVersion].
func (s *HTTPSession) resume(sid string) {
	s.sid = sid
	s.req.Header.Set(headerSessionID, sid)
	s.req.Header.Set(headerProtocolVersion, ProtocolVersion)
}

// awaitBody waits until the transport has closed the previous request's
// body, so that the bytes under it may change.
func (s *HTTPSession) awaitBody() {
	if s.body.inUse {
		<-s.body.closed
		s.body.inUse = false
	}
}

// roundTrip POSTs one message and returns the JSON-RPC response to it, or
// nil for a notification (id 0). The response is valid until the next
// round trip.
func (s *HTTPSession) roundTrip(msg []byte, id int64) ([]byte, error) {
	s.awaitBody()
	s.body.Reset(msg)
	s.body.inUse = true
	s.req.Body, s.req.ContentLength = s.body, int64(len(msg))
	resp, err := s.hc.Do(s.req)
	if err != nil {
		return nil, err
	}
	s.resp, err = readAll(s.resp[:0], resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if sid := resp.Header.Get(headerSessionID); sid != "" && s.sid == "" {
		if s.era == Modern {
			return nil, fmt.Errorf("a %s response carries %s %q: the server keeps a session", ModernVersion, headerSessionID, sid)
		}
		s.sid = sid
		s.req.Header.Set(headerSessionID, sid)
	}
	if id == 0 {
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%d %s: %q", resp.StatusCode, http.StatusText(resp.StatusCode), s.resp)
		}
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%d %s: %q", resp.StatusCode, http.StatusText(resp.StatusCode), s.resp)
	}
	body := s.resp
	if ct := resp.Header.Get("Content-Type"); isEventStream(ct) {
		s.data, body = sseResponse(s.data[:0], s.resp)
		if body == nil {
			return nil, fmt.Errorf("SSE stream without a response: %q", s.resp)
		}
	}
	rawID, _, _, err := members(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %q", err, body)
	}
	if got, ok := parseID(rawID); !ok || got != id {
		return nil, fmt.Errorf("response id %s, want %d", rawID, id)
	}
	return body, nil
}

// isEventStream reports whether a Content-Type is text/event-stream,
// without allocating in the usual cases.
func isEventStream(ct string) bool {
	switch ct {
	case "application/json", "application/json; charset=utf-8", "":
		return false
	case "text/event-stream":
		return true
	}
	t, _, _ := mime.ParseMediaType(ct)
	return t == "text/event-stream"
}

// readAll appends what r holds to b.
func readAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// sseResponse returns the data of the first event of an SSE stream that is
// a JSON-RPC response, assembled in buf, or nil if there is none. Events
// before it, such as notifications or a priming event without data, are
// skipped.
func sseResponse(buf, stream []byte) (newBuf, msg []byte) {
	data := buf[:0]
	isResponse := func() bool {
		id, result, rpcErr, err := members(data)
		return err == nil && id != nil && (result != nil || rpcErr != nil)
	}
	for len(stream) > 0 {
		var line []byte
		line, stream, _ = bytes.Cut(stream, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 { // the end of an event
			if len(data) > 0 && isResponse() {
				return data, data
			}
			data = data[:0]
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(v, []byte{' '})...)
		}
	}
	if len(data) > 0 && isResponse() {
		return data, data
	}
	return data, nil
}

// appendMessage appends a JSON-RPC request, or a notification when id is
// 0, to b. params is raw JSON, nil for none.
func appendMessage(b []byte, id int64, method string, params json.RawMessage) ([]byte, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, `,"method":`...)
	b = append(b, m...)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}'), nil
}

// HTTPLoad is a set of concurrent sessions with one server, sharing one
// keep-alive http.Client with a connection for each.
type HTTPLoad struct {
	hc       *http.Client
	sessions []*HTTPSession
}

// NewHTTPLoad opens clients sessions of era with the MCP endpoint at url:
// legacy sessions are initialized; 2026-07-28 ones, which need nothing
// opened, each name themselves echo-bench-N.
func NewHTTPLoad(url string, clients int, era Era) (*HTTPLoad, error) {
	if clients < 1 {
		return nil, errors.New("http load: need at least one client")
	}
	l := &HTTPLoad{hc: NewHTTPClient(clients)}
	for i := range clients {
		s, err := NewEraHTTPSession(l.hc, url, era, fmt.Sprintf("echo-bench-%d", i))
		if err != nil {
			return nil, errors.Join(err, l.Close())
		}
		l.sessions = append(l.sessions, s)
		if era == Legacy {
			if _, err := s.Initialize(); err != nil {
				return nil, errors.Join(err, l.Close())
			}
		}
	}
	return l, nil
}

// Sessions returns the load's sessions.
func (l *HTTPLoad) Sessions() []*HTTPSession { return l.sessions }

// Echo has every session call the echo tool in a loop, one call in flight
// each, until n calls (n > 0) have been made between them or until has
// passed (until not zero), whichever comes first. It returns how many
// calls completed.
func (l *HTTPLoad) Echo(n int, until time.Time) (int, error) {
	if n <= 0 && until.IsZero() {
		return 0, errors.New("echo: give a call count or a deadline")
	}
	var (
		budget atomic.Int64 // calls not yet started, when n > 0
		failed atomic.Bool
		done   atomic.Int64
		wg     sync.WaitGroup
		errs   = make([]error, len(l.sessions))
	)
	budget.Store(int64(n))
	for i, s := range l.sessions {
		wg.Go(func() {
			k := 0
			for !failed.Load() {
				if n > 0 && budget.Add(-1) < 0 {
					break
				}
				if !until.IsZero() && k%8 == 0 && !time.Now().Before(until) {
					break
				}
				if err := s.Echo(); err != nil {
					errs[i] = err
					failed.Store(true)
					break
				}
				k++
			}
			done.Add(int64(k))
		})
	}
	wg.Wait()
	return int(done.Load()), errors.Join(errs...)
}

// Close ends the sessions with DELETE and closes the idle connections.
func (l *HTTPLoad) Close() error {
	var errs []error
	for _, s := range l.sessions {
		errs = append(errs, s.Delete())
	}
	l.hc.CloseIdleConnections()
	return errors.Join(errs...)
}
