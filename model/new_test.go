package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestNew builds a small model by hand, as a front end would, and checks
// what New adds: the order, the index, the picks and the member names.
func TestNew(t *testing.T) {
	str := &Type{Kind: Primitive, Prim: String}
	types := []*Type{
		{Kind: Union, Name: "Content", Versions: 1, Variants: []*Variant{
			{Type: &Type{Kind: Ref, Target: "Text"}, Versions: 1},
			{Type: &Type{Kind: Ref, Target: "Image"}, Versions: 1},
		}},
		{Kind: Struct, Name: "Text", Versions: 1, Fields: []*Field{
			{JSON: "type", GoName: "Type", Type: &Type{Kind: Primitive, Prim: String, Const: `"text"`}, Versions: 1, Required: 1},
			{JSON: "text", GoName: "Text", Type: str, Versions: 1, Required: 1},
		}},
		{Kind: Struct, Name: "Image", Versions: 1, Fields: []*Field{
			{JSON: "type", GoName: "Type", Type: &Type{Kind: Primitive, Prim: String, Const: `"image"`}, Versions: 1, Required: 1},
		}},
		{Kind: Enum, Name: "Role", Versions: 1, Values: []*EnumValue{{Value: "user", Versions: 1}}},
	}
	methods := []*Method{{Name: "b/two"}, {Name: "a/one"}}
	m, err := New([]string{"2026-07-28"}, types, methods, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ty := range m.Types {
		names = append(names, ty.Name)
	}
	if want := []string{"Content", "Image", "Role", "Text"}; !slices.Equal(names, want) {
		t.Errorf("types %v, want %v", names, want)
	}
	if m.Methods[0].Name != "a/one" {
		t.Errorf("methods start with %s, want a/one", m.Methods[0].Name)
	}
	if m.Lookup("Text") == nil || m.Lookup("Text").Field("text") == nil {
		t.Error("Lookup(Text).Field(text) = nil")
	}
	if g := m.Lookup("Content").Pick.Groups[0]; g.ConstKey != "type" || len(g.Cases) != 2 {
		t.Errorf("Content picks by %q in %d cases, want type in 2", g.ConstKey, len(g.Cases))
	}
	if got := m.Lookup("Role").Values[0].GoName; got != "RoleUser" {
		t.Errorf("enum value named %s, want RoleUser", got)
	}
}

// TestNewRefuses wants an *Error at the position of each mistake.
func TestNewRefuses(t *testing.T) {
	at := Pos{File: "s.json", Pointer: "/$defs/B"}
	for _, c := range []struct {
		name  string
		types []*Type
		want  string
	}{
		{"dangling reference", []*Type{{Kind: Alias, Name: "B", Target: "C", Pos: at}}, "B refers to C, which no version defines"},
		{"name twice", []*Type{{Kind: Raw, Name: "B"}, {Kind: Raw, Name: "B", Pos: at}}, "type B is given twice"},
		{"no name", []*Type{{Kind: Raw, Pos: at}}, "a raw type without a name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New([]string{"2026-07-28"}, c.types, nil, Overrides{})
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Msg, c.want) || e.Pos != at {
				t.Errorf("New: %v, want an *Error at %s containing %q", err, at, c.want)
			}
		})
	}
}

func TestCheckVersions(t *testing.T) {
	for _, c := range []struct {
		name     string
		versions []string
		want     string
	}{
		{"none", nil, "no versions"},
		{"descending", []string{"2025-11-25", "2025-06-18"}, "ascending order"},
		{"twice", []string{"2025-11-25", "2025-11-25"}, "distinct"},
		{"too many", make([]string, 33), "at most 32"},
		{"fine", []string{"2025-06-18", "2025-11-25"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckVersions(c.versions)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("CheckVersions(%q) = %v, want %q", c.versions, err, c.want)
			}
		})
	}
}
