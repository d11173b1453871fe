package oauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// dpopAlgorithm is the one algorithm the Transport signs DPoP proofs with.
const dpopAlgorithm = "ES256"

// dpopProver signs the DPoP proofs (RFC 9449) of a Transport with its key,
// and keeps the nonce each server handed out last.
type dpopProver struct {
	signer jose.Signer

	mu     sync.Mutex
	nonces map[string]string // by origin
}

// newDPoPProver makes a prover with a new P-256 key. The key lives as long
// as the Transport: its tokens are bound to it.
func newDPoPProver() (*dpopProver, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oauth: DPoP key: %w", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, fmt.Errorf("oauth: DPoP signer: %w", err)
	}
	return &dpopProver{signer: signer, nonces: map[string]string{}}, nil
}

// dpopClaims are the claims of a proof (RFC 9449, section 4.2).
type dpopClaims struct {
	jwt.Claims
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	ATH   string `json:"ath,omitempty"`
	Nonce string `json:"nonce,omitempty"`
}

// proof signs a proof for a request of method to u, for accessToken when
// the request presents one, with the nonce u's server gave last.
func (p *dpopProver) proof(method string, u *url.URL, accessToken string, now time.Time) (string, error) {
	c := dpopClaims{
		Claims: jwt.Claims{ID: rand.Text(), IssuedAt: jwt.NewNumericDate(now)},
		HTM:    method,
		HTU:    u.Scheme + "://" + u.Host + u.EscapedPath(),
		Nonce:  p.nonce(u),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		c.ATH = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	s, err := jwt.Signed(p.signer).Claims(c).Serialize()
	if err != nil {
		return "", fmt.Errorf("oauth: signing a DPoP proof: %w", err)
	}
	return s, nil
}

func (p *dpopProver) nonce(u *url.URL) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nonces[strings.ToLower(u.Scheme+"://"+u.Host)]
}

// noteNonce keeps the DPoP-Nonce of a reply from u's server, if it has one,
// and reports whether it has.
func (p *dpopProver) noteNonce(u *url.URL, resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if n == "" {
		return false
	}
	p.mu.Lock()
	p.nonces[strings.ToLower(u.Scheme+"://"+u.Host)] = n
	p.mu.Unlock()
	return true
}

// supportsDPoP reports whether the authorization server binds tokens
// with DPoP proofs of the algorithm the Transport signs with.
func supportsDPoP(as *metadata.AuthorizationServer) bool {
	var algs []string
	if raw, ok := as.Extra["dpop_signing_alg_values_supported"]; !ok || json.Unmarshal(raw, &algs) != nil {
		return false
	}
	return slices.Contains(algs, dpopAlgorithm)
}

// dpopTokenTransport adds a DPoP proof to the token requests it sends, and
// sends one again with the server's nonce when the server asks for one
// (use_dpop_nonce, RFC 9449 section 8).
type dpopTokenTransport struct {
	base http.RoundTripper
	p    *dpopProver
	now  func() time.Time
}

func (d *dpopTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for retried := false; ; retried = true {
		r := req.Clone(req.Context())
		if retried && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		proof, err := d.p.proof(req.Method, req.URL, "", d.now())
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := d.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if !d.p.noteNonce(req.URL, resp) || resp.StatusCode != http.StatusBadRequest || retried || req.GetBody == nil {
			return resp, nil
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
	}
}
