package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/hint"
)

// TestCheckRegisterCalls runs checkRegisterCalls over small packages: the
// handler file they would get, and the calls of Register functions in
// their own files.
func TestCheckRegisterCalls(t *testing.T) {
	const (
		service   = "package demo\n\n// Service serves the tools.\ntype Service struct{}\n"
		funcs     = "package demo\n\nimport \"github.com/mcpgen/mcpgen/runtime/server\"\n\nfunc Register(s *server.Server) error { return nil }\n"
		methods   = "package demo\n\nimport \"github.com/mcpgen/mcpgen/runtime/server\"\n\nfunc RegisterService(s *server.Server, r *Service) error { return nil }\n"
		both      = "package demo\n\nimport \"github.com/mcpgen/mcpgen/runtime/server\"\n\nfunc Register(s *server.Server) error { return nil }\n\nfunc RegisterService(s *server.Server, r *Service) error { return nil }\n"
		callsFunc = "package demo\n\nimport \"github.com/mcpgen/mcpgen/runtime/server\"\n\nfunc setup(s *server.Server) error {\n\treturn Register(s)\n}\n"
		callsRecv = "package demo\n\nimport \"github.com/mcpgen/mcpgen/runtime/server\"\n\nfunc setup(s *server.Server) error {\n\treturn RegisterService(s, &Service{})\n}\n"
	)
	for _, tc := range []struct {
		name        string
		files       map[string]string
		src         string // "" for no handler file
		cause, hint string // "" for no error
	}{
		{name: "functions, Register called", files: map[string]string{"main.go": callsFunc, "s.go": service}, src: funcs},
		{name: "methods, Register<Recv> called", files: map[string]string{"main.go": callsRecv, "s.go": service}, src: methods},
		{name: "both kinds, both called", files: map[string]string{"main.go": callsFunc, "x.go": strings.Replace(callsRecv, "setup", "setup2", 1), "s.go": service}, src: both},
		{
			name: "methods, Register called", files: map[string]string{"main.go": callsFunc, "s.go": service}, src: methods,
			cause: "main.go:6: Register is called here, but mcpgen_gen.go declares RegisterService(s *server.Server, r *Service) error: every handler is a method, registered with a value of its receiver type",
			hint:  "call RegisterService(s, r) (r: the *Service whose methods serve the requests) in place of Register, then run go generate again",
		},
		{
			name: "functions, Register<Recv> called", files: map[string]string{"main.go": callsRecv, "s.go": service}, src: funcs,
			cause: "main.go:6: RegisterService is called here, but mcpgen_gen.go declares Register(s *server.Server) error",
			hint:  "call Register(s) in place of RegisterService, then run go generate again",
		},
		{
			name: "a test calls it", files: map[string]string{"main.go": "package demo\n", "s.go": service, "main_test.go": callsFunc}, src: methods,
			cause: "main_test.go:6: Register is called here",
		},
		{
			name: "no directives", files: map[string]string{"main.go": callsFunc}, src: "",
			cause: "main.go:6: Register is called here, but package demo has no //mcp: directives",
			hint:  "or stop calling Register",
		},
		{
			name:  "a local Register is not the generated one",
			files: map[string]string{"main.go": "package demo\n\nfunc setup() error {\n\tRegister := func() error { return nil }\n\treturn Register()\n}\n", "s.go": service}, src: methods,
		},
		{
			name:  "a Register of the package's own",
			files: map[string]string{"main.go": callsFunc, "own.go": strings.Replace(funcs, "package demo", "package demo\n\n// Register is written by hand.", 1), "s.go": service}, src: methods,
		},
		{name: "another package's Register", files: map[string]string{"main.go": "package demo\n\nimport \"example.com/tools\"\n\nvar _ = tools.Register\n", "s.go": service}, src: methods},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, src := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var src []byte
			if tc.src != "" {
				src = []byte(tc.src)
			}
			err := checkRegisterCalls(dir, src)
			switch {
			case tc.cause == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.cause == "":
				return
			case err == nil:
				t.Fatalf("no error, want %q", tc.cause)
			}
			if !strings.HasPrefix(err.Error(), tc.cause) {
				t.Errorf("error %q, want it to start with %q", err, tc.cause)
			}
			if h := hint.Of(err); !strings.Contains(h, tc.hint) || h == "" {
				t.Errorf("hint %q, want %q", h, tc.hint)
			}
		})
	}
}
