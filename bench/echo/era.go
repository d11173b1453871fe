package echo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Era is the protocol era a client speaks.
type Era int

const (
	// Legacy is the era of sessions: the client sends initialize and
	// notifications/initialized ([ProtocolVersion]), and its requests carry
	// nothing of it after that.
	Legacy Era = iota
	// Modern is 2026-07-28 ([ModernVersion]): no initialize; every request
	// carries the protocol version, the client's capabilities and its info
	// in params._meta, and over HTTP mirrors the version, the method and
	// the tool's name in headers. Every result carries resultType and the
	// server's identity.
	Modern
)

// ModernVersion is the protocol version a [Modern] client puts in every
// request.
const ModernVersion = "2026-07-28"

// Eras lists the eras, legacy first.
var Eras = []Era{Legacy, Modern}

// String returns "legacy" or the modern era's version.
func (e Era) String() string {
	if e == Modern {
		return ModernVersion
	}
	return "legacy"
}

// ParseEra reads what String writes.
func ParseEra(s string) (Era, error) {
	switch s {
	case "legacy":
		return Legacy, nil
	case ModernVersion:
		return Modern, nil
	}
	return 0, fmt.Errorf("unknown era %q: want legacy or %s", s, ModernVersion)
}

// The _meta keys of 2026-07-28 the client writes and reads.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// dialect is how a client of one era writes the echo tools/call and checks
// its result. Its methods allocate nothing on the load loop's path.
type dialect struct {
	era Era
	// meta is the _meta member of a 2026-07-28 request, `"_meta":{...}`;
	// nil in the legacy era.
	meta []byte
	call []byte // an echo tools/call request up to its id
	want []byte // Text as a JSON string, which every echo result holds
}

// newDialect returns the dialect of era. A 2026-07-28 client names itself
// client in every request's clientInfo.
func newDialect(era Era, client string) dialect {
	d := dialect{era: era}
	d.want, _ = json.Marshal(Text)
	if era == Modern {
		info, _ := json.Marshal(map[string]string{"name": client, "version": "0.0.0"})
		d.meta = []byte(`"_meta":{"` + metaProtocolVersion + `":"` + ModernVersion + `","` +
			metaClientCapabilities + `":{},"` + metaClientInfo + `":` + string(info) + `}`)
	}
	d.call = append(d.call, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":`...)
	d.call = append(d.call, d.want...)
	d.call = append(d.call, '}')
	if d.meta != nil {
		d.call = append(d.call, ',')
		d.call = append(d.call, d.meta...)
	}
	d.call = append(d.call, `},"id":`...)
	return d
}

// appendCall appends the echo tools/call request with the given id, with
// no line ending, to b.
func (d *dialect) appendCall(b []byte, id int64) []byte {
	b = append(b, d.call...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, '}')
}

// params encodes the params of a request for setup and tests: in the
// modern era, with the request's _meta added. params may be nil.
func (d *dialect) params(params any) (json.RawMessage, error) {
	if params == nil && d.meta == nil {
		return nil, nil
	}
	p := []byte(`{}`)
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	if d.meta == nil {
		return p, nil
	}
	p = bytes.TrimSpace(p)
	if len(p) < 2 || p[0] != '{' {
		return nil, fmt.Errorf("params %s: a %s request's params must be an object", p, ModernVersion)
	}
	out := append([]byte{'{'}, d.meta...)
	if rest := bytes.TrimSpace(p[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, p[1:]...), nil
}

var (
	isErrorTrue    = []byte(`"isError":true`)
	resultComplete = []byte(`"complete"`)
	serverInfoKey  = []byte(`"` + metaServerInfo + `"`)
)

// checkEcho checks the result of an echo tools/call: it holds Text and is
// not an error, and in the modern era it is complete and names the server.
func (d *dialect) checkEcho(result []byte) error {
	if !bytes.Contains(result, d.want) || bytes.Contains(result, isErrorTrue) {
		return errUnexpectedResult
	}
	if d.era == Modern {
		return checkComplete(result)
	}
	return nil
}

var errUnexpectedResult = errors.New("unexpected result")

// checkComplete checks what 2026-07-28 asks of every result: resultType
// "complete" and the server's identity in _meta.
func checkComplete(result []byte) error {
	rt, err := member(result, "resultType")
	if err != nil {
		return err
	}
	if !bytes.Equal(rt, resultComplete) {
		return fmt.Errorf("resultType is %s, want \"complete\"", orAbsent(rt))
	}
	meta, err := member(result, "_meta")
	if err != nil {
		return err
	}
	if !bytes.Contains(meta, serverInfoKey) {
		return fmt.Errorf("_meta %s has no %s", orAbsent(meta), metaServerInfo)
	}
	return nil
}

func orAbsent(raw []byte) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}
