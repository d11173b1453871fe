package mcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// The method table says what each method carries and in which versions it
// exists: what changed with a spec bump, as a program sees it.
func ExampleLookupMethod() {
	for _, name := range []string{mcp.MethodCallTool, "server/discover", "initialize"} {
		info, ok := mcp.LookupMethod(name)
		if !ok {
			continue
		}
		fmt.Printf("%s: params %s, result %s, in 2025-11-25: %v, in 2026-07-28: %v\n",
			info.Name, info.Params, info.Result, info.Versions.Has(mcp.Version20251125), info.Versions.Has(mcp.Version20260728))
	}
	// Output:
	// tools/call: params CallToolRequestParams, result CallToolResult, in 2025-11-25: true, in 2026-07-28: true
	// server/discover: params RequestParams, result DiscoverResult, in 2025-11-25: false, in 2026-07-28: true
	// initialize: params InitializeRequestParams, result InitializeResult, in 2025-11-25: true, in 2026-07-28: false
}

// The versions this package knows, each of one era: the legacy era opens
// sessions with initialize, the modern one is stateless.
func ExampleSupportedVersions() {
	for _, v := range mcp.SupportedVersions() {
		fmt.Println(v, v.Era() == mcp.EraModern)
	}
	fmt.Println(mcp.ProtocolVersion("2023-01-01").Supported())
	// Output:
	// 2024-11-05 false
	// 2025-03-26 false
	// 2025-06-18 false
	// 2025-11-25 false
	// 2026-07-28 true
	// false
}

// Decoding checks structure, types and constants; Validate (against the
// newest version that defines the type) and ValidateVersion check the rest
// of the schema's rules, separately, and name the JSON path of what is
// wrong. Unions hold one of their variants in Value.
func ExampleCallToolResult_ValidateVersion() {
	data := []byte(`{"content":[{"type":"text","text":"hello"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"priority":7}}]}`)
	var r mcp.CallToolResult
	if err := json.Unmarshal(data, &r); err != nil {
		panic(err)
	}
	for _, block := range r.Content {
		switch b := block.Value.(type) {
		case *mcp.TextContent:
			fmt.Println("text:", b.Text)
		case *mcp.ImageContent:
			fmt.Println("image:", b.MIMEType)
		}
	}
	fmt.Println(r.ValidateVersion(mcp.Version20251125)) // priority is between 0 and 1

	r.Content[1].Value.(*mcp.ImageContent).Annotations.Priority = 0.5
	fmt.Println(r.ValidateVersion(mcp.Version20251125))
	fmt.Println(r.Validate()) // 2026-07-28 results also carry resultType
	// Output:
	// text: hello
	// image: image/png
	// content[1].annotations.priority: must be <= 1
	// <nil>
	// resultType: required
}
