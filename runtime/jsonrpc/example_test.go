package jsonrpc_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Walking a document with the Scanner, as generated decoders do: one
// method call per value, no reflection, and members the caller does not
// know skipped whole.
func ExampleScanner() {
	var s jsonrpc.Scanner
	s.Reset([]byte(`{"name":"add","arguments":{"a":1,"b":2},"tags":["math","fast"]}`))
	if err := s.ObjectStart(); err != nil {
		panic(err)
	}
	for {
		key, ok, err := s.NextKey()
		if err != nil {
			panic(err)
		}
		if !ok {
			break
		}
		switch string(key) {
		case "name":
			name, err := s.String()
			if err != nil {
				panic(err)
			}
			fmt.Println("name:", name)
		case "tags":
			if err := s.ArrayStart(); err != nil {
				panic(err)
			}
			for {
				more, err := s.NextElem()
				if err != nil {
					panic(err)
				}
				if !more {
					break
				}
				tag, err := s.String()
				if err != nil {
					panic(err)
				}
				fmt.Println("tag:", tag)
			}
		default:
			fmt.Println("skip:", string(key), s.Peek())
			if err := s.Skip(); err != nil {
				panic(err)
			}
		}
	}
	fmt.Println("valid:", s.End() == nil)
	// Output:
	// name: add
	// skip: arguments object
	// tag: math
	// tag: fast
	// valid: true
}
