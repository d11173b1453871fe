package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
)

// The authorization scenarios (auth/*): the test server answers 401 until
// the client presents a token from the scenario's authorization server,
// which approves every request at once. runtime/client/oauth does the
// flow; this file configures it from the scenario and plays the user
// agent.

// authScenarios are the auth/* scenarios the client legs run. Each lists
// the tools and calls test-tool: the second request is where the step-up
// scenarios ask for more scope.
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/resource-mismatch",
	"auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
	"auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
	"auth/client-credentials-jwt", "auth/client-credentials-basic",
	"auth/wif-jwt-bearer", "auth/enterprise-managed-authorization",
	"auth/dpop", "auth/dpop-nonce",
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = scenario{http: authorizedClient, run: callTestTool}
	}
}

const (
	// redirectURL is the client's redirect URI. Nothing listens there:
	// the user agent stops at the redirect to it and reads the response
	// from the Location header.
	redirectURL = "http://localhost:3000/callback"
	// clientMetadataURL is the client's Client ID Metadata Document URL,
	// the one auth/basic-cimd expects.
	clientMetadataURL = "https://conformance-test.local/client-metadata.json"
)

// authContext is MCP_CONFORMANCE_CONTEXT for the auth scenarios that have
// one: pre-registered credentials, for client-credentials-jwt a key, for
// wif-jwt-bearer the workload's JWT, for enterprise-managed-authorization
// the user's ID token and the IdP that exchanges it.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	ValidJWT         string `json:"valid_jwt"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// authorizedClient returns the HTTP client of an auth scenario: requests
// go through an oauth.Transport configured from the scenario.
func authorizedClient(log *slog.Logger, name string) (*http.Client, error) {
	cfg := oauth.Config{
		RedirectURL:         redirectURL,
		Authorize:           followToRedirect,
		ClientIDMetadataURL: clientMetadataURL,
		ClientName:          "mcpgen-everything-client",
		OfflineAccess:       true,
		DPoP:                true,
		Logger:              log,
	}
	var c authContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	if c.ClientID != "" {
		reg := oauth.Registration{Issuer: c.Issuer, ClientID: c.ClientID, ClientSecret: c.ClientSecret, SigningAlgorithm: c.SigningAlgorithm}
		if c.PrivateKeyPEM != "" {
			key, err := oauth.ParsePrivateKey([]byte(c.PrivateKeyPEM))
			if err != nil {
				return nil, err
			}
			reg.PrivateKey, reg.AuthMethod = key, oauth.AuthPrivateKeyJWT
		}
		cfg.Clients = []oauth.Registration{reg}
	}
	switch {
	case strings.HasPrefix(name, "auth/client-credentials-"):
		cfg.Grant = oauth.GrantClientCredentials
	case name == "auth/wif-jwt-bearer":
		cfg.Grant = oauth.GrantJWTBearer
		cfg.Assertion = func(context.Context, oauth.AssertionRequest) (string, error) { return c.ValidJWT, nil }
	case name == "auth/enterprise-managed-authorization":
		cfg.Grant = oauth.GrantJWTBearer
		x := &oauth.IDJAGExchange{
			TokenEndpoint: c.IdPTokenEndpoint,
			SubjectToken:  func(context.Context) (string, error) { return c.IdPIDToken, nil },
			ClientID:      c.IdPClientID,
		}
		cfg.Assertion = x.Assertion
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return oauth.NewTransport(cfg, nil).Client(), nil
}

// followToRedirect is the user agent: the scenario's authorization server
// approves at once and redirects to the redirect URL, so the agent follows
// redirects until one points there and returns that URL, without
// requesting it.
func followToRedirect(ctx context.Context, authURL string) (string, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := authURL
	for range 10 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return "", err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode/100 != 3 || loc == "" {
			return "", fmt.Errorf("the authorization endpoint answered %s without a redirect", resp.Status)
		}
		u, err := req.URL.Parse(loc)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(u.String(), redirectURL) {
			return u.String(), nil
		}
		next = u.String()
	}
	return "", errors.New("too many redirects before the redirect URL")
}

// callTestTool lists the tools and calls test-tool, the one tool of the
// auth scenarios' servers.
func callTestTool(ctx context.Context, log *slog.Logger, sess *client.Session) error {
	if err := listTools(ctx, log, sess); err != nil {
		return err
	}
	text, err := callText(ctx, sess, "test-tool", `{}`)
	if err != nil {
		return err
	}
	log.Info("test-tool", "result", text)
	return nil
}
