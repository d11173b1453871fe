package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// t0 is the instant the tests seal and open at.
var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// testKey returns a key whose bytes start at seed and count up, so that
// keys made from different seeds differ and their bytes are easy to spot.
func testKey(seed byte) []byte {
	key := make([]byte, KeySize)
	for i := range key {
		key[i] = seed + byte(i)*7
	}
	return key
}

func mustNew(t testing.TB, keys ...[]byte) *Sealer {
	t.Helper()
	s, err := New(keys...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// decode returns a token's bytes, failing the test if it is not base64url.
func decode(t testing.TB, token string) []byte {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("token %q is not unpadded base64url: %v", token, err)
	}
	return raw
}

func TestRoundTrip(t *testing.T) {
	s := mustNew(t, testKey(1))
	tests := []struct {
		name    string
		purpose string
		payload []byte
		expires time.Time
	}{
		{"empty payload", "cursor", nil, time.Time{}},
		{"one byte", "cursor", []byte{0}, t0.Add(time.Minute)},
		{"text", "requestState", []byte(`{"step":2,"answers":["a"]}`), t0.Add(time.Minute)},
		{"empty purpose", "", []byte("x"), time.Time{}},
		{"binding in purpose", "requestState\x00alice\x00sha256:abc", []byte("x"), t0.Add(time.Second)},
		{"unicode purpose", "curseur-é", []byte("x"), time.Time{}},
		{"200 bytes", "cursor", bytes.Repeat([]byte{0xAB}, 200), t0.Add(time.Hour)},
		{"64 KiB", "cursor", bytes.Repeat([]byte("0123456789abcdef"), 4096), t0.Add(time.Hour)},
		{"far future", "cursor", []byte("x"), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := bytes.Clone(tt.payload)
			token := s.Seal(tt.purpose, payload, tt.expires)
			// Seal must not keep the caller's slice.
			for i := range payload {
				payload[i] ^= 0xFF
			}

			if i := strings.IndexFunc(token, func(r rune) bool {
				return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
			}); i >= 0 {
				t.Fatalf("token has %q at %d, not URL-safe base64", token[i], i)
			}
			raw := decode(t, token)
			var exp uint64
			if !tt.expires.IsZero() {
				exp = uint64(tt.expires.UnixMilli())
			}
			wantLen := headerSize + xaesNonceSize + len(binary.AppendUvarint(nil, exp)) + len(tt.payload) + tagSize
			if len(raw) != wantLen {
				t.Errorf("token is %d bytes, want %d", len(raw), wantLen)
			}
			if raw[0] != version1 {
				t.Errorf("version byte = %d, want %d", raw[0], version1)
			}
			if id := keyID(testKey(1)); !bytes.Equal(raw[1:headerSize], id[:]) {
				t.Errorf("key id = %x, want %x", raw[1:headerSize], id)
			}
			if bytes.Contains(raw, tt.payload) && len(tt.payload) > 4 {
				t.Errorf("token carries the payload in the clear")
			}

			got, err := s.Open(tt.purpose, token, t0)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, tt.payload) {
				t.Fatalf("Open = %q, want %q", got, tt.payload)
			}
			// The payload is the caller's: changing it must not change
			// what the next Open returns.
			for i := range got {
				got[i] ^= 0xFF
			}
			again, err := s.Open(tt.purpose, token, t0)
			if err != nil || !bytes.Equal(again, tt.payload) {
				t.Fatalf("second Open = %q, %v; want %q", again, err, tt.payload)
			}
		})
	}
}

func TestSealIsRandomized(t *testing.T) {
	s := mustNew(t, testKey(1))
	a := s.Seal("cursor", []byte("same"), t0)
	b := s.Seal("cursor", []byte("same"), t0)
	if a == b {
		t.Fatalf("two seals of the same input gave the same token %q", a)
	}
	ra, rb := decode(t, a), decode(t, b)
	if bytes.Equal(ra[headerSize:headerSize+xaesNonceSize], rb[headerSize:headerSize+xaesNonceSize]) {
		t.Fatalf("two seals share the nonce %x", ra[headerSize:headerSize+xaesNonceSize])
	}
}

// TestTamper changes a token in every way that keeps it short and checks
// that none of the results opens.
func TestTamper(t *testing.T) {
	s := mustNew(t, testKey(1))
	const purpose = "requestState"
	token := s.Seal(purpose, []byte("step 2 of 3"), t0.Add(time.Hour))
	if _, err := s.Open(purpose, token, t0); err != nil {
		t.Fatalf("untouched token: %v", err)
	}
	mustFail := func(t *testing.T, what, bad string) {
		t.Helper()
		if bad == token {
			t.Fatalf("%s: produced the original token", what)
		}
		if got, err := s.Open(purpose, bad, t0); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: Open(%q) = %q, %v; want ErrInvalid", what, bad, got, err)
		}
	}

	t.Run("every character replaced", func(t *testing.T) {
		// Every other base64url character, and bytes outside the alphabet,
		// including the line breaks the decoder would skip.
		replacements := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" + "=+/ .\r\n\x00\xff"
		for i := range len(token) {
			for j := range len(replacements) {
				if replacements[j] == token[i] {
					continue
				}
				mustFail(t, fmt.Sprintf("char %d to %q", i, replacements[j]), token[:i]+replacements[j:j+1]+token[i+1:])
			}
		}
	})
	t.Run("every bit of the bytes flipped", func(t *testing.T) {
		raw := decode(t, token)
		for i := range raw {
			for bit := range 8 {
				bad := bytes.Clone(raw)
				bad[i] ^= 1 << bit
				mustFail(t, fmt.Sprintf("byte %d bit %d", i, bit), base64.RawURLEncoding.EncodeToString(bad))
			}
		}
	})
	t.Run("every truncation", func(t *testing.T) {
		for n := range len(token) {
			mustFail(t, fmt.Sprintf("first %d chars", n), token[:n])
		}
		raw := decode(t, token)
		for n := range len(raw) {
			mustFail(t, fmt.Sprintf("first %d bytes", n), base64.RawURLEncoding.EncodeToString(raw[:n]))
		}
	})
	t.Run("additions", func(t *testing.T) {
		for _, extra := range []string{"A", "AA", "AAA", "AAAA", "=", "==", "\n", "\r\n"} {
			mustFail(t, fmt.Sprintf("appended %q", extra), token+extra)
			mustFail(t, fmt.Sprintf("prepended %q", extra), extra+token)
			mustFail(t, fmt.Sprintf("inserted %q", extra), token[:10]+extra+token[10:])
		}
		raw := decode(t, token)
		mustFail(t, "appended byte", base64.RawURLEncoding.EncodeToString(append(bytes.Clone(raw), 0)))
	})
	t.Run("other versions", func(t *testing.T) {
		raw := decode(t, token)
		for v := range 256 {
			if v == version1 {
				continue
			}
			bad := bytes.Clone(raw)
			bad[0] = byte(v)
			mustFail(t, fmt.Sprintf("version %d", v), base64.RawURLEncoding.EncodeToString(bad))
		}
	})
	t.Run("padded encoding", func(t *testing.T) {
		mustFail(t, "standard padded base64", base64.URLEncoding.EncodeToString(decode(t, token)))
	})
}

func TestPurpose(t *testing.T) {
	s := mustNew(t, testKey(1))
	token := s.Seal("cursor", []byte("page 2"), time.Time{})
	for _, purpose := range []string{"requestState", "", "Cursor", "cursor ", " cursor", "cursor\x00", "curso", "cursorcursor"} {
		if got, err := s.Open(purpose, token, t0); !errors.Is(err, ErrInvalid) {
			t.Errorf("Open(%q) of a %q token = %q, %v; want ErrInvalid", purpose, "cursor", got, err)
		}
	}
	if _, err := s.Open("cursor", token, t0); err != nil {
		t.Errorf("Open with the sealing purpose: %v", err)
	}
}

func TestExpiry(t *testing.T) {
	s := mustNew(t, testKey(1))
	tests := []struct {
		name    string
		expires time.Time
		now     time.Time
		want    error
	}{
		{"no expiry, far future", time.Time{}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{"no expiry, zero now", time.Time{}, time.Time{}, nil},
		{"a millisecond before", t0, t0.Add(-time.Millisecond), nil},
		{"an hour before", t0, t0.Add(-time.Hour), nil},
		{"at the expiry", t0, t0, ErrExpired},
		{"a nanosecond after", t0, t0.Add(time.Nanosecond), ErrExpired},
		{"an hour after", t0, t0.Add(time.Hour), ErrExpired},
		{"rounded down to the millisecond", t0.Add(999 * time.Microsecond), t0, ErrExpired},
		{"other time zone", t0.In(time.FixedZone("UTC+5", 5*3600)), t0.Add(-time.Millisecond), nil},
		{"at the Unix epoch", time.Unix(0, 0), t0, ErrExpired},
		{"before the Unix epoch", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), t0, ErrExpired},
		{"far future", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), t0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := s.Seal("cursor", []byte("x"), tt.expires)
			got, err := s.Open("cursor", token, tt.now)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Open = %q, %v; want error %v", got, err, tt.want)
			}
			if err == nil && string(got) != "x" {
				t.Fatalf("Open = %q, want %q", got, "x")
			}
			if err != nil && got != nil {
				t.Fatalf("Open returned payload %q with error %v", got, err)
			}
		})
	}

	// Authentication comes first: an expired token that is also wrong in
	// any other way is invalid, not expired.
	expired := s.Seal("cursor", []byte("x"), t0)
	later := t0.Add(time.Hour)
	if _, err := s.Open("requestState", expired, later); !errors.Is(err, ErrInvalid) {
		t.Errorf("expired token, wrong purpose: %v, want ErrInvalid", err)
	}
	raw := decode(t, expired)
	raw[len(raw)-1] ^= 1
	if _, err := s.Open("cursor", base64.RawURLEncoding.EncodeToString(raw), later); !errors.Is(err, ErrInvalid) {
		t.Errorf("expired token, altered: %v, want ErrInvalid", err)
	}
	if _, err := mustNew(t, testKey(2)).Open("cursor", expired, later); !errors.Is(err, ErrInvalid) {
		t.Errorf("expired token, other key: %v, want ErrInvalid", err)
	}
}

func TestRotation(t *testing.T) {
	oldKey, newKey := testKey(1), testKey(2)
	old := mustNew(t, oldKey)
	rolling := mustNew(t, newKey, oldKey)
	fresh := mustNew(t, newKey)
	fromOld := old.Seal("cursor", []byte("old"), time.Time{})
	fromRolling := rolling.Seal("cursor", []byte("new"), time.Time{})

	tests := []struct {
		name   string
		opener *Sealer
		token  string
		want   string // "" for ErrInvalid
	}{
		{"rolling opens old", rolling, fromOld, "old"},
		{"rolling opens its own", rolling, fromRolling, "new"},
		{"new-only opens rolling", fresh, fromRolling, "new"},
		{"old-only refuses rolling", old, fromRolling, ""},
		{"new-only refuses old", fresh, fromOld, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.opener.Open("cursor", tt.token, t0)
			if tt.want == "" {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Open = %q, %v; want ErrInvalid", got, err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Open = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if id := keyID(newKey); !bytes.Equal(decode(t, fromRolling)[1:headerSize], id[:]) {
		t.Errorf("rolling Sealer did not seal with its first key")
	}
}

// TestKeyIDCollision finds two keys whose 4-byte identifiers collide and
// checks that a Sealer holding both opens tokens of either: Open must try
// the second candidate after the first fails.
func TestKeyIDCollision(t *testing.T) {
	seen := make(map[[idSize]byte][]byte)
	var a, b []byte
	for i := uint64(0); a == nil; i++ {
		if i > 1<<22 {
			t.Fatal("no identifier collision among 2^22 keys")
		}
		key := make([]byte, KeySize)
		binary.BigEndian.PutUint64(key, i)
		id := keyID(key)
		if prev, ok := seen[id]; ok {
			a, b = prev, key
		}
		seen[id] = key
	}
	both := mustNew(t, a, b)
	for _, tt := range []struct {
		name string
		key  []byte
	}{{"first key", a}, {"second key", b}} {
		t.Run(tt.name, func(t *testing.T) {
			token := mustNew(t, tt.key).Seal("cursor", []byte(tt.name), time.Time{})
			got, err := both.Open("cursor", token, t0)
			if err != nil || string(got) != tt.name {
				t.Fatalf("Open = %q, %v; want %q", got, err, tt.name)
			}
		})
	}
}

func TestNew(t *testing.T) {
	k1, k2, k3 := testKey(1), testKey(2), testKey(3)
	tests := []struct {
		name    string
		keys    [][]byte
		wantErr string // substring; "" for success
	}{
		{"one key", [][]byte{k1}, ""},
		{"three keys", [][]byte{k1, k2, k3}, ""},
		{"no keys", nil, "at least one key"},
		{"nil key", [][]byte{nil}, "key 1 of 1 is 0 bytes, want 32"},
		{"AES-128 size", [][]byte{k1[:16]}, "key 1 of 1 is 16 bytes, want 32"},
		{"one short", [][]byte{k1[:31]}, "is 31 bytes"},
		{"one long", [][]byte{append(bytes.Clone(k1), 0)}, "is 33 bytes"},
		{"second wrong", [][]byte{k1, k2[:24]}, "key 2 of 2 is 24 bytes"},
		{"duplicate", [][]byte{k1, bytes.Clone(k1)}, "keys 1 and 2 of 2 are the same key"},
		{"duplicate apart", [][]byte{k1, k2, k3, k2}, "keys 2 and 4 of 4 are the same key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.keys...)
			if tt.wantErr == "" {
				if err != nil || s == nil {
					t.Fatalf("New = %v, %v; want a Sealer", s, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("New succeeded, want an error containing %q", tt.wantErr)
			}
			if s != nil {
				t.Errorf("New returned a Sealer with its error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			for _, key := range tt.keys {
				if len(key) > 4 && strings.Contains(err.Error(), hex.EncodeToString(key[:4])) {
					t.Errorf("error %q shows key bytes", err)
				}
			}
		})
	}
}

// TestNewCopiesKeys checks that changing a key slice after New does not
// change the Sealer.
func TestNewCopiesKeys(t *testing.T) {
	key := testKey(1)
	s := mustNew(t, key)
	token := s.Seal("cursor", []byte("x"), time.Time{})
	clear(key)
	if _, err := s.Open("cursor", token, t0); err != nil {
		t.Fatalf("Open after the caller cleared its key: %v", err)
	}
	if _, err := mustNew(t, testKey(1)).Open("cursor", s.Seal("cursor", []byte("x"), time.Time{}), t0); err != nil {
		t.Fatalf("token sealed after the caller cleared its key does not open under the key: %v", err)
	}
}

func TestNewRandom(t *testing.T) {
	sealers := []*Sealer{NewRandom(), NewRandom(), NewRandom()}
	for i, s := range sealers {
		token := s.Seal("cursor", []byte("x"), time.Time{})
		for j, other := range sealers {
			got, err := other.Open("cursor", token, t0)
			if i == j && (err != nil || string(got) != "x") {
				t.Errorf("Sealer %d does not open its own token: %q, %v", i, got, err)
			}
			if i != j && !errors.Is(err, ErrInvalid) {
				t.Errorf("Sealer %d opens a token of random Sealer %d: %q, %v", j, i, got, err)
			}
		}
	}
}

func TestMaxTokenLen(t *testing.T) {
	s := mustNew(t, testKey(1))
	token := s.Seal("cursor", bytes.Repeat([]byte("x"), 100), time.Time{})
	tests := []struct {
		name  string
		limit int
		ok    bool
	}{
		{"default", 0, true},
		{"negative means default", -1, true},
		{"exactly the token", len(token), true},
		{"one short", len(token) - 1, false},
		{"tiny", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.MaxTokenLen = tt.limit
			_, err := s.Open("cursor", token, t0)
			if tt.ok && err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalid) {
				t.Fatalf("Open = %v, want ErrInvalid", err)
			}
		})
	}
	s.MaxTokenLen = 0
	if _, err := s.Open("cursor", strings.Repeat("A", DefaultMaxTokenLen+1), t0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Open of a token over DefaultMaxTokenLen = %v, want ErrInvalid", err)
	}
}

// TestFormatHidesKeys prints a Sealer every way fmt can and checks that no
// rendering of its keys shows up.
func TestFormatHidesKeys(t *testing.T) {
	k1, k2 := testKey(0xA0), testKey(0x50)
	s := mustNew(t, k1, k2)
	var secrets []string
	for _, key := range [][]byte{k1, k2} {
		x := newXAESKey(key)
		for _, b := range [][]byte{key, x.k1[:]} {
			secrets = append(secrets,
				hex.EncodeToString(b[:6]),
				strings.ToUpper(hex.EncodeToString(b[:6])),
				fmt.Sprint(b[:6])[1:len(fmt.Sprint(b[:6]))-1], // "160 167 174 ..."
				fmt.Sprintf("%#v", b[:6])[len("[]byte{"):],    // "0xa0, 0xa7, ..."
				string(b[:6]),
				base64.StdEncoding.EncodeToString(b[:6]),
			)
		}
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%o", "%b", "%p"}
	for _, verb := range verbs {
		for _, tt := range []struct {
			name string
			arg  any
			want string // "" when only the secrets are checked
		}{
			{"pointer", s, "seal.Sealer(2 keys)"},
			{"value", *s, ""},
			{"in a slice", []*Sealer{s}, ""},
			{"in a struct", struct{ S *Sealer }{s}, ""},
			{"in an error", fmt.Errorf("wrapped: %v", s), ""},
		} {
			got := fmt.Sprintf(verb, tt.arg)
			if tt.want != "" && verb != "%p" && got != tt.want {
				t.Errorf("Sprintf(%q, %s) = %q, want %q", verb, tt.name, got, tt.want)
			}
			for _, secret := range secrets {
				if strings.Contains(got, secret) {
					t.Errorf("Sprintf(%q, %s) = %q shows key material %q", verb, tt.name, got, secret)
				}
			}
		}
	}
	var zero *Sealer
	if got := fmt.Sprint(zero); got != "seal.Sealer(none)" {
		t.Errorf("Sprint of a nil Sealer = %q", got)
	}
}

func TestConcurrent(t *testing.T) {
	s := mustNew(t, testKey(1), testKey(2))
	shared := s.Seal("cursor", []byte("shared"), t0.Add(time.Hour))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				payload := fmt.Appendf(nil, "goroutine %d token %d", g, i)
				token := s.Seal("cursor", payload, t0.Add(time.Hour))
				got, err := s.Open("cursor", token, t0)
				if err != nil || !bytes.Equal(got, payload) {
					t.Errorf("Open = %q, %v; want %q", got, err, payload)
					return
				}
				if got, err := s.Open("cursor", shared, t0); err != nil || string(got) != "shared" {
					t.Errorf("Open of the shared token = %q, %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
