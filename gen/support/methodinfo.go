package support

import (
	"slices"
	"strings"
)

// The shape of the method table. The table itself is generated from the
// schemas (methods_gen.go).

// Direction says which side sends a method.
type Direction uint8

const (
	// ClientToServer methods are sent by clients.
	ClientToServer Direction = 1 << iota
	// ServerToClient methods are sent by servers.
	ServerToClient
	// BothDirections methods are sent by either side.
	BothDirections = ClientToServer | ServerToClient
)

// MethodInfo describes one method: its message types, direction and versions.
type MethodInfo struct {
	Name string
	// Notification is true for notifications, which have no result.
	Notification bool
	Direction    Direction
	// Versions are the protocol versions that have the method.
	Versions VersionSet
	// Message, Params and Result name the Go types of the request or
	// notification, its params and its result ("" when there is none).
	Message   string
	Params    string
	Result    string
	newParams func() Message
	newResult func() Message
}

// NewParams returns a new value of the method's params type, or nil when it has none.
func (m *MethodInfo) NewParams() Message {
	if m.newParams == nil {
		return nil
	}
	return m.newParams()
}

// NewResult returns a new value of the method's result type, or nil for a notification.
func (m *MethodInfo) NewResult() Message {
	if m.newResult == nil {
		return nil
	}
	return m.newResult()
}

// findMethod returns the entry of table, sorted by name, for the method
// called name.
func findMethod(table []MethodInfo, name string) (*MethodInfo, bool) {
	i, ok := slices.BinarySearchFunc(table, name, func(m MethodInfo, name string) int { return strings.Compare(m.Name, name) })
	if !ok {
		return nil, false
	}
	return &table[i], true
}
