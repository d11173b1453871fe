package gosrc

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/model"
)

// directive is one //mcp:KIND line with its options in the order written.
type directive struct {
	pos  model.SrcPos
	kind string // tool, prompt, resource
	opts []option
}

// option is key or key=value; bare reports that no value was written.
type option struct {
	key, value string
	bare       bool
}

// parseDirective splits the text after "//mcp:" into kind and options.
// Values holding spaces are written in Go double quotes.
func parseDirective(pos model.SrcPos, text string) (*directive, error) {
	kind, rest, _ := strings.Cut(text, " ")
	d := &directive{pos: pos, kind: kind}
	seen := map[string]bool{}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		end := strings.IndexAny(rest, " \t=")
		if end < 0 {
			end = len(rest)
		}
		o := option{key: rest[:end], bare: true}
		rest = rest[end:]
		if o.key == "" {
			return nil, model.SrcErrorf(pos, "//mcp:%s: missing option name before %q: write key=value", kind, rest)
		}
		if strings.HasPrefix(rest, "=") {
			o.bare = false
			rest = rest[1:]
			if strings.HasPrefix(rest, `"`) {
				q, err := strconv.QuotedPrefix(rest)
				if err != nil {
					return nil, model.SrcErrorf(pos, "//mcp:%s: option %s: unterminated or malformed quoted value: write it as a Go string, e.g. %s=\"two words\"", kind, o.key, o.key)
				}
				o.value, _ = strconv.Unquote(q)
				rest = rest[len(q):]
				if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
					return nil, model.SrcErrorf(pos, "//mcp:%s: option %s: put a space after the closing quote", kind, o.key)
				}
			} else {
				end := strings.IndexAny(rest, " \t")
				if end < 0 {
					end = len(rest)
				}
				o.value, rest = rest[:end], rest[end:]
				if strings.Contains(o.value, `"`) {
					return nil, model.SrcErrorf(pos, "//mcp:%s: option %s: a quote inside a value: quote the whole value, e.g. %s=\"a b\"", kind, o.key, o.key)
				}
			}
		}
		if seen[o.key] {
			return nil, model.SrcErrorf(pos, "//mcp:%s: option %s is given twice: keep one", kind, o.key)
		}
		seen[o.key] = true
		d.opts = append(d.opts, o)
	}
	return d, nil
}

// toolNamePattern is what MCP allows in a tool name.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// hintKeys maps the directive's hint options to annotation properties.
var hintKeys = map[string]string{
	"destructive": "destructiveHint",
	"idempotent":  "idempotentHint",
	"openworld":   "openWorldHint",
	"readonly":    "readOnlyHint",
}

// toolOptions is what a //mcp:tool directive says.
type toolOptions struct {
	name, title                 string
	description                 string // description=, "" when not written
	hints                       []model.Hint
	task                        model.TaskSupport
	inputBeforeTask             bool
	rateLimit                   *model.RateLimit
	burst                       int // burst=, 0 when not written
	scopes                      []string
	inputSchema, outputSchema   string
	inputSchemaSet, outputIsSet bool
}

// maxRateCount bounds the numbers of rate= and burst=.
const maxRateCount = 1_000_000

// ratePattern is a rate='s value: calls, a slash and a unit.
var ratePattern = regexp.MustCompile(`^([0-9]+)/([smh])$`)

// parseRate reads rate=N/UNIT (UNIT s, m or h), whose burst is N until
// burst= says otherwise.
func parseRate(o option) (*model.RateLimit, error) {
	m := ratePattern.FindStringSubmatch(o.value)
	if o.bare || m == nil {
		return nil, fmt.Errorf("rate=%s: write the calls each caller may make per second, minute or hour: rate=10/s, rate=30/m or rate=500/h", o.value)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 || n > maxRateCount {
		return nil, fmt.Errorf("rate=%s: the number of calls must be from 1 to %d", o.value, maxRateCount)
	}
	per := map[string]model.RatePeriod{"s": model.PerSecond, "m": model.PerMinute, "h": model.PerHour}[m[2]]
	return &model.RateLimit{Count: n, Per: per, Burst: n}, nil
}

// parseDescription reads description="...", which stands for the doc
// comment as the handler's description. It is written as it is to be read,
// so it must say something: an empty one is refused rather than taken for
// "no description". kind picks the example the message shows.
func parseDescription(kind string, o option) (string, error) {
	if o.bare || strings.TrimSpace(o.value) == "" {
		return "", fmt.Errorf("description needs a value: description=%q (leave it out to take the doc comment)", descriptionExamples[kind])
	}
	return o.value, nil
}

// descriptionExamples are the description= values the message about an
// empty one shows, by directive.
var descriptionExamples = map[string]string{
	"tool":     "Files a new issue.",
	"prompt":   "Reviews a change.",
	"resource": "The project's README.",
}

// scopesExample is the scopes= value the messages about it show.
const scopesExample = "scopes=files:read|files:write"

// parseScopes reads scopes=A|B|..., the OAuth scopes a caller's
// credentials must grant, in the order written. Each is a scope-token of
// RFC 6749 §3.3: one or more of the printable ASCII characters but the
// space, '"' and '\'. '|' separates them here, so a scope that holds one
// cannot be written in a directive (register it by hand).
func parseScopes(o option) ([]string, error) {
	if o.bare || o.value == "" {
		return nil, fmt.Errorf("scopes needs a value: the OAuth scopes a caller's token must hold, separated by |, e.g. %s", scopesExample)
	}
	if strings.ContainsAny(o.value, " \t") {
		return nil, fmt.Errorf("scopes=%q: separate scopes with |, not spaces: %s", o.value, scopesExample)
	}
	items := strings.Split(o.value, "|")
	// Characters first, so that the messages below quote a value that
	// is plain printable ASCII.
	for _, s := range items {
		for _, r := range s {
			if r < 0x21 || r > 0x7e || r == '"' || r == '\\' {
				return nil, fmt.Errorf("scopes: scope %q holds %q: an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '\"' or '\\'", s, r)
			}
		}
	}
	var scopes []string
	for _, s := range items {
		if s == "" {
			return nil, fmt.Errorf("scopes=%s: a scope is empty: put one | between two scopes and none at the ends, e.g. %s", o.value, scopesExample)
		}
		if slices.Contains(scopes, s) {
			return nil, fmt.Errorf("scopes=%s: scope %s is written twice: keep one", o.value, s)
		}
		scopes = append(scopes, s)
	}
	return scopes, nil
}

// toolDirective reads the options of a //mcp:tool directive.
func toolDirective(d *directive) (*toolOptions, error) {
	t := &toolOptions{}
	hints := map[string]bool{}
	for _, o := range d.opts {
		switch o.key {
		case "name":
			if o.bare || !toolNamePattern.MatchString(o.value) {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: name=%q is not a valid tool name: use 1 to 128 letters, digits, '_', '-' or '.'", o.value)
			}
			t.name = o.value
		case "title":
			if o.bare {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: title needs a value: title=\"Plan a trip\"")
			}
			t.title = o.value
		case "description":
			desc, err := parseDescription("tool", o)
			if err != nil {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: %s", err)
			}
			t.description = desc
		case "readonly", "destructive", "idempotent", "openworld":
			v := true
			if !o.bare {
				b, err := strconv.ParseBool(o.value)
				if err != nil {
					return nil, model.SrcErrorf(d.pos, "//mcp:tool: %s=%s: write %s, %s=true or %s=false", o.key, o.value, o.key, o.key, o.key)
				}
				v = b
			}
			hints[o.key] = v
		case "task":
			switch {
			case o.bare || o.value == "":
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: task needs a value: task=optional or task=required (leave it out for a tool that always answers at once)")
			case o.value == "optional":
				t.task = model.TaskOptional
			case o.value == "required":
				t.task = model.TaskRequired
			default:
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: task=%s: write task=optional or task=required (leave it out for a tool that always answers at once)", o.value)
			}
		case "input-before-task":
			if !o.bare {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: input-before-task=%s: write input-before-task alone, with no value", o.value)
			}
			t.inputBeforeTask = true
		case "rate":
			rl, err := parseRate(o)
			if err != nil {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: %s", err)
			}
			t.rateLimit = rl
		case "burst":
			n, err := strconv.Atoi(o.value)
			if o.bare || err != nil || n < 1 || n > maxRateCount {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: burst=%s: write the calls a caller may make at once, a whole number from 1 to %d, e.g. burst=5", o.value, maxRateCount)
			}
			t.burst = n
		case "scopes":
			scopes, err := parseScopes(o)
			if err != nil {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: %s", err)
			}
			t.scopes = scopes
		case "input-schema", "output-schema":
			if o.bare || !strings.HasSuffix(o.value, ".json") {
				return nil, model.SrcErrorf(d.pos, "//mcp:tool: %s needs a JSON file next to the package's sources: %s=FILE.json", o.key, o.key)
			}
			if o.key == "input-schema" {
				t.inputSchema, t.inputSchemaSet = o.value, true
			} else {
				t.outputSchema, t.outputIsSet = o.value, true
			}
		default:
			return nil, model.SrcErrorf(d.pos, "//mcp:tool: unknown option %q: use name=, title=, description=, readonly, destructive, idempotent, openworld, task=, input-before-task, rate=, burst=, scopes=, input-schema= or output-schema=", o.key)
		}
	}
	// Checked once every option is read, so that the order they are
	// written in does not matter.
	if t.inputBeforeTask && t.task == model.TaskForbidden {
		return nil, model.SrcErrorf(d.pos, "//mcp:tool: input-before-task needs task=optional or task=required beside it: a tool that never runs as a task has no task to start")
	}
	switch {
	case t.burst > 0 && t.rateLimit == nil:
		return nil, model.SrcErrorf(d.pos, "//mcp:tool: burst= needs rate= beside it: burst=%d says how many calls may come at once under a rate, e.g. rate=30/m burst=%d", t.burst, t.burst)
	case t.burst > 0:
		t.rateLimit.Burst = t.burst
	}
	for _, k := range []string{"destructive", "idempotent", "openworld", "readonly"} {
		if v, ok := hints[k]; ok {
			t.hints = append(t.hints, model.Hint{Key: hintKeys[k], Value: v})
		}
	}
	return t, nil
}

// snakeCase turns a Go name into snake_case: AddNumbers → add_numbers,
// GetURLFor → get_url_for.
func snakeCase(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// directiveText returns the text after "//mcp:" of a comment line, if it is
// an mcp directive.
func directiveText(comment string) (string, bool) {
	rest, ok := strings.CutPrefix(comment, "//mcp:")
	if !ok {
		return "", false
	}
	return strings.TrimRight(rest, " \t"), true
}

// errDirectiveSpace explains a directive written with a space after //.
func errDirectiveSpace(pos model.SrcPos) error {
	return model.SrcErrorf(pos, "%s", fmt.Sprintf("write directives without a space after the slashes: //mcp:tool, not // mcp:tool"))
}

// entryOptions is what a //mcp:prompt or //mcp:resource directive says.
type entryOptions struct {
	name, title, mime string
	description       string // description=, "" when not written
	uri, template     string
	scopes            []string
}

// entryDirective reads the options of a //mcp:prompt or //mcp:resource
// directive; allowed lists the keys its kind accepts.
func entryDirective(d *directive, allowed ...string) (*entryOptions, error) {
	e := &entryOptions{}
	for _, o := range d.opts {
		ok := false
		for _, a := range allowed {
			ok = ok || a == o.key
		}
		if !ok {
			return nil, model.SrcErrorf(d.pos, "//mcp:%s: unknown option %q: use %s=", d.kind, o.key, strings.Join(allowed, "=, "))
		}
		switch o.key {
		case "scopes":
			scopes, err := parseScopes(o)
			if err != nil {
				return nil, model.SrcErrorf(d.pos, "//mcp:%s: %s", d.kind, err)
			}
			e.scopes = scopes
			continue
		case "description":
			desc, err := parseDescription(d.kind, o)
			if err != nil {
				return nil, model.SrcErrorf(d.pos, "//mcp:%s: %s", d.kind, err)
			}
			e.description = desc
			continue
		}
		if o.bare || o.value == "" {
			return nil, model.SrcErrorf(d.pos, "//mcp:%s: %s needs a value: %s=...", d.kind, o.key, o.key)
		}
		switch o.key {
		case "name":
			e.name = o.value
		case "title":
			e.title = o.value
		case "mime":
			if !strings.Contains(o.value, "/") {
				return nil, model.SrcErrorf(d.pos, "//mcp:%s: mime=%s is not a MIME type: write type/subtype, e.g. mime=text/plain", d.kind, o.value)
			}
			e.mime = o.value
		case "uri":
			e.uri = o.value
		case "uri-template":
			e.template = o.value
		}
	}
	return e, nil
}

// schemaDirective reads "schema DIALECT", the text of a //mcp:schema line.
func schemaDirective(pos model.SrcPos, text string) (model.Draft, error) {
	kind, rest, _ := strings.Cut(text, " ")
	if kind != "schema" {
		return 0, model.SrcErrorf(pos, "unknown directive //mcp:%s: the package option is //mcp:schema draft-07", kind)
	}
	switch strings.TrimSpace(rest) {
	case "draft-07":
		return model.Draft07, nil
	case "2020-12":
		return model.Draft2020, nil
	}
	return 0, model.SrcErrorf(pos, "//mcp:schema %s: unknown dialect: write //mcp:schema draft-07 (or 2020-12, the default)", strings.TrimSpace(rest))
}
