module github.com/mcpgen/mcpgen

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/mod v0.33.0
	golang.org/x/oauth2 v0.38.0
	golang.org/x/time v0.16.0
	golang.org/x/tools v0.42.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/sync v0.19.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
