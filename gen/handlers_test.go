package gen_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/model"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// handlerCases lists the folders of golden/handlers that hold a testdata
// package with an expected mcpgen_gen.go.golden: all but bad and the live
// packages (see isLive).
func handlerCases(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "golden", "handlers")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "bad" && !isLive(filepath.Join(dir, e.Name())) {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) == 0 {
		t.Fatal("no cases in golden/handlers")
	}
	return dir, cases
}

// isLive reports whether a folder of golden/handlers is a live package:
// one whose generated mcpgen_gen.go is committed beside its own tests.
func isLive(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, gen.HandlersFile))
	return err == nil
}

// sample is one input of samples.json with the verdicts it should get.
type sample struct {
	Pkg   string          `json:"pkg"` // the case's package: tool names repeat across cases
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args"`
	Valid bool            `json:"valid"` // the generated decoder's verdict
	// Schema is the JSON Schema's verdict: Valid, except for a null given
	// to an optional field, which the decoder reads as absent and the
	// schema, having no null, refuses.
	Schema bool `json:"-"`
}

// TestHandlers generates each golden/handlers/<case> package and compares
// the output with its mcpgen_gen.go.golden (-update rewrites them). Every
// generated schema must compile as JSON Schema; the sample inputs of each
// case must be judged the same by santhosh-tekuri/jsonschema on the
// generated schema and by the generated decoder, which runs in a go test
// of the case package with the generated file laid over it.
func TestHandlers(t *testing.T) {
	dir, cases := handlerCases(t)
	overlay := map[string]string{}
	var all []sample
	tmp := t.TempDir()
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			caseDir := filepath.Join(dir, c)
			h, err := gosrc.Parse(caseDir)
			if err != nil {
				t.Fatal(err)
			}
			src, err := gen.Handlers(h)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := gen.Handlers(h)
			if !bytes.Equal(src, again) {
				t.Error("two runs gave different bytes")
			}
			golden := filepath.Join(caseDir, gen.HandlersFile+".golden")
			if *update {
				if err := os.WriteFile(golden, src, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, err := os.ReadFile(golden); err != nil {
				t.Fatal(err)
			} else if !bytes.Equal(want, src) {
				t.Errorf("golden/handlers/%s is stale: run go test ./gen -run TestHandlers -update%s", c, firstDiff(want, src))
			}
			schemas := compileToolSchemas(t, h)
			for _, f := range h.Forms {
				schemas[formKey(f.GoName)] = compileSchema(t, "form-"+f.GoName, gen.FormSchema(f))
			}
			var samples []sample
			if len(h.Tools) > 0 || len(h.Forms) > 0 {
				samples = readSamples(t, caseDir, h)
			}
			for _, s := range samples {
				err := schemas[s.Tool].Validate(mustInstance(t, s.Args))
				if (err == nil) != s.Schema {
					t.Errorf("%s: sample %s: the schema should say valid=%v, but santhosh says %v", s.Tool, s.Args, s.Schema, err)
				}
			}
			all = append(all, samples...)
			gofile := filepath.Join(caseDir, gen.HandlersFile)
			harness := filepath.Join(tmp, c+"_harness.go")
			genCopy := filepath.Join(tmp, c+"_gen.go")
			if err := os.WriteFile(genCopy, src, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(harness, harnessSource(t, h), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay[gofile] = genCopy
			overlay[filepath.Join(caseDir, "mcpgen_samples_test.go")] = harness
		})
	}
	if t.Failed() {
		return
	}
	runHarness(t, dir, tmp, cases, overlay, all)
}

// compileToolSchemas compiles every tool's input and output schema and
// returns the input schemas by tool name.
func compileToolSchemas(t *testing.T, h *model.Handlers) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, tool := range h.Tools {
		in := gen.EmptyInputSchemaDraft(h.Draft)
		switch {
		case tool.InputSchema != nil:
			in = string(tool.InputSchema)
		case tool.Input != nil:
			in = gen.RootSchemaDraft(tool.Input, h.Draft)
		}
		out[tool.Name] = compileSchema(t, tool.Name+"/input", in)
		switch tool.Output.Kind {
		case model.OutputStructured:
			compileSchema(t, tool.Name+"/output", gen.RootSchemaDraft(tool.Output.Value, h.Draft))
		case model.OutputRaw:
			compileSchema(t, tool.Name+"/output", string(tool.Output.Schema))
		}
	}
	return out
}

func compileSchema(t *testing.T, name, schema string) *jsonschema.Schema {
	t.Helper()
	doc := mustInstance(t, []byte(schema))
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.AssertContent()
	url := "mem://" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: generated schema does not compile: %v\n%s", name, err, schema)
	}
	return s
}

func mustInstance(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

// readSamples reads samples.json: tool name → {"valid": [...], "invalid":
// [...], "nullAbsent": [...]}, the last optional: arguments with a null
// for an optional field, which the schema refuses and the decoder accepts.
func readSamples(t *testing.T, caseDir string, h *model.Handlers) []sample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(caseDir, "samples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var byTool map[string]struct{ Valid, Invalid, NullAbsent []json.RawMessage }
	if err := json.Unmarshal(data, &byTool); err != nil {
		t.Fatal(err)
	}
	var out []sample
	names := make([]string, 0, len(h.Tools)+len(h.Forms))
	for _, tool := range h.Tools {
		names = append(names, tool.Name)
	}
	for _, f := range h.Forms {
		names = append(names, formKey(f.GoName))
	}
	for _, name := range names {
		s, ok := byTool[name]
		if !ok || len(s.Valid) == 0 || len(s.Invalid) == 0 {
			t.Errorf("samples.json has no valid and invalid samples for %s", name)
			continue
		}
		for _, a := range s.Valid {
			out = append(out, sample{Pkg: h.Package, Tool: name, Args: a, Valid: true, Schema: true})
		}
		for _, a := range s.Invalid {
			out = append(out, sample{Pkg: h.Package, Tool: name, Args: a, Valid: false, Schema: false})
		}
		for _, a := range s.NullAbsent {
			out = append(out, sample{Pkg: h.Package, Tool: name, Args: a, Valid: true, Schema: false})
		}
	}
	return out
}

// harnessSource is a test, laid into a case package, that registers
// everything the package serves on a runtime server (so every definition,
// schema and URI template the file embeds is one the runtime accepts) and
// runs the generated input checkers over the samples, reporting each
// verdict that differs from the expected one. Tools with input-schema= have
// no generated checker: their samples are judged by the schema file alone.
func harnessSource(t *testing.T, h *model.Handlers) []byte {
	t.Helper()
	checkers, register, err := gen.HarnessNames(h)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"encoding/json\"\n\t\"os\"\n\t\"testing\"\n\n", h.Package)
	b.WriteString("\t\"github.com/mcpgen/mcpgen/generated/mcp\"\n\t\"github.com/mcpgen/mcpgen/runtime/server\"\n)\n\n")
	b.WriteString("func TestMcpgenRegister(t *testing.T) {\n\ts := server.New(mcp.Implementation{Name: \"harness\", Version: \"1\"}, nil)\n\t_ = s // a package of forms alone registers nothing\n")
	recvs := map[string]bool{}
	for _, tool := range h.Tools {
		recvs[tool.Recv] = true
	}
	for _, p := range h.Prompts {
		recvs[p.Recv] = true
	}
	for _, r := range h.Resources {
		recvs[r.Recv] = true
	}
	names := make([]string, 0, len(recvs))
	for r := range recvs {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		if r == "" {
			fmt.Fprintf(&b, "\tif err := %s(s); err != nil {\n\t\tt.Error(err)\n\t}\n", register[r])
		} else {
			fmt.Fprintf(&b, "\tif err := %s(s, &%s{}); err != nil {\n\t\tt.Error(err)\n\t}\n", register[r], r)
		}
	}
	b.WriteString("}\n\n")
	b.WriteString("func TestMcpgenSamples(t *testing.T) {\n\tchecks := map[string]func([]byte) error{\n")
	for _, tool := range h.Tools {
		if name, ok := checkers[tool.Name]; ok {
			fmt.Fprintf(&b, "\t\t%q: %s,\n", tool.Name, name)
		}
	}
	decoders, err := gen.FormDecoders(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range h.Forms {
		// A form's answer, as the runtime hands it to the decoder.
		fmt.Fprintf(&b, "\t\t%q: func(data []byte) error { var x %s; return %s(data, &x) },\n", formKey(f.GoName), f.GoName, decoders[f.GoName])
	}
	b.WriteString("\t}\n")
	b.WriteString(`	data, err := os.ReadFile(os.Getenv("MCPGEN_SAMPLES"))
	if err != nil {
		t.Fatal(err)
	}
	var samples []struct {
		Pkg   string
		Tool  string
		Args  json.RawMessage
		Valid bool
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range samples {
		check, ok := checks[s.Tool]
		if !ok || s.Pkg != ` + strconv.Quote(h.Package) + ` {
			continue
		}
		n++
		err := check(s.Args)
		if (err == nil) != s.Valid {
			t.Errorf("%s %s: generated checker says %v, want valid=%v", s.Tool, s.Args, err, s.Valid)
		}
	}
	if n == 0 && len(checks) > 0 {
		t.Error("no samples for this package")
	}
}
`)
	return []byte(b.String())
}

// runHarness runs the harness in every case package at once.
func runHarness(t *testing.T, dir, tmp string, cases []string, overlay map[string]string, samples []sample) {
	t.Helper()
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovFile := filepath.Join(tmp, "overlay.json")
	smFile := filepath.Join(tmp, "samples.json")
	sm, _ := json.Marshal(samples)
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(smFile, sm, 0o644); err != nil {
		t.Fatal(err)
	}
	sort.Strings(cases)
	args := []string{"test", "-count=1", "-run", "TestMcpgenSamples|TestMcpgenRegister", "-overlay", ovFile}
	for _, c := range cases {
		args = append(args, "./"+c)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPGEN_SAMPLES="+smFile)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("generated checkers disagree with JSON Schema (go %s):\n%s", strings.Join(args, " "), out)
	}
	if n := strings.Count(string(out), "ok  "); n != len(cases) {
		t.Fatalf("the harness ran in %d packages, want %d:\n%s", n, len(cases), out)
	}
}

// TestHandlersLive checks that the committed mcpgen_gen.go of each live
// package of golden/handlers (e2e, kinds, tracker) is what the generator
// writes today (-update rewrites them); each package's own test serves
// its generated code end to end.
func TestHandlersLive(t *testing.T) {
	root := filepath.Join(repoRoot(t), "golden", "handlers")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || !isLive(dir) {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			h, err := gosrc.Parse(dir)
			if err != nil {
				t.Fatal(err)
			}
			src, err := gen.Handlers(h)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, gen.HandlersFile)
			if *update {
				if _, err := gen.WriteHandlers(dir, src); err != nil {
					t.Fatal(err)
				}
				return
			}
			have, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(have, src) {
				t.Errorf("%s is stale: run go generate ./golden/handlers/%s or go test ./gen -run TestHandlersLive -update%s", path, e.Name(), firstDiff(have, src))
			}
		})
	}
	if n < 3 {
		t.Errorf("found %d live packages in golden/handlers, want e2e, kinds and tracker", n)
	}
}
