package tasks

import "crypto/rand"

// newID returns a task id: 26 base32 characters carrying 130 random bits
// from crypto/rand, so ids are unguessable and, in practice, unique. An id
// is the only thing between a client and another's task once an owner
// check is wrong, so it never derives from a counter or the clock.
func newID() string {
	return rand.Text()
}
