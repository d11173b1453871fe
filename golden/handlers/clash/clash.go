// Package clash is a golden case: handlers whose generated names would
// collide, with each other or with the package's own identifiers, and
// names with initialisms.
package clash

import "context"

// Store holds values.
type Store struct{}

// Set stores a value; (*Store).Set and StoreSet both read StoreSet, so
// both take their MCP names' words instead.
//
//mcp:tool name=store_set
func (s *Store) Set(ctx context.Context) (string, error) { return "", nil }

// StoreSet stores a value too.
//
//mcp:tool name=set_store
func StoreSet(ctx context.Context) (string, error) { return "", nil }

// GetURL says where things are: URL stays in capitals.
//
//mcp:tool name=get_url
func GetURL(ctx context.Context) (string, error) { return "", nil }

// apiClient is an unexported receiver whose name starts with an initialism.
type apiClient struct{}

// Ping answers.
//
//mcp:tool name=api_ping
func (c *apiClient) Ping(ctx context.Context) (string, error) { return "pong", nil }

// Lookup finds a thing; the package declares mcpgenCallLookup itself, so
// the tool's generated code is named by its MCP name, find_item.
//
//mcp:tool name=find_item
func Lookup(ctx context.Context) (string, error) { return "", nil }

// mcpgenCallLookup is the user's own, in the generator's name space.
func mcpgenCallLookup() {}

// handler is the user's own package-level name: the generated file
// imports runtime/handler under another name.
var handler = "mine"

var _ = mcpgenCallLookup
var _ = handler
