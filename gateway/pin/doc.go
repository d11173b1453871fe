// Package pin pins the tool definitions that mcpgen-gateway passes from
// its upstreams to its clients, so that a definition cannot change behind
// an operator's back.
//
// # Why
//
// A model reads a tool's description and schemas as instructions. The
// gateway forwards them from servers it does not control, so a server
// can poison them: text that tells the model to read a key file and pass
// it in an argument, or to prefer this tool over another server's. The
// poison can be out of sight: bidirectional overrides that make text read
// differently on screen, zero-width characters, or Unicode tag
// characters that spell a whole sentence no reviewer sees. And it can come
// late: a server reviewed and trusted on Monday can change its
// descriptions on Friday (a rug pull), and the clients behind the gateway
// would pick the new text up on their next tools/list.
//
// # What
//
// `mcpgen-gateway lock` records the hash of every tool's definition per
// upstream in a lock file (LockFile). At run time the gateway checks each
// upstream's tools/list against it (Lock.Check): a tool whose hash
// differs, or that the lock does not have, is quarantined: not listed,
// and calls to it fail with a QuarantineError naming the tool, the
// upstream and what changed, until an operator reviews it and runs
// `mcpgen-gateway approve` (ApproveFile). A tool whose name, title,
// description, schemas or annotations hold a hidden character (see Class)
// is quarantined too, with each character named, whether or not the
// gateway pins (Scan checks a tool when it does not), unless the lock
// approves that exact definition: approve prints every hidden character
// of what it records, so an emoji joined by a zero-width joiner can be
// accepted by someone who has seen it.
//
// The hash covers exactly the members a model reads as instructions or an
// operator reviews: name, title, description, inputSchema, outputSchema
// and annotations, taken from the raw JSON the upstream sent (Hash), so
// that it works for every MCP version and no decoding into Go types can
// drop a member the upstream added. Key order and whitespace do not
// change it; any other difference, down to how a number is written, does.
//
// Pinning is on only when the gateway config has a lock key. Without it
// the gateway says at start that pinning is off and only Scans; with a
// lock key naming a missing file it refuses to start
// (Read returns ErrNoLock) and says to run `mcpgen-gateway lock`.
//
// # Lock file
//
// The lock is JSON written in one stable form (Lock.Marshal), so that a
// change to it reviews well as a diff:
//
//	{
//	  "version": 1,
//	  "upstreams": {
//	    "ev": {
//	      "echo": {
//	        "hash": "sha256:5d1c…",
//	        "summary": "Echoes back the input.",
//	        "members": {
//	          "description": "sha256:0b4e…",
//	          "inputSchema": "sha256:9f2a…",
//	          "name": "sha256:77c1…"
//	        }
//	      }
//	    }
//	  }
//	}
//
// Tools are keyed by the name the upstream gives them, not the namespaced
// name clients see, so changing a prefix does not unpin anything. The
// member hashes only let a quarantine say which members changed; the
// summary is for people and nothing checks it. The file is replaced
// atomically (Write).
package pin
