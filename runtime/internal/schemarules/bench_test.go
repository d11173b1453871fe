package schemarules

import "testing"

// toolSchema is the inputSchema of a realistic tool, about 2 KB: nested
// objects, arrays, enums, local $refs and a composition.
const toolSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "description": "Search the order history of a customer account.",
  "properties": {
    "account": {"$ref": "#/$defs/accountId"},
    "region": {"type": "string", "enum": ["us-east1", "us-west1", "eu-west1", "asia-south1"], "x-mcp-header": "Region"},
    "query": {"type": "string", "minLength": 1, "maxLength": 512, "description": "Free text matched against item names and notes."},
    "status": {"type": "array", "items": {"type": "string", "enum": ["open", "shipped", "delivered", "returned", "cancelled"]}, "uniqueItems": true},
    "placed": {"$ref": "#/$defs/dateRange"},
    "total": {
      "type": "object",
      "properties": {"min": {"$ref": "#/$defs/money"}, "max": {"$ref": "#/$defs/money"}},
      "additionalProperties": false
    },
    "shipTo": {
      "anyOf": [
        {"type": "object", "properties": {"country": {"type": "string", "pattern": "^[A-Z]{2}$"}, "postalCode": {"type": "string"}}, "required": ["country"]},
        {"type": "object", "properties": {"storeId": {"type": "integer", "minimum": 1}}, "required": ["storeId"]}
      ]
    },
    "sort": {"type": "object", "properties": {
      "field": {"type": "string", "enum": ["placed", "total", "status"], "default": "placed"},
      "descending": {"type": "boolean", "default": true}
    }},
    "page": {"type": "object", "properties": {
      "size": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
      "cursor": {"type": "string", "description": "Opaque cursor from the previous page."}
    }},
    "fields": {"type": "array", "items": {"type": "string"}, "maxItems": 32},
    "dryRun": {"type": "boolean", "description": "Validate the query without running it."}
  },
  "required": ["account", "region"],
  "additionalProperties": false,
  "$defs": {
    "accountId": {"type": "string", "pattern": "^acct_[0-9a-f]{16}$", "description": "The account to search."},
    "money": {"type": "object", "properties": {"amount": {"type": "integer", "minimum": 0}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "required": ["amount", "currency"]},
    "date": {"type": "string", "format": "date"},
    "dateRange": {"type": "object", "properties": {"from": {"$ref": "#/$defs/date"}, "to": {"$ref": "#/$defs/date"}}, "minProperties": 1}
  }
}`

func BenchmarkCheck(b *testing.B) {
	data := []byte(toolSchema)
	if _, err := Check(data, Limits{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Check(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
