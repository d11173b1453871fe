package support

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Message is implemented by a pointer to every type of this package.
type Message interface {
	json.Marshaler
	// Validate checks the value against the newest version that defines its type.
	Validate() error
	// ValidateVersion checks the value against the rules of version v.
	ValidateVersion(v ProtocolVersion) error
	appendJSON([]byte) ([]byte, error)
	validate(VersionSet) error
	decode(*jsonrpc.Scanner) error
}

// AppendJSON appends the JSON encoding of m to dst and returns the extended
// buffer. It is MarshalJSON for callers that encode often: it writes into their
// buffer, and copies nothing of m.
func AppendJSON(dst []byte, m Message) ([]byte, error) {
	return m.appendJSON(dst)
}

// A messageType is an entry of the table of the package's types by name
// (messages_gen.go).
type messageType struct {
	name string
	new  func() Message
}

// newOf returns a new T as a Message: the constructor the tables of types
// and methods hold for each type.
func newOf[T any, P interface {
	*T
	Message
}]() Message {
	return P(new(T))
}
