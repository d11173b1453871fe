package policy

import (
	"strconv"
	"time"
)

// Config is the policy section of a virtual server in the gateway's
// configuration.
type Config struct {
	// PerPrincipal limits each caller's calls across all tools.
	PerPrincipal RateConfig `yaml:"perPrincipal,omitempty"`
	// PerTool limits each caller's calls of each tool.
	PerTool RateConfig `yaml:"perTool,omitempty"`
	// MaxBuckets bounds the buckets each limit keeps; zero means
	// DefaultMaxBuckets.
	MaxBuckets int `yaml:"maxBuckets,omitempty"`
	// Approval overrides the annotations that decide which tools need a
	// human approval (see Destructive). Approvals are asked for on the
	// virtual servers that have a policy section, even an empty one:
	// there, a tool without annotations needs one, as MCP's defaults
	// read; a server without the section forwards every call as it comes.
	Approval []Approval `yaml:"approval,omitempty"`
}

// UpstreamConfig is the policy of one upstream.
type UpstreamConfig struct {
	// MaxConcurrent bounds its calls in flight; zero means no bound.
	MaxConcurrent int `yaml:"maxConcurrent,omitempty"`
	// Timeout bounds each call, the wait for a slot included; zero means
	// none.
	Timeout time.Duration `yaml:"timeout,omitempty"`
	// Breaker is its circuit breaker.
	Breaker BreakerConfig `yaml:"breaker,omitempty"`
}

// ToolKey is the key of a caller's bucket for one tool in a PerTool
// Limiter: quoted, so that no two pairs read the same.
func ToolKey(principal, tool string) string {
	return strconv.Quote(principal) + " " + strconv.Quote(tool)
}
