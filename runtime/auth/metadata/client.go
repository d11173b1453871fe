package metadata

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Client is the client metadata of OAuth Dynamic Client Registration (RFC
// 7591, section 2), with OpenID Connect's application_type. A client sends
// it to a registration endpoint and gets it back with its client_id (and
// client_secret, for a confidential client); a Client ID Metadata Document
// is the same document, served at the URL that is the client's client_id.
type Client struct {
	// ClientID is empty in a registration request; the server's response,
	// and a Client ID Metadata Document, carry it.
	ClientID string `json:"client_id,omitempty"`
	// ClientSecret is given by the server to a confidential client.
	ClientSecret string `json:"client_secret,omitempty"`
	// ClientIDIssuedAt and ClientSecretExpiresAt are seconds since the
	// epoch; a zero ClientSecretExpiresAt means the secret does not
	// expire.
	ClientIDIssuedAt      int64 `json:"client_id_issued_at,omitempty"`
	ClientSecretExpiresAt int64 `json:"client_secret_expires_at,omitempty"`

	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// TokenEndpointAuthMethod is how the client authenticates at the token
	// endpoint: "none", "client_secret_basic", "client_secret_post" or
	// "private_key_jwt".
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string        `json:"grant_types,omitempty"`
	ResponseTypes           []string        `json:"response_types,omitempty"`
	ClientName              string          `json:"client_name,omitempty"`
	ClientURI               string          `json:"client_uri,omitempty"`
	LogoURI                 string          `json:"logo_uri,omitempty"`
	Scope                   string          `json:"scope,omitempty"`
	Contacts                []string        `json:"contacts,omitempty"`
	TOSURI                  string          `json:"tos_uri,omitempty"`
	PolicyURI               string          `json:"policy_uri,omitempty"`
	JWKSURI                 string          `json:"jwks_uri,omitempty"`
	JWKS                    json.RawMessage `json:"jwks,omitempty"`
	SoftwareID              string          `json:"software_id,omitempty"`
	SoftwareVersion         string          `json:"software_version,omitempty"`
	// ApplicationType is OpenID Connect Dynamic Client Registration's
	// "native" or "web"; the MCP authorization spec has clients send it.
	ApplicationType string `json:"application_type,omitempty"`

	// Extra holds the members this type does not name, as read.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON reads the document, keeping unnamed members in Extra.
func (m *Client) UnmarshalJSON(data []byte) error {
	type plain Client
	extra, err := decode(data, (*plain)(m))
	m.Extra = extra
	return err
}

// MarshalJSON writes the named members, then Extra's in key order.
func (m Client) MarshalJSON() ([]byte, error) {
	type plain Client
	return encode(plain(m), m.Extra)
}

// String leaves the secret out, so that a Client can be logged.
func (m Client) String() string {
	secret := ""
	if m.ClientSecret != "" {
		secret = " client_secret=REDACTED"
	}
	return fmt.Sprintf("metadata.Client{client_id=%q%s}", m.ClientID, secret)
}

// CheckClientIDURL reports whether raw may be the client_id of a Client ID
// Metadata Document: an https URL with a path, and no fragment, user
// information or dot segments.
func CheckClientIDURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("metadata: client ID URL: %w", err)
	}
	switch {
	case u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("metadata: client ID URL %q is not an absolute https URL", raw)
	case u.Path == "" || u.Path == "/":
		return fmt.Errorf("metadata: client ID URL %q has no path", raw)
	case u.Fragment != "" || u.User != nil:
		return fmt.Errorf("metadata: client ID URL %q has a fragment or user information", raw)
	case strings.Contains("/"+u.Path+"/", "/./") || strings.Contains("/"+u.Path+"/", "/../"):
		return fmt.Errorf("metadata: client ID URL %q has dot segments", raw)
	}
	return nil
}
