package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The values of an upstream's transport key.
const (
	// TransportStreamable is Streamable HTTP, the default for a url.
	TransportStreamable = "streamable"
	// TransportSSE is the HTTP+SSE transport of 2024-11-05: url is the
	// SSE endpoint.
	TransportSSE = "sse"
	// TransportAuto tries Streamable HTTP and falls back to HTTP+SSE when
	// the server refuses it as an HTTP+SSE server does.
	TransportAuto = "auto"
)

// tokenFetchTimeout bounds one request to a token endpoint.
const tokenFetchTimeout = 30 * time.Second

// tokenEarlyExpiry is how long before its expiry a token is replaced, so
// that a request does not leave with a token that lapses on the way.
const tokenEarlyExpiry = 10 * time.Second

// UpstreamAuthConfig is the credential the gateway presents to an HTTP
// upstream: exactly one of Bearer and ClientCredentials. Its secrets are
// read when the gateway connects, so a rotated file is picked up on the
// next connection; they are never logged nor put in an error.
type UpstreamAuthConfig struct {
	// Bearer is a token sent as "Authorization: Bearer <token>".
	Bearer *SecretConfig `yaml:"bearer"`
	// ClientCredentials gets tokens from an OAuth 2.0 authorization
	// server with the client credentials grant (RFC 6749 section 4.4).
	ClientCredentials *ClientCredentialsConfig `yaml:"clientCredentials"`
}

// ClientCredentialsConfig is an OAuth client of the gateway's own. Each
// connection to the upstream fetches a token when it first needs one and
// keeps it until shortly before it expires, or until the upstream refuses
// it with 401, then fetches another.
type ClientCredentialsConfig struct {
	// TokenURL is the authorization server's token endpoint: https, or
	// http to a loopback address.
	TokenURL string `yaml:"tokenURL"`
	// ClientID identifies the gateway to the authorization server.
	ClientID string `yaml:"clientId"`
	// ClientSecret is where the client's secret comes from.
	ClientSecret SecretConfig `yaml:"clientSecret"`
	// Scopes are asked for in the token request.
	Scopes []string `yaml:"scopes"`
	// Audience and Resource (RFC 8707) name the upstream the token is
	// for, for authorization servers that want one of them.
	Audience string `yaml:"audience"`
	Resource string `yaml:"resource"`
}

// dial opens the transport to the upstream.
func (u *upstream) dial() (jsonrpc.Transport, error) {
	if len(u.cfg.Command) > 0 {
		cmd := exec.Command(u.cfg.Command[0], u.cfg.Command[1:]...)
		cmd.Env = os.Environ()
		for k, v := range u.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		p, err := client.CommandTransport(cmd, &client.CommandOptions{
			Stderr:         &lineLog{log: u.log},
			MaxMessageSize: MaxMessageSize,
		})
		if err != nil {
			return nil, err
		}
		u.mu.Lock()
		u.proc = p
		u.mu.Unlock()
		return p, nil
	}
	h, err := u.cfg.header()
	if err != nil {
		return nil, err
	}
	var hc *http.Client // nil: each transport's default
	if a := u.cfg.Auth; a != nil && a.ClientCredentials != nil {
		hc = &http.Client{Transport: &tokenTransport{base: upstreamHTTP(), tokens: newTokenCache(a.ClientCredentials)}}
	}
	switch u.cfg.Transport {
	case TransportSSE:
		return streamable.NewLegacyClientTransport(u.cfg.URL, &streamable.LegacyClientOptions{
			HTTPClient: hc, Header: h, MaxMessageBytes: int64(MaxMessageSize),
		}), nil
	case TransportAuto:
		return streamable.DialClientTransport(context.Background(), u.cfg.URL, &streamable.DialOptions{
			HTTPClient: hc, Header: h, MaxMessageBytes: int64(MaxMessageSize),
		})
	default:
		return streamable.NewClientTransport(u.cfg.URL, &streamable.ClientOptions{
			HTTPClient: hc, Header: h, MaxMessageSize: MaxMessageSize,
		}), nil
	}
}

// upstreamHTTP is the connection pool of the upstreams whose HTTP client
// the gateway builds itself (those with client credentials; the others
// get the transport's own). http.DefaultTransport keeps two idle
// connections per host: with more calls in flight to one upstream, each
// call past the second would open a connection and close it after.
var upstreamHTTP = sync.OnceValue(func() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = tr.MaxIdleConns
	return tr
})

// header reads the headers and the bearer token sent with every request.
// Its errors name the header and where its value comes from, never the
// value.
func (u *UpstreamConfig) header() (http.Header, error) {
	h := http.Header{}
	for name, sec := range u.Headers {
		v, err := sec.value()
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", name, err)
		}
		if err := checkHeaderValue(v); err != nil {
			return nil, fmt.Errorf("header %s from %s: %w", name, sec.source(), err)
		}
		h.Set(name, v)
	}
	if u.Auth != nil && u.Auth.Bearer != nil {
		v, err := u.Auth.Bearer.value()
		if err != nil {
			return nil, fmt.Errorf("auth.bearer: %w", err)
		}
		if v == "" {
			return nil, fmt.Errorf("auth.bearer from %s: the token is empty", u.Auth.Bearer.source())
		}
		if err := checkHeaderValue(v); err != nil {
			return nil, fmt.Errorf("auth.bearer from %s: %w", u.Auth.Bearer.source(), err)
		}
		h.Set("Authorization", "Bearer "+v)
	}
	return h, nil
}

// checkHeaderValue refuses a value HTTP cannot carry, without quoting it.
func checkHeaderValue(v string) error {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return fmt.Errorf("the value has a control character at byte %d", i)
		}
	}
	return nil
}

// UnmarshalYAML reads {env: NAME} or {file: PATH}. A secret written in
// the config itself is refused without quoting it: the decoder's own
// error would show the value.
func (s *SecretConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a secret is not written in the config: give {env: NAME} or {file: PATH}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s: want a name", v.Line, k.Value)
		}
		switch k.Value {
		case "env":
			s.Env = v.Value
		case "file":
			s.File = v.Value
		default:
			return fmt.Errorf("line %d: field %s not found in a secret: give env or file", k.Line, k.Value)
		}
	}
	return nil
}

// source says where a secret comes from, for errors.
func (s SecretConfig) source() string {
	if s.Env != "" {
		return "environment variable " + s.Env
	}
	return "file " + s.File
}

// tokenCache holds the token of a client credentials grant and fetches a
// new one when it is missing, about to expire, or was refused.
type tokenCache struct {
	cfg *ClientCredentialsConfig
	now func() time.Time // time.Now, but for tests

	mu  sync.Mutex // held across a fetch, so that one fetch serves all waiters
	tok *oauth2.Token
}

func newTokenCache(cfg *ClientCredentialsConfig) *tokenCache {
	return &tokenCache{cfg: cfg, now: time.Now}
}

// token returns a token that is valid for at least tokenEarlyExpiry.
func (c *tokenCache) token(ctx context.Context) (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && (c.tok.Expiry.IsZero() || c.now().Add(tokenEarlyExpiry).Before(c.tok.Expiry)) {
		return c.tok, nil
	}
	tok, err := c.fetch(ctx)
	if err != nil {
		return nil, err
	}
	c.tok = tok
	return tok, nil
}

// drop forgets tok, when it is still the cached one, after the upstream
// refused it.
func (c *tokenCache) drop(tok *oauth2.Token) {
	c.mu.Lock()
	if c.tok == tok {
		c.tok = nil
	}
	c.mu.Unlock()
}

// fetch asks the token endpoint for a token. The secret is read on every
// fetch, so that a rotated one is used from then on.
func (c *tokenCache) fetch(ctx context.Context) (*oauth2.Token, error) {
	secret, err := c.cfg.ClientSecret.value()
	if err != nil {
		return nil, fmt.Errorf("auth.clientCredentials.clientSecret: %w", err)
	}
	cc := clientcredentials.Config{
		ClientID:       c.cfg.ClientID,
		ClientSecret:   secret,
		TokenURL:       c.cfg.TokenURL,
		Scopes:         c.cfg.Scopes,
		EndpointParams: url.Values{},
	}
	if c.cfg.Audience != "" {
		cc.EndpointParams.Set("audience", c.cfg.Audience)
	}
	if c.cfg.Resource != "" {
		cc.EndpointParams.Set("resource", c.cfg.Resource)
	}
	ctx, cancel := context.WithTimeout(ctx, tokenFetchTimeout)
	defer cancel()
	ctx = context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: http.DefaultTransport})
	tok, err := cc.Token(ctx)
	if err != nil {
		return nil, tokenError(c.cfg.TokenURL, secret, err)
	}
	return tok, nil
}

// tokenError describes a failed fetch with what is safe to show: the
// status and the OAuth error code, never the response body, which a
// careless or hostile server may fill with what it was sent.
func tokenError(tokenURL, secret string, err error) error {
	where := tokenURL
	if u, perr := url.Parse(tokenURL); perr == nil {
		where = u.Redacted()
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := "token endpoint " + where + " refused the client credentials"
		if re.Response != nil {
			msg += ": " + re.Response.Status
		}
		if re.ErrorCode != "" {
			msg += " (" + re.ErrorCode + ")"
		}
		return errors.New(redact(msg, secret))
	}
	return fmt.Errorf("token endpoint %s: %s", where, redact(err.Error(), secret))
}

// redact removes secret from s.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// tokenTransport adds the cached token to each request. When the
// upstream answers 401, the token is dropped and the request is sent
// once more with a new one, for a token revoked before its expiry.
type tokenTransport struct {
	base   http.RoundTripper
	tokens *tokenCache
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.tokens.token(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	resp, err := t.base.RoundTrip(withToken(req, tok))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	t.tokens.drop(tok)
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // the body is spent; the next request gets a new token
	}
	next, err := t.tokens.token(req.Context())
	if err != nil {
		return resp, nil // the 401 stands; the next request tries the endpoint again
	}
	retry := withToken(req, next)
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	_ = resp.Body.Close()
	return t.base.RoundTrip(retry)
}

// withToken returns a copy of req carrying tok: a RoundTripper must not
// change the request it is given.
func withToken(req *http.Request, tok *oauth2.Token) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", tok.Type()+" "+tok.AccessToken)
	return r
}

// validateDial checks the upstream's transport and credential keys.
func (u *UpstreamConfig) validateDial(where string, bad badFunc) error {
	where = fmt.Sprintf("%s (%s)", where, u.Name)
	switch u.Transport {
	case "", TransportStreamable, TransportSSE, TransportAuto:
	default:
		return bad(u.line, "%s: transport %q: use %s, %s or %s", where, u.Transport, TransportStreamable, TransportSSE, TransportAuto)
	}
	if u.URL == "" {
		if u.Transport != "" {
			return bad(u.line, "%s: transport needs url (a command is spoken to over stdio)", where)
		}
		if u.Auth != nil {
			return bad(u.line, "%s: auth needs url (give a command its credentials in env)", where)
		}
		return nil
	}
	if err := checkHTTPURL(u.URL); err != nil {
		return bad(u.line, "%s: url: %v", where, err)
	}
	if u.Auth == nil {
		return nil
	}
	a := u.Auth
	if (a.Bearer == nil) == (a.ClientCredentials == nil) {
		return bad(u.line, "%s: auth: give exactly one of bearer and clientCredentials", where)
	}
	for name := range u.Headers {
		if strings.EqualFold(name, "Authorization") {
			return bad(u.line, "%s: header %s and auth both set the Authorization header", where, name)
		}
	}
	if a.Bearer != nil {
		if (a.Bearer.Env == "") == (a.Bearer.File == "") {
			return bad(u.line, "%s: auth.bearer: give exactly one of env and file", where)
		}
		return nil
	}
	cc := a.ClientCredentials
	if cc.TokenURL == "" {
		return bad(u.line, "%s: auth.clientCredentials.tokenURL: missing", where)
	}
	if err := checkTokenURL(cc.TokenURL); err != nil {
		return bad(u.line, "%s: auth.clientCredentials.tokenURL: %v", where, err)
	}
	if cc.ClientID == "" {
		return bad(u.line, "%s: auth.clientCredentials.clientId: missing", where)
	}
	if (cc.ClientSecret.Env == "") == (cc.ClientSecret.File == "") {
		return bad(u.line, "%s: auth.clientCredentials.clientSecret: give exactly one of env and file", where)
	}
	return nil
}

// checkHTTPURL checks that raw is an absolute http or https URL. Its errors
// show the URL without a password.
func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%s: want an http or https URL with a host", u.Redacted())
	}
	return nil
}

// checkTokenURL checks a token endpoint: client secrets travel only over TLS,
// or to this machine.
func checkTokenURL(raw string) error {
	if err := checkHTTPURL(raw); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	if u.Scheme == "https" {
		return nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: the client secret would travel in clear; use https (http is allowed to a loopback address only)", u.Redacted())
}
