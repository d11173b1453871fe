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

// Client is a raw JSON-RPC client speaking newline-delimited JSON. Every
// server is driven by the same client, so its cost is the same for each:
// the load loop ([Client.Echo]) builds requests by appending bytes and
// reads responses without decoding them; [Client.Call] uses encoding/json
// and is for setup and tests.
//
// A Client is not safe for concurrent use.
type Client struct {
	r      *bufio.Reader
	w      *bufio.Writer
	nextID int64

	line  []byte  // a request being written
	long  []byte  // a response longer than r's buffer
	call  []byte  // an echo tools/call request up to its id
	want  []byte  // Text as a JSON string, which every echo result holds
	slots []int64 // the id awaited in each in-flight slot of Echo
}

// NewClient returns a client reading responses from r and writing requests
// to w.
func NewClient(r io.Reader, w io.Writer) *Client {
	want, _ := json.Marshal(Text)
	call := []byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":`)
	call = append(call, want...)
	call = append(call, `}},"id":`...)
	return &Client{
		r:      bufio.NewReaderSize(r, 64<<10),
		w:      bufio.NewWriterSize(w, 64<<10),
		nextID: 1,
		call:   call,
		want:   want,
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
// skipped. params may be nil.
func (c *Client) Call(method string, params any) (json.RawMessage, error) {
	id := c.nextID
	c.nextID++
	if err := c.send(id, method, params); err != nil {
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
		return msg.Result, nil
	}
}

// Notify sends a notification. params may be nil.
func (c *Client) Notify(method string, params any) error {
	return c.send(0, method, params)
}

// send writes one message and flushes it; id 0 makes it a notification.
func (c *Client) send(id int64, method string, params any) error {
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
		p, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: encode params: %w", method, err)
		}
		b = append(b, `,"params":`...)
		b = append(b, p...)
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

// Initialize performs the MCP handshake: initialize, then
// notifications/initialized. It returns the initialize result.
func (c *Client) Initialize() (json.RawMessage, error) {
	res, err := c.Call("initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "echo-bench", "version": "0.0.0"},
	})
	if err != nil {
		return nil, err
	}
	return res, c.Notify("notifications/initialized", nil)
}

// Echo calls the echo tool with [Text] and checks each result, keeping up to
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
		b := append(c.line[:0], c.call...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, "}\n"...)
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
		if !bytes.Contains(result, c.want) || bytes.Contains(result, []byte(`"isError":true`)) {
			return done, fmt.Errorf("echo: call %d: unexpected result %s", id, result)
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
