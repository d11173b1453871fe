package schema

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

// caseNames lists the variants of each case of a group as
// value=Variant+Variant, in order.
func caseNames(u *model.Type, g *model.PickGroup) []string {
	var out []string
	for _, c := range g.Cases {
		var names []string
		for _, vi := range c.Variants {
			names = append(names, u.Variants[vi].Name())
		}
		out = append(out, c.Value+"="+strings.Join(names, "+"))
	}
	return out
}

// TestResultTypeDiscriminator finds every union the override table's
// resultType discriminator applies to, in the five schemas merged, and
// checks how each is partitioned.
func TestResultTypeDiscriminator(t *testing.T) {
	m := lowerAll(t, allVersions...)
	want := map[string][]string{
		"CallToolResultResponseResult":     {`"complete"=CallToolResult`, `"input_required"=InputRequiredResult`},
		"GetPromptResultResponseResult":    {`"complete"=GetPromptResult`, `"input_required"=InputRequiredResult`},
		"ReadResourceResultResponseResult": {`"complete"=ReadResourceResult`, `"input_required"=InputRequiredResult`},
		"ServerResult":                     nil, // checked below: every variant but one is complete
	}
	found := map[string]bool{}
	for _, u := range m.Types {
		if u.Kind != model.Union {
			continue
		}
		for _, g := range u.Pick.Groups {
			if g.Discriminator == nil {
				continue
			}
			found[u.Name] = true
			if g.Discriminator.Key != "resultType" || g.ConstKey != "resultType" || g.Absent != `"complete"` {
				t.Errorf("%s: discriminator %q, key %q, absent %s", u.Name, g.Discriminator.Key, g.ConstKey, g.Absent)
			}
			for _, c := range g.Cases {
				if c.Value == "" {
					t.Errorf("%s: a case for an absent resultType; Absent stands for it", u.Name)
				}
			}
			got := caseNames(u, g)
			if w, ok := want[u.Name]; ok && w != nil && !slices.Equal(got, w) {
				t.Errorf("%s cases = %q, want %q", u.Name, got, w)
			}
			if len(u.Pick.Alternatives) != len(g.Variants) {
				t.Errorf("%s: %d alternatives, want every variant (%d)", u.Name, len(u.Pick.Alternatives), len(g.Variants))
			}
			shared := false
			for _, k := range u.Pick.Shared {
				if k.Key == "resultType" {
					shared = k.Versions == versionSet(t, m, "2026-07-28")
				}
			}
			if !shared {
				t.Errorf("%s: shared keys %+v, want resultType in 2026-07-28", u.Name, u.Pick.Shared)
			}
		}
	}
	for name := range want {
		if !found[name] {
			t.Errorf("%s has no resultType discriminator", name)
		}
	}
	for name := range found {
		if _, ok := want[name]; !ok {
			t.Errorf("%s has a resultType discriminator, unexpectedly", name)
		}
	}
	sr := m.Lookup("ServerResult")
	g := sr.Pick.Groups[0]
	if len(g.Cases) != 2 || g.Cases[0].Value != `"complete"` || len(g.Cases[0].Variants) != len(sr.Variants)-1 ||
		g.Cases[1].Value != `"input_required"` || len(g.Cases[1].Variants) != 1 || sr.Variants[g.Cases[1].Variants[0]].Name() != "InputRequiredResult" {
		t.Errorf("ServerResult cases = %q", caseNames(sr, g))
	}
	for _, c := range g.Cases {
		for _, r := range c.Rules {
			if r.Prefer == "InputRequiredResult" {
				t.Errorf("ServerResult still has a pick rule for InputRequiredResult: %s", r.Reason)
			}
		}
	}
}

// TestAlternatives checks which unions validation lets accept a value
// through another variant than its own: not those the schema's const
// tells apart.
func TestAlternatives(t *testing.T) {
	m := lowerAll(t, allVersions...)
	for _, c := range []struct {
		union string
		want  bool
	}{
		{"ContentBlock", false},        // type tells every variant apart
		{"ElicitRequestParams", false}, // mode, an absent one meaning form
		{"ClientRequest", false},
		{"RequestId", false},                // one variant per JSON kind
		{"EmbeddedResourceResource", true},  // text or blob, by required properties
		{"PrimitiveSchemaDefinition", true}, // several variants share type "string"
		{"JSONRPCMessage", true},
		{"ReadResourceResultResponseResult", true},
	} {
		t.Run(c.union, func(t *testing.T) {
			if got := len(m.Lookup(c.union).Pick.Alternatives) > 0; got != c.want {
				t.Errorf("%s has alternatives: %v, want %v", c.union, got, c.want)
			}
		})
	}
}

// TestDiscriminatorExtension adds a tag to the table, as an extension's
// resultType value would be added, and builds the golden fixture: the
// union with the tagged variant gets a case for it, the union without one
// is left as it was, where the value is then unknown.
func TestDiscriminatorExtension(t *testing.T) {
	saved := discriminators
	t.Cleanup(func() { discriminators = saved })
	d := saved[0]
	d.Tags = append(slices.Clip(d.Tags), model.Tag{Value: "list", Variant: "ListResult"})
	discriminators = []model.Discriminator{d}
	doc, err := Load(filepath.Join("..", "..", "golden", "union_resulttype", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Lower([]string{"2026-07-28"}, []*Document{doc})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		union string
		want  []string
	}{
		{"AnyResult", []string{`"complete"=FetchResult`, `"input_required"=InputRequiredResult`, `"list"=ListResult`}},
		{"FetchResultResponseResult", []string{`"complete"=FetchResult`, `"input_required"=InputRequiredResult`}},
	} {
		t.Run(c.union, func(t *testing.T) {
			u := m.Lookup(c.union)
			if u == nil {
				t.Fatalf("no type %s", c.union)
			}
			if got := caseNames(u, u.Pick.Groups[0]); !slices.Equal(got, c.want) {
				t.Errorf("%s cases = %q, want %q", c.union, got, c.want)
			}
		})
	}
}

// TestOverrideTable checks the override table's pick rules and
// discriminators as model.New does, with no types to apply them to.
func TestOverrideTable(t *testing.T) {
	if _, err := model.New([]string{"2026-07-28"}, nil, nil, model.Overrides{PickRules: pickRules, Discriminators: discriminators}); err != nil {
		t.Fatalf("the table: %v", err)
	}
}
