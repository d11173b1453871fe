package gen_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// TestFormSchemas checks every form of golden/handlers/forms against the
// definition of requestedSchema in each schema version that has one:
// elicitation's restricted schema, which clients may refuse a form for
// breaking. It also reads them into the protocol type, as the runtime
// does.
func TestFormSchemas(t *testing.T) {
	h, err := gosrc.Parse(filepath.Join(repoRoot(t), "golden", "handlers", "forms"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Forms) < 2 {
		t.Fatalf("golden/handlers/forms has %d forms, want the two it declares", len(h.Forms))
	}
	for _, v := range []mcp.ProtocolVersion{mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		path := sharedtest.SchemaPath(t, string(v))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustInstance(t, data)
		c := jsonschema.NewCompiler()
		url := "mem://" + string(v) + "/schema.json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		def, err := c.Compile(url + "#/$defs/ElicitRequestFormParams/properties/requestedSchema")
		if err != nil {
			def, err = c.Compile(url + "#/definitions/ElicitRequest/properties/params/properties/requestedSchema")
		}
		if err != nil {
			t.Fatalf("%s: no requestedSchema: %v", v, err)
		}
		for _, f := range h.Forms {
			schema := gen.FormSchema(f)
			if err := def.Validate(mustInstance(t, []byte(schema))); err != nil {
				t.Errorf("%s: form %s: %v\n%s", v, f.GoName, err, schema)
			}
			var rs mcp.ElicitRequestFormParamsRequestedSchema
			if err := rs.UnmarshalJSON([]byte(schema)); err != nil {
				t.Errorf("form %s: %v", f.GoName, err)
			} else if err := rs.ValidateVersion(v); err != nil {
				t.Errorf("%s: form %s: %v", v, f.GoName, err)
			}
		}
	}
}

// formKey is the key of a form's samples in samples.json: "form:" and the
// form's Go name. Its samples are answers with no members the form does
// not ask for, since the runtime drops those before decoding.
func formKey(goName string) string { return "form:" + goName }
