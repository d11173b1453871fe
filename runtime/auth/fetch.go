package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// Defaults of the verifiers' options left zero.
const (
	// DefaultLeeway is how far the clocks of the authorization server and
	// this server may disagree about exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// DefaultMaxDocumentBytes bounds a JWKS, a metadata document or an
	// introspection response.
	DefaultMaxDocumentBytes = 256 << 10
	// DefaultHTTPTimeout bounds one request to the authorization server.
	DefaultHTTPTimeout = 10 * time.Second
)

// httpClient is what the verifiers reach the authorization server with.
type httpClient struct {
	client   *http.Client
	maxBytes int64
	timeout  time.Duration
}

func newHTTPClient(c *http.Client, maxBytes int64, timeout time.Duration) httpClient {
	if c == nil {
		c = http.DefaultClient
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDocumentBytes
	}
	if timeout <= 0 {
		timeout = DefaultHTTPTimeout
	}
	return httpClient{client: c, maxBytes: maxBytes, timeout: timeout}
}

// do sends req and decodes its JSON answer, of status 200, into v. The
// body is bounded; a larger one is an error, not a truncated document.
func (h httpClient) do(req *http.Request, v any) error {
	ctx, cancel := context.WithTimeout(req.Context(), h.timeout)
	defer cancel()
	req = req.WithContext(ctx)
	req.Header.Set("Accept", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, h.maxBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", req.URL.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		return statusError{url: req.URL.Redacted(), code: resp.StatusCode, status: resp.Status}
	}
	if int64(len(body)) > h.maxBytes {
		return fmt.Errorf("%s: the answer is larger than %d bytes", req.URL.Redacted(), h.maxBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", req.URL.Redacted(), err)
	}
	return nil
}

// get fetches a JSON document.
func (h httpClient) get(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return h.do(req, v)
}

// find is get as a metadata.Fetch: a 4xx answer is no document there.
func (h httpClient) find(ctx context.Context, url string, v any) (bool, error) {
	err := h.get(ctx, url, v)
	if s, ok := errors.AsType[statusError](err); ok && s.code/100 == 4 {
		return false, nil
	}
	return err == nil, err
}

// discover fetches the authorization server metadata of issuer from the
// well-known URLs, in the order the MCP authorization spec gives.
func (h httpClient) discover(ctx context.Context, issuer string) (*metadata.AuthorizationServer, error) {
	m, err := metadata.DiscoverAuthorizationServer(ctx, issuer, h.find)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return m, nil
}

// statusError is the error of an answer whose status is not 200.
type statusError struct {
	url    string
	code   int
	status string
}

func (e statusError) Error() string { return e.url + ": status " + e.status }
