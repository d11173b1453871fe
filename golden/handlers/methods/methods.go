// Package methods is a golden case: tools that are methods of receivers.
package methods

import (
	"context"
	"sync"
)

// Store keeps values.
type Store struct {
	mu   sync.Mutex
	data map[string]string
}

// SetInput names a key and its value.
type SetInput struct {
	Key   string `json:"key" mcp:"minLength=1"`
	Value string `json:"value"`
}

// Set stores a value.
//
//mcp:tool idempotent
func (s *Store) Set(ctx context.Context, in SetInput) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		s.data = map[string]string{}
	}
	s.data[in.Key] = in.Value
	return "ok", nil
}

// Size reports how many values are stored.
type Size struct {
	N int `json:"n"`
}

// Len counts values.
//
//mcp:tool readonly
func (s *Store) Len(ctx context.Context) (Size, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Size{N: len(s.data)}, nil
}

// Clock tells the time; a value receiver.
type Clock struct{}

// Now says what time it is.
//
//mcp:tool description="The server's time, as text."
func (Clock) Now(ctx context.Context) (string, error) { return "now", nil }
