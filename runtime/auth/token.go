package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// TokenVerifier checks an access token presented to the MCP server.
// Verify returns what the token says when it is valid for this resource
// (signed or vouched for by the expected issuer, naming this resource in
// its audience, not expired), an error wrapping ErrInvalidToken when it is
// not, and any other error when it cannot tell now (the authorization
// server is unreachable). It must be safe for concurrent use.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// ErrInvalidToken is wrapped by the errors of a TokenVerifier that refuses
// a token: malformed, badly signed, expired, of another issuer or for
// another resource, inactive. The Middleware answers them with 401 and
// error="invalid_token".
var ErrInvalidToken = errors.New("invalid token")

// invalid returns an error wrapping ErrInvalidToken that says why.
func invalid(format string, args ...any) error {
	return &tokenError{msg: fmt.Sprintf(format, args...)}
}

type tokenError struct{ msg string }

func (e *tokenError) Error() string { return "invalid token: " + e.msg }
func (e *tokenError) Unwrap() error { return ErrInvalidToken }

// TokenInfo is what a verified access token says. A handler reaches it
// with TokenInfoFrom; the engine sees it through its Principal.
type TokenInfo struct {
	// Subject is the token's sub: who it was issued for.
	Subject string
	// Issuer is the authorization server that issued it (iss).
	Issuer string
	// Audience lists the resources it was issued for (aud); this
	// server's resource URI is among them.
	Audience []string
	// Scopes are the scopes it grants, from scope (space-separated) or
	// scp (an array).
	Scopes []string
	// Expiry is when it expires (exp); zero when an introspection
	// response did not say.
	Expiry time.Time
	// ClientID is the OAuth client it was issued to (client_id, or azp).
	ClientID string
	// Claims are all its claims as decoded JSON: the JWT's payload, or
	// the introspection response. The caller must not modify them.
	Claims map[string]any
}

// HasScope reports whether the token grants scope. TokenInfo is a
// server.ScopeHolder.
func (t *TokenInfo) HasScope(scope string) bool { return slices.Contains(t.Scopes, scope) }

// Principal returns who the token authenticates: its issuer and subject,
// the same for every token the issuer gives that subject, whatever their
// scopes or expiry.
func (t *TokenInfo) Principal() Principal { return Principal{Issuer: t.Issuer, Subject: t.Subject} }

// Principal is the identity the Middleware gives the engine
// (server.PrincipalFrom) and Streamable HTTP's sessions
// (streamable.HandlerOptions.Authenticate, with Authenticate): an issuer
// and a subject. It is comparable, so MaxSessionsPerIdentity counts a
// user's sessions whatever token each came with, and sessions, tasks,
// pagination cursors and requestStates bound to it stay usable when the
// token is refreshed or stepped up to more scopes, by that subject only.
//
// Its scopes are those of each request's own token: Principal is a
// server.RequestScoper.
type Principal struct {
	Issuer  string
	Subject string
}

// String returns the subject and issuer, quoted, so that no two
// principals read the same. The engine binds state to it.
func (p Principal) String() string {
	return strconv.Quote(p.Subject) + "@" + strconv.Quote(p.Issuer)
}

// RequestScopes returns the token of the request ctx serves when it
// belongs to p, and nil otherwise. The holder it returns also hears of a
// scope refusal (server.ScopeChallenger), for the Middleware's 403.
func (p Principal) RequestScopes(ctx context.Context) server.ScopeHolder {
	g := grantFrom(ctx)
	if g == nil || g.info.Principal() != p {
		return nil
	}
	return g
}

var _ server.RequestScoper = Principal{}

// Token returns the verified token of the request ctx serves when it
// belongs to p, and nil otherwise: the claims and scopes of the request
// at hand, for authorization decisions on more than the identity. Within
// one session they may change from request to request as the client
// refreshes or steps up its token, while p stays the same.
func (p Principal) Token(ctx context.Context) *TokenInfo {
	g := grantFrom(ctx)
	if g == nil || g.info.Principal() != p {
		return nil
	}
	return g.info
}

// grant is a verified request: its token, and the response that a scope
// refusal may turn into a 403.
type grant struct {
	info *TokenInfo
	w    *challengeWriter
}

func (g *grant) HasScope(scope string) bool { return g.info.HasScope(scope) }

// ChallengeScopes marks the response of the HTTP request for a 403
// insufficient_scope challenge naming required.
func (g *grant) ChallengeScopes(_ context.Context, required []string) {
	g.w.deny(required)
}

type grantKey struct{}

// grantFrom returns the verified request that ctx serves: ctx's own
// (2026-07-28 requests are served on their HTTP request's ctx), or that of
// the HTTP request that carried the MCP request (legacy sessions, whose
// handlers run on the session's ctx).
func grantFrom(ctx context.Context) *grant {
	if g, ok := ctx.Value(grantKey{}).(*grant); ok {
		return g
	}
	if r := streamable.HTTPRequestFromContext(ctx); r != nil {
		if g, ok := r.Context().Value(grantKey{}).(*grant); ok {
			return g
		}
	}
	return nil
}

// TokenInfoFrom returns the verified token of the request that ctx
// serves, in either era, or nil when the request came through no
// Middleware. The caller must not modify it.
func TokenInfoFrom(ctx context.Context) *TokenInfo {
	if g := grantFrom(ctx); g != nil {
		return g.info
	}
	return nil
}

// Authenticate is a streamable.HandlerOptions.Authenticate (and
// LegacyOptions.Authenticate) for an endpoint behind a Middleware: it
// returns the Principal of the request's verified token, which binds the
// sessions it starts. A request that did not come through a Middleware is
// refused, so a handler mounted without one fails closed.
func Authenticate(r *http.Request) (identity any, err error) {
	g, ok := r.Context().Value(grantKey{}).(*grant)
	if !ok {
		return nil, errors.New("no verified access token: the endpoint is not behind auth.Middleware")
	}
	return g.info.Principal(), nil
}

// sameResource reports whether two resource URIs name the same resource:
// equal but for the case of the scheme and host and a trailing slash.
func sameResource(a, b string) bool {
	if a == b {
		return true
	}
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.Opaque != "" || ub.Opaque != "" {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/") &&
		ua.RawQuery == ub.RawQuery && ua.Fragment == "" && ub.Fragment == "" && ua.User == nil && ub.User == nil
}

// audienceHas reports whether an audience names the resource.
func audienceHas(aud []string, resource string) bool {
	return slices.ContainsFunc(aud, func(a string) bool { return sameResource(a, resource) })
}

// scopesOf reads the scopes of a token's claims: scope, a space-separated
// string (RFC 8693, RFC 9068), else scp, an array of strings or one
// space-separated string as some servers send.
func scopesOf(claims map[string]any) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch v := claims["scp"].(type) {
	case string:
		return strings.Fields(v)
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// clientIDOf reads the client a token was issued to.
func clientIDOf(claims map[string]any) string {
	if s, ok := claims["client_id"].(string); ok {
		return s
	}
	s, _ := claims["azp"].(string)
	return s
}

// audienceOf reads aud, a string or an array of strings.
func audienceOf(claims map[string]any) []string {
	switch v := claims["aud"].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// numericDate reads a NumericDate claim: ok is false when it is absent,
// err when it is not a number.
func numericDate(claims map[string]any, name string) (t time.Time, ok bool, err error) {
	v, present := claims[name]
	if !present || v == nil {
		return time.Time{}, false, nil
	}
	f, isNum := v.(float64)
	if !isNum {
		return time.Time{}, false, invalid("%s is not a number", name)
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true, nil
}

// checkTimes checks exp (required when needExp), nbf and iat against now
// with leeway.
func checkTimes(claims map[string]any, now time.Time, leeway time.Duration, needExp bool) (exp time.Time, err error) {
	exp, ok, err := numericDate(claims, "exp")
	if err != nil {
		return time.Time{}, err
	}
	if !ok && needExp {
		return time.Time{}, invalid("it has no exp")
	}
	if ok && now.Add(-leeway).After(exp) {
		return time.Time{}, invalid("it expired")
	}
	nbf, ok, err := numericDate(claims, "nbf")
	if err != nil {
		return time.Time{}, err
	}
	if ok && now.Add(leeway).Before(nbf) {
		return time.Time{}, invalid("it is not valid yet (nbf)")
	}
	iat, ok, err := numericDate(claims, "iat")
	if err != nil {
		return time.Time{}, err
	}
	if ok && now.Add(leeway).Before(iat) {
		return time.Time{}, invalid("it was issued in the future (iat)")
	}
	return exp, nil
}

// infoFrom fills a TokenInfo from checked claims.
func infoFrom(claims map[string]any, exp time.Time) *TokenInfo {
	sub, _ := claims["sub"].(string)
	iss, _ := claims["iss"].(string)
	return &TokenInfo{
		Subject:  sub,
		Issuer:   iss,
		Audience: audienceOf(claims),
		Scopes:   scopesOf(claims),
		Expiry:   exp,
		ClientID: clientIDOf(claims),
		Claims:   claims,
	}
}
