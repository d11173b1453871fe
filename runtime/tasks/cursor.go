package tasks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
)

// A cursor is the Seq of the last task a page returned, authenticated for
// one owner: base64url(version, seq, HMAC-SHA256(key, owner, seq)[:16]).
// Paging by Seq rather than by offset keeps a listing stable while tasks
// are created and expire; the MAC lets the store tell a client's typo, a
// forgery, another owner's cursor and one from a store with another key
// (a restarted MemoryStore) from a real position, instead of silently
// listing from somewhere else.
const (
	cursorVersion = 1
	cursorMACSize = 16
	cursorSize    = 1 + 8 + cursorMACSize
)

// cursorCodec makes and checks cursors under one key.
type cursorCodec struct {
	key []byte
}

func (c cursorCodec) mac(owner string, seq uint64) []byte {
	h := hmac.New(sha256.New, c.key)
	var b [9]byte
	b[0] = cursorVersion
	binary.BigEndian.PutUint64(b[1:], seq)
	h.Write(b[:])
	h.Write([]byte(owner))
	return h.Sum(nil)[:cursorMACSize]
}

// encode returns the cursor that resumes owner's listing after seq.
func (c cursorCodec) encode(owner string, seq uint64) string {
	b := make([]byte, 0, cursorSize)
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, seq)
	b = append(b, c.mac(owner, seq)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decode returns the seq cursor resumes after, or an error wrapping
// ErrCursor.
func (c cursorCodec) decode(owner, cursor string) (uint64, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != cursorSize || b[0] != cursorVersion {
		return 0, fmt.Errorf("%w: malformed", ErrCursor)
	}
	seq := binary.BigEndian.Uint64(b[1:9])
	if !hmac.Equal(b[9:], c.mac(owner, seq)) {
		return 0, fmt.Errorf("%w: not issued to this owner by this store (forged, or stale from before a restart)", ErrCursor)
	}
	return seq, nil
}
