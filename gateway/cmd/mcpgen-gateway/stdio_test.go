package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// asCommand, set in the environment, makes the test binary run main with
// its arguments, as mcpgen-gateway would.
const asCommand = "MCPGEN_GATEWAY_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		main()
		os.Exit(0)
	}
	// A race-built child would sleep a second on exit.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

// TestServeStdio starts the command as a client that runs its servers as
// processes would, and uses the virtual server it names over stdin and
// stdout in both eras; the process ends when the client closes stdin.
func TestServeStdio(t *testing.T) {
	url, define := upstream(t)
	define("echo", "Echoes the input.")
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	// No listen: serving over stdio opens no HTTP listener. The auth
	// section is not in force there, and the log says so.
	text := fmt.Sprintf("auth:\n  keys:\n    - {subject: ci, key: {env: GATEWAY_TEST_KEY}}\nservers:\n  default:\n    upstreams:\n      - name: other\n        url: %s\n  tools:\n    upstreams:\n      - name: up\n        url: %s\n", url, url)
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, era := range map[string]mcp.Era{"legacy": mcp.EraLegacy, "2026-07-28": mcp.EraModern} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(exe, "serve", "--config", config, "--stdio", "--server", "tools")
			cmd.Env = append(os.Environ(), asCommand+"=1", "GATEWAY_TEST_KEY=a-key-long-enough-for-the-minimum-length")
			var stderr testutil.SyncBuffer
			p, err := client.CommandTransport(cmd, &client.CommandOptions{Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Era: era}).Connect(context.Background(), p)
			if err != nil {
				_ = p.Close()
				t.Fatalf("connect: %v; stderr:\n%s", err, stderr.String())
			}
			var names []string
			for tool, err := range s.AllTools(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if !slices.Equal(names, []string{"up__echo"}) {
				t.Errorf("tools of the virtual server tools: %q", names)
			}
			if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "up__echo"}); err != nil {
				t.Errorf("call: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := p.Wait(); err != nil {
				t.Errorf("the gateway exited with %v; stderr:\n%s", err, stderr.String())
			}
			for _, w := range []string{"serving over stdio", "the auth section does not apply"} {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr without %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

func TestServeRefusals(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	text := "servers:\n  default:\n    upstreams:\n      - name: up\n        url: http://127.0.0.1:1/mcp\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "listen: missing (host:port); or serve one client over stdio with --stdio"},
		{[]string{"--server", "default"}, "give --stdio too"},
		{[]string{"--stdio", "--server", "nope"}, `has no virtual server "nope"`},
	} {
		_, err := run(t, append([]string{"serve", "--config", config}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("serve %q = %v, want it to say %q", tt.args, err, tt.want)
		}
	}
}
