package seal

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestXAESVectors checks the key derivation against the test vectors of
// https://c2sp.org/XAES-256-GCM, so that the construction is the published
// one and not merely self-consistent.
func TestXAESVectors(t *testing.T) {
	tests := []struct {
		name       string
		key        byte // every byte of the key
		aad        string
		ciphertext string // hex
	}{
		{"no additional data", 0x01, "", "ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271"},
		{"additional data", 0x03, "c2sp.org/XAES-256-GCM", "986ec1832593df5443a179437fd083bf3fdb41abd740a21f71eb769d"},
	}
	nonce := []byte("ABCDEFGHIJKLMNOPQRSTUVWX")
	plaintext := []byte("XAES-256-GCM")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newXAESKey(bytes.Repeat([]byte{tt.key}, KeySize))
			var aad []byte
			if tt.aad != "" {
				aad = []byte(tt.aad)
			}
			got := k.aead(nonce).Seal(nil, nonce[12:], plaintext, aad)
			if hex.EncodeToString(got) != tt.ciphertext {
				t.Fatalf("Seal = %x, want %s", got, tt.ciphertext)
			}
			back, err := k.aead(nonce).Open(nil, nonce[12:], got, aad)
			if err != nil || !bytes.Equal(back, plaintext) {
				t.Fatalf("Open = %q, %v; want %q", back, err, plaintext)
			}
		})
	}
}
