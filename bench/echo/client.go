package echo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Text is what the load loop asks the echo tool to return.
const Text = "hello, echo benchmark"

// Client is a raw JSON-RPC client speaking newline-delimited JSON, in one
// era. Every server is driven by the same client, so its cost is the same
// for each: the load loop ([Client.Echo]) builds requests by appending
// bytes and reads responses without decoding them; [Client.Call] uses
// encoding/json and is for setup and tests.
//
// A Client is not safe for concurrent use.
type Client struct {
	dialect
	r      *bufio.Reader
	w      *bufio.Writer
	nextID int64

	line  []byte  // a request being written
	long  []byte  // a response longer than r's buffer
	slots []int64 // the id awaited in each in-flight slot of Echo
}

// NewClient returns a legacy-era client reading responses from r and
// writing requests to w.
func NewClient(r io.Reader, w io.Writer) *Client { return NewEraClient(r, w, Legacy) }

// NewEraClient returns a client of era reading responses from r and
// writing requests to w. A 2026-07-28 client sends no initialize: every
// request it sends carries its _meta.
func NewEraClient(r io.Reader, w io.Writer, era Era) *Client {
	return &Client{
		dialect: newDialect(era, "echo-bench"),
		r:       bufio.NewReaderSize(r, 64<<10),
		w:       bufio.NewWriterSize(w, 64<<10),
		nextID:  1,
	}
}

// RPCError is a JSON-RPC error response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
}

// Call sends one request and waits for its response, returning the result
// or an *RPCError. Messages from the server that are not responses are
// skipped. params may be nil. A 2026-07-28 client adds its _meta to params
// and checks that the result is complete.
func (c *Client) Call(method string, params any) (json.RawMessage, error) {
	p, err := c.dialect.params(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	id := c.nextID
	c.nextID++
	if err := c.send(id, method, p); err != nil {
		return nil, err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *RPCError       `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, fmt.Errorf("%s: decode %q: %w", method, line, err)
		}
		if msg.Method != "" || msg.ID == nil {
			continue // a notification or request from the server
		}
		if got, ok := parseID(msg.ID); !ok || got != id {
			return nil, fmt.Errorf("%s: response id %s, want %d", method, msg.ID, id)
		}
		if msg.Error != nil {
			return nil, msg.Error
		}
		if msg.Result == nil {
			return nil, fmt.Errorf("%s: response %q has neither result nor error", method, line)
		}
		if c.era == Modern {
			if err := checkComplete(msg.Result); err != nil {
				return nil, fmt.Errorf("%s: result %s: %w", method, msg.Result, err)
			}
		}
		return msg.Result, nil
	}
}

// Notify sends a notification. params may be nil; notifications carry no
// _meta of the client's in either era.
func (c *Client) Notify(method string, params any) error {
	var p []byte
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return fmt.Errorf("%s: encode params: %w", method, err)
		}
	}
	return c.send(0, method, p)
}

// send writes one message and flushes it; id 0 makes it a notification.
// params is raw JSON, nil for none.
func (c *Client) send(id int64, method string, params json.RawMessage) error {
	m, err := json.Marshal(method)
	if err != nil {
		return err
	}
	b := append(c.line[:0], `{"jsonrpc":"2.0"`...)
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
	b = append(b, "}\n"...)
	c.line = b
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// ProtocolVersion is the version the client asks for in initialize.
const ProtocolVersion = "2025-06-18"

// initializeParams are the params of the legacy client's initialize.
var initializeParams = map[string]any{
	"protocolVersion": ProtocolVersion,
	"capabilities":    map[string]any{},
	"clientInfo":      map[string]any{"name": "echo-bench", "version": "0.0.0"},
}

// Initialize performs the MCP handshake: initialize, then
// notifications/initialized. It returns the initialize result. Only a
// legacy client has a handshake.
func (c *Client) Initialize() (json.RawMessage, error) {
	if c.era != Legacy {
		return nil, fmt.Errorf("initialize: a %s client sends none", c.era)
	}
	res, err := c.Call("initialize", initializeParams)
	if err != nil {
		return nil, err
	}
	return res, c.Notify("notifications/initialized", nil)
}

// Echo calls the echo tool with [Text] and checks each result (in the
// modern era, that it is complete and names the server), keeping up to
// window requests in flight and matching responses to requests by id. It
// stops sending after n calls (n > 0) or once until has passed (until not
// zero), whichever comes first, waits for the calls in flight, and returns
// how many calls completed.
//
// With window > 1 the transport must buffer: Echo writes before it reads,
// which deadlocks on an unbuffered net.Pipe.
func (c *Client) Echo(n, window int, until time.Time) (int, error) {
	if n <= 0 && until.IsZero() {
		return 0, errors.New("echo: give a call count or a deadline")
	}
	if window < 1 || (n > 0 && window > n) {
		window = max(1, min(window, n))
	}
	if cap(c.slots) < window {
		c.slots = make([]int64, window)
	}
	slots := c.slots[:window]
	base := c.nextID

	sent, done := 0, 0
	top := base - 1 // the largest id sent
	stopped := false
	next := func() bool {
		if stopped || (n > 0 && sent == n) {
			return false
		}
		// Reading the clock every few calls keeps its cost out of the loop.
		if !until.IsZero() && sent%16 == 0 && !time.Now().Before(until) {
			stopped = true
			return false
		}
		return true
	}
	// Slot k of the window carries ids base+k, base+k+window, ...: a
	// response frees its slot, and the next request takes it over, so
	// responses may come in any order.
	send := func(id int64) error {
		slots[(id-base)%int64(window)] = id
		sent++
		top = max(top, id)
		b := c.appendCall(c.line[:0], id)
		b = append(b, '\n')
		c.line = b
		_, err := c.w.Write(b)
		return err
	}

	for sent < window && next() {
		if err := send(base + int64(sent)); err != nil {
			return done, fmt.Errorf("echo: %w", err)
		}
	}
	defer func() { c.nextID = top + 1 }()
	for done < sent {
		// Flush only before blocking: pipelined requests share a write.
		if c.r.Buffered() == 0 {
			if err := c.w.Flush(); err != nil {
				return done, fmt.Errorf("echo: %w", err)
			}
		}
		line, err := c.readLine()
		if err != nil {
			return done, fmt.Errorf("echo: %w", err)
		}
		rawID, result, rpcErr, err := members(line)
		if err != nil {
			return done, fmt.Errorf("echo: %w: %q", err, line)
		}
		if rawID == nil || (result == nil && rpcErr == nil) {
			continue // a notification or request from the server
		}
		id, ok := parseID(rawID)
		if !ok || id < base || slots[(id-base)%int64(window)] != id {
			return done, fmt.Errorf("echo: response with unexpected id %s", rawID)
		}
		slots[(id-base)%int64(window)] = 0
		if rpcErr != nil {
			return done, fmt.Errorf("echo: call %d: error %s", id, rpcErr)
		}
		if err := c.checkEcho(result); err != nil {
			return done, fmt.Errorf("echo: call %d: %w: %s", id, err, result)
		}
		done++
		if next() {
			if err := send(id + int64(window)); err != nil {
				return done, fmt.Errorf("echo: %w", err)
			}
		}
	}
	return done, nil
}

// readLine returns the next non-empty line without its line ending. The
// line is valid until the next read.
func (c *Client) readLine() ([]byte, error) {
	for {
		line, err := c.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			c.long = append(c.long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = c.r.ReadSlice('\n')
				c.long = append(c.long, line...)
			}
			line = c.long
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			return line, nil // a last line without a newline still counts
		}
		if err != nil {
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}
