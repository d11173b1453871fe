// Package metadata holds the OAuth discovery documents MCP authorization is
// built on, shared by the resource server (runtime/auth) and the client's
// flows: Protected Resource Metadata (RFC 9728), which an MCP server
// publishes to name its authorization servers and scopes, and
// Authorization Server Metadata (RFC 8414, and the OpenID Connect
// Discovery document it overlaps), which a client reads to find the
// endpoints of a flow. It also builds the well-known URLs where each
// document lives, in the order the MCP authorization spec says a client
// tries them.
//
// The types are plain encoding/json structs: the documents are small,
// fetched rarely, and carry members this package does not name, which
// Extra keeps.
package metadata

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ProtectedResource is the Protected Resource Metadata document of RFC
// 9728, section 2.
type ProtectedResource struct {
	// Resource is the resource identifier: the canonical URI of the MCP
	// server, which access tokens name in their audience (RFC 8707).
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers that issue tokens for the resource.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	JWKSURI              string   `json:"jwks_uri,omitempty"`
	// ScopesSupported are the scopes a client may ask for to use the
	// resource.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported says how a token is sent; MCP allows only
	// the Authorization header, "header".
	BearerMethodsSupported                []string `json:"bearer_methods_supported,omitempty"`
	ResourceSigningAlgValuesSupported     []string `json:"resource_signing_alg_values_supported,omitempty"`
	ResourceName                          string   `json:"resource_name,omitempty"`
	ResourceDocumentation                 string   `json:"resource_documentation,omitempty"`
	ResourcePolicyURI                     string   `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI                        string   `json:"resource_tos_uri,omitempty"`
	TLSClientCertificateBoundAccessTokens bool     `json:"tls_client_certificate_bound_access_tokens,omitempty"`
	AuthorizationDetailsTypesSupported    []string `json:"authorization_details_types_supported,omitempty"`
	DPoPSigningAlgValuesSupported         []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundAccessTokensRequired         bool     `json:"dpop_bound_access_tokens_required,omitempty"`

	// Extra holds the members this type does not name, as read.
	Extra map[string]json.RawMessage `json:"-"`
}

// AuthorizationServer is the Authorization Server Metadata document of
// RFC 8414, section 2, with the members OpenID Connect Discovery and the
// MCP authorization spec add that a client of MCP reads.
type AuthorizationServer struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	ResponseModesSupported                     []string `json:"response_modes_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	ServiceDocumentation                       string   `json:"service_documentation,omitempty"`
	RevocationEndpoint                         string   `json:"revocation_endpoint,omitempty"`
	IntrospectionEndpoint                      string   `json:"introspection_endpoint,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says the server puts
	// iss in its authorization responses (RFC 9207), which a client then
	// checks.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says the server accepts an HTTPS
	// URL as a client_id, naming the client's metadata document.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// UserinfoEndpoint is OpenID Connect's; present in documents read
	// from openid-configuration.
	UserinfoEndpoint string `json:"userinfo_endpoint,omitempty"`

	// Extra holds the members this type does not name, as read.
	Extra map[string]json.RawMessage `json:"-"`
}

// The well-known suffixes of the documents.
const (
	// ProtectedResourceSuffix is RFC 9728's well-known URI suffix.
	ProtectedResourceSuffix = "oauth-protected-resource"
	// AuthorizationServerSuffix is RFC 8414's.
	AuthorizationServerSuffix = "oauth-authorization-server"
	// OpenIDConfigurationSuffix is OpenID Connect Discovery's.
	OpenIDConfigurationSuffix = "openid-configuration"
)

// ProtectedResourceURL returns where the metadata of resource lives: the
// well-known suffix inserted between the host and the path, as RFC 9728
// section 3.1 says (https://mcp.example/public/mcp has it at
// https://mcp.example/.well-known/oauth-protected-resource/public/mcp).
func ProtectedResourceURL(resource string) (string, error) {
	return wellKnown(resource, ProtectedResourceSuffix)
}

// ProtectedResourceRootURL returns the metadata URL at the root of
// resource's origin, which a client tries after ProtectedResourceURL when
// the resource has a path.
func ProtectedResourceRootURL(resource string) (string, error) {
	u, err := parseHTTP(resource)
	if err != nil {
		return "", err
	}
	return u.Scheme + "://" + u.Host + "/.well-known/" + ProtectedResourceSuffix, nil
}

// AuthorizationServerURLs returns the URLs a client tries, in order, for
// the metadata of the authorization server whose issuer identifier is
// issuer. For an issuer with a path (https://auth.example/tenant1):
// RFC 8414's path insertion, OpenID Connect Discovery with path
// insertion, then OpenID Connect Discovery's path appending; for one
// without, RFC 8414's, then OpenID Connect Discovery's.
func AuthorizationServerURLs(issuer string) ([]string, error) {
	u, err := parseHTTP(issuer)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{
			origin + "/.well-known/" + AuthorizationServerSuffix,
			origin + "/.well-known/" + OpenIDConfigurationSuffix,
		}, nil
	}
	return []string{
		origin + "/.well-known/" + AuthorizationServerSuffix + path,
		origin + "/.well-known/" + OpenIDConfigurationSuffix + path,
		origin + path + "/.well-known/" + OpenIDConfigurationSuffix,
	}, nil
}

// wellKnown inserts /.well-known/suffix between the host of raw and its
// path, dropping a trailing slash, a query and a fragment.
func wellKnown(raw, suffix string) (string, error) {
	u, err := parseHTTP(raw)
	if err != nil {
		return "", err
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + "/.well-known/" + suffix + path, nil
}

// parseHTTP parses an absolute http or https URL.
func parseHTTP(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("metadata: %q is not an absolute http(s) URL", raw)
	}
	return u, nil
}

// ErrIssuerMismatch is returned by CheckIssuer.
var ErrIssuerMismatch = errors.New("metadata: the document's issuer is not the one it was fetched for")

// CheckIssuer reports whether the document names the issuer it was
// fetched for, as RFC 8414 section 3.3 requires of a client: a document
// naming another issuer must not be used.
func (m *AuthorizationServer) CheckIssuer(issuer string) error {
	if m.Issuer != issuer {
		return fmt.Errorf("%w: fetched for %q, names %q", ErrIssuerMismatch, issuer, m.Issuer)
	}
	return nil
}
