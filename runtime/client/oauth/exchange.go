package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The token types of RFC 8693 and the enterprise-managed authorization
// extension.
const (
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	// TokenTypeIDToken is an OpenID Connect ID token as a subject token.
	TokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"
	// TokenTypeIDJAG is an Identity Assertion JWT Authorization Grant.
	TokenTypeIDJAG = "urn:ietf:params:oauth:token-type:id-jag"
)

// IDJAGExchange gets the assertion of GrantJWTBearer from an enterprise
// identity provider, as the enterprise-managed authorization extension of
// MCP says: the user's identity token is exchanged (RFC 8693) at the IdP
// for an Identity Assertion JWT Authorization Grant (ID-JAG) addressed to
// the authorization server and the MCP server, which the client then
// presents to the authorization server. Set Config.Assertion to its
// Assertion method.
type IDJAGExchange struct {
	// TokenEndpoint is the IdP's token endpoint.
	TokenEndpoint string
	// SubjectToken returns the token that proves the user's identity at
	// the IdP, typically the ID token of the user's single sign-on.
	SubjectToken func(ctx context.Context) (string, error)
	// SubjectTokenType is its type; empty means TokenTypeIDToken.
	SubjectTokenType string
	// ClientID and ClientSecret authenticate the client at the IdP
	// (client_secret_basic); an empty ClientSecret sends ClientID in the
	// request as a public client.
	ClientID, ClientSecret string
	// HTTPClient sends the exchange; nil means the Transport's.
	HTTPClient *http.Client
}

// Assertion exchanges the subject token for an ID-JAG for req's
// authorization server (the audience) and MCP server (the resource).
func (x *IDJAGExchange) Assertion(ctx context.Context, req AssertionRequest) (string, error) {
	if x.TokenEndpoint == "" || x.SubjectToken == nil {
		return "", errors.New("oauth: IDJAGExchange needs TokenEndpoint and SubjectToken")
	}
	subject, err := x.SubjectToken(ctx)
	if err != nil {
		return "", fmt.Errorf("oauth: the subject token: %w", err)
	}
	typ := x.SubjectTokenType
	if typ == "" {
		typ = TokenTypeIDToken
	}
	form := url.Values{
		"grant_type":           {tokenExchangeGrant},
		"requested_token_type": {TokenTypeIDJAG},
		"subject_token":        {subject},
		"subject_token_type":   {typ},
		"audience":             {req.Issuer},
		"resource":             {req.Resource},
	}
	if len(req.Scopes) > 0 {
		form.Set("scope", strings.Join(req.Scopes, " "))
	}
	user := ""
	if x.ClientSecret != "" {
		user = x.ClientID
	} else if x.ClientID != "" {
		form.Set("client_id", x.ClientID)
	}
	hc := x.HTTPClient
	if hc == nil {
		hc = req.HTTPClient
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	r, err := postToken(ctx, hc, x.TokenEndpoint, form, user, x.ClientSecret)
	if err != nil {
		return "", fmt.Errorf("oauth: token exchange: %w", err)
	}
	if r.IssuedTokenType != "" && r.IssuedTokenType != TokenTypeIDJAG {
		return "", fmt.Errorf("oauth: token exchange: the IdP issued a %q, not an ID-JAG", r.IssuedTokenType)
	}
	return r.AccessToken, nil
}
