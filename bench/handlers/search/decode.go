package search

// Check and Decode expose, for the benchmarks, what the generated code does
// with a tools/call's arguments: the runtime calls the input validator
// (Check), then the registered handler decodes them into Input (Decode).
var (
	Check  = mcpgenCheckInputSearch
	Decode = mcpgenDecodeInputSearch
)
