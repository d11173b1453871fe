package server

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// validatorPkg is the JSON Schema validator that raw schemas are compiled
// with. Its package initialization takes milliseconds, paid at every start
// of every process that links it.
const validatorPkg = "github.com/santhosh-tekuri/jsonschema/v6"

// deps returns the packages that linking pkgs links.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	return strings.Fields(string(out))
}

// TestGeneratedServerLinksNoValidator checks that a server whose tools
// come with generated validators does not link the schema validator: the
// packages that such a server and its generated code import must not
// reach it, since package initialization runs whenever a package is
// linked, used or not. Only runtime/rawschema may bring it in.
func TestGeneratedServerLinksNoValidator(t *testing.T) {
	const mcpgen = "github.com/mcpgen/mcpgen/"
	served := deps(t, mcpgen+"runtime/server", mcpgen+"runtime/handler", mcpgen+"runtime/streamable",
		mcpgen+"runtime/transport", mcpgen+"runtime/jsonrpc", mcpgen+"generated/mcp")
	if slices.Contains(served, validatorPkg) {
		t.Errorf("the packages of a generated server link %s; keep it behind runtime/rawschema", validatorPkg)
	}
	if !slices.Contains(deps(t, mcpgen+"runtime/rawschema"), validatorPkg) {
		t.Errorf("runtime/rawschema does not link %s: this test no longer watches the validator raw schemas are compiled with", validatorPkg)
	}
}
