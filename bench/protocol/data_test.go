// Package protocol benchmarks the protocol layer of mcpgen (the generated
// package github.com/mcpgen/mcpgen/generated/mcp) against peers doing the
// same work: the official go-sdk for decoding, santhosh-tekuri/jsonschema
// for schema validation.
//
// The mcpgen halves live in mcpgen_test.go and hook themselves into the
// benchmarks below through mcpgenHalves, so that the peer halves still
// build and run while that file is moved aside.
package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// mcpgenHalves holds the mcpgen side of each benchmark. mcpgen_test.go
// fills it in from init; a nil field means that file is absent and only
// the peer side runs.
var mcpgenHalves struct {
	decodeCallToolRequest  func(b *testing.B)
	validateCallToolResult func(b *testing.B)
}

// callToolRequest is one incoming tools/call request as it arrives on the
// wire (compact, as stdio and Streamable HTTP carry it). It is valid under
// the 2025-11-25 schema, the last version of the initialize-based era (see
// TestCallToolRequestIsValid); under 2026-07-28 its _meta would also carry
// the per-request protocol version and client capabilities.
var callToolRequest = compact(`{
	"jsonrpc": "2.0",
	"id": 7,
	"method": "tools/call",
	"params": {
		"name": "search_flights",
		"arguments": {
			"origin": "SFO",
			"destination": "NRT",
			"departure_date": "2026-09-14",
			"return_date": "2026-09-28",
			"passengers": 2,
			"max_price_usd": 1850.5,
			"cabin": "economy",
			"airlines": ["NH", "JL", "UA"],
			"nonstop_only": false,
			"filters": {
				"max_stops": 1,
				"depart_after": "08:00",
				"baggage": {"checked": 2, "carry_on": 1}
			}
		},
		"_meta": {"progressToken": "abc"}
	}
}`)

// validateVersion is the schema version the CallToolResult instance is
// valid for.
const validateVersion = "2026-07-28"

// callToolResult is a tools/call result with ten content blocks covering
// every ContentBlock variant (text, image, audio, resource_link, and
// embedded resources with text and with blob contents), annotations,
// _meta and structured content. It is valid under validateVersion (see
// TestCallToolResultIsValid).
var callToolResult = compact(`{
	"_meta": {
		"io.modelcontextprotocol/serverInfo": {"name": "flights-server", "version": "1.4.2"},
		"com.example/trace": "7f3a9c"
	},
	"resultType": "complete",
	"isError": false,
	"content": [
		{
			"type": "text",
			"text": "Found 3 round trips from SFO to NRT between 2026-09-14 and 2026-09-28 under $1850.50.",
			"annotations": {"audience": ["assistant"], "priority": 0.9}
		},
		{
			"type": "image",
			"mimeType": "image/png",
			"data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbUlEQVR42hXOUREAUQhCUaMYhShEMcqNQhSi7Fs/OQzjzLCDBg83MGToMLPsosXLLSxZug/ECgmLE4iI6oFZI2NzBhNTPzj20OHjDo4cvQf/7Bt41Rf+F+h7YsIGBYfLHyc0D8oWFZfrX05p+QDeqGABtJu0bQAAAABJRU5ErkJggg==",
			"annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2026-07-28T09:30:00Z"}
		},
		{
			"type": "text",
			"text": "Cheapest: NH 7 / NH 8, nonstop, $1212.40 per passenger, 2 checked bags included."
		},
		{
			"type": "audio",
			"mimeType": "audio/wav",
			"data": "UklGRqQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YYAAAAAAAJUK6xPlGrIe3R5iG6oUgAv7AFj22eye5YHhAOEo5Jzql/MK/rcIXhLYGUQeHB9GHBgWTg3wAjv4cO645v7h0OBS4znp0fEW/NEGvhCxGLgdPB8OHXAXDg/jBCX6GPDs55niwOCZ4uznGPAl+uMEDg9wFw4dPB+4HbEYvhDRBg=="
		},
		{
			"type": "resource_link",
			"uri": "https://flights.example.com/offers/NH7-NH8-20260914",
			"name": "offer-nh7-nh8",
			"title": "NH 7 / NH 8 round trip",
			"description": "Full fare rules and seat map for the cheapest offer.",
			"mimeType": "application/json",
			"size": 18234,
			"icons": [{"src": "https://flights.example.com/icons/nh.png", "mimeType": "image/png", "sizes": ["48x48", "96x96"], "theme": "light"}]
		},
		{
			"type": "resource",
			"resource": {
				"uri": "file:///var/cache/flights/sfo-nrt-2026-09.csv",
				"mimeType": "text/csv",
				"text": "carrier,outbound,inbound,stops,price_usd\nNH,NH7,NH8,0,1212.40\nJL,JL1,JL2,0,1388.00\nUA,UA837,UA838,0,1502.75\n"
			},
			"annotations": {"audience": ["assistant", "user"]}
		},
		{
			"type": "resource",
			"resource": {
				"uri": "https://flights.example.com/offers/NH7-NH8-20260914/fare-rules.pdf",
				"mimeType": "application/pdf",
				"blob": "JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvQ2F0YWxvZy9QYWdlcyAyIDAgUj4+ZW5kb2JqCjIgMCBvYmo8PC9UeXBlL1BhZ2VzL0tpZHNbXS9Db3VudCAwPj5lbmRvYmoKdHJhaWxlcjw8L1Jvb3QgMSAwIFI+PgolJUVPRgo=",
				"_meta": {"com.example/checksum": "sha256:5d41402abc4b2a76b9719d911017c592"}
			}
		},
		{
			"type": "image",
			"mimeType": "image/png",
			"data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbUlEQVR42hXOUREAUQhCUaMYhShEMcqNQhSi7Fs/OQzjzLCDBg83MGToMLPsosXLLSxZug/ECgmLE4iI6oFZI2NzBhNTPzj20OHjDo4cvQf/7Bt41Rf+F+h7YsIGBYfLHyc0D8oWFZfrX05p+QDeqGABtJu0bQAAAABJRU5ErkJggg==",
			"_meta": {"com.example/alt": "Seat map, economy cabin"}
		},
		{
			"type": "resource_link",
			"uri": "https://flights.example.com/offers/JL1-JL2-20260914",
			"name": "offer-jl1-jl2",
			"mimeType": "application/json"
		},
		{
			"type": "text",
			"text": "Prices include taxes; they were checked at 09:30 UTC and may change.",
			"_meta": {"com.example/source": "gds"}
		}
	],
	"structuredContent": {
		"offers": [
			{"carrier": "NH", "stops": 0, "price_usd": 1212.4},
			{"carrier": "JL", "stops": 0, "price_usd": 1388.0},
			{"carrier": "UA", "stops": 0, "price_usd": 1502.75}
		],
		"currency": "USD"
	}
}`)

// compact returns the JSON text s without insignificant white space.
// It panics on malformed JSON: the fixtures above are constants.
func compact(s string) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		panic(fmt.Sprintf("bad fixture: %v", err))
	}
	return buf.Bytes()
}

// byteFormat is the OpenAPI format "byte" (standard base64), used by the
// MCP schema for image, audio and blob data. santhosh-tekuri/jsonschema
// does not know it, so it is registered by hand.
var byteFormat = &jsonschema.Format{
	Name: "byte",
	Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil // format applies to strings only
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return errors.New("not base64")
		}
		return nil
	},
}

// compileDefinition compiles the definition def of the schema of version
// with santhosh-tekuri/jsonschema, format assertions on. The schema file is
// read from the shared folder now; a missing file fails tb.
func compileDefinition(tb testing.TB, version, def string) *jsonschema.Schema {
	tb.Helper()
	path := sharedtest.SchemaPath(tb, version)
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(abs)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		tb.Fatalf("read %s: %v", abs, err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()

	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.RegisterFormat(byteFormat)
	if err := c.AddResource(fileURL, doc); err != nil {
		tb.Fatal(err)
	}
	sch, err := c.Compile(fileURL + "#/$defs/" + def)
	if err != nil {
		tb.Fatalf("compile %s#/$defs/%s: %v", abs, def, err)
	}
	return sch
}

// instance decodes data the way santhosh-tekuri/jsonschema expects it.
func instance(tb testing.TB, data []byte) any {
	tb.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
