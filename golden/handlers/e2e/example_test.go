package e2e_test

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/golden/handlers/e2e"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The generated Register adds a package's annotated handlers to a server,
// with their generated schemas, decoders and validators: arguments that
// break the schema (here b, at most 100) never reach the handler, and come
// back as an isError result that names the field.
func ExampleRegister() {
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	if err := e2e.Register(s); err != nil { // written by go generate into mcpgen_gen.go
		panic(err)
	}
	if err := e2e.RegisterGreeter(s, &e2e.Greeter{Greeting: "Hello"}); err != nil { // handlers that are methods
		panic(err)
	}

	serverEnd, clientEnd := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, serverEnd) }() // s.ServeStdio(ctx) in a real server
	defer func() { cancel(); <-done }()
	sess, err := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil).Connect(context.Background(), clientEnd)
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	for _, call := range []struct{ name, args string }{
		{"add", `{"a":1,"b":2}`},
		{"add", `{"a":1,"b":200}`},
		{"greet", `{"name":"Ada"}`},
	} {
		r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: call.name, Arguments: []byte(call.args)})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s isError=%v %s\n", call.name, r.IsError, r.Content[0].Value.(*mcp.TextContent).Text)
	}
	// Output:
	// add isError=false {"sum":3,"words":[]}
	// add isError=true invalid arguments for tool add: b: must be <= 100
	// greet isError=false Hello, Ada
}
