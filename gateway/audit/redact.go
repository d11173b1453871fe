package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// redacted replaces what the log must not hold.
const redacted = "[redacted]"

// maxArgNames bounds the argument names a line lists.
const maxArgNames = 64

// credentialWords are the parts of a field name that say it holds a
// credential; such a field's value is never written, allowed or not.
// Names are compared in lower case with '-' and '_' removed.
var credentialWords = []string{
	"token", "secret", "password", "passwd", "passphrase", "authorization",
	"apikey", "accesskey", "privatekey", "cookie", "credential", "session",
	"bearer", "signature",
}

// isCredentialName reports whether a field named name may hold a
// credential.
func isCredentialName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretPattern finds bearer credentials and JWTs in free text.
var secretPattern = regexp.MustCompile(`(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]+|\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)

// secretParam finds credentials in URI query parameters and key=value
// text: access_token=..., api_key=..., password=...
var secretParam = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:token|secret|password|passwd|apikey|api_key|api-key|signature|credential|auth)[a-z0-9_.-]*)=([^&\s"',;]+)`)

// scrubString replaces the bearer credentials, JWTs and credential
// parameters in s.
func scrubString(s string) string {
	s = secretPattern.ReplaceAllString(s, redacted)
	return secretParam.ReplaceAllString(s, "${1}="+redacted)
}

// scrubValue returns v, decoded JSON, with the values of credential-named
// fields and the secrets in strings replaced.
func scrubValue(v any) any {
	switch v := v.(type) {
	case string:
		return scrubString(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if isCredentialName(k) {
				out[k] = redacted
			} else {
				out[k] = scrubValue(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = scrubValue(x)
		}
		return out
	default:
		return v
	}
}

// arguments is what a line says of a request's arguments.
type arguments struct {
	digest string
	names  []string
	values map[string]any
}

// describeArguments digests raw and picks the values of the fields
// allowed names, each a top-level field name or a JSON pointer (RFC 6901)
// starting with "/".
func describeArguments(raw []byte, allowed []string) arguments {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return arguments{}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		// Not JSON: the digest of the bytes is all that can be said.
		return arguments{digest: digest(raw)}
	}
	a := arguments{digest: digest(canonical(v))}
	obj, ok := v.(map[string]any)
	if !ok {
		return a
	}
	for k := range obj {
		a.names = append(a.names, scrubString(k))
	}
	slices.Sort(a.names)
	if len(a.names) > maxArgNames {
		a.names = append(a.names[:maxArgNames], "...")
	}
	for _, field := range allowed {
		x, found, secret := lookup(obj, field)
		switch {
		case !found:
		case secret:
			a.values = setValue(a.values, field, redacted)
		default:
			a.values = setValue(a.values, field, scrubValue(x))
		}
	}
	return a
}

func setValue(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = make(map[string]any)
	}
	m[k] = v
	return m
}

// lookup finds field in obj: a top-level name, or a JSON pointer. secret
// says a name on the way is that of a credential.
func lookup(obj map[string]any, field string) (v any, found, secret bool) {
	if !strings.HasPrefix(field, "/") {
		v, found = obj[field]
		return v, found, isCredentialName(field)
	}
	v = obj
	for _, tok := range strings.Split(field[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			if v, found = c[tok]; !found {
				return nil, false, false
			}
			secret = secret || isCredentialName(tok)
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false, false
			}
			v = c[i]
		default:
			return nil, false, false
		}
	}
	return v, true, secret
}

// canonical encodes decoded JSON with sorted keys, no insignificant white
// space, no HTML escaping and the numbers as they were written.
func canonical(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // decoded JSON always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Digest returns the digest a line gives arguments, raw JSON: an
// operator's way to check that a logged call carried given arguments.
func Digest(raw []byte) string { return describeArguments(raw, nil).digest }

// allowedFields returns the fields the configuration allows for the tool
// named name: those of every entry whose key is name or a glob
// (path.Match) that matches it.
func allowedFields(cfg map[string][]string, name string) []string {
	var out []string
	for pattern, fields := range cfg {
		if pattern == name {
			out = append(out, fields...)
			continue
		}
		if ok, _ := path.Match(pattern, name); ok {
			out = append(out, fields...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
