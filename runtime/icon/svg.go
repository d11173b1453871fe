package icon

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/clip"
)

const svgNamespace = "http://www.w3.org/2000/svg"

// svgDenied are the elements, lowercased, that an icon never needs and
// that run code, embed other documents or media, or animate. Animation is
// refused for the same reason as animated PNG and WebP: a static icon is
// all the specification's resource limits have in mind.
var svgDenied = map[string]bool{
	"script":           true,
	"foreignobject":    true,
	"iframe":           true,
	"embed":            true,
	"object":           true,
	"handler":          true, // SVG Tiny 1.2 event handler
	"listener":         true, // SVG Tiny 1.2 event listener
	"audio":            true,
	"video":            true,
	"animate":          true,
	"animatecolor":     true,
	"animatemotion":    true,
	"animatetransform": true,
	"set":              true,
	"discard":          true,
}

// checkSVG refuses an SVG document that is malformed or whose root is not
// an svg element in the SVG namespace (wrapping ErrImage), or that carries
// anything able to run code or reach outside the document (wrapping
// ErrUnsafeSVG):
//
//   - the elements in svgDenied, in any namespace;
//   - attributes whose name starts with "on" (event handlers);
//   - href and xlink:href values other than a "#fragment";
//   - url(...) other than url(#fragment), and image-set(...) or src(...)
//     (which take a URL as a string), in any attribute or <style>;
//   - @import and CSS escapes in style, which could hide either of those;
//   - "javascript:" anywhere in an attribute value;
//   - a DOCTYPE (the way entity declarations and external DTDs enter) and
//     processing instructions other than the XML declaration.
//
// Checking by deny list means a new feature of some renderer could slip
// through; that is why the package documentation still asks the host to
// render SVG where script cannot run.
func checkSVG(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b)) // strict: malformed XML is an error
	depth, roots := 0, 0
	// The text of a <style> element is checked whole at its end: CDATA
	// sections and comments split it into several tokens, and a check
	// per token would miss an "@im<![CDATA[port]]>".
	var style *strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fault(ErrImage, "%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return fault(ErrImage, "more than one root element")
				}
				if t.Name.Local != "svg" || t.Name.Space != svgNamespace {
					return fault(ErrImage, "root element is not <svg xmlns=%q>", svgNamespace)
				}
			}
			depth++
			if style != nil {
				// A style sheet has no children; text inside one would
				// escape the check of the sheet.
				return unsafe("<%s> inside <style>", t.Name.Local)
			}
			name := strings.ToLower(t.Name.Local)
			if svgDenied[name] {
				return unsafe("<%s> element", t.Name.Local)
			}
			if name == "style" {
				style = new(strings.Builder)
			}
			for _, a := range t.Attr {
				if reason := svgAttr(a); reason != "" {
					return unsafe("<%s %s=%q>: %s", t.Name.Local, attrName(a.Name), shortAttr(a.Value), reason)
				}
			}
		case xml.EndElement:
			depth--
			if style != nil {
				if reason := cssReason(style.String()); reason != "" {
					return unsafe("<style>: %s", reason)
				}
				style = nil
			}
		case xml.CharData:
			if style != nil {
				style.Write(t)
			}
		case xml.Directive:
			return unsafe("<!%s> declaration", firstWord(string(t)))
		case xml.ProcInst:
			if t.Target != "xml" {
				return unsafe("<?%s?> processing instruction", t.Target)
			}
		}
	}
	if roots == 0 {
		return fault(ErrImage, "no root element")
	}
	return nil
}

// svgAttr returns why attribute a is unsafe, or "".
func svgAttr(a xml.Attr) string {
	local := strings.ToLower(a.Name.Local)
	value := strings.ToLower(strings.Map(dropSpace, a.Value))
	switch {
	case strings.HasPrefix(local, "on"):
		return "event handler"
	case local == "href" && !strings.HasPrefix(value, "#"):
		return "reference outside the document"
	case strings.Contains(value, "javascript:"):
		return "javascript: URL"
	case local == "style":
		return cssReason(a.Value)
	}
	return externalReason(value)
}

// cssReason returns why a style sheet or style attribute is unsafe, or "".
func cssReason(css string) string {
	v := strings.ToLower(strings.Map(dropSpace, css))
	switch {
	case strings.Contains(v, "@import"):
		return "@import"
	case strings.Contains(v, `\`):
		// CSS escapes can spell url( or @import out of other characters.
		return "CSS escape"
	case strings.Contains(v, "javascript:"):
		return "javascript: URL"
	}
	return externalReason(v)
}

// externalReason returns a reason if v, lowercased and without spaces,
// can make a renderer load something: a url( that is not url(#...), or
// one of the CSS functions that take a URL as a plain string.
func externalReason(v string) string {
	for _, f := range [...]string{"image-set(", "src("} {
		if strings.Contains(v, f) {
			return f + ") loads by URL"
		}
	}
	for {
		i := strings.Index(v, "url(")
		if i < 0 {
			return ""
		}
		v = strings.TrimLeft(v[i+len("url("):], `"'`)
		if !strings.HasPrefix(v, "#") {
			return "url() outside the document"
		}
	}
}

// dropSpace removes white space and control characters, which renderers
// skip inside URLs and which could otherwise split "javascript:" or "url(".
func dropSpace(r rune) rune {
	if r <= ' ' || r == 0x7f {
		return -1
	}
	return r
}

func unsafe(format string, args ...any) *Error {
	return fault(ErrUnsafeSVG, format, args...)
}

func attrName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	if n.Space == "http://www.w3.org/1999/xlink" {
		return "xlink:" + n.Local
	}
	return n.Space + ":" + n.Local
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n["); i >= 0 {
		return s[:i]
	}
	return s
}

// shortAttr shortens an attribute value quoted in an error.
func shortAttr(s string) string {
	if len(s) <= 40 {
		return s
	}
	return clip.Prefix(s, 40) + "…"
}
