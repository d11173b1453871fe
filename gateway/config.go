package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpgen/mcpgen/gateway/audit"
	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/gateway/policy"
)

// badFunc makes a ConfigError at a line (0 when unknown).
type badFunc func(line int, format string, args ...any) error

// Config is the gateway's configuration file.
type Config struct {
	// Listen is the address the gateway serves HTTP on, host:port. It is
	// needed unless the gateway serves one client over stdio (serve
	// --stdio), which opens no HTTP listener.
	Listen string `yaml:"listen"`
	// Lock names the lock file of pinned tool definitions; empty turns
	// pinning off. The gateway core keeps it; pinning reads it.
	Lock string `yaml:"lock"`
	// Servers are the virtual servers by name, each served at /mcp/<name>
	// ("default" also at /mcp). They never share upstreams or tools.
	Servers map[string]*ServerConfig `yaml:"servers"`
	// Auth is what callers must present (front.go); nil lets anyone in.
	Auth *AuthConfig `yaml:"auth"`
	// REST is the facade for clients that do not speak MCP (front.go).
	REST *RESTConfig `yaml:"rest"`
	// Audit is where the audit lines go (govern.go); nil writes none.
	Audit *audit.Config `yaml:"audit"`
	// Telemetry configures traces and metrics (observe.go).
	Telemetry *TelemetryConfig `yaml:"telemetry"`
	// Watch, when true, reloads the configuration when its file
	// changes (reload.go).
	Watch bool `yaml:"watch"`

	// file is the file the configuration was read from.
	file string
}

// ServerConfig is one virtual server.
type ServerConfig struct {
	// Upstreams are aggregated in this order, which is the order of the
	// merged lists.
	Upstreams []*UpstreamConfig `yaml:"upstreams"`
	// Trust is a label for the trust level of the server's upstreams,
	// written in audit lines and metrics; servers of different trust are
	// never merged.
	Trust string `yaml:"trust"`
	// Authz decides which callers see and use which entries (govern.go).
	Authz *authz.Config `yaml:"authz"`
	// Policy is the server's rate limits and approvals (govern.go).
	Policy *policy.Config `yaml:"policy"`
	// Cache is how long list results are kept (reload.go).
	Cache *CacheConfig `yaml:"cache"`
}

// UpstreamConfig is one MCP server behind a virtual server.
type UpstreamConfig struct {
	// Name identifies the upstream in logs and errors, and gives the
	// default prefix.
	Name string `yaml:"name"`
	// Command is the argv of a server spoken to over stdio.
	Command []string `yaml:"command"`
	// Env adds NAME=VALUE pairs to the environment of Command.
	Env map[string]string `yaml:"env"`
	// URL is the endpoint of a server spoken to over Streamable HTTP.
	URL string `yaml:"url"`
	// Headers are sent with every request to URL. Their values come from
	// the environment or a file, never from the config, and are never
	// logged.
	Headers map[string]SecretConfig `yaml:"headers"`
	// Prefix is put before every tool and prompt name; nil means
	// "<name>__", and "" is allowed.
	Prefix *string `yaml:"prefix"`
	// Include, when not empty, keeps only the names (before the prefix)
	// that match one of its globs or IncludeRegex expressions.
	Include      []string `yaml:"include"`
	IncludeRegex []string `yaml:"includeRegex"`
	// Exclude drops the names that match one of its globs or ExcludeRegex
	// expressions; it wins over Include.
	Exclude      []string `yaml:"exclude"`
	ExcludeRegex []string `yaml:"excludeRegex"`
	// Transport picks the HTTP transport of URL (dial.go).
	Transport string `yaml:"transport"`
	// Auth is the credential the gateway presents to URL (dial.go).
	Auth *UpstreamAuthConfig `yaml:"auth"`
	// Policy bounds the upstream's calls: concurrency, timeout, circuit
	// breaker (govern.go).
	Policy *policy.UpstreamConfig `yaml:"policy"`

	includeRe, excludeRe []*regexp.Regexp
	line                 int
}

// SecretConfig says where a credential's value comes from.
type SecretConfig struct {
	// Env names an environment variable holding the value.
	Env string `yaml:"env"`
	// File names a file holding the value; one trailing newline is cut.
	File string `yaml:"file"`
}

// ConfigError is a configuration mistake, with the line it is on when
// known.
type ConfigError struct {
	File string
	Line int
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// LoadConfig reads and validates the configuration file at name.
func LoadConfig(name string) (*Config, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(name, data)
}

// ParseConfig decodes and validates a configuration; name is used in
// errors. Unknown keys are errors.
func ParseConfig(name string, data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &ConfigError{File: name, Msg: err.Error()}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, &ConfigError{File: name, Msg: strings.Join(te.Errors, "; ")}
		}
		return nil, &ConfigError{File: name, Msg: err.Error()}
	}
	lines := upstreamLines(&root)
	for sname, s := range c.Servers {
		if s == nil {
			continue
		}
		for i, u := range s.Upstreams {
			if u != nil && i < len(lines[sname]) {
				u.line = lines[sname][i]
			}
		}
	}
	if err := c.validate(name); err != nil {
		return nil, err
	}
	c.file = name
	return &c, nil
}

// upstreamLines finds the line of each upstream in the document, by
// virtual server.
func upstreamLines(root *yaml.Node) map[string][]int {
	out := map[string][]int{}
	if len(root.Content) == 0 {
		return out
	}
	servers := mapValue(root.Content[0], "servers")
	if servers == nil || servers.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		ups := mapValue(servers.Content[i+1], "upstreams")
		if ups == nil {
			continue
		}
		for _, u := range ups.Content {
			out[servers.Content[i].Value] = append(out[servers.Content[i].Value], u.Line)
		}
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (c *Config) validate(file string) error {
	bad := func(line int, format string, args ...any) error {
		return &ConfigError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(c.Servers) == 0 {
		return bad(0, "servers: at least one virtual server is needed")
	}
	type firstUse struct {
		server string
		u      *UpstreamConfig
	}
	named := map[string]firstUse{} // an upstream name's first use, across servers
	for _, sname := range c.ServerNames() {
		s := c.Servers[sname]
		if !namePattern.MatchString(sname) {
			return bad(0, "servers: name %q: use letters, digits, '_', '.' and '-'", sname)
		}
		if s == nil || len(s.Upstreams) == 0 {
			return bad(0, "servers.%s: no upstreams", sname)
		}
		seen := map[string]int{}
		for i, u := range s.Upstreams {
			if u == nil {
				return bad(0, "servers.%s.upstreams[%d]: empty", sname, i)
			}
			where := fmt.Sprintf("servers.%s.upstreams[%d]", sname, i)
			if !namePattern.MatchString(u.Name) {
				return bad(u.line, "%s: name %q: use letters, digits, '_', '.' and '-'", where, u.Name)
			}
			if prev, ok := seen[u.Name]; ok {
				return bad(u.line, "%s: name %q is also upstream %d", where, u.Name, prev)
			}
			seen[u.Name] = i
			if (len(u.Command) == 0) == (u.URL == "") {
				return bad(u.line, "%s (%s): give exactly one of command and url", where, u.Name)
			}
			// The lock file, audit lines and metrics know an upstream by
			// its name: in two virtual servers one name is one server,
			// which each may filter and govern its own way.
			if first, ok := named[u.Name]; !ok {
				named[u.Name] = firstUse{sname, u}
			} else if !sameServer(first.u, u) {
				return bad(u.line, "%s: upstream %q of virtual server %s reaches another server (command, env, url or transport differ); the lock file, audit and metrics know upstreams by name, so name one of them otherwise", where, u.Name, first.server)
			}
			if len(u.Command) == 0 && len(u.Env) > 0 {
				return bad(u.line, "%s (%s): env needs command", where, u.Name)
			}
			if u.URL == "" && len(u.Headers) > 0 {
				return bad(u.line, "%s (%s): headers need url", where, u.Name)
			}
			for h, sec := range u.Headers {
				if (sec.Env == "") == (sec.File == "") {
					return bad(u.line, "%s (%s): header %s: give exactly one of env and file", where, u.Name, h)
				}
			}
			for _, g := range append(append([]string(nil), u.Include...), u.Exclude...) {
				if _, err := path.Match(g, ""); err != nil {
					return bad(u.line, "%s (%s): glob %q: %v", where, u.Name, g, err)
				}
			}
			var err error
			if u.includeRe, err = compileAll(u.IncludeRegex); err != nil {
				return bad(u.line, "%s (%s): includeRegex: %v", where, u.Name, err)
			}
			if u.excludeRe, err = compileAll(u.ExcludeRegex); err != nil {
				return bad(u.line, "%s (%s): excludeRegex: %v", where, u.Name, err)
			}
			if err := u.validateDial(where, bad); err != nil {
				return err
			}
		}
		where := "servers." + sname
		if err := s.validateGovern(where, bad); err != nil {
			return err
		}
		if err := s.validateCache(where, bad); err != nil {
			return err
		}
	}
	if err := c.validateFront(bad); err != nil {
		return err
	}
	return c.validateTelemetry(bad)
}

// sameServer reports whether a and b reach the same server the same way.
func sameServer(a, b *UpstreamConfig) bool {
	return slices.Equal(a.Command, b.Command) && maps.Equal(a.Env, b.Env) && a.URL == b.URL && a.Transport == b.Transport
}

func compileAll(exprs []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	return out, nil
}

// ServerNames returns the virtual servers' names, sorted.
func (c *Config) ServerNames() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PrefixOf returns the prefix put before the upstream's names.
func (u *UpstreamConfig) PrefixOf() string {
	if u.Prefix == nil {
		return u.Name + "__"
	}
	return *u.Prefix
}

// Keeps reports whether the filters let the upstream's name through.
func (u *UpstreamConfig) Keeps(name string) bool {
	if matchAny(u.Exclude, u.excludeRe, name) {
		return false
	}
	if len(u.Include) == 0 && len(u.IncludeRegex) == 0 {
		return true
	}
	return matchAny(u.Include, u.includeRe, name)
}

func matchAny(globs []string, res []*regexp.Regexp, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	for _, re := range res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// secret reads a credential's value.
func (s SecretConfig) value() (string, error) {
	if s.Env != "" {
		v, ok := os.LookupEnv(s.Env)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set", s.Env)
		}
		return v, nil
	}
	b, err := os.ReadFile(s.File)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}
