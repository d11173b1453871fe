package diff

import (
	"fmt"
	"io"
	"strings"
)

var opMark = map[Op]string{Added: "+", Removed: "-", Changed: "~"}

// WriteText writes the report for people: a heading per section, one line
// per change, "+" added, "-" removed, "~" changed.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpgen diff %s -> %s: %d changes\n", r.Old, r.New, len(r.Changes))
	var section Section
	for _, c := range r.Changes {
		if c.Section != section {
			section = c.Section
			fmt.Fprintf(&b, "\n%ss:\n", strings.ToUpper(string(section[:1]))+string(section[1:]))
		}
		fmt.Fprintf(&b, "  %s %s", opMark[c.Op], c.Name)
		switch c.Op {
		case Added:
			if c.New != "" {
				fmt.Fprintf(&b, " (%s)", c.New)
			}
		case Removed:
			if c.Old != "" {
				fmt.Fprintf(&b, " (%s)", c.Old)
			}
		case Changed:
			fmt.Fprintf(&b, ": %s %s -> %s", c.Aspect, c.Old, c.New)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
