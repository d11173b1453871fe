package tasks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"
)

// Text is what every task's tools/call asks the echo tool to return.
const Text = "hello, tasks benchmark"

// LegacyVersion is the protocol version a Session initializes with, the
// one that brought tasks.
const LegacyVersion = "2025-11-25"

var (
	// callParams are the params of the task-augmented echo tools/call: a
	// task with no TTL, which leaves the TTL to the server.
	callParams = []byte(`{"name":"echo","arguments":{"text":"` + Text + `"},"task":{}}`)
	// wantText is what every task's result holds.
	wantText = []byte(`"text":"` + Text + `"`)
	isError  = []byte(`"isError":true`)
)

// Session is a legacy (2025-11-25) session with one server over net.Pipe
// in this process, driven by a raw JSON-RPC client speaking
// newline-delimited JSON. Every server is driven by the same client, so
// its cost is the same for each: it writes requests by appending bytes and
// reads responses with a scanner that decodes nothing it does not check,
// so that it allocates nothing per task.
//
// A Session is not safe for concurrent use.
type Session struct {
	conn net.Conn
	done chan error // the server's return
	r    *bufio.Reader
	w    *bufio.Writer
	next int64 // the next request id

	line   []byte // a request being written
	params []byte // the params of a request being written
	long   []byte // a message longer than r's buffer
	sc     scanner
	tasks  int // the tasks started
	notes  int // the messages from the server that were not responses

	// For Many: the id of each task, its buffer kept across batches, and
	// whether each request of a batch has been answered.
	ids      [][]byte
	answered []bool
}

// Open starts s on one end of a net.Pipe and initializes a 2025-11-25
// session with it from the other end.
func Open(ctx context.Context, s Server) (*Session, error) {
	conn, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, srv) }()
	c := &Session{
		conn: conn,
		done: done,
		r:    bufio.NewReaderSize(conn, 64<<10),
		w:    bufio.NewWriterSize(conn, 64<<10),
		next: 1,
	}
	init := []byte(`{"protocolVersion":"` + LegacyVersion + `","capabilities":{},"clientInfo":{"name":"tasks-bench","version":"0.0.0"}}`)
	result, err := c.call("initialize", init)
	if err == nil && !bytes.Contains(result, []byte(`"`+LegacyVersion+`"`)) {
		err = fmt.Errorf("initialize: the server did not accept %s: %s", LegacyVersion, result)
	}
	if err == nil {
		err = c.write(0, "notifications/initialized", nil)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", s.Name, err), c.Close())
	}
	return c, nil
}

// Notes returns how many notifications (or requests) the server has sent.
func (c *Session) Notes() int { return c.notes }

// Close closes the client's end of the pipe and waits for the server to
// return, reporting its error. A server may write a task's status
// notification after the task's result, so Close first reads until the
// server has sent as many notifications as tasks were started, lest it cut
// the last ones off; it waits at most drainPatience for them.
func (c *Session) Close() error {
	err := c.drain(drainPatience)
	c.conn.Close()
	if err != nil {
		err = fmt.Errorf("close: %w", err)
	}
	select {
	case served := <-c.done:
		return errors.Join(err, served)
	case <-time.After(10 * time.Second):
		return errors.Join(err, errors.New("the server did not return after its peer closed the pipe"))
	}
}

// drainPatience bounds Close's wait for notifications still to come. It
// is short because one can be lost for good: see serveMCPGo.
const drainPatience = 200 * time.Millisecond

// drain reads messages until the server has sent a notification per task
// started or until patience has passed. A session Many closed after an
// error has nothing left to read.
func (c *Session) drain(patience time.Duration) error {
	if c.notes >= c.tasks {
		return nil
	}
	if err := c.conn.SetReadDeadline(time.Now().Add(patience)); err != nil {
		if errors.Is(err, io.ErrClosedPipe) {
			return nil
		}
		return err
	}
	for c.notes < c.tasks {
		line, err := c.readLine()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil
		}
		if err != nil {
			return err
		}
		m, err := c.sc.message(line)
		if err != nil {
			return fmt.Errorf("%w: %q", err, line)
		}
		if !m.method {
			return fmt.Errorf("unexpected response %q", line)
		}
		c.notes++
	}
	return nil
}

// Task runs one task's whole life: the task-augmented echo tools/call,
// which must be answered with a task, then tasks/result for it, whose
// result must hold [Text].
func (c *Session) Task() error {
	c.tasks++
	result, err := c.call("tools/call", callParams)
	if err != nil {
		return err
	}
	id, err := c.sc.taskID(result)
	if err != nil {
		return fmt.Errorf("tools/call: %w: %s", err, result)
	}
	c.params = appendTaskID(c.params[:0], id)
	if result, err = c.call("tasks/result", c.params); err != nil {
		return err
	}
	return checkResult(result)
}

// appendTaskID appends the params {"taskId":id} to b. The id needs no
// escaping: taskID accepts no other.
func appendTaskID(b, id []byte) []byte {
	b = append(b, `{"taskId":"`...)
	b = append(b, id...)
	return append(b, `"}`...)
}

// Many starts n tasks, keeping up to window tools/call requests in flight,
// then, once every one of them has answered, fetches all n results with
// tasks/result the same way. The server holds all n tasks at once: as
// records once their handlers return, until their TTL.
//
// A request is written from a goroutine of Many's own while this one reads
// the responses: net.Pipe's writes wait for the reader, so writing a
// window of requests before reading could wait on a server waiting to
// write its answers. After an error the session is closed.
func (c *Session) Many(n, window int) error {
	if len(c.ids) < n {
		c.Reserve(n)
	}
	c.tasks += n
	if err := c.pipeline(n, window, "tools/call",
		func(b []byte, _ int) []byte { return append(b, callParams...) },
		func(i int, result []byte) error {
			id, err := c.sc.taskID(result)
			if err != nil {
				return fmt.Errorf("tools/call: %w: %s", err, result)
			}
			c.ids[i] = append(c.ids[i][:0], id...)
			return nil
		}); err != nil {
		return err
	}
	return c.pipeline(n, window, "tasks/result",
		func(b []byte, i int) []byte { return appendTaskID(b, c.ids[i]) },
		func(_ int, result []byte) error { return checkResult(result) })
}

// Reserve sizes the buffers Many keeps for n tasks, so that memory
// measured around Many is the server's.
func (c *Session) Reserve(n int) {
	c.ids = make([][]byte, n)
	for i := range c.ids {
		c.ids[i] = make([]byte, 0, 64)
	}
	c.answered = make([]bool, n)
}

// pipeline sends n requests for method with the params appended by params,
// keeping up to window in flight, and passes each response's result to
// check.
func (c *Session) pipeline(n, window int, method string, params func(b []byte, i int) []byte, check func(i int, result []byte) error) error {
	base := c.next
	c.next += int64(n)
	clear(c.answered[:n])
	slots := make(chan struct{}, max(1, window))
	stop := make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		var line []byte
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-stop:
				wrote <- nil
				return
			}
			line = appendHead(line[:0], base+int64(i), method)
			line = append(params(line, i), "}\n"...)
			if _, err := c.w.Write(line); err != nil {
				wrote <- fmt.Errorf("%s: %w", method, err)
				return
			}
			if err := c.w.Flush(); err != nil {
				wrote <- fmt.Errorf("%s: %w", method, err)
				return
			}
		}
		wrote <- nil
	}()
	var err error
	for range n {
		var id int64
		var result []byte
		if id, result, err = c.response(method); err != nil {
			break
		}
		i := id - base
		if i < 0 || i >= int64(n) || c.answered[i] {
			err = fmt.Errorf("%s: unexpected response id %d", method, id)
			break
		}
		c.answered[i] = true
		if err = check(int(i), result); err != nil {
			break
		}
		<-slots
	}
	if err != nil {
		close(stop)
		c.conn.Close() // unblocks a write the server will not read
	}
	return errors.Join(err, <-wrote)
}

// call sends one request and returns the result of its response, valid
// until the next read.
func (c *Session) call(method string, params []byte) ([]byte, error) {
	id := c.next
	c.next++
	if err := c.write(id, method, params); err != nil {
		return nil, err
	}
	got, result, err := c.response(method)
	if err == nil && got != id {
		err = fmt.Errorf("%s: response id %d, want %d", method, got, id)
	}
	return result, err
}

// write sends one message and flushes it; id 0 makes it a notification.
// params is raw JSON, nil for none.
func (c *Session) write(id int64, method string, params []byte) error {
	c.line = appendRequest(c.line[:0], id, method, params)
	if _, err := c.w.Write(c.line); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// appendRequest appends a JSON-RPC message and its newline to b; id 0
// makes it a notification. params is raw JSON, nil for none.
func appendRequest(b []byte, id int64, method string, params []byte) []byte {
	b = appendHead(b, id, method)
	if params == nil {
		b = append(b, "{}"...)
	} else {
		b = append(b, params...)
	}
	return append(b, "}\n"...)
}

// appendHead appends a JSON-RPC message up to its params' value.
func appendHead(b []byte, id int64, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	return append(b, `","params":`...)
}

// response reads messages until a response arrives, skipping the
// server's notifications (notifications/tasks/status among them), and
// returns its id and result, valid until the next read, or its error.
func (c *Session) response(method string) (int64, []byte, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", method, err)
		}
		m, err := c.sc.message(line)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w: %q", method, err, line)
		}
		if m.method {
			c.notes++ // a notification or request from the server
			continue
		}
		if m.err != nil {
			return m.id, nil, fmt.Errorf("%s: error %s", method, m.err)
		}
		if m.result == nil {
			return m.id, nil, fmt.Errorf("%s: response %q has neither result nor error", method, line)
		}
		return m.id, m.result, nil
	}
}

// readLine returns the next non-empty line without its line ending. The
// line is valid until the next read.
func (c *Session) readLine() ([]byte, error) {
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
			return line, nil
		}
		if err != nil {
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// checkResult checks that a task's result holds [Text] and is not an
// error.
func checkResult(result []byte) error {
	if !bytes.Contains(result, wantText) || bytes.Contains(result, isError) {
		return fmt.Errorf("unexpected task result %s", result)
	}
	return nil
}
