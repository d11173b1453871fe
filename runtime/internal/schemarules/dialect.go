package schemarules

import (
	"fmt"
	"strings"
)

// Dialect is a JSON Schema dialect in which a registered schema may be
// written. The zero Dialect is not one.
type Dialect int

const (
	// Draft2020 is JSON Schema 2020-12, the dialect of every schema
	// without $schema.
	Draft2020 Dialect = iota + 1
	// Draft7 is JSON Schema draft-07.
	Draft7
)

// String returns "2020-12" or "draft-07".
func (d Dialect) String() string {
	switch d {
	case Draft2020:
		return "2020-12"
	case Draft7:
		return "draft-07"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// URI returns the URI that names the dialect's meta-schema in $schema, as
// its specification writes it, or "" for a value that is not a Dialect.
func (d Dialect) URI() string {
	switch d {
	case Draft2020:
		return "https://json-schema.org/draft/2020-12/schema"
	case Draft7:
		return "http://json-schema.org/draft-07/schema#"
	}
	return ""
}

// dialects maps the accepted spellings of $schema, without the empty
// fragment that either may carry, to their dialect. draft-07 is named
// with http in its own specification, but https is common enough to
// accept; 2020-12 was published with https only.
var dialects = map[string]Dialect{
	"https://json-schema.org/draft/2020-12/schema": Draft2020,
	"http://json-schema.org/draft-07/schema":       Draft7,
	"https://json-schema.org/draft-07/schema":      Draft7,
}

// otherDialects names the dialects that are known but not supported, by
// their meta-schema URI without scheme, so that an error can say which one
// a schema asked for, however it spelled the scheme.
var otherDialects = map[string]string{
	"json-schema.org/draft-03/schema":      "draft-03",
	"json-schema.org/draft-04/schema":      "draft-04",
	"json-schema.org/draft-06/schema":      "draft-06",
	"json-schema.org/draft/2019-09/schema": "2019-09",
	"json-schema.org/schema":               "the unversioned latest draft",
	"json-schema.org/draft/2020-12/schema": "2020-12 over http (its meta-schema URI is https)",
}

// dialectOf returns the dialect that a $schema value names, or an error
// message saying that it is not supported.
func dialectOf(uri string) (Dialect, string) {
	key := strings.TrimSuffix(uri, "#")
	if d, ok := dialects[key]; ok {
		return d, ""
	}
	bare := strings.TrimPrefix(strings.TrimPrefix(key, "http://"), "https://")
	if name, ok := otherDialects[bare]; ok {
		return 0, fmt.Sprintf("$schema %q asks for JSON Schema %s, which is not supported; %s", uri, name, supported)
	}
	return 0, fmt.Sprintf("$schema %q is not a supported dialect; %s", uri, supported)
}

const supported = `use JSON Schema 2020-12 ("https://json-schema.org/draft/2020-12/schema", the default when $schema is absent) or draft-07 ("http://json-schema.org/draft-07/schema#")`
