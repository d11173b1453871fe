package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// clientAssertionType is the client_assertion_type of a JWT client
// assertion (RFC 7523, section 2.2).
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLifetime bounds a client assertion's validity.
const assertionLifetime = 5 * time.Minute

// clientAssertion signs the JWT with which r authenticates at the token
// endpoint of the server whose issuer identifier is audience (RFC 7523,
// section 3): iss and sub are the client_id, jti is random, and it expires
// in five minutes.
func clientAssertion(r *Registration, audience string, now time.Time) (string, error) {
	if r.PrivateKey == nil {
		return "", errors.New("oauth: private_key_jwt needs Registration.PrivateKey")
	}
	alg := jose.SignatureAlgorithm(r.SigningAlgorithm)
	if alg == "" {
		var err error
		if alg, err = defaultAlgorithm(r.PrivateKey); err != nil {
			return "", err
		}
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if r.KeyID != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), r.KeyID)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: r.PrivateKey}, opts)
	if err != nil {
		return "", fmt.Errorf("oauth: client assertion signer: %w", err)
	}
	claims := jwt.Claims{
		Issuer:    r.ClientID,
		Subject:   r.ClientID,
		Audience:  jwt.Audience{audience},
		ID:        rand.Text(),
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		Expiry:    jwt.NewNumericDate(now.Add(assertionLifetime)),
	}
	s, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("oauth: signing the client assertion: %w", err)
	}
	return s, nil
}

// defaultAlgorithm is the JWS algorithm usual for key.
func defaultAlgorithm(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	case *rsa.PrivateKey:
		return jose.RS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("oauth: no default signing algorithm for a %T; set Registration.SigningAlgorithm", key)
}

// ParsePrivateKey reads a PEM private key for Registration.PrivateKey: a
// PKCS #8 "PRIVATE KEY", an "EC PRIVATE KEY" or an "RSA PRIVATE KEY".
func ParsePrivateKey(pemData []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in the private key")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("oauth: PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: private key: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauth: a %T cannot sign", key)
	}
	return s, nil
}
