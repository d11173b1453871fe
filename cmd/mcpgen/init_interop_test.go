//go:build interop

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInitEndToEnd is the new user's first five minutes, offline: mcpgen
// init with --replace to this checkout, go generate, go build and go test
// in the new project, then the TypeScript SDK's Client lists the server's
// tools and calls the example tool over stdio and over Streamable HTTP.
//
//	go test -tags interop ./cmd/mcpgen -run TestInitEndToEnd
func TestInitEndToEnd(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (%v): this test needs Node.js 20 or later", err)
	}
	interop, err := filepath.Abs(filepath.Join("..", "..", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed (%v): run `npm ci` in interop/", err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	// With the proxy off the checksum database is out of reach too; the
	// modules in the cache were checked against it when downloaded.
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOTOOLCHAIN", "local")

	dir := filepath.Join(t.TempDir(), "demo")
	if code, stdout, stderr := runCLI(t, "init", "--replace", checkoutRoot(t), dir); code != 0 {
		t.Fatalf("mcpgen init: exit %d\n%s%s", code, stdout, stderr)
	}
	// go generate must leave the committed mcpgen_gen.go as init wrote it.
	before, err := os.ReadFile(filepath.Join(dir, "mcpgen_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "demo")
	for _, args := range [][]string{{"generate", "./..."}, {"build", "-o", bin, "."}, {"vet", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "mcpgen_gen.go")); !bytes.Equal(before, after) {
		t.Error("go generate changed the mcpgen_gen.go that init wrote")
	}

	script := filepath.Join(interop, "init-client.mjs")
	t.Run("stdio", func(t *testing.T) {
		checkClient(t, runNode(t, node, interop, script, "stdio", bin))
	})
	t.Run("http", func(t *testing.T) {
		addr := freeAddr(t)
		// A port alone binds the loopback address, which the log names.
		_, port, _ := net.SplitHostPort(addr)
		ctx, cancel := context.WithCancel(context.Background())
		srv := exec.CommandContext(ctx, bin, "-http", ":"+port)
		var stderr bytes.Buffer
		srv.Stderr = &stderr
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cancel()
			srv.Wait()
			if log := stderr.String(); !strings.Contains(log, "addr="+addr) || !strings.Contains(log, "this machine only") {
				t.Errorf("the log does not name the address bound, %s, as loopback only", addr)
			}
			if t.Failed() {
				t.Logf("server stderr:\n%s", stderr.String())
			}
		}()
		waitListening(t, addr)
		checkClient(t, runNode(t, node, interop, script, "http", "http://"+addr+"/mcp"))
	})
}

func runNode(t *testing.T, node, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// checkClient checks what init-client.mjs saw.
func checkClient(t *testing.T, out []byte) {
	t.Helper()
	var got struct {
		ServerInfo struct{ Name string }
		Tools      []struct {
			Name         string
			OutputSchema map[string]any
			Annotations  map[string]any
		}
		Prompts []string
		Greet   struct {
			StructuredContent struct {
				Greeting string
				Length   int
			}
			IsError bool
		}
		GreetInvalid struct{ IsError bool }
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.ServerInfo.Name != "demo" {
		t.Errorf("serverInfo.name = %q, want demo", got.ServerInfo.Name)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "greet" || got.Tools[0].OutputSchema == nil || got.Tools[0].Annotations["readOnlyHint"] != true {
		t.Errorf("tools = %+v, want greet with an output schema, read-only", got.Tools)
	}
	if !slices.Equal(got.Prompts, []string{"poem"}) {
		t.Errorf("prompts = %v, want [poem]", got.Prompts)
	}
	if got.Greet.IsError || got.Greet.StructuredContent.Greeting != "Hello, Ada!!" || got.Greet.StructuredContent.Length != 12 {
		t.Errorf("greet = %+v", got.Greet)
	}
	if !got.GreetInvalid.IsError {
		t.Error("greet with an empty name: no isError result")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never listened on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
