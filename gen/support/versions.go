package support

// The types of protocol versions. The versions themselves, and what
// depends on them, are generated from the schemas (versions_gen.go).

// ProtocolVersion names a version of the MCP specification.
type ProtocolVersion string

// VersionSet is a set of the protocol versions this package knows.
type VersionSet uint32

// Era is a family of protocol versions that share a lifecycle.
type Era int

const (
	// EraLegacy versions begin each session with initialize.
	EraLegacy Era = iota + 1
	// EraModern versions are stateless: each request carries its protocol version and capabilities in _meta.
	EraModern
)
