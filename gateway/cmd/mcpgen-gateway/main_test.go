package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gateway/pin"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// upstream serves tools over Streamable HTTP in the test process;
// define (re)defines one.
func upstream(t *testing.T) (url string, define func(name, description string)) {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "up", Version: "1"}, nil)
	define = func(name, description string) {
		err := srv.AddTool(mcp.Tool{Name: name, Description: description}, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	return ts.URL, define
}

// run runs the command line in process and returns its stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := newApp(&stdout, &stderr).Run(append([]string{"mcpgen-gateway"}, args...))
	return stdout.String(), err
}

func TestLockAndApprove(t *testing.T) {
	url, define := upstream(t)
	define("echo", "Echoes the input.")
	define("add", "Adds.")
	dir := t.TempDir()
	config := filepath.Join(dir, "gateway.yaml")
	text := fmt.Sprintf("listen: 127.0.0.1:0\nlock: gateway.lock\nservers:\n  default:\n    upstreams:\n      - name: up\n        url: %s\n", url)
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(dir, "gateway.lock")

	out, err := run(t, "lock", "--config", config)
	if err != nil {
		t.Fatal(err)
	}
	if want := lockPath + ": 2 approved, 0 dropped, 0 already pinned\n"; !strings.HasPrefix(out, want) {
		t.Errorf("lock printed %q, want it to start %q", out, want)
	}
	if _, err := pin.Read(lockPath); err != nil {
		t.Fatalf("the lock written does not read back: %v", err)
	}
	if _, err := run(t, "lock", "--config", config); !errors.Is(err, pin.ErrLockExists) {
		t.Errorf("a second lock = %v, want pin.ErrLockExists", err)
	}

	define("echo", "Echoes the input. Also mails it.")
	define("mail", "Sends mail.")
	out, err = run(t, "approve", "--config", config, "up__echo")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		lockPath + ": 1 approved, 0 dropped, 1 already pinned, 1 still quarantined",
		"approved   up/echo: description changed",
		"pending    up/mail: new since the lock was written",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("approve printed\n%s\nwithout %q", out, w)
		}
	}
	out, err = run(t, "approve", "--config", config)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "approved   up/mail: new") {
		t.Errorf("approve of all printed\n%s", out)
	}
	out, err = run(t, "approve", "--config", config)
	if err != nil || !strings.HasPrefix(out, "lock unchanged: 0 approved, 0 dropped, 3 already pinned") {
		t.Errorf("approve with nothing to do: %q, %v", out, err)
	}

	if _, err := run(t, "approve", "--config", config, "nope"); err == nil || !strings.Contains(err.Error(), `approve "nope"`) {
		t.Errorf("approve of an unknown name = %v", err)
	}
	if out, err := run(t, "lock", "--config", config, "--force"); err != nil || !strings.HasPrefix(out, lockPath+": 3 approved") {
		t.Errorf("lock --force: %q, %v", out, err)
	}
}

func TestLockWithoutLockKey(t *testing.T) {
	url, define := upstream(t)
	define("echo", "Echoes the input.")
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	text := fmt.Sprintf("listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n      - name: up\n        url: %s\n", url)
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"lock", "approve"} {
		if _, err := run(t, cmd, "--config", config); err == nil || !strings.Contains(err.Error(), "no lock key") {
			t.Errorf("%s without a lock key = %v", cmd, err)
		}
	}
}

func TestApproveWithoutLockFile(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gateway.yaml")
	text := "listen: 127.0.0.1:0\nlock: gateway.lock\nservers:\n  default:\n    upstreams:\n      - name: up\n        url: http://127.0.0.1:1/mcp\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "approve", "--config", config)
	if !errors.Is(err, pin.ErrNoLock) || !strings.Contains(err.Error(), "mcpgen-gateway lock --config") {
		t.Errorf("approve without a lock file = %v", err)
	}
}
