package redis

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// A cursor is the Seq of the last task a page returned, authenticated for
// one owner and one key prefix: base64url(version, seq, MAC[:16]). It has
// the shape of the memory store's, for the same reasons: paging by Seq
// keeps a listing stable while tasks come and go, and the MAC tells a
// forged cursor, another owner's, or one from a store with another key
// from a real position.
const (
	cursorVersion = 1
	cursorMACSize = 16
	cursorSize    = 1 + 8 + cursorMACSize
)

// cursorCodec makes and checks cursors under one key.
type cursorCodec struct {
	key    []byte
	prefix string
}

func (c cursorCodec) mac(owner string, seq uint64) []byte {
	h := hmac.New(sha256.New, c.key)
	var b [9]byte
	b[0] = cursorVersion
	binary.BigEndian.PutUint64(b[1:], seq)
	h.Write(b[:])
	// Length-prefix the prefix so that (prefix, owner) pairs cannot
	// collide by moving bytes between the two.
	h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(c.prefix))))
	h.Write([]byte(c.prefix))
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
// tasks.ErrCursor.
func (c cursorCodec) decode(owner, cursor string) (uint64, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != cursorSize || b[0] != cursorVersion {
		return 0, fmt.Errorf("%w: malformed", tasks.ErrCursor)
	}
	seq := binary.BigEndian.Uint64(b[1:9])
	if !hmac.Equal(b[9:], c.mac(owner, seq)) {
		return 0, fmt.Errorf("%w: not issued to this owner by this store", tasks.ErrCursor)
	}
	return seq, nil
}
