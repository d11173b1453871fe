package pin

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestHidden(t *testing.T) {
	tests := []struct {
		name string
		tool string
		want []Finding
	}{
		{"clean", `{"name":"a","description":"Line one.\n\tIndented. Ünïcödé and emoji 🌦 are fine."}`, nil},
		{"control in description", `{"name":"a","description":"ab\u0007c"}`,
			[]Finding{{Path: "/description", Offset: 3, Rune: 0x07, Class: Control}}},
		{"carriage return", `{"name":"a","description":"a\r\nb"}`,
			[]Finding{{Path: "/description", Offset: 2, Rune: '\r', Class: Control}}},
		{"C1 control", "{\"name\":\"a\",\"title\":\"x\u0085\"}",
			[]Finding{{Path: "/title", Offset: 2, Rune: 0x85, Class: Control}}},
		{"delete", `{"name":"a","title":"\u007f"}`,
			[]Finding{{Path: "/title", Offset: 1, Rune: 0x7f, Class: Control}}},
		{"bidi override", "{\"name\":\"a\",\"description\":\"é\u202Eevil\"}",
			[]Finding{{Path: "/description", Offset: 2, Rune: 0x202E, Class: Bidi}}},
		{"bidi isolate", `{"name":"a","description":"\u2066x\u2069"}`,
			[]Finding{{Path: "/description", Offset: 1, Rune: 0x2066, Class: Bidi}, {Path: "/description", Offset: 3, Rune: 0x2069, Class: Bidi}}},
		{"embedding", `{"name":"a","description":"\u202a"}`,
			[]Finding{{Path: "/description", Offset: 1, Rune: 0x202A, Class: Bidi}}},
		{"zero-width space", `{"name":"a","description":"ig\u200bnore"}`,
			[]Finding{{Path: "/description", Offset: 3, Rune: 0x200B, Class: ZeroWidth}}},
		{"zero-width joiner", `{"name":"a","description":"\u200d"}`,
			[]Finding{{Path: "/description", Offset: 1, Rune: 0x200D, Class: ZeroWidth}}},
		{"word joiner", `{"name":"a","description":"\u2060"}`,
			[]Finding{{Path: "/description", Offset: 1, Rune: 0x2060, Class: ZeroWidth}}},
		{"byte order mark", `{"name":"a","description":"x\ufeff"}`,
			[]Finding{{Path: "/description", Offset: 2, Rune: 0xFEFF, Class: ZeroWidth}}},
		{"tag characters", `{"name":"a","description":"ok\udb40\udc41\udb40\udc7f"}`,
			[]Finding{{Path: "/description", Offset: 3, Rune: 0xE0041, Class: Tag}, {Path: "/description", Offset: 4, Rune: 0xE007F, Class: Tag}}},
		{"in name", `{"name":"a\u200b"}`,
			[]Finding{{Path: "/name", Offset: 2, Rune: 0x200B, Class: ZeroWidth}}},
		{"schema property description", `{"name":"a","inputSchema":{"type":"object","properties":{"c/~":{"description":"x\u202e"}}}}`,
			[]Finding{{Path: "/inputSchema/properties/c~1~0/description", Offset: 2, Rune: 0x202E, Class: Bidi}}},
		{"schema key", `{"name":"a","outputSchema":{"properties":{"k\u2067":{}}}}`,
			[]Finding{{Path: "/outputSchema/properties/k\u2067", Key: true, Offset: 2, Rune: 0x2067, Class: Bidi}}},
		{"enum value", `{"name":"a","inputSchema":{"enum":["x","\u0000"]}}`,
			[]Finding{{Path: "/inputSchema/enum/1", Offset: 1, Rune: 0, Class: Control}}},
		{"annotation title", `{"name":"a","annotations":{"title":"\u200c"}}`,
			[]Finding{{Path: "/annotations/title", Offset: 1, Rune: 0x200C, Class: ZeroWidth}}},
		{"unpinned members not scanned", `{"name":"a","_meta":{"x":"\u202e"}}`, nil},
		{"neighbours allowed", `{"name":"a","description":"\u200a\u200e\u2029\u206a\ufefe\udb40\udc80"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Hidden(json.RawMessage(tt.tool))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Hidden = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFindingStringHidesTheCharacter(t *testing.T) {
	f := Finding{Path: "/inputSchema/properties/k\u202e", Key: true, Offset: 2, Rune: 0x202E, Class: Bidi}
	got := f.String()
	want := `/inputSchema/properties/k\u{202E} (key) character 2: U+202E, a bidirectional control`
	if got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if strings.ContainsRune(got, 0x202E) {
		t.Errorf("String contains the character itself")
	}
}
