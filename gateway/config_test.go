package gateway

import (
	"strings"
	"testing"
)

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n        comand: [a]\n", "line 6: field comand not found"},
		{"no servers", "listen: a:1\n", "at least one virtual server"},
		{"command and url", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n        command: [a]\n        url: http://h/mcp\n", "cfg.yaml:5: servers.default.upstreams[0] (x): give exactly one of command and url"},
		{"neither", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n", "give exactly one of command and url"},
		{"duplicate upstream", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n        command: [a]\n      - name: x\n        command: [b]\n", "cfg.yaml:7: servers.default.upstreams[1]: name \"x\" is also upstream 0"},
		{"one name, two servers", "listen: a:1\nservers:\n  a:\n    upstreams:\n      - name: x\n        command: [a]\n  b:\n    upstreams:\n      - name: x\n        command: [b]\n", "cfg.yaml:9: servers.b.upstreams[0]: upstream \"x\" of virtual server a reaches another server"},
		{"bad regex", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n        command: [a]\n        includeRegex: ['(']\n", "includeRegex"},
		{"bad glob", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n        command: [a]\n        exclude: ['[']\n", "glob \"[\""},
		{"header without source", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n        url: http://h/mcp\n        headers:\n          Authorization: {}\n", "header Authorization: give exactly one of env and file"},
		{"bad name", "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: 'a b'\n        command: [a]\n", "name \"a b\""},
		{"not yaml", "listen: [\n", "cfg.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("cfg.yaml", []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestOneUpstreamInTwoServers: one upstream may serve several virtual
// servers, each with its own filters and prefix.
func TestOneUpstreamInTwoServers(t *testing.T) {
	yaml := "listen: a:1\nservers:\n  a:\n    upstreams:\n      - name: x\n        command: [a, -v]\n        env: {K: v}\n        include: [read_*]\n  b:\n    upstreams:\n      - name: x\n        command: [a, -v]\n        env: {K: v}\n        prefix: \"\"\n"
	if _, err := ParseConfig("cfg.yaml", []byte(yaml)); err != nil {
		t.Fatal(err)
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("cfg.yaml", []byte(`
listen: 127.0.0.1:8080
lock: gateway.lock
servers:
  default:
    upstreams:
      - name: ev
        command: ["./everything", "-stdio"]
        prefix: ""
      - name: gh
        url: http://127.0.0.1:3000/mcp
        headers:
          Authorization: {env: GH_TOKEN}
        include: ["issue_*"]
        excludeRegex: ["_write$"]
`))
	if err != nil {
		t.Fatal(err)
	}
	ups := c.Servers["default"].Upstreams
	if c.Lock != "gateway.lock" || ups[0].PrefixOf() != "" || ups[1].PrefixOf() != "gh__" {
		t.Fatalf("lock %q, prefixes %q %q", c.Lock, ups[0].PrefixOf(), ups[1].PrefixOf())
	}
	for name, want := range map[string]bool{"issue_read": true, "issue_write": false, "pr_read": false} {
		if got := ups[1].Keeps(name); got != want {
			t.Errorf("Keeps(%q) = %v, want %v", name, got, want)
		}
	}
	if !ups[0].Keeps("anything") {
		t.Error("no filters should keep every name")
	}
}

func TestLineLogBoundsLines(t *testing.T) {
	var lines []string
	l := &lineLog{log: newRecorder(&lines)}
	_, _ = l.Write([]byte("one\ntw"))
	_, _ = l.Write([]byte("o\n" + strings.Repeat("x", 3*maxStderrLine) + "\nthree\n"))
	if len(lines) != 4 || lines[0] != "one" || lines[1] != "two" || len(lines[2]) != maxStderrLine || lines[3] != "three" {
		t.Fatalf("lines %d: %.20q", len(lines), lines)
	}
}
