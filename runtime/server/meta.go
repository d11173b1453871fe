package server

import (
	"bytes"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/metakey"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The _meta keys of a 2026-07-28 request that the engine reads.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaProgressToken      = "progressToken"
)

// requestMeta is what the era gate reads of a request's params._meta, as
// raw JSON: one pass over the params, before the generated dispatch
// decodes them, so that the request context exists before any handler
// runs. Values are slices of the params.
type requestMeta struct {
	present bool   // params has a _meta object
	raw     []byte // the _meta object itself, for RequestMeta
	// modern: _meta holds a per-request field of the stateless era, so the
	// client speaks it (a legacy client never sends these keys).
	modern        bool
	version       []byte // raw JSON of protocolVersion, nil when absent
	capabilities  []byte
	clientInfo    []byte
	logLevel      []byte
	progressToken []byte
}

// scanMeta reads the fields the engine needs from params._meta. Params
// that are not an object, or a _meta that is not one, read as no _meta at
// all: the generated dispatch reports what is wrong with them.
func scanMeta(params []byte) requestMeta {
	var m requestMeta
	if len(params) == 0 || !mayHoldMeta(params) {
		return m
	}
	var sc jsonrpc.Scanner
	sc.Reset(params)
	raw, ok := member(&sc, "_meta")
	if !ok {
		return m
	}
	sc.Reset(raw)
	if sc.ObjectStart() != nil {
		return m
	}
	m.present, m.raw = true, raw
	for {
		k, more, err := sc.NextKey()
		if err != nil || !more {
			return m
		}
		var dst *[]byte
		switch string(k) {
		case metaProtocolVersion:
			dst = &m.version
		case metaClientCapabilities:
			dst = &m.capabilities
		case metaClientInfo:
			dst = &m.clientInfo
		case metaLogLevel:
			dst = &m.logLevel
		case metaProgressToken:
			dst = &m.progressToken
		default:
			if sc.Skip() != nil {
				return requestMeta{}
			}
			continue
		}
		v, err := sc.Raw()
		if err != nil {
			return requestMeta{}
		}
		*dst = v
		if dst != &m.progressToken {
			m.modern = true
		}
	}
}

// mayHoldMeta reports whether params may have a _meta member: a search for
// the key spares most legacy requests, which have none, a walk over every
// param. A key spelled with escapes defeats the search, so params with a
// backslash anywhere are walked.
func mayHoldMeta(params []byte) bool {
	return bytes.Contains(params, []byte(`"_meta"`)) || bytes.IndexByte(params, '\\') >= 0
}

// member returns the raw value of key in the object sc reads.
func member(sc *jsonrpc.Scanner, key string) ([]byte, bool) {
	if sc.ObjectStart() != nil {
		return nil, false
	}
	var found []byte
	for {
		k, more, err := sc.NextKey()
		if err != nil || !more {
			return found, found != nil
		}
		if string(k) == key {
			if found, err = sc.Raw(); err != nil {
				return nil, false
			}
			continue
		}
		if sc.Skip() != nil {
			return nil, false
		}
	}
}

// modernOnly reports whether a method exists only in the stateless era,
// so that a request for it is judged by that era's rules even when its
// _meta is missing.
func modernOnly(method string) bool {
	info, ok := mcp.LookupMethod(method)
	if !ok {
		return false
	}
	for _, v := range mcp.SupportedVersions() {
		if v.Era() == mcp.EraLegacy && info.Versions.Has(v) {
			return false
		}
	}
	return true
}

// rawString decodes a raw JSON string, reporting false for anything else.
// A protocol version, which every 2026-07-28 request names, comes back as
// the package's constant, sparing the request an allocation.
func rawString(raw []byte) (string, bool) {
	var sc jsonrpc.Scanner
	sc.Reset(raw)
	b, err := sc.StringBytes()
	if err != nil || sc.End() != nil {
		return "", false
	}
	for _, v := range mcp.SupportedVersions() {
		if string(b) == string(v) {
			return string(v), true
		}
	}
	return string(b), true
}

// checkMetaKeys checks the keys of a _meta object that user code wrote (a
// definition's, or a result's): each must be well formed, and none may
// use a prefix the specification reserves for itself.
func checkMetaKeys(raw []byte) error {
	if len(raw) == 0 {
		return nil
	}
	var sc jsonrpc.Scanner
	sc.Reset(raw)
	if err := sc.ObjectStart(); err != nil {
		return err
	}
	for {
		k, more, err := sc.NextKey()
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if err := metakey.CheckUser(string(k)); err != nil {
			return err
		}
		if err := sc.Skip(); err != nil {
			return err
		}
	}
}

// StatelessRequest reports whether a request belongs to the stateless era
// (2026-07-28): its _meta carries one of that era's per-request fields, or
// its method exists only in that era. Transports whose requests carry no
// other sign of their era (an HTTP POST without a version header) route
// by it; Session.Handle uses the same rule on streams.
func StatelessRequest(method string, params []byte) bool {
	return scanMeta(params).modern || modernOnly(method)
}
