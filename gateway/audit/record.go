package audit

import (
	"time"
)

// Decision is what the gateway did with a request.
type Decision string

// The decisions.
const (
	Allowed          Decision = "allowed"           // forwarded to the upstream
	Denied           Decision = "denied"            // refused by an authorization rule
	Quarantined      Decision = "quarantined"       // the tool's definition differs from the lock file
	ApprovalDeclined Decision = "approval-declined" // a human declined a destructive call, or the client cannot ask one
	ApprovalAsked    Decision = "approval-asked"    // a 2026-07-28 round ended asking the human; its retry is logged apart
	RateLimited      Decision = "rate-limited"      // refused by a rate limit, a concurrency limit or an open circuit
	Error            Decision = "error"             // forwarded, and the upstream or the transport failed
)

// Record is one request as the audit log sees it.
type Record struct {
	// Time is when the request arrived; zero means when Log is called.
	Time time.Time
	// Principal is the caller, as Principal formats it.
	Principal string
	// Server is the virtual server the client reached.
	Server string
	// Trust is the virtual server's trust label, from the configuration.
	Trust string
	// Upstream is the upstream the request went, or would have gone, to;
	// empty for a list that spans every upstream.
	Upstream string
	// Name is the tool or prompt name, or the resource URI, the client
	// used; empty for a list.
	Name string
	// Method is the MCP method: tools/list, tools/call, resources/read,
	// prompts/get, ...
	Method string
	// Decision is what the gateway did.
	Decision Decision
	// Reason says why, when the decision is not Allowed: the authz rule,
	// the rate limit, the error. Bearer tokens and JWTs in it are
	// redacted, but it should not carry upstream responses verbatim.
	Reason string
	// Latency is how long the gateway took to answer.
	Latency time.Duration
	// ResultSize is the size in bytes of the result sent to the client.
	ResultSize int64
	// Arguments are the request's arguments as the client sent them (a
	// JSON object), nil when it has none. Only their digest, their
	// names and the fields the configuration allows are written.
	Arguments []byte
}

// Principal formats a caller for Record.Principal: subject@issuer, or
// "anonymous" when both are empty.
func Principal(subject, issuer string) string {
	if subject == "" && issuer == "" {
		return "anonymous"
	}
	return subject + "@" + issuer
}

// line is the JSON shape of one audit line; the field order is the order
// of the line.
type line struct {
	Time        string         `json:"time"`
	Principal   string         `json:"principal"`
	Server      string         `json:"server,omitempty"`
	Trust       string         `json:"trust,omitempty"`
	Upstream    string         `json:"upstream,omitempty"`
	Name        string         `json:"name,omitempty"`
	Method      string         `json:"method"`
	Decision    Decision       `json:"decision"`
	Reason      string         `json:"reason,omitempty"`
	LatencyMs   float64        `json:"latencyMs"`
	ResultBytes int64          `json:"resultBytes"`
	ArgsDigest  string         `json:"argsDigest,omitempty"`
	ArgNames    []string       `json:"argNames,omitempty"`
	Args        map[string]any `json:"args,omitempty"`
	Truncated   bool           `json:"truncated,omitempty"`
}

// dropLine is the line that reports lines dropped before it.
type dropLine struct {
	Time    string `json:"time"`
	Dropped uint64 `json:"dropped"`
}

const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }
