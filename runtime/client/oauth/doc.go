// Package oauth is the client half of MCP authorization (the
// "Authorization" page of the 2025-11-25 and 2026-07-28 specifications):
// an http.RoundTripper that obtains, attaches and renews the access tokens
// an MCP server behind OAuth 2.1 asks for.
//
// A Transport wraps the HTTP client of the Streamable HTTP client
// transport; the MCP client above it never sees the authorization:
//
//	tr := oauth.NewTransport(oauth.Config{
//		RedirectURL: "http://127.0.0.1:8976/callback",
//		Authorize:   openBrowserAndWaitForCallback, // the user agent
//		ClientIDMetadataURL: "https://app.example/oauth/client.json",
//		OfflineAccess: true,
//	}, nil)
//	t := streamable.NewClientTransport(url, &streamable.ClientOptions{HTTPClient: tr.Client()})
//	sess, err := client.New(impl, nil).Connect(ctx, t)
//
// What it does, in the order the specification gives:
//
//   - Every request to a server it holds a token for carries
//     "Authorization: Bearer"; an expired token is first renewed with its
//     refresh token.
//   - On 401 it reads the Bearer challenge (ParseChallenge) and discovers:
//     the Protected Resource Metadata at the challenge's resource_metadata
//     URL, else at the path-inserted and then the root well-known URL; its
//     resource must identify the server (same origin, same path or a parent
//     of it), else ErrResourceMismatch. The first authorization server it
//     names (or the one a pre-registered client is bound to) has its
//     metadata read from the RFC 8414 and OpenID Connect well-known URLs in
//     the specification's order, and a document naming another issuer is
//     refused. A server publishing no metadata at all is taken as one of
//     the 2025-03-26 revision: its origin is the authorization server, with
//     /authorize, /token and /register when it has no metadata either.
//   - It registers in the specification's priority: a pre-registered client
//     (Config.Clients), the Client ID Metadata Document URL
//     (Config.ClientIDMetadataURL) when the server accepts such documents, a
//     registration stored from before, then dynamic client registration
//     (RFC 7591, with application_type). Registrations are bound to the
//     issuer that made them and never shown to another server.
//   - It asks for the challenge's scope, else the resource's
//     scopes_supported, else no scope, plus offline_access when
//     Config.OfflineAccess asks for refresh tokens and the server lists it.
//   - With the authorization code grant (the default) it sends the user
//     agent (Config.Authorize) to the authorization endpoint with PKCE
//     (S256; a server not listing S256 is refused, ErrPKCEUnsupported),
//     state and the resource indicator (RFC 8707), then checks the response:
//     iss against the recorded issuer as a plain string (RFC 9207;
//     required when the server advertises it), state, error. Only then does
//     the code go to the token endpoint, with the verifier and the
//     resource. With the client credentials grant (Config.Grant) a
//     pre-registered client gets its token directly; with the JWT bearer
//     grant it presents an assertion from Config.Assertion: a workload
//     identity token, or an enterprise IdP's ID-JAG (IDJAGExchange, the
//     enterprise-managed authorization extension).
//   - The token endpoint is authenticated as the registration says:
//     client_secret_basic, client_secret_post, none, or private_key_jwt
//     with an assertion signed by Registration.PrivateKey (RFC 7523).
//   - With Config.DPoP and an authorization server that supports DPoP
//     proofs signed with ES256, tokens are bound to a key of the
//     Transport's (RFC 9449): the token requests and every request to the
//     MCP server carry a fresh proof (with the access token's hash), the
//     nonces either server hands out are used (use_dpop_nonce), and the
//     token is sent with the DPoP scheme.
//   - The request is then sent again, once. On 403 with
//     insufficient_scope the client re-authorizes for the scopes it asked
//     for before plus the challenge's, at most Config.MaxStepUps times in a
//     row for a server.
//
// Tokens and registrations live in a TokenStore (MemoryStore by default).
// Token, Registration and the client metadata print and log without their
// secrets, and the package logs no token, secret, code or state.
//
// Token exchanges use golang.org/x/oauth2 (the refresh request, which must
// carry the resource indicator, is made by this package); client
// assertions and DPoP proofs are signed with github.com/go-jose/go-jose/v4.
package oauth
