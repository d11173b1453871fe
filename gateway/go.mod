module github.com/mcpgen/mcpgen/gateway

go 1.26.0

// The gateway builds against the core module of this repository, never a
// published version of it.
replace github.com/mcpgen/mcpgen => ../

require (
	github.com/mcpgen/mcpgen v0.0.0
	github.com/urfave/cli/v2 v2.27.7
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)
