package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// The grants a Transport can run.
const (
	// GrantAuthorizationCode is the authorization code grant with PKCE,
	// for a client acting for a user: the default.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials is the client credentials grant, for a
	// client acting on its own behalf with a pre-registered client.
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer is the JWT bearer grant (RFC 7523): an assertion
	// obtained elsewhere (Config.Assertion: a workload identity token, an
	// enterprise IdP's ID-JAG) is exchanged for a token by a
	// pre-registered client.
	GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// AssertionRequest says what a JWT bearer assertion is for.
type AssertionRequest struct {
	// Issuer is the authorization server's issuer identifier, the
	// assertion's audience.
	Issuer string
	// Resource is the resource indicator of the MCP server.
	Resource string
	// Scopes are the scopes the token is asked for.
	Scopes []string
	// HTTPClient is the Transport's client for discovery and token
	// requests, for an assertion that needs a request of its own.
	HTTPClient *http.Client
}

// DefaultMaxStepUps bounds the re-authorizations for insufficient scope
// when Config.MaxStepUps is zero.
const DefaultMaxStepUps = 2

// Config configures a Transport.
type Config struct {
	// Grant is GrantAuthorizationCode (the default, when empty) or
	// GrantClientCredentials.
	Grant string

	// RedirectURL is the client's redirect URI, where the authorization
	// server sends the user agent back; needed by the authorization code
	// grant.
	RedirectURL string
	// Authorize is the user agent of the authorization code grant: it
	// takes the authorization URL, has the user approve (a browser, say),
	// and returns the URL the authorization server redirected to, the
	// RedirectURL with code, state and iss in its query. It may block for
	// as long as ctx allows.
	Authorize func(ctx context.Context, authorizationURL string) (redirectedTo string, err error)

	// Assertion returns the assertion of GrantJWTBearer. It is called
	// for every token request of that grant; IDJAGExchange.Assertion is
	// one for enterprise-managed authorization.
	Assertion func(ctx context.Context, req AssertionRequest) (string, error)

	// Clients are pre-registered clients, the first choice for an
	// authorization server they are bound to (Registration.Issuer).
	Clients []Registration
	// ClientIDMetadataURL is the https URL of the client's Client ID
	// Metadata Document, used as its client_id with an authorization
	// server that accepts such documents. Empty means the client has none.
	ClientIDMetadataURL string
	// ClientName is the client_name of dynamic client registration.
	ClientName string
	// ApplicationType is the application_type of dynamic client
	// registration, "native" or "web"; empty means native for a redirect
	// URL on the loopback interface or of a private scheme, web otherwise.
	ApplicationType string

	// DPoP binds tokens to a key of the Transport's (RFC 9449) with an
	// authorization server that supports DPoP proofs signed with ES256:
	// the token requests and every request to the MCP server carry a
	// proof, with the nonces the servers hand out, and the token is sent
	// with the DPoP scheme. Other servers get Bearer tokens as before.
	DPoP bool

	// OfflineAccess asks for refresh tokens: offline_access is added to
	// the requested scopes when the authorization server lists it in
	// scopes_supported.
	OfflineAccess bool
	// MaxStepUps bounds the re-authorizations a run of 403
	// insufficient_scope replies from one server can cause, before the
	// 403 is handed to the caller. Zero means DefaultMaxStepUps; negative
	// means none.
	MaxStepUps int

	// Store keeps tokens and registrations; nil means a new MemoryStore.
	Store TokenStore
	// HTTPClient makes the requests of discovery, registration and the
	// token endpoint. Nil means a client with a 30-second timeout over the
	// Transport's base.
	HTTPClient *http.Client
	// Logger receives the steps of each authorization, never a token, a
	// secret or a code. Nil discards them.
	Logger *slog.Logger
}

// Transport is an http.RoundTripper for the requests of an MCP client
// transport (streamable.ClientOptions.HTTPClient) that authorizes them as
// the MCP authorization spec says. It sends the token it holds for the
// request's URL as "Authorization: Bearer", renewing it first with its
// refresh token when it has expired. On 401 it discovers the server's
// authorization server (Protected Resource Metadata, then authorization
// server metadata), registers if it must, obtains a token with the
// configured grant and retries the request once. On 403 with
// insufficient_scope it re-authorizes with the scopes it asked for before
// plus those the server names, and retries, at most MaxStepUps times in a
// row.
//
// The request's body is resent from Request.GetBody; a request without it
// gets the 401 or 403 as it came. Authorizations are made one at a time;
// requests waiting for one then use its token. Errors of discovery and
// authorization are returned by RoundTrip, wrapped.
type Transport struct {
	base  http.RoundTripper
	cfg   Config
	hc    *http.Client
	store TokenStore
	log   *slog.Logger
	now   func() time.Time

	flow sync.Mutex // held by an authorization

	dpopOnce sync.Once
	dpop     *dpopProver  // nil until needed, and without Config.DPoP
	dpopHC   *http.Client // token requests with proofs
	dpopErr  error

	mu      sync.Mutex
	bound   []bool                // which Config.Clients without an Issuer got one
	servers map[string]*serverRun // by canonical server URL
}

// serverRun is what the Transport keeps of one MCP server between
// requests.
type serverRun struct {
	d       *discovery // the last discovery, for step-ups and refreshes
	stepUps int        // 403 re-authorizations since the last success
}

// NewTransport returns a Transport that sends requests through base (nil
// means http.DefaultTransport).
func NewTransport(cfg Config, base http.RoundTripper) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	t := &Transport{base: base, cfg: cfg, hc: cfg.HTTPClient, store: cfg.Store, log: cfg.Logger, now: time.Now}
	t.cfg.Clients = slices.Clone(cfg.Clients)
	t.bound = make([]bool, len(cfg.Clients))
	if t.hc == nil {
		t.hc = &http.Client{Transport: base, Timeout: 30 * time.Second}
	}
	if t.store == nil {
		t.store = &MemoryStore{}
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.cfg.MaxStepUps == 0 {
		t.cfg.MaxStepUps = DefaultMaxStepUps
	}
	t.servers = map[string]*serverRun{}
	return t
}

// Client returns an http.Client that sends its requests through t, for
// streamable.ClientOptions.HTTPClient.
func (t *Transport) Client() *http.Client { return &http.Client{Transport: t} }

// refreshLeeway renews a token this long before it expires.
const refreshLeeway = 30 * time.Second

// RoundTrip sends req with the server's token, authorizing as needed.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	key := canonicalURL(req.URL)
	tok, err := t.current(ctx, key)
	if err != nil {
		return nil, err
	}
	authorized := false // a token was obtained for this request
	nonced := false     // the request was resent with a new DPoP nonce
	resendable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for {
		resp, err := t.send(req, tok)
		if err != nil {
			return nil, err
		}
		dpop := tok != nil && strings.EqualFold(tok.TokenType, "DPoP")
		ch, _ := ParseChallenge(resp.Header)
		newNonce := false
		if dpop {
			ch, _ = parseChallenge(resp.Header, "DPoP", "Bearer")
			if p, err := t.prover(); err == nil {
				newNonce = p.noteNonce(req.URL, resp)
			}
		}
		switch {
		case !resendable:
			return resp, nil
		case resp.StatusCode == http.StatusUnauthorized && ch.Error == "use_dpop_nonce" && newNonce && !nonced:
			drain(resp)
			nonced = true
			continue
		case resp.StatusCode == http.StatusUnauthorized && !authorized:
		case resp.StatusCode == http.StatusForbidden && ch.Error == "insufficient_scope" && t.stepUp(key):
		default:
			if resp.StatusCode/100 == 2 {
				t.succeeded(key)
			}
			return resp, nil
		}
		drain(resp)
		if resp.StatusCode == http.StatusUnauthorized {
			tok, err = t.authorize(ctx, key, ch, tok)
		} else {
			tok, err = t.stepUpAuthorize(ctx, key, ch, tok)
		}
		if err != nil {
			return nil, err
		}
		authorized = true
	}
}

// send sends a copy of req bearing tok, if any.
func (t *Transport) send(req *http.Request, tok *Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("oauth: resending the body: %w", err)
		}
		r.Body = body
	}
	if tok != nil && strings.EqualFold(tok.TokenType, "DPoP") {
		p, err := t.prover()
		if err != nil {
			return nil, err
		}
		proof, err := p.proof(r.Method, r.URL, tok.AccessToken, t.now())
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
	} else if tok != nil {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return t.base.RoundTrip(r)
}

// prover returns the Transport's DPoP prover, made on first use.
func (t *Transport) prover() (*dpopProver, error) {
	t.dpopOnce.Do(func() {
		t.dpop, t.dpopErr = newDPoPProver()
		if t.dpopErr != nil {
			return
		}
		base := t.hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		t.dpopHC = &http.Client{
			Transport:     &dpopTokenTransport{base: base, p: t.dpop, now: t.now},
			CheckRedirect: t.hc.CheckRedirect,
			Jar:           t.hc.Jar,
			Timeout:       t.hc.Timeout,
		}
	})
	return t.dpop, t.dpopErr
}

// tokenClient is the client for the token requests of d: one that adds
// DPoP proofs when the Transport binds tokens with DPoP and d's
// authorization server supports it.
func (t *Transport) tokenClient(d *discovery) (*http.Client, error) {
	if !t.cfg.DPoP || !supportsDPoP(d.as) {
		return t.hc, nil
	}
	if _, err := t.prover(); err != nil {
		return nil, err
	}
	return t.dpopHC, nil
}

// drain discards what is left of a reply that will not be handed on.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// current returns the token to send to the server at key: the stored one,
// refreshed first if it has expired; nil when there is none to send.
func (t *Transport) current(ctx context.Context, key string) (*Token, error) {
	tok, err := t.store.Token(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the token: %w", err)
	}
	if tok == nil || !tok.expired(t.now(), refreshLeeway) {
		return tok, nil
	}
	t.flow.Lock()
	defer t.flow.Unlock()
	if again, err := t.store.Token(ctx, key); err == nil && again != nil && again.AccessToken != tok.AccessToken {
		return again, nil // renewed while this request waited
	}
	r := t.run(key)
	t.mu.Lock()
	d := r.d
	t.mu.Unlock()
	if tok.RefreshToken == "" || d == nil || d.issuer != tok.Issuer {
		return nil, nil // the server's 401 starts a new authorization
	}
	next, err := t.renew(ctx, key, d, tok)
	if err != nil {
		t.log.Info("oauth: refresh failed; authorizing again", "issuer", tok.Issuer, "err", err)
		return nil, nil
	}
	return next, nil
}

// renew refreshes tok and stores the result.
func (t *Transport) renew(ctx context.Context, key string, d *discovery, tok *Token) (*Token, error) {
	reg, err := t.registration(ctx, d)
	if err != nil {
		return nil, err
	}
	next, err := t.refresh(context.WithoutCancel(ctx), d, reg, tok)
	if err != nil {
		return nil, err
	}
	if err := t.store.SetToken(ctx, key, next); err != nil {
		return nil, fmt.Errorf("oauth: storing the token: %w", err)
	}
	return next, nil
}

// run returns the record of the server at key.
func (t *Transport) run(key string) *serverRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.servers[key]
	if r == nil {
		r = &serverRun{}
		t.servers[key] = r
	}
	return r
}

// stepUp reports whether one more 403 re-authorization is allowed for the
// server at key, and counts it.
func (t *Transport) stepUp(key string) bool {
	r := t.run(key)
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.stepUps >= t.cfg.MaxStepUps {
		return false
	}
	r.stepUps++
	return true
}

// succeeded resets the step-up count of the server at key.
func (t *Transport) succeeded(key string) {
	r := t.run(key)
	t.mu.Lock()
	r.stepUps = 0
	t.mu.Unlock()
}

// authorize answers a 401: it discovers the server's authorization server
// anew (it may have changed), then renews the token sent, or the stored
// one when none was sent, with its refresh token, or obtains a new one.
func (t *Transport) authorize(ctx context.Context, key string, ch Challenge, sent *Token) (*Token, error) {
	t.flow.Lock()
	defer t.flow.Unlock()
	stored, err := t.store.Token(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the token: %w", err)
	}
	if stored != nil && (sent == nil || stored.AccessToken != sent.AccessToken) && !stored.expired(t.now(), 0) {
		return stored, nil // another request authorized while this one waited
	}
	d, err := t.discover(ctx, key, ch)
	if err != nil {
		return nil, err
	}
	r := t.run(key)
	t.mu.Lock()
	r.d = d
	t.mu.Unlock()
	prev := sent
	if prev == nil {
		prev = stored // expired, and not refreshed before discovery
	}
	if prev != nil && prev.Issuer != d.issuer {
		prev = nil // another server's: neither refreshed nor its scopes kept
	}
	if prev != nil && prev.RefreshToken != "" {
		tok, err := t.renew(ctx, key, d, prev)
		if err == nil {
			return tok, nil
		}
		t.log.Info("oauth: refresh failed; authorizing again", "issuer", d.issuer, "err", err)
	}
	var scopes []string
	if prev != nil {
		scopes = prev.Scopes
	}
	return t.obtainAndStore(ctx, key, d, t.scopes(d, ch, scopes))
}

// stepUpAuthorize answers a 403 insufficient_scope: a new token for the
// scopes asked for before plus the challenge's.
func (t *Transport) stepUpAuthorize(ctx context.Context, key string, ch Challenge, sent *Token) (*Token, error) {
	t.flow.Lock()
	defer t.flow.Unlock()
	if tok, err := t.store.Token(ctx, key); err == nil && tok != nil && sent != nil && tok.AccessToken != sent.AccessToken && containsAll(tok.Scopes, ch.Scopes) {
		return tok, nil // another request stepped up while this one waited
	}
	r := t.run(key)
	t.mu.Lock()
	d := r.d
	t.mu.Unlock()
	if d == nil || sent == nil || sent.Issuer != d.issuer {
		var err error
		if d, err = t.discover(ctx, key, ch); err != nil {
			return nil, err
		}
	}
	var prev []string
	if sent != nil && sent.Issuer == d.issuer {
		prev = sent.Scopes
	}
	t.log.Info("oauth: stepping up", "issuer", d.issuer, "challenged", ch.Scopes)
	return t.obtainAndStore(ctx, key, d, t.scopes(d, ch, prev))
}

// obtainAndStore registers if need be, obtains a token for scopes and
// stores it for the server at key.
func (t *Transport) obtainAndStore(ctx context.Context, key string, d *discovery, scopes []string) (*Token, error) {
	reg, err := t.registration(ctx, d)
	if err != nil {
		return nil, err
	}
	tok, err := t.obtain(ctx, d, reg, scopes)
	if err != nil {
		return nil, err
	}
	if err := t.store.SetToken(ctx, key, tok); err != nil {
		return nil, fmt.Errorf("oauth: storing the token: %w", err)
	}
	t.log.Info("oauth: authorized", "token", tok)
	return tok, nil
}

// scopes selects the scopes to ask for: the challenge's, else the
// resource's scopes_supported, else none (scope omitted); joined with
// those asked for before (a step-up keeps what was granted), and with
// offline_access when refresh tokens are wanted and the authorization
// server lists it.
func (t *Transport) scopes(d *discovery, ch Challenge, prev []string) []string {
	var s []string
	switch {
	case len(ch.Scopes) > 0:
		s = ch.Scopes
	case d.prm != nil:
		s = d.prm.ScopesSupported
	}
	s = union(prev, s)
	if t.cfg.OfflineAccess && t.interactive() && len(s) > 0 &&
		slices.Contains(d.as.ScopesSupported, "offline_access") {
		s = union(s, []string{"offline_access"})
	}
	return s
}

// interactive reports whether the grant acts for a user, the only kind
// that registers itself and asks for refresh tokens.
func (t *Transport) interactive() bool {
	return t.cfg.Grant == "" || t.cfg.Grant == GrantAuthorizationCode
}

// union is a followed by the members of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// Check reports what is wrong with cfg, before any request.
func (cfg *Config) Check() error {
	var errs []error
	switch cfg.Grant {
	case "", GrantAuthorizationCode:
		if cfg.Authorize == nil || cfg.RedirectURL == "" {
			errs = append(errs, ErrNoAuthorizer)
		} else if _, err := url.Parse(cfg.RedirectURL); err != nil {
			errs = append(errs, fmt.Errorf("oauth: RedirectURL: %w", err))
		}
	case GrantClientCredentials, GrantJWTBearer:
		if len(cfg.Clients) == 0 {
			errs = append(errs, fmt.Errorf("oauth: the %s grant needs a pre-registered client in Config.Clients", cfg.Grant))
		}
		if cfg.Grant == GrantJWTBearer && cfg.Assertion == nil {
			errs = append(errs, errors.New("oauth: the JWT bearer grant needs Config.Assertion"))
		}
	default:
		errs = append(errs, fmt.Errorf("oauth: unknown grant %q", cfg.Grant))
	}
	if cfg.ClientIDMetadataURL != "" {
		if err := metadata.CheckClientIDURL(cfg.ClientIDMetadataURL); err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range cfg.Clients {
		if c.ClientID == "" {
			errs = append(errs, errors.New("oauth: a pre-registered client has no ClientID"))
		}
	}
	return errors.Join(errs...)
}
