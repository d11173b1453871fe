//go:build interop && cluster

package interop

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/cluster"
)

// TestClusterTypeScriptClients runs the TypeScript SDK's clients against
// the replicas of examples/everything behind nginx round-robin that
// `make cluster` starts (cluster/up.sh; CLUSTER_ENV names its
// cluster.env): SDK 1.32.2's Client in the 2025 era, whose session every
// replica must serve, and SDK v2's in the 2026-07-28 era, whose
// input_required rounds any replica must take up. Each checks what it
// checks against a single server.
func TestClusterTypeScriptClients(t *testing.T) {
	node := requireNode(t)
	c, err := cluster.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("v1.32.2-legacy", func(t *testing.T) {
		checkTypeScriptHTTPClient(t, node, c.URL)
	})
	t.Run("v2.4.0-modern", func(t *testing.T) {
		checkTypeScriptV2Client(t, node, "http", c.URL)
	})
}
