package registerclash

import "context"

// Store holds values.
type Store struct{}

// store holds other values.
type store struct{}

// Get reads a value.
//
//mcp:tool name=get
func (s *Store) Get(ctx context.Context) (string, error) { return "", nil }

// Put writes a value; RegisterStore would serve both receivers.
//
//mcp:tool name=put
func (s *store) Put(ctx context.Context) (string, error) { return "", nil }
