package nocontext

type In struct{}

//mcp:tool
func T(in In) (string, error) { return "", nil }
