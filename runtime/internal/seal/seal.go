// Package seal turns small payloads into opaque, URL-safe tokens that only
// a holder of the key can read or forge, and back.
//
// MCP hands clients state to echo back: the requestState of an
// InputRequiredResult and the cursors of paginated lists. The specification
// has the server treat what comes back as attacker-controlled, so the
// server seals that state: a token is encrypted and authenticated, bound to
// a purpose and, optionally, to an expiry. Replicas that share a key open
// each other's tokens; a process with no configured key uses [NewRandom].
//
// Binding a token to the principal and the request that produced it is the
// caller's part: put what the token must be bound to into the purpose, which
// is authenticated but not carried in the token (so the token stays small
// and does not reveal it), encoded so that no two bindings concatenate to
// the same string, for example "requestState\x00" + principal + "\x00" +
// requestDigest.
//
// # Token format
//
// A token is the unpadded base64url encoding (RFC 4648 §5) of
//
//	version   1 byte    1 for this format
//	key id    4 bytes   the first 4 bytes of SHA-256("mcpgen/seal key id\x00" || key)
//	nonce     24 bytes  random
//	sealed    the rest  XAES-256-GCM(key, nonce, expiry || payload, version || key id || purpose)
//
// where expiry is the uvarint of the expiry in Unix milliseconds, 0 for
// none, and XAES-256-GCM is AES-256-GCM under a key derived from the
// configured key and the nonce (https://c2sp.org/XAES-256-GCM; xaes.go says
// why). The header is authenticated along with the purpose, so neither can
// be changed without the token failing to open. A token is 45 bytes plus the
// expiry's 1 to 10 bytes (6 for any date before 2109) plus the payload,
// before base64 adds a third. The version byte lets a later format be
// added beside this one; Open refuses versions it does not know.
package seal

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// KeySize is the size of a key, in bytes.
const KeySize = 32

// DefaultMaxTokenLen is the longest token, in bytes of its text, that Open
// accepts when Sealer.MaxTokenLen is zero.
const DefaultMaxTokenLen = 1 << 20

// ErrInvalid is the error Open returns for a token that it cannot
// authenticate: malformed, sealed for another purpose, altered, sealed
// under a key the Sealer does not hold, or too long. It deliberately does
// not say which, so that a caller who passes the error on tells an attacker
// nothing about how close a forgery came.
var ErrInvalid = errors.New("seal: invalid token")

// ErrExpired is the error Open returns for an authentic token whose expiry
// has passed. Open reports it only after the token has been authenticated,
// so it never answers for a forgery.
var ErrExpired = errors.New("seal: token expired")

const (
	version1   = 1
	idSize     = 4
	headerSize = 1 + idSize
	tagSize    = 16
	// minSealed is the shortest sealed part: a one-byte expiry and the tag.
	minSealed = 1 + tagSize
)

// encoding is strict so that the bits base64 leaves over in its last
// character must be zero: with them ignored, four spellings of one token
// would open alike.
var encoding = base64.RawURLEncoding.Strict()

// Sealer seals payloads into tokens and opens them again. Make one with
// [New] or [NewRandom]; the zero Sealer is not usable. A Sealer is safe for
// concurrent use.
//
// A Sealer keeps no copy of its keys, only their expanded AES schedules, and
// formats itself without them, so logging one does not leak a key.
type Sealer struct {
	// MaxTokenLen is the longest token, in bytes of its text, that Open
	// decodes; longer ones are refused as ErrInvalid before any work is
	// spent on them. Zero or less means DefaultMaxTokenLen. Set it before
	// the Sealer is shared. Seal does not check it: payloads are expected
	// to be small.
	MaxTokenLen int

	// ring is behind a pointer so that even printing the struct's fields
	// (fmt of *s, which bypasses Format) shows an address, not key material.
	ring *keyring
}

// keyring holds the expanded keys; keys[0] seals.
type keyring struct {
	keys []*ringKey
}

// ringKey is one expanded key and the identifier tokens carry for it.
type ringKey struct {
	id [idSize]byte
	x  *xaesKey
}

// New returns a Sealer that seals with keys[0] and opens tokens sealed with
// any of keys, so that replicas can roll a new key in: first list it second
// everywhere, then first, and drop the old key once its tokens have
// expired. Every key must be KeySize random bytes, and no key may appear
// twice. New keeps no reference to the slices.
func New(keys ...[]byte) (*Sealer, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: New needs at least one key")
	}
	ring := &keyring{keys: make([]*ringKey, len(keys))}
	for i, key := range keys {
		if len(key) != KeySize {
			return nil, fmt.Errorf("seal: key %d of %d is %d bytes, want %d", i+1, len(keys), len(key), KeySize)
		}
		for j := range i {
			if subtle.ConstantTimeCompare(key, keys[j]) == 1 {
				return nil, fmt.Errorf("seal: keys %d and %d of %d are the same key", j+1, i+1, len(keys))
			}
		}
		ring.keys[i] = &ringKey{id: keyID(key), x: newXAESKey(key)}
	}
	return &Sealer{ring: ring}, nil
}

// NewRandom returns a Sealer with one fresh random key, for a process that
// has no configured key. Its tokens open only in this process, and no
// longer once it exits.
func NewRandom() *Sealer {
	key := make([]byte, KeySize)
	rand.Read(key) // never fails: crypto/rand crashes the program instead
	s, err := New(key)
	if err != nil {
		panic(err) // unreachable: one key of KeySize bytes is always accepted
	}
	clear(key)
	return s
}

// keyID is the identifier a token carries for the key that sealed it, so
// that Open tries only that key. A hash prefix tells an observer nothing
// useful about a 256-bit key; the label keeps it apart from any other use
// of SHA-256 over the same key.
func keyID(key []byte) [idSize]byte {
	h := sha256.New()
	h.Write([]byte("mcpgen/seal key id\x00"))
	h.Write(key)
	var id [idSize]byte
	copy(id[:], h.Sum(nil))
	return id
}

// Seal returns a token that Open, given the same purpose, turns back into
// payload until expires; a zero expires means the token does not expire.
// The expiry is kept to the millisecond, rounded down. The purpose names
// what the token is for ("requestState", "cursor", ...) and whatever it is
// bound to, so that a token never opens where another was expected; the
// package documentation says how to bind a principal. Every call returns a
// different token, even for the same arguments.
func (s *Sealer) Seal(purpose string, payload []byte, expires time.Time) string {
	var nonce [xaesNonceSize]byte
	rand.Read(nonce[:]) // never fails: crypto/rand crashes the program instead
	return s.seal(purpose, payload, expires, &nonce)
}

// seal is Seal with the nonce given, so that tests can make the same token
// twice.
func (s *Sealer) seal(purpose string, payload []byte, expires time.Time, random *[xaesNonceSize]byte) string {
	k := s.ring.keys[0]
	var exp uint64
	if !expires.IsZero() {
		// An expiry at or before the Unix epoch must still expire, not
		// turn into 0, which means none.
		exp = uint64(max(expires.UnixMilli(), 1))
	}

	const prefix = headerSize + xaesNonceSize
	buf := make([]byte, prefix, prefix+binary.MaxVarintLen64+len(payload)+tagSize)
	buf[0] = version1
	copy(buf[1:headerSize], k.id[:])
	nonce := buf[headerSize:prefix]
	copy(nonce, random[:])

	plain := binary.AppendUvarint(buf[prefix:], exp)
	plain = append(plain, payload...)
	sealed := k.x.aead(nonce).Seal(plain[:0], nonce[12:], plain, additionalData(buf[:headerSize], purpose))
	return encoding.EncodeToString(buf[:prefix+len(sealed)])
}

// Open returns the payload of a token that Seal made with the same purpose,
// under one of the Sealer's keys. It returns ErrInvalid for any token it
// cannot authenticate, and ErrExpired for an authentic one whose expiry is
// not after now; callers pass now rather than Open reading the clock so
// that one request judges all its tokens at one instant. The payload is the
// caller's to keep and modify.
func (s *Sealer) Open(purpose, token string, now time.Time) ([]byte, error) {
	limit := s.MaxTokenLen
	if limit <= 0 {
		limit = DefaultMaxTokenLen
	}
	// The decoder skips line breaks; refusing them keeps one token to one
	// spelling.
	if len(token) > limit || strings.ContainsAny(token, "\r\n") {
		return nil, ErrInvalid
	}
	raw, err := encoding.DecodeString(token)
	if err != nil || len(raw) == 0 {
		return nil, ErrInvalid
	}
	switch raw[0] {
	case version1:
		return s.open1(purpose, raw, now)
	default:
		return nil, ErrInvalid
	}
}

// open1 opens a decoded token of version 1.
func (s *Sealer) open1(purpose string, raw []byte, now time.Time) ([]byte, error) {
	const prefix = headerSize + xaesNonceSize
	if len(raw) < prefix+minSealed {
		return nil, ErrInvalid
	}
	header, nonce, sealed := raw[:headerSize], raw[headerSize:prefix], raw[prefix:]
	aad := additionalData(header, purpose)
	var plain []byte
	opened := false
	for _, k := range s.ring.keys {
		// Two keys share an identifier once in 2^32 pairs; trying each
		// that matches keeps such a pair working.
		if string(k.id[:]) != string(header[1:]) {
			continue
		}
		// A failed Open clears its output, so it gets a buffer of its own
		// and sealed stays intact for the next candidate.
		var err error
		plain, err = k.x.aead(nonce).Open(plain[:0], nonce[12:], sealed, aad)
		if err == nil {
			opened = true
			break
		}
	}
	if !opened {
		return nil, ErrInvalid
	}
	exp, n := binary.Uvarint(plain)
	if n <= 0 || exp > math.MaxInt64 {
		return nil, ErrInvalid // authentic but not from Seal: refuse it all the same
	}
	if exp != 0 && !now.Before(time.UnixMilli(int64(exp))) {
		return nil, ErrExpired
	}
	return plain[n:len(plain):len(plain)], nil
}

// additionalData is what a token authenticates without carrying: its
// header and the purpose. The header has a fixed size, so no two
// (header, purpose) pairs give the same bytes.
func additionalData(header []byte, purpose string) []byte {
	aad := make([]byte, 0, len(header)+len(purpose))
	aad = append(aad, header...)
	return append(aad, purpose...)
}

// Format writes a description of the Sealer that shows how many keys it
// holds and nothing of them, whatever the verb, so that a Sealer that ends
// up in a log line or an error does not leak a key.
func (s *Sealer) Format(f fmt.State, verb rune) {
	if s == nil || s.ring == nil {
		fmt.Fprint(f, "seal.Sealer(none)")
		return
	}
	fmt.Fprintf(f, "seal.Sealer(%d keys)", len(s.ring.keys))
}
