module github.com/mcpgen/mcpgen/examples

go 1.26.0

// The examples build against the core module of this repository, never a
// published version of it.
replace github.com/mcpgen/mcpgen => ../

// So is the Redis stores' module, which -redis of examples/everything uses.
replace github.com/mcpgen/mcpgen/store/redis => ../store/redis

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/mcpgen/mcpgen v0.0.0
	github.com/mcpgen/mcpgen/store/redis v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/urfave/cli/v2 v2.27.7 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/mod v0.33.0 // indirect
	golang.org/x/oauth2 v0.38.0 // indirect
	golang.org/x/sync v0.19.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	golang.org/x/tools v0.42.0 // indirect
)

// go generate in examples/everything runs the generator of this repository.
tool github.com/mcpgen/mcpgen/cmd/mcpgen
