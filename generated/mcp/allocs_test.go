package mcp

import (
	"encoding/json"
	"testing"
)

// callToolResultMixed is a tools/call result with ten content blocks of
// every ContentBlock kind: text, image and audio with base64 data,
// resource links with URIs and embedded resources with text and with blob
// contents (borrowed from bench/protocol).
const callToolResultMixed = `{
	"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "flights-server", "version": "1.4.2"}, "com.example/trace": "7f3a9c"},
	"resultType": "complete",
	"isError": false,
	"content": [
		{"type": "text", "text": "Found 3 round trips.", "annotations": {"audience": ["assistant"], "priority": 0.9}},
		{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbUlEQVR42hXOUREAUQhCUaMYhShEMcqNQhSi7Fs/OQzjzLCDBg83MGToMLPsosXLLSxZug/ECgmLE4iI6oFZI2NzBhNTPzj20OHjDo4cvQf/7Bt41Rf+F+h7YsIGBYfLHyc0D8oWFZfrX05p+QDeqGABtJu0bQAAAABJRU5ErkJggg==", "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2026-07-28T09:30:00Z"}},
		{"type": "text", "text": "Cheapest: NH 7 / NH 8."},
		{"type": "audio", "mimeType": "audio/wav", "data": "UklGRqQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YYAAAAAAAJUK6xPlGrIe3R5iG6oUgAv7AFj22eye5YHhAOEo5Jzql/MK/rcIXhLYGUQeHB9GHBgWTg3wAjv4cO645v7h0OBS4znp0fEW/NEGvhCxGLgdPB8OHXAXDg/jBCX6GPDs55niwOCZ4uznGPAl+uMEDg9wFw4dPB+4HbEYvhDRBg=="},
		{"type": "resource_link", "uri": "https://flights.example.com/offers/NH7-NH8-20260914", "name": "offer-nh7-nh8", "title": "NH 7 / NH 8 round trip", "mimeType": "application/json", "size": 18234,
			"icons": [{"src": "https://flights.example.com/icons/nh.png", "mimeType": "image/png", "sizes": ["48x48", "96x96"], "theme": "light"}]},
		{"type": "resource", "resource": {"uri": "file:///var/cache/flights/sfo-nrt-2026-09.csv", "mimeType": "text/csv", "text": "carrier,price_usd\nNH,1212.40\n"}, "annotations": {"audience": ["assistant", "user"]}},
		{"type": "resource", "resource": {"uri": "https://flights.example.com/offers/fare-rules.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjQKJSVFT0YK", "_meta": {"com.example/checksum": "sha256:5d41"}}},
		{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=", "_meta": {"com.example/alt": "Seat map"}},
		{"type": "resource_link", "uri": "https://flights.example.com/offers/JL1-JL2-20260914", "name": "offer-jl1-jl2", "mimeType": "application/json"},
		{"type": "text", "text": "Prices include taxes.", "_meta": {"com.example/source": "gds"}}
	],
	"structuredContent": {"offers": [{"carrier": "NH", "stops": 0, "price_usd": 1212.4}], "currency": "USD"}
}`

// TestValidateAllocs checks that validating a decoded message allocates
// nothing: the validators run on every message a peer receives, and
// errors are built only once something has failed.
func TestValidateAllocs(t *testing.T) {
	var v CallToolResult
	if err := json.Unmarshal([]byte(callToolResultMixed), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Content) != 10 {
		t.Fatalf("decoded %d content blocks, want 10", len(v.Content))
	}
	if err := v.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = v.Validate() }); n != 0 {
		t.Errorf("Validate allocates %v times per run, want 0", n)
	}
}
