package gosrc

import (
	"strings"
	"testing"
)

// CheckGenerated judges the file mcpgen is about to write in the package
// it is written into, and names only its own lines.
func TestCheckGenerated(t *testing.T) {
	const pkg = "package demo\n\nfunc Use() int { return answer() }\n"
	tests := []struct {
		name string
		old  string // the mcpgen_gen.go on disk, "" for none
		src  string
		want []string // substrings of the error; none when src compiles
	}{
		{"compiles", "", "package demo\n\nfunc answer() int { return 42 }\n", nil},
		{"replaces a broken file on disk", "package demo\n\nfunc answer() string { return 1 }\n",
			"package demo\n\nfunc answer() int { return 42 }\n", nil},
		{"type error", "", "package demo\n\nfunc answer() int { return \"forty-two\" }\n",
			[]string{"the generated mcpgen_gen.go does not compile", "mcpgen_gen.go:3:", "cannot use"}},
		{"declared twice", "", "package demo\n\nconst mcpgenTool = 1\n\nconst mcpgenTool = 2\n\nfunc answer() int { return mcpgenTool }\n",
			[]string{"mcpgen_gen.go:5:", "mcpgenTool redeclared"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.24\n", "demo.go": pkg}
			if tt.old != "" {
				files[GeneratedFile] = tt.old
			}
			err := CheckGenerated(writeModule(t, files), []byte(tt.src))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckGenerated = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("CheckGenerated = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "demo.go") {
				t.Errorf("error names the user's file: %v", err)
			}
		})
	}
}
