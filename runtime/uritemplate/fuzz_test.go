package uritemplate

import (
	"errors"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, tc := range rfcExamples {
		f.Add(tc.template, "Hello World!")
	}
	for _, s := range []string{
		"file:///{path}", "users://{user}/posts{?limit,offset}", "db://{+table}",
		"{a:10000}", "{a*:3}", "x{", "}", "{=a}", "{a..b}", "%zz", "é{x}",
	} {
		f.Add(s, "a/b?c=d#e%41%")
	}
	f.Fuzz(func(t *testing.T, template, value string) {
		tmpl, err := Parse(template)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(template) {
				t.Fatalf("Parse(%q) error %v: want a *SyntaxError inside the template", template, err)
			}
			return
		}
		if tmpl.String() != template {
			t.Fatalf("String() = %q, want %q", tmpl.String(), template)
		}
		vars := map[string]any{}
		for i, name := range tmpl.Vars() {
			// Leave some undefined and some empty, to reach every branch.
			switch i % 3 {
			case 0:
				vars[name] = value
			case 1:
				vars[name] = ""
			}
		}
		uri, err := tmpl.Expand(vars)
		if err != nil {
			t.Fatalf("Expand(%q, %q): %v", template, vars, err)
		}
		tmpl.Match(uri)
		tmpl.Match(value)
		tmpl.Match(template)
	})
}
