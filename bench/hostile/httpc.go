package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// httpClient is the client side of one Streamable HTTP session, speaking
// the legacy era: it POSTs each message, reads JSON and SSE answers
// alike, and answers the requests the server sends on a POST's stream
// with POSTs of its own.
type httpClient struct {
	url     string // of the MCP endpoint
	hc      *http.Client
	token   string // a bearer token, or ""
	session string // Mcp-Session-Id, once initialized
	gate    *gate  // set before the first request, if at all
}

// newHTTPClient returns a client of the endpoint at url with its own
// connection pool, big enough for hundreds of POSTs at once.
func newHTTPClient(url string) *httpClient {
	tr := &http.Transport{MaxIdleConns: 2000, MaxIdleConnsPerHost: 2000, IdleConnTimeout: 30 * time.Second}
	return &httpClient{url: url, hc: &http.Client{Transport: tr}}
}

// close drops the client's idle connections.
func (c *httpClient) close() { c.hc.CloseIdleConnections() }

// post sends one frame and returns the response, whatever its status.
func (c *httpClient) post(ctx context.Context, frame []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(frame))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.hc.Do(req)
}

// statusError is an HTTP answer other than 200 or 202.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.code, strings.TrimSpace(e.body))
}

// errStreamEnded says a POST's answer ended without the response to its
// request.
var errStreamEnded = errors.New("the stream ended with no response")

// roundTrip posts frame, a request with id (its JSON text), and returns
// the response to it. A notification or response (id "") returns nil
// once the server accepted it.
func (c *httpClient) roundTrip(ctx context.Context, frame []byte, id string) (*message, error) {
	resp, err := c.post(ctx, frame)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, &statusError{resp.StatusCode, string(b)}
	}
	if id == "" {
		io.Copy(io.Discard, resp.Body)
		return nil, nil
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && c.session == "" {
		c.session = sid
	}
	var found *message
	each := func(_ string, data []byte) bool {
		var m message
		if json.Unmarshal(data, &m) != nil {
			return true
		}
		switch {
		case m.isRequest():
			go c.reply(ctx, &m)
		case m.Method == "" && string(m.ID) == id:
			found = &m
			return false
		}
		return true
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		err = readSSE(resp.Body, each)
	} else {
		var b []byte
		if b, err = io.ReadAll(resp.Body); err == nil {
			each("", b)
		}
	}
	switch {
	case found != nil && found.Error != nil:
		return found, found.Error
	case found != nil:
		return found, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	}
	return nil, errStreamEnded
}

// reply posts the answer to a request of the server. It outlives the
// POST that carried the request, but no more than replyTimeout.
func (c *httpClient) reply(ctx context.Context, req *message) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replyTimeout)
	defer cancel()
	c.gate.think(req)
	c.roundTrip(ctx, answer(req), "")
}

// replyTimeout bounds a POST of the client's answer.
const replyTimeout = 30 * time.Second

// readSSE calls each with the name (or "") and data of every event of
// r until each returns false or r ends.
func readSSE(r io.Reader, each func(event string, data []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var event string
	var data []byte
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0:
			if !each(event, data) {
				return nil
			}
			event, data = "", nil
		case bytes.HasPrefix(line, []byte("event:")):
			event = strings.TrimSpace(string(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handshake initializes the session.
func (c *httpClient) handshake(ctx context.Context) error {
	if _, err := c.roundTrip(ctx, initialize(0), "0"); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if c.session == "" {
		return errors.New("initialize: no Mcp-Session-Id")
	}
	if _, err := c.roundTrip(ctx, initialized(), ""); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}
