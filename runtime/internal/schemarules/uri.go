package schemarules

import "net/url"

// documentScheme and documentBase stand for the URI of a schema whose root
// declares no $id, so that relative $id and $ref values resolve against
// something. They are only compared, never fetched, and no reference a
// schema writes is expected to name them.
const (
	documentScheme = "mcpgen-document"
	documentBase   = documentScheme + ":///schema.json"
)

// resolveURI resolves the URI reference s against base (RFC 3986, section
// 5) and splits the result into the URI of a resource, without fragment,
// and the fragment, percent-decoded.
func resolveURI(base, s string) (uri, frag string, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", err
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	t := b.ResolveReference(u)
	frag = t.Fragment
	t.Fragment, t.RawFragment = "", ""
	return t.String(), frag, nil
}
