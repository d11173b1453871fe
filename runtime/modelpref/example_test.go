package modelpref_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/modelpref"
)

// A host reads the preferences of a sampling/createMessage request and
// picks one of the models it runs. The request is the specification's
// example; the first host runs no "claude-3-sonnet" but a newer Sonnet of
// the same family, and the second runs no Claude at all, so the
// priorities decide.
func ExampleChoose() {
	var params mcp.CreateMessageRequestParams
	err := json.Unmarshal([]byte(`{
		"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
		"modelPreferences": {
			"hints": [{"name": "claude-3-sonnet"}, {"name": "claude"}],
			"costPriority": 0.3,
			"speedPriority": 0.8,
			"intelligencePriority": 0.5
		},
		"maxTokens": 100
	}`), &params)
	if err != nil {
		fmt.Println(err)
		return
	}

	claudeHost := []modelpref.Model{
		{Name: "claude-haiku-4-5", Family: "claude-haiku", Cost: 0.8, Speed: 0.9, Intelligence: 0.5},
		{Name: "claude-sonnet-4-5", Family: "claude-sonnet", Cost: 0.5, Speed: 0.6, Intelligence: 0.8},
	}
	geminiHost := []modelpref.Model{
		{Name: "gemini-1.5-pro", Family: "gemini-pro", Cost: 0.4, Speed: 0.5, Intelligence: 0.8},
		{Name: "gemini-1.5-flash", Family: "gemini-flash", Cost: 0.9, Speed: 1, Intelligence: 0.4},
	}
	for _, catalogue := range [][]modelpref.Model{claudeHost, geminiHost} {
		if m, ok := modelpref.Choose(params.ModelPreferences, catalogue); ok {
			fmt.Println(m.Name)
		}
	}
	// Output:
	// claude-sonnet-4-5
	// gemini-1.5-flash
}
