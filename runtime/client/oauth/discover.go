package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// Errors of discovery; Transport.RoundTrip returns them wrapped.
var (
	// ErrResourceMismatch: the Protected Resource Metadata names a
	// resource that is not the MCP server the client connects to (RFC
	// 9728, section 3.3). The client does not authorize.
	ErrResourceMismatch = errors.New("oauth: the protected resource metadata is for another resource")
	// ErrNoAuthorizationServer: no authorization server metadata was
	// found for the issuer the resource names.
	ErrNoAuthorizationServer = errors.New("oauth: no authorization server metadata found")
	// ErrPKCEUnsupported: the authorization server does not list S256 in
	// code_challenge_methods_supported, so the client refuses to run the
	// authorization code flow with it.
	ErrPKCEUnsupported = errors.New("oauth: the authorization server does not support PKCE with S256")
)

// maxDocument bounds a metadata document or token response, in bytes.
const maxDocument = 1 << 20

// discovery is what the client learned of the MCP server and its
// authorization server for one authorization.
type discovery struct {
	// resource is the resource indicator sent in the authorization and
	// token requests: the resource of the Protected Resource Metadata as
	// published, or the server's canonical URL when there is none.
	resource string
	// prm is the Protected Resource Metadata; nil for a server of the
	// 2025-03-26 revision, which publishes none.
	prm *metadata.ProtectedResource
	// issuer is the chosen authorization server's issuer identifier.
	issuer string
	// as is its metadata. For a 2025-03-26 server without metadata it
	// holds the default endpoints, and legacy is set.
	as     *metadata.AuthorizationServer
	legacy bool
}

// discover finds the Protected Resource Metadata of the server at
// serverURL, checks that it is about that server, picks an authorization
// server and reads its metadata. ch is the challenge that started it.
func (t *Transport) discover(ctx context.Context, serverURL string, ch Challenge) (*discovery, error) {
	var candidates []string
	if ch.ResourceMetadata != "" {
		candidates = append(candidates, ch.ResourceMetadata)
	}
	wk, err := metadata.ProtectedResourceURLs(serverURL)
	if err != nil {
		return nil, err
	}
	for _, u := range wk {
		if !slices.Contains(candidates, u) {
			candidates = append(candidates, u)
		}
	}
	var prm *metadata.ProtectedResource
	for _, u := range candidates {
		var m metadata.ProtectedResource
		found, err := t.getJSON(ctx, u, &m)
		if err != nil {
			t.log.Debug("oauth: protected resource metadata", "url", u, "err", err)
			continue
		}
		if found {
			prm = &m
			break
		}
	}
	if prm == nil {
		return t.discoverLegacy(ctx, serverURL)
	}
	if err := checkResource(prm.Resource, serverURL); err != nil {
		return nil, err
	}
	issuer, err := t.chooseIssuer(prm.AuthorizationServers)
	if err != nil {
		return nil, err
	}
	as, err := t.authorizationServer(ctx, issuer)
	if err != nil {
		return nil, err
	}
	t.log.Debug("oauth: discovered", "resource", prm.Resource, "issuer", issuer)
	return &discovery{resource: prm.Resource, prm: prm, issuer: issuer, as: as}, nil
}

// discoverLegacy is discovery for a server of the 2025-03-26 revision,
// which publishes no Protected Resource Metadata: its origin is the
// authorization server, whose metadata lives at the origin's well-known
// URL, or, failing that, whose endpoints are /authorize, /token and
// /register.
func (t *Transport) discoverLegacy(ctx context.Context, serverURL string) (*discovery, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	origin := u.Scheme + "://" + u.Host
	d := &discovery{resource: serverURL, issuer: origin, legacy: true}
	var as metadata.AuthorizationServer
	found, err := t.getJSON(ctx, origin+"/.well-known/"+metadata.AuthorizationServerSuffix, &as)
	if err != nil {
		return nil, fmt.Errorf("oauth: the server publishes no protected resource metadata, and its origin's authorization server metadata: %w", err)
	}
	if found {
		if err := as.CheckIssuer(origin); err != nil {
			return nil, err
		}
		d.as, d.legacy = &as, false
		t.log.Debug("oauth: no protected resource metadata; the server's origin is its authorization server", "issuer", origin)
		return d, nil
	}
	d.as = &metadata.AuthorizationServer{
		Issuer:                origin,
		AuthorizationEndpoint: origin + "/authorize",
		TokenEndpoint:         origin + "/token",
		RegistrationEndpoint:  origin + "/register",
	}
	t.log.Debug("oauth: no metadata; using the default endpoints of the server's origin", "issuer", origin)
	return d, nil
}

// chooseIssuer picks the authorization server among those the resource
// names: the first one a pre-registered client is bound to, else the
// first.
func (t *Transport) chooseIssuer(servers []string) (string, error) {
	if len(servers) == 0 {
		return "", errors.New("oauth: the protected resource metadata names no authorization server")
	}
	for _, s := range servers {
		for _, c := range t.cfg.Clients {
			if c.Issuer == s {
				return s, nil
			}
		}
	}
	return servers[0], nil
}

// authorizationServer reads the metadata of the authorization server
// issuer, trying RFC 8414 and OpenID Connect Discovery at the well-known
// URLs in the spec's order. A document naming another issuer is refused,
// not skipped: it may be an attacker's.
func (t *Transport) authorizationServer(ctx context.Context, issuer string) (*metadata.AuthorizationServer, error) {
	m, err := metadata.DiscoverAuthorizationServer(ctx, issuer, t.getJSON)
	if errors.Is(err, metadata.ErrNoMetadata) {
		return nil, fmt.Errorf("%w: %w", ErrNoAuthorizationServer, err)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return m, nil
}

// getJSON GETs a metadata document into v. A 4xx reply is not found
// (false, nil); other failures are errors.
func (t *Transport) getJSON(ctx context.Context, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("oauth: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := t.hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("oauth: GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 4 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("oauth: GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return false, fmt.Errorf("oauth: GET %s: %w", u, err)
	}
	if len(body) > maxDocument {
		return false, fmt.Errorf("oauth: GET %s: the document is larger than %d bytes", u, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("oauth: GET %s: %w", u, err)
	}
	return true, nil
}

// checkResource reports whether resource, from Protected Resource
// Metadata, identifies the MCP server at serverURL: the same origin
// (scheme and host compared without case), and a path that is the
// server's or one of its parent segments (https://mcp.example covers
// https://mcp.example/mcp).
func checkResource(resource, serverURL string) error {
	r, err := url.Parse(resource)
	if err != nil || r.Scheme == "" || r.Host == "" || r.Fragment != "" {
		return fmt.Errorf("%w: %q is not an absolute URI without a fragment", ErrResourceMismatch, resource)
	}
	s, err := url.Parse(serverURL)
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(hostPort(r), hostPort(s)) {
		return fmt.Errorf("%w: %q, not %q", ErrResourceMismatch, resource, serverURL)
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(s.EscapedPath(), "/")
	if rp != sp && !strings.HasPrefix(sp, rp+"/") {
		return fmt.Errorf("%w: %q, not %q", ErrResourceMismatch, resource, serverURL)
	}
	return nil
}

// hostPort is u's host with the scheme's default port made explicit.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Host + ":443"
	case "http":
		return u.Host + ":80"
	}
	return u.Host
}

// canonicalURL is serverURL as the key of its token and the resource
// indicator of a server without metadata: scheme and host lowercased, no
// query or fragment.
func canonicalURL(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment, c.User = "", false, "", "", nil
	return c.String()
}
