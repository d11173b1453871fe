package icon

import (
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

func TestSelect(t *testing.T) {
	p := &Policy{ServerURL: "https://mcp.example.com"}
	// at builds an icon named by its position, so a result is easy to read.
	at := func(name string, theme mcp.IconTheme, sizes ...string) mcp.Icon {
		return mcp.Icon{Src: "https://mcp.example.com/" + name, Theme: theme, Sizes: sizes}
	}
	const light, dark, none = mcp.IconThemeLight, mcp.IconThemeDark, mcp.IconTheme("")

	tests := []struct {
		name  string
		icons []mcp.Icon
		size  int
		theme mcp.IconTheme
		want  string // "" when none is acceptable
	}{
		{"empty", nil, 32, none, ""},
		{"exact beats larger", []mcp.Icon{at("48", none, "48x48"), at("16", none, "16x16")}, 16, none, "16"},
		{"larger beats smaller", []mcp.Icon{at("8", none, "8x8"), at("64", none, "64x64")}, 32, none, "64"},
		{"smallest larger", []mcp.Icon{at("128", none, "128x128"), at("48", none, "48x48")}, 32, none, "48"},
		{"largest smaller", []mcp.Icon{at("8", none, "8x8"), at("16", none, "16x16")}, 32, none, "16"},
		{"any beats larger", []mcp.Icon{at("64", none, "64x64"), at("any", none, "any")}, 32, none, "any"},
		{"exact beats any", []mcp.Icon{at("any", none, "any"), at("32", none, "32x32")}, 32, none, "32"},
		{"no sizes beats smaller", []mcp.Icon{at("8", none, "8x8"), at("unsized", none)}, 32, none, "unsized"},
		{"larger beats no sizes", []mcp.Icon{at("unsized", none), at("64", none, "64x64")}, 32, none, "64"},
		{"best of several entries", []mcp.Icon{at("16", none, "16x16"), at("16+32", none, "16x16", "32x32")}, 32, none, "16+32"},
		{"larger side of a non-square size", []mcp.Icon{at("24", none, "24x24"), at("32x16", none, "32x16")}, 32, none, "32x16"},
		{"upper-case X", []mcp.Icon{at("8", none, "8x8"), at("32", none, "32X32")}, 32, none, "32"},
		{"malformed sizes count as none", []mcp.Icon{at("8", none, "8x8"), at("bad", none, "big", "0x0", "-4x4", "+4x4")}, 32, none, "bad"},
		{"ties keep the server's order", []mcp.Icon{at("first", none, "32x32"), at("second", none, "32x32")}, 32, none, "first"},

		{"theme beats size", []mcp.Icon{at("light32", light, "32x32"), at("dark16", dark, "16x16")}, 32, dark, "dark16"},
		{"no theme beats another theme", []mcp.Icon{at("light", light, "32x32"), at("plain", none, "32x32")}, 32, dark, "plain"},
		{"another theme as a last resort", []mcp.Icon{at("light", light, "32x32")}, 32, dark, "light"},
		{"no wanted theme prefers unthemed", []mcp.Icon{at("dark", dark, "32x32"), at("plain", none, "32x32")}, 32, none, "plain"},

		{"no size wanted: largest", []mcp.Icon{at("16", none, "16x16"), at("64", none, "64x64")}, 0, none, "64"},
		{"no size wanted: any first", []mcp.Icon{at("64", none, "64x64"), at("any", none, "any")}, 0, none, "any"},
		{"no size wanted: declared beats unsized", []mcp.Icon{at("unsized", none), at("16", none, "16x16")}, 0, none, "16"},

		{"unacceptable icons skipped", []mcp.Icon{{Src: "javascript:alert(1)", Sizes: []string{"32x32"}}, at("8", none, "8x8")}, 32, none, "8"},
		{"other origin skipped", []mcp.Icon{{Src: "https://cdn.example.com/32", Sizes: []string{"32x32"}}, at("8", none, "8x8")}, 32, none, "8"},
		{"none acceptable", []mcp.Icon{{Src: "https://mcp.example.com/gif", MIMEType: "image/gif"}}, 32, none, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := p.Select(tt.icons, tt.size, tt.theme)
			if tt.want == "" {
				if ok {
					t.Fatalf("Select = %q, want none", got.Src)
				}
				return
			}
			if want := "https://mcp.example.com/" + tt.want; !ok || got.Src != want {
				t.Fatalf("Select = %q, %v; want %q", got.Src, ok, want)
			}
		})
	}
}
