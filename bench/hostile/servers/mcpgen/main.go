// Command mcpgen is the hostile-client harness's server on mcpgen's
// runtime; see package
// github.com/mcpgen/mcpgen/bench/hostile/servers/mcpgen/tools.
package main

import "github.com/mcpgen/mcpgen/bench/hostile/servers/mcpgen/tools"

func main() { tools.Main() }
