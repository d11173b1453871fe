package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
)

// This file derives the per-token AES-256-GCM key of XAES-256-GCM
// (https://c2sp.org/XAES-256-GCM), built from crypto/aes and crypto/cipher
// alone.
//
// Why not AES-256-GCM under the configured key directly: its 96-bit nonce,
// when random, is safe for only about 2^32 seals under one key, and the key
// is meant to be shared by every replica of a server for as long as it is
// configured, so busy deployments would reach that bound in days. XAES takes
// a 192-bit random nonce, derives a fresh AES-256 key from the configured key
// and the nonce's first 96 bits (NIST SP 800-108 counter KDF over CMAC-AES),
// and runs AES-256-GCM under it with the nonce's last 96 bits; with random
// nonces that size, the number of tokens per key has no practical bound.
// Deriving the key costs two AES blocks and a key schedule per token.

// xaesNonceSize is the size of the random nonce each token carries.
const xaesNonceSize = 24

// xaesKey is one configured key, expanded for deriving token keys. It keeps
// no copy of the key itself.
type xaesKey struct {
	block cipher.Block // AES-256 under the configured key
	k1    [aes.BlockSize]byte
}

// newXAESKey expands a key. The caller has checked that it is 32 bytes, the
// only way aes.NewCipher can fail.
func newXAESKey(key []byte) *xaesKey {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(fmt.Sprintf("seal: expand key: %v", err))
	}
	k := &xaesKey{block: block}
	// k1 is CMAC's first subkey: L = AES(0^128) doubled in GF(2^128). The
	// KDF's messages are one full block, so CMAC needs no other subkey.
	block.Encrypt(k.k1[:], k.k1[:])
	msb := k.k1[0] >> 7
	for i := 0; i < len(k.k1)-1; i++ {
		k.k1[i] = k.k1[i]<<1 | k.k1[i+1]>>7
	}
	k.k1[len(k.k1)-1] = k.k1[len(k.k1)-1]<<1 ^ msb*0x87
	return k
}

// aead returns AES-256-GCM under the key derived from the first 12 bytes of
// nonce; the caller passes the last 12 bytes to it as the GCM nonce. It
// cannot fail: the derived key is 32 bytes and AES's block is 16, which is
// all that aes.NewCipher and cipher.NewGCM check.
func (k *xaesKey) aead(nonce []byte) cipher.AEAD {
	var m1, m2 [aes.BlockSize]byte
	var derived [32]byte
	// The counter KDF's input blocks: counter i (16 bits), the label "X",
	// a zero byte, and the 96-bit context.
	m1[1], m1[2] = 0x01, 'X'
	m2[1], m2[2] = 0x02, 'X'
	copy(m1[4:], nonce[:12])
	copy(m2[4:], nonce[:12])
	for i := range aes.BlockSize {
		m1[i] ^= k.k1[i]
		m2[i] ^= k.k1[i]
	}
	k.block.Encrypt(derived[:aes.BlockSize], m1[:])
	k.block.Encrypt(derived[aes.BlockSize:], m2[:])
	block, err := aes.NewCipher(derived[:])
	clear(derived[:])
	if err != nil {
		panic(fmt.Sprintf("seal: derive token key: %v", err))
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(fmt.Sprintf("seal: derive token key: %v", err))
	}
	return gcm
}
