package gateway

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEConfig keeps the configuration the README shows valid: it is
// the first YAML block of the README's Gateway section.
func TestREADMEConfig(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Gateway\n")
	if !ok {
		t.Fatal("README has no Gateway section")
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("the Gateway section has no yaml block")
	}
	block, _, _ = strings.Cut(block, "```")
	for _, env := range []string{"ALICE_KEY", "GH_TOKEN", "TEAM"} {
		t.Setenv(env, "a-long-enough-test-secret")
	}
	cfg, err := ParseConfig("README.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers["default"].Upstreams) != 2 || cfg.Lock == "" || cfg.Auth == nil || cfg.REST == nil {
		t.Fatalf("the README's config lost a section: %+v", cfg)
	}
}
