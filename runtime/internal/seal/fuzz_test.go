package seal

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzOpen feeds Open arbitrary purposes and tokens. Besides never
// panicking, Open must refuse everything but the tokens the test sealed
// (nobody can forge one), and say ErrExpired only for the expired one.
func FuzzOpen(f *testing.F) {
	s := mustNew(f, testKey(1), testKey(2))
	old := mustNew(f, testKey(2))
	type sealed struct {
		purpose, token string
		payload        []byte
		expired        bool
	}
	valid := []sealed{
		{purpose: "cursor", payload: []byte("page 2")},
		{purpose: "requestState", payload: bytes.Repeat([]byte{0}, 200)},
		{purpose: "", payload: nil},
		{purpose: "cursor", payload: []byte("gone"), expired: true},
	}
	// The tokens must be the same in every process the fuzzer runs, so
	// their nonces are fixed.
	var nonce [xaesNonceSize]byte
	for i := range valid {
		v := &valid[i]
		expires := t0.Add(time.Hour)
		if v.expired {
			expires = t0.Add(-time.Hour)
		}
		nonce[0] = byte(i)
		v.token = s.seal(v.purpose, v.payload, expires, &nonce)
		f.Add(v.purpose, v.token)
	}
	nonce[0] = 0xFF
	valid = append(valid, sealed{purpose: "cursor", payload: []byte("old key"), token: old.seal("cursor", []byte("old key"), time.Time{}, &nonce)})
	f.Add("cursor", valid[len(valid)-1].token)
	for _, junk := range []string{"", "A", "AQ", "AQID", "====", "\n", "\x00\xff", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		f.Add("cursor", junk)
	}
	f.Add("requestState", valid[0].token)
	f.Add("cursor", valid[0].token[:len(valid[0].token)-1])

	f.Fuzz(func(t *testing.T, purpose, token string) {
		got, err := s.Open(purpose, token, t0)
		for _, v := range valid {
			if v.purpose != purpose || v.token != token {
				continue
			}
			switch {
			case v.expired && !errors.Is(err, ErrExpired):
				t.Fatalf("expired token: Open = %q, %v; want ErrExpired", got, err)
			case !v.expired && (err != nil || !bytes.Equal(got, v.payload)):
				t.Fatalf("Open = %q, %v; want %q", got, err, v.payload)
			}
			return
		}
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("Open(%q, %q) = %q, %v; want ErrInvalid for a token the test did not seal", purpose, token, got, err)
		}
		if got != nil {
			t.Fatalf("Open returned payload %q with ErrInvalid", got)
		}
	})
}

// FuzzRoundTrip checks that whatever Seal is given, Open gives it back.
func FuzzRoundTrip(f *testing.F) {
	s := mustNew(f, testKey(1))
	f.Add("cursor", []byte("page 2"), int64(0))
	f.Add("", []byte{}, int64(-1))
	f.Add("requestState\x00alice", bytes.Repeat([]byte{0xFF}, 300), int64(1<<62))
	f.Fuzz(func(t *testing.T, purpose string, payload []byte, expiresMilli int64) {
		expires := time.UnixMilli(expiresMilli)
		if expiresMilli == 0 {
			expires = time.Time{}
		}
		token := s.Seal(purpose, payload, expires)
		got, err := s.Open(purpose, token, t0)
		if !expires.IsZero() && !t0.Before(expires) {
			if !errors.Is(err, ErrExpired) {
				t.Fatalf("Open = %q, %v; want ErrExpired", got, err)
			}
			return
		}
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("Open = %q, %v; want %q", got, err, payload)
		}
	})
}
