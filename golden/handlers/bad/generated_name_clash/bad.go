package generatednameclash

import "context"

// Store holds values.
type Store struct{}

// Set stores a value.
//
//mcp:tool name=store_set
func (s *Store) Set(ctx context.Context) (string, error) { return "", nil }

// StoreSet stores a value too, under an MCP name of the same words.
//
//mcp:tool name=store-set
func StoreSet(ctx context.Context) (string, error) { return "", nil }
