package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

var update = flag.Bool("update", false, "rewrite golden/diff")

// runCLI runs the command line and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"mcpgen"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestDiffGolden compares mcpgen diff, as text and as JSON, with
// golden/diff.
func TestDiffGolden(t *testing.T) {
	schemaDir := filepath.Join(sharedtest.Dir(t), "schema")
	for _, pair := range [][2]string{{"2025-06-18", "2025-11-25"}, {"2025-11-25", "2026-07-28"}} {
		for _, format := range []string{"txt", "json"} {
			name := pair[0] + "_" + pair[1] + "." + format
			t.Run(name, func(t *testing.T) {
				args := []string{"diff", "--schema-dir", schemaDir, pair[0], pair[1]}
				if format == "json" {
					args = append(args, "--json")
				}
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 || stderr != "" {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				golden := filepath.Join("..", "..", "golden", "diff", name+".golden")
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if stdout != string(want) {
					t.Errorf("mcpgen %s differs from %s (go test -update refreshes it):\n%s", strings.Join(args, " "), golden, stdout)
				}
			})
		}
	}
}

// TestDiffModernEra checks what the issue asks the 2025-11-25 → 2026-07-28
// diff to list.
func TestDiffModernEra(t *testing.T) {
	schemaDir := filepath.Join(sharedtest.Dir(t), "schema")
	code, stdout, stderr := runCLI(t, "diff", "--json", "--schema-dir", schemaDir, "2025-11-25", "2026-07-28")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Changes []struct{ Section, Op, Name string }
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range r.Changes {
		seen[c.Section+" "+c.Op+" "+c.Name] = true
	}
	for _, want := range []string{
		"method removed initialize", "method removed ping",
		"method added server/discover", "method added subscriptions/listen",
	} {
		if !seen[want] {
			t.Errorf("no %q among %d changes", want, len(r.Changes))
		}
	}
}

func TestDiffFiles(t *testing.T) {
	file := sharedtest.SchemaPath(t, "2025-11-25")
	code, stdout, stderr := runCLI(t, "diff", file, file)
	if code != 0 || !strings.Contains(stdout, ": 0 changes") {
		t.Errorf("a schema against itself: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestUserErrorPaths runs each mistake a user can make through the command
// line: exit code 1, or 2 for a command line mcpgen cannot read, a one-line
// cause on stderr, a hint below it, nothing on stdout.
func TestUserErrorPaths(t *testing.T) {
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(tmp, "2026-01-01", "schema.json")
	if err := os.MkdirAll(filepath.Dir(malformed), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(malformed, []byte(`{"$defs": `), 0o644); err != nil {
		t.Fatal(err)
	}
	good := sharedtest.SchemaPath(t, "2025-11-25")

	srv := schemaServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	for _, tc := range []struct {
		name       string
		args       []string
		cause, hnt string
		code       int
	}{
		{"init: bad NAME", []string{"init", filepath.Join(tmp, "no way")}, "is not a valid name", "starts with a letter", exitInput},
		{"init: bad NAME (leading digit)", []string{"init", "9lives"}, `"9lives" is not a valid name`, "starts with a letter", exitInput},
		{"init: bad module", []string{"init", "--module", "a//b", filepath.Join(tmp, "m")}, "module path", "slash-separated", exitInput},
		{"init: bad transport", []string{"init", "--transport", "pigeon", filepath.Join(tmp, "m")}, `unknown transport "pigeon"`, "stdio, http, both", exitInput},
		{"init: non-empty dir", []string{"init", "--replace", checkoutRoot(t), full}, "is not empty", "--force", exitInput},
		{"init: no NAME", []string{"init"}, "init takes one NAME", "mcpgen init NAME", exitUsage},
		{"init: two NAMEs", []string{"init", "a", "b"}, "init takes one NAME, got 2", "mcpgen init NAME", exitUsage},
		{"init: unknown flag", []string{"init", "--frce", filepath.Join(tmp, "m")}, "mcpgen init has no flag --frce", "mcpgen init --help", exitUsage},
		{"unknown global flag", []string{"--nope"}, "mcpgen has no flag --nope", "mcpgen --help", exitUsage},
		{"unknown command", []string{"bogus"}, `"bogus" is not a package or a command`, "run mcpgen in a package folder (go generate does), or mcpgen init NAME, mcpgen protocol", exitUsage},
		{"misspelt command", []string{"inti", "x"}, `"inti" is not a package or a command`, "did you mean mcpgen init?", exitUsage},
		{"no such folder", []string{filepath.Join(tmp, "nowhere")}, "nowhere\" is not a package or a command", "see mcpgen help", exitUsage},
		{"package pattern", []string{"./..."}, "./... is a package pattern", "go generate ./...", exitUsage},
		{"a file, not a folder", []string{filepath.Join(full, "x")}, "is a file: mcpgen takes the folder of a package", "mcpgen " + full, exitUsage},
		{"folder without Go", []string{full}, "no Go package in " + full, "or mcpgen init NAME to start one", exitInput},
		{"version: an argument", []string{"version", "x"}, "version takes no arguments", "mcpgen version", exitUsage},
		{"protocol: an argument", []string{"protocol", "x.json"}, "protocol takes no arguments", "--schema VERSION=FILE", exitUsage},
		{"init: replace not a checkout", []string{"init", "--replace", tmp, filepath.Join(tmp, "r")}, "no go.mod declaring github.com/mcpgen/mcpgen", "root of an mcpgen checkout", exitInput},
		{"diff: unknown version", []string{"diff", "--schema-dir", filepath.Dir(filepath.Dir(good)), "2025-11-25", "2099-01-01"}, "unknown version 2099-01-01", "mcpgen fetch-schema 2099-01-01", exitInput},
		{"diff: not a file or version", []string{"diff", good, "nonsense"}, "nonsense: no such file, and not a version name", "a schema.json file or a version", exitInput},
		{"diff: malformed schema", []string{"diff", good, malformed}, malformed, "", exitInput},
		{"diff: one argument", []string{"diff", good}, "diff takes two schemas", "mcpgen diff OLD NEW", exitUsage},
		{"fetch: no version", []string{"fetch-schema"}, "fetch-schema takes one VERSION", "mcpgen fetch-schema VERSION", exitUsage},
		{"fetch: unknown version", []string{"fetch-schema", "--dir", tmp, "--base-url", srv.URL, "2099-01-01"}, "404 Not Found", "published versions include", exitInput},
		{"fetch: bad version", []string{"fetch-schema", "--dir", tmp, "--base-url", srv.URL, "../etc"}, `"../etc" is not a schema version`, "2025-11-25", exitInput},
		{"fetch: unreachable URL", []string{"fetch-schema", "--dir", tmp, "--base-url", closed.URL, "2025-11-25"}, "cannot reach " + closed.URL, "--base-url", exitInput},
		{"fetch: malformed schema", []string{"fetch-schema", "--dir", tmp, "--base-url", srv.URL, "2000-01-01"}, "downloaded schema is not valid", "nothing was written", exitInput},
		{"fetch: server error", []string{"fetch-schema", "--dir", tmp, "--base-url", srv.URL, "2000-02-02"}, "500 Internal Server Error", "try again later", exitInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if want := tc.code; code != want {
				t.Errorf("exit code %d, want %d", code, want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q", stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "mcpgen: ") || !strings.Contains(lines[0], tc.cause) {
				t.Errorf("cause %q does not contain %q", lines[0], tc.cause)
			}
			switch {
			case tc.hnt == "" && len(lines) != 1:
				t.Errorf("stderr is not one line:\n%s", stderr)
			case tc.hnt != "" && (len(lines) != 2 || !strings.HasPrefix(lines[1], "hint: ") || !strings.Contains(lines[1], tc.hnt)):
				t.Errorf("stderr has no hint containing %q:\n%s", tc.hnt, stderr)
			}
		})
	}
	for _, dir := range []string{"2099-01-01", "2000-01-01", "2000-02-02", "2025-11-25", "m", "r"} {
		if _, err := os.Stat(filepath.Join(tmp, dir)); err == nil && dir != "2026-01-01" {
			t.Errorf("%s was written by a failed command", dir)
		}
	}
}

// schemaServer serves the shared 2025-11-25 schema, a malformed one for
// 2000-01-01, a server error for 2000-02-02, and 404 for the rest.
func schemaServer(t *testing.T) *httptest.Server {
	t.Helper()
	good, err := os.ReadFile(sharedtest.SchemaPath(t, "2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/schema/2025-11-25/schema.json":
			w.Write(good)
		case "/schema/2000-01-01/schema.json":
			w.Write([]byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"A": {"type": 12}}}`))
		case "/schema/2000-02-02/schema.json":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	srv.URL += "/schema"
	return srv
}

func TestFetchSchema(t *testing.T) {
	srv := schemaServer(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "fetch-schema", "2025-11-25", "--dir", dir, "--base-url", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := filepath.Join(dir, "2025-11-25", "schema.json")
	if strings.TrimSpace(stdout) != want {
		t.Errorf("stdout = %q, want %s", stdout, want)
	}
	got, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(sharedtest.SchemaPath(t, "2025-11-25"))
	if !bytes.Equal(got, orig) {
		t.Error("the written schema differs from the served one")
	}
	entries, _ := os.ReadDir(filepath.Dir(want))
	if len(entries) != 1 {
		t.Errorf("left beside schema.json: %v", entries)
	}
	// A failed download keeps the file that is there.
	if code, _, _ := runCLI(t, "fetch-schema", "--dir", dir, "--base-url", srv.URL+"/../nowhere", "2025-11-25"); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if again, _ := os.ReadFile(want); !bytes.Equal(again, orig) {
		t.Error("a failed download changed the file")
	}
	// --quiet prints nothing.
	if code, stdout, _ := runCLI(t, "--quiet", "fetch-schema", "--dir", dir, "--base-url", srv.URL, "2025-11-25"); code != 0 || stdout != "" {
		t.Errorf("--quiet: exit %d, stdout %q", code, stdout)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "version")
	if code != 0 || stdout != "mcpgen (devel)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestHelpHasExamples checks that every command's help shows examples.
func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range []string{"protocol", "init", "diff", "fetch-schema", "version"} {
		code, stdout, _ := runCLI(t, cmd, "--help")
		if code != 0 || !strings.Contains(stdout, "Example") {
			t.Errorf("mcpgen %s --help: exit %d, no examples:\n%s", cmd, code, stdout)
		}
	}
	if code, stdout, stderr := runCLI(t, "init", "demo", "--help"); code != 0 || !strings.Contains(stdout, "mcpgen init [command options] NAME") {
		t.Errorf("mcpgen init demo --help: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	if code, stdout, _ := runCLI(t, "--help"); code != 0 || !strings.Contains(stdout, "Examples:") {
		t.Errorf("mcpgen --help: exit %d:\n%s", code, stdout)
	}
}

func TestFlagsFirst(t *testing.T) {
	app := newApp(nil, nil)
	for _, tc := range []struct{ in, want string }{
		{"mcpgen init demo --force", "mcpgen init --force -- demo"},
		{"mcpgen init demo --module example.com/x --transport=http", "mcpgen init --module example.com/x --transport=http -- demo"},
		{"mcpgen --verbose diff a b --json", "mcpgen --verbose diff --json -- a b"},
		{"mcpgen ./pkg", "mcpgen ./pkg"},
		{"mcpgen version", "mcpgen version"},
		// The global flags go ahead of the command, from either side of its argument.
		{"mcpgen init -q demo", "mcpgen -q init -- demo"},
		{"mcpgen init demo -q", "mcpgen -q init -- demo"},
		{"mcpgen init demo --verbose --force", "mcpgen --verbose init --force -- demo"},
		{"mcpgen ./pkg -q", "mcpgen -q ./pkg"},
		// A flag nobody defines stays where urfave/cli reports it.
		{"mcpgen init demo --nope", "mcpgen init --nope -- demo"},
		{"mcpgen init demo -- -q", "mcpgen init -- demo -- -q"},
		// --help after an argument asks for the command's help, not a topic.
		{"mcpgen init demo --help", "mcpgen init --help"},
		{"mcpgen -q diff a b -h", "mcpgen -q diff -h"},
	} {
		if got := strings.Join(flagsFirst(app, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestGlobalFlagsAfterCommand checks that --quiet and --verbose are read
// before and after a command's argument alike.
func TestGlobalFlagsAfterCommand(t *testing.T) {
	for _, args := range [][]string{
		{"init", "-q", "9lives"}, {"init", "9lives", "-q"}, {"init", "--verbose", "9lives"}, {"init", "9lives", "-v"},
	} {
		// A bad NAME is refused after the flags are read: the refusal says
		// they were accepted.
		code, _, stderr := runCLI(t, args...)
		if code != exitInput || !strings.Contains(stderr, `"9lives" is not a valid name`) {
			t.Errorf("mcpgen %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestInitFromCLI runs init with flags after NAME and checks the next steps
// on stdout.
func TestInitFromCLI(t *testing.T) {
	offlineGo(t)
	dir := filepath.Join(t.TempDir(), "demo")
	code, stdout, stderr := runCLI(t, "init", dir, "--module", "example.com/demo", "--transport", "stdio")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" || !strings.Contains(stdout, "cd "+dir) || !strings.Contains(stdout, "go run .") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// Run from a checkout, init replaces mcpgen with it by itself.
	if !strings.Contains(string(gomod), "module example.com/demo") || !strings.Contains(string(gomod), "=> "+checkoutRoot(t)) {
		t.Errorf("go.mod:\n%s", gomod)
	}

	// -q after NAME, where urfave/cli alone stops reading flags, quiets it.
	quiet := filepath.Join(t.TempDir(), "quiet")
	code, stdout, stderr = runCLI(t, "init", quiet, "-q", "--transport", "stdio")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("init NAME -q: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(quiet, "main.go")); err != nil {
		t.Errorf("init NAME -q wrote no project: %v", err)
	}
}

func checkoutRoot(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// offlineGo points the go command of a test at the module cache alone, as
// init needs to run without a network.
func offlineGo(t *testing.T) {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	// With the proxy off the checksum database is out of reach too; the
	// modules in the cache were checked against it when downloaded.
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOTOOLCHAIN", "local")
}

// goIn runs the go command in dir and fails t when it fails.
func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// edit replaces old with new in the file, which must hold old.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not hold %q", file, old)
	}
	if err := os.WriteFile(file, bytes.Replace(data, []byte(old), []byte(new), -1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInitToMethods follows a new user who turns the scaffolded tools into
// methods: go generate then writes RegisterService in place of the Register
// that main.go calls, so mcpgen refuses, names the call and what to call
// instead, and writes nothing; done as it says, the project builds. The
// built server, run with -http and a port alone, logs the address it bound.
func TestInitToMethods(t *testing.T) {
	offlineGo(t)
	dir := filepath.Join(t.TempDir(), "demo")
	if code, _, stderr := runCLI(t, "init", "-q", dir); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	tools := filepath.Join(dir, "tools.go")
	edit(t, tools, "func Greet(", "func (*Service) Greet(")
	edit(t, tools, "func Poem(", "func (*Service) Poem(")
	edit(t, tools, "// GreetInput is", "// Service serves the tools and prompts.\ntype Service struct{}\n\n// GreetInput is")
	gen := filepath.Join(dir, "mcpgen_gen.go")
	before, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runCLI(t, dir)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != exitInput || stdout != "" || len(lines) != 2 {
		t.Fatalf("mcpgen on methods: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"mcpgen: main.go:", ": Register is called here, but mcpgen_gen.go declares RegisterService(s *server.Server, r *Service) error", "every handler is a method"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("cause %q lacks %q", lines[0], want)
		}
	}
	if want := "hint: call RegisterService(s, r) (r: the *Service whose methods serve the requests) in place of Register, then run go generate again"; lines[1] != want {
		t.Errorf("hint %q, want %q", lines[1], want)
	}
	if after, _ := os.ReadFile(gen); !bytes.Equal(before, after) {
		t.Error("a refused generation changed mcpgen_gen.go")
	}

	edit(t, filepath.Join(dir, "main.go"), "Register(s)", "RegisterService(s, &Service{})")
	if code, _, stderr := runCLI(t, dir); code != 0 {
		t.Fatalf("mcpgen after the fix: exit %d: %s", code, stderr)
	}
	if src, _ := os.ReadFile(gen); !bytes.Contains(src, []byte("func RegisterService(s *server.Server, r *Service) error")) {
		t.Errorf("mcpgen_gen.go has no RegisterService:\n%s", src)
	}
	bin := filepath.Join(dir, "demo")
	goIn(t, dir, "build", "-o", bin, ".")
	goIn(t, dir, "vet", "./...")

	t.Run("http log", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv := exec.CommandContext(ctx, bin, "-http", ":0")
		logs, err := srv.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cancel()
			srv.Wait()
		}()
		line, err := bufio.NewReader(logs).ReadString('\n')
		if err != nil {
			t.Fatalf("no log line: %v", err)
		}
		m := regexp.MustCompile(`msg="serving Streamable HTTP" addr=127\.0\.0\.1:(\d+) url=http://127\.0\.0\.1:(\d+)/mcp reach="this machine only; -http 0\.0\.0\.0:(\d+) listens on every interface"`).FindStringSubmatch(line)
		if m == nil || m[1] == "0" || m[1] != m[2] || m[1] != m[3] {
			t.Fatalf("the log line does not name the address bound:\n%s", line)
		}
		conn, err := net.Dial("tcp", "127.0.0.1:"+m[1])
		if err != nil {
			t.Fatalf("nothing listens on the logged address: %v", err)
		}
		conn.Close()
	})
}
