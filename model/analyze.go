package model

import (
	"fmt"
	"sort"
	"strings"
)

// JSONKind is the kind of a JSON value, as union decoding sees it.
type JSONKind int

// The JSON kinds a variant can have.
const (
	KindObject JSONKind = iota + 1
	KindArray
	KindString
	KindInteger
	KindNumber
	KindBoolean
)

var jsonKindNames = [...]string{"", "object", "array", "string", "integer", "number", "boolean"}

func (k JSONKind) String() string { return jsonKindNames[k] }

// Pick says how decoding chooses a union variant: first by the JSON kind of
// the value, then, among objects, by a discriminating property (a constant
// of the schema's, or a plain string the override table declares), then by
// required and declared properties and the override table's rules; and how
// validation, as the schema's anyOf, may accept a value through another
// variant than the one decoding chose.
type Pick struct {
	Groups []*PickGroup
	// Alternatives are the variants (indexes into the union's Variants)
	// that validation tries, as the schema's anyOf does, when a value fails
	// the rules of its own variant: every variant of a group whose choice is
	// not the schema's own const partition, since its JSON may still be an
	// instance of one of the others. Empty when every variant is told apart
	// by a const the schema itself checks.
	Alternatives []int
	// Shared are the properties that every object variant requires, each
	// with the versions in which they all do: an object without one is an
	// instance of no variant, so validation names it when no alternative
	// accepts a value either. Set only when Alternatives is.
	Shared []SharedKey
}

// SharedKey is a property every object variant of a union requires.
type SharedKey struct {
	Key      string
	Versions VersionSet
}

// PickGroup holds the variants of one JSON kind.
type PickGroup struct {
	Kind JSONKind
	// Variants are indexes into the union's Variants.
	Variants []int
	// ConstKey is the discriminating property of an object group, "" when
	// there is none or the group has one variant.
	ConstKey string
	// Cases partition the group by the value of ConstKey (one case holding
	// every variant when ConstKey is empty). A case with Value "" holds the
	// variants the instance may be when ConstKey is absent.
	Cases []*PickCase
	// Discriminator is the override table's entry that declared ConstKey,
	// nil when the schema's const or enum properties gave it.
	Discriminator *Discriminator
	// Absent, when set, is the JSON value an instance without ConstKey is
	// decoded as, and no case has the Value "".
	Absent string
}

// PickCase is a set of candidate variants and how to choose among them.
type PickCase struct {
	// Value is the JSON of the ConstKey value that selects this case.
	Value    string
	Variants []int
	// Keys are the property names scored; Required and Declared are, per
	// variant, bit masks over Keys.
	Keys     []string
	Required []uint64
	Declared []uint64
	Rules    []*PickRule
}

// analyze gives every union its Pick, choosing among variants by the rules
// and discriminators of ov where the generic rules cannot.
func (m *Model) analyze(ov Overrides) error {
	if err := checkDiscriminators(ov.Discriminators); err != nil {
		return err
	}
	for _, t := range m.Types {
		if t.Kind != Union {
			continue
		}
		p, err := m.pick(t, ov)
		if err != nil {
			return err
		}
		t.Pick = p
	}
	return nil
}

// VariantKind is the JSON kind of a variant.
func (m *Model) VariantKind(v *Variant) (JSONKind, error) {
	t := v.Type
	if t.Kind == Ref {
		t = m.Resolve(t)
	}
	switch t.Kind {
	case Struct, Map:
		return KindObject, nil
	case Raw:
		if t.RawKind == AnyObject {
			return KindObject, nil
		}
	case Array:
		return KindArray, nil
	case Enum:
		return KindString, nil
	case Primitive:
		switch t.Prim {
		case String:
			return KindString, nil
		case Integer:
			return KindInteger, nil
		case Number:
			return KindNumber, nil
		case Boolean:
			return KindBoolean, nil
		}
	}
	return 0, fmt.Errorf("variant %s has no single JSON kind", v.Name())
}

func (m *Model) pick(u *Type, ov Overrides) (*Pick, error) {
	p := &Pick{}
	groups := map[JSONKind]*PickGroup{}
	for i, v := range u.Variants {
		k, err := m.VariantKind(v)
		if err != nil {
			return nil, Errorf(u.Pos, "union %s: %v", u.Name, err)
		}
		g := groups[k]
		if g == nil {
			g = &PickGroup{Kind: k}
			groups[k] = g
			p.Groups = append(p.Groups, g)
		}
		g.Variants = append(g.Variants, i)
	}
	sort.Slice(p.Groups, func(i, j int) bool { return p.Groups[i].Kind < p.Groups[j].Kind })
	for _, g := range p.Groups {
		if len(g.Variants) == 1 {
			g.Cases = []*PickCase{{Variants: g.Variants}}
			continue
		}
		switch g.Kind {
		case KindObject:
			if err := m.objectCases(u, g, ov); err != nil {
				return nil, err
			}
		case KindArray:
			c := &PickCase{Variants: g.Variants}
			c.Required = make([]uint64, len(c.Variants))
			c.Declared = make([]uint64, len(c.Variants))
			if err := m.rulesFor(u, c, true, ov.PickRules); err != nil {
				return nil, err
			}
			g.Cases = []*PickCase{c}
		default:
			var names []string
			for _, i := range g.Variants {
				names = append(names, u.Variants[i].Name())
			}
			return nil, Errorf(u.Pos, "union %s has %d %s variants (%s): a value cannot choose among them", u.Name, len(g.Variants), g.Kind, strings.Join(names, ", "))
		}
	}
	for _, g := range p.Groups {
		if len(g.Variants) > 1 && !g.partitioned() {
			p.Alternatives = append(p.Alternatives, g.Variants...)
		}
	}
	sort.Ints(p.Alternatives)
	if len(p.Alternatives) > 0 {
		p.Shared = m.sharedKeys(u, p)
	}
	return p, nil
}

// sharedKeys returns the properties that every object variant of u that
// exists in a version requires in it, for the versions where at least two
// variants exist and all are structs.
func (m *Model) sharedKeys(u *Type, p *Pick) []SharedKey {
	var objects []*Variant
	for _, g := range p.Groups {
		if g.Kind == KindObject {
			for _, vi := range g.Variants {
				objects = append(objects, u.Variants[vi])
			}
		}
	}
	var order []string
	in := map[string]VersionSet{}
	for x := range m.Versions {
		ver := Version(x)
		var present []*Type
		structs := true
		for _, v := range objects {
			if !v.Versions.Has(ver) {
				continue
			}
			st := m.Resolve(v.Type)
			if st.Kind != Struct {
				structs = false
				break
			}
			present = append(present, st)
		}
		if !structs || len(present) < 2 {
			continue
		}
		for _, f := range present[0].Fields {
			all := true
			for _, st := range present {
				g := st.Field(f.JSON)
				if g == nil || !g.Versions.Has(ver) || !g.Required.Has(ver) {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			if _, ok := in[f.JSON]; !ok {
				order = append(order, f.JSON)
			}
			in[f.JSON] |= Only(ver)
		}
	}
	var out []SharedKey
	for _, k := range order {
		out = append(out, SharedKey{Key: k, Versions: in[k]})
	}
	return out
}

// partitioned reports whether the schema's own const property tells every
// variant of the group apart: each case holds one variant, so no value of
// one variant is an instance of another.
func (g *PickGroup) partitioned() bool {
	if g.ConstKey == "" || g.Discriminator != nil {
		return false
	}
	for _, c := range g.Cases {
		if len(c.Variants) > 1 {
			return false
		}
	}
	return true
}

// constValues returns the values a variant allows for key when it is a
// string constant or enum, and whether the key is required.
func (m *Model) constValues(st *Type, key string, vs VersionSet) (vals []string, required, ok bool) {
	f := st.Field(key)
	if f == nil {
		return nil, false, false
	}
	ft := f.Type
	if ft.Kind == Ref {
		ft = m.Resolve(ft)
	}
	switch {
	case ft.Kind == Primitive && ft.Prim == String && ft.Const != "":
		vals = []string{ft.Const}
	case ft.Kind == Enum:
		for _, v := range ft.Values {
			vals = append(vals, quote(v.Value))
		}
	default:
		return nil, false, false
	}
	return vals, f.Required&vs == vs, true
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func (m *Model) objectCases(u *Type, g *PickGroup, ov Overrides) error {
	names := map[string]bool{}
	for _, vi := range g.Variants {
		names[u.Variants[vi].Name()] = true
	}
	if d, ok := discriminatorFor(ov.Discriminators, names); ok {
		return m.declaredCases(u, g, d, ov.PickRules)
	}
	structs := make([]*Type, len(g.Variants))
	for i, vi := range g.Variants {
		t := m.Resolve(u.Variants[vi].Type)
		if t.Kind == Struct {
			structs[i] = t
		}
	}
	// Candidate discriminators: properties every variant constrains to
	// constants; the one splitting the group into the most cases wins.
	bestKey, bestCases := "", 1
	var keys []string
	if structs[0] != nil {
		for _, f := range structs[0].Fields {
			keys = append(keys, f.JSON)
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		distinct := map[string]bool{}
		ok := true
		for i, st := range structs {
			if st == nil {
				ok = false
				break
			}
			vals, _, isConst := m.constValues(st, key, u.Variants[g.Variants[i]].Versions)
			if !isConst {
				ok = false
				break
			}
			for _, v := range vals {
				distinct[v] = true
			}
		}
		if ok && len(distinct) > bestCases {
			bestKey, bestCases = key, len(distinct)
		}
	}
	g.ConstKey = bestKey
	if bestKey == "" {
		c := &PickCase{Variants: g.Variants}
		if err := m.scoreCase(u, c, ov.PickRules); err != nil {
			return err
		}
		g.Cases = []*PickCase{c}
		return nil
	}
	byValue := map[string]*PickCase{}
	var order []string
	add := func(val string, vi int) {
		c := byValue[val]
		if c == nil {
			c = &PickCase{Value: val}
			byValue[val] = c
			order = append(order, val)
		}
		c.Variants = append(c.Variants, vi)
	}
	for i, st := range structs {
		vals, required, _ := m.constValues(st, bestKey, u.Variants[g.Variants[i]].Versions)
		for _, v := range vals {
			add(v, g.Variants[i])
		}
		if !required {
			add("", g.Variants[i])
		}
	}
	for _, val := range order {
		c := byValue[val]
		if err := m.scoreCase(u, c, ov.PickRules); err != nil {
			return err
		}
		g.Cases = append(g.Cases, c)
	}
	return nil
}

// declaredCases partitions an object group by the value of the override
// table's discriminator d: one case per tag whose variants the group has.
// It fails when a variant that shares versions with a tagged one lacks the
// property, since the table would then choose by a property the variant
// cannot carry.
func (m *Model) declaredCases(u *Type, g *PickGroup, d *Discriminator, rules []PickRule) error {
	tagged := map[string]bool{}
	for _, tag := range d.Tags {
		if tag.Variant != "" {
			tagged[tag.Variant] = true
		}
	}
	var taggedIn VersionSet
	for _, vi := range g.Variants {
		if v := u.Variants[vi]; tagged[v.Name()] {
			taggedIn |= v.Versions
		}
	}
	var rest []int
	for _, vi := range g.Variants {
		v := u.Variants[vi]
		if !tagged[v.Name()] {
			rest = append(rest, vi)
		}
		shared := v.Versions & taggedIn
		if shared == 0 {
			continue
		}
		var f *Field
		if st := m.Resolve(v.Type); st.Kind == Struct {
			f = st.Field(d.Key)
		}
		if f == nil || f.Versions&shared != shared || !m.plainString(f.Type) {
			return Errorf(u.Pos, "union %s: variant %s does not declare %s as a string in %s, and the override table's discriminator chooses by it",
				u.Name, v.Name(), d.Key, strings.Join(m.VersionNames(shared), ", "))
		}
	}
	g.ConstKey, g.Discriminator = d.Key, d
	for _, tag := range d.Tags {
		var vs []int
		if tag.Variant == "" {
			vs = rest
		} else {
			for _, vi := range g.Variants {
				if u.Variants[vi].Name() == tag.Variant {
					vs = append(vs, vi)
				}
			}
		}
		if len(vs) == 0 {
			continue
		}
		c := &PickCase{Value: quote(tag.Value), Variants: vs}
		if err := m.scoreCase(u, c, rules); err != nil {
			return err
		}
		g.Cases = append(g.Cases, c)
		if tag.Value == d.Absent {
			g.Absent = c.Value
		}
	}
	return nil
}

// plainString reports whether t holds strings that the schema does not fix
// to one value: a string without const, or an enum.
func (m *Model) plainString(t *Type) bool {
	if t.Kind == Ref {
		t = m.Resolve(t)
	}
	return t.Kind == Enum || t.Kind == Primitive && t.Prim == String && t.Const == ""
}

// scoreCase fills the key masks of an object case and checks that every
// pair of variants the masks cannot separate has one of rules.
func (m *Model) scoreCase(u *Type, c *PickCase, rules []PickRule) error {
	idx := map[string]int{}
	keyOf := func(k string) (uint64, error) {
		i, ok := idx[k]
		if !ok {
			if len(c.Keys) == 64 {
				return 0, Errorf(u.Pos, "union %s: more than 64 distinct properties to score", u.Name)
			}
			i = len(c.Keys)
			idx[k] = i
			c.Keys = append(c.Keys, k)
		}
		return 1 << i, nil
	}
	for _, vi := range c.Variants {
		v := u.Variants[vi]
		var req, decl uint64
		if st := m.Resolve(v.Type); st.Kind == Struct {
			for _, f := range st.Fields {
				bit, err := keyOf(f.JSON)
				if err != nil {
					return err
				}
				decl |= bit
				if f.Required&v.Versions == v.Versions && f.Versions&v.Versions == v.Versions {
					req |= bit
				}
			}
		}
		c.Required = append(c.Required, req)
		c.Declared = append(c.Declared, decl)
	}
	return m.rulesFor(u, c, len(c.Variants) > 1, rules)
}

// rulesFor attaches those of rules that concern the case's variants and
// fails when two variants with the same required properties have none.
func (m *Model) rulesFor(u *Type, c *PickCase, check bool, rules []PickRule) error {
	in := map[string]bool{}
	for _, vi := range c.Variants {
		in[u.Variants[vi].Name()] = true
	}
	for i := range rules {
		r := &rules[i]
		if in[r.Prefer] && (r.Over == "" || in[r.Over]) {
			c.Rules = append(c.Rules, r)
		}
	}
	if !check {
		return nil
	}
	for a := 0; a < len(c.Variants); a++ {
		for b := a + 1; b < len(c.Variants); b++ {
			if c.Required[a] != c.Required[b] {
				continue
			}
			na, nb := u.Variants[c.Variants[a]].Name(), u.Variants[c.Variants[b]].Name()
			covered := false
			for _, r := range c.Rules {
				if (r.Prefer == na && (r.Over == nb || r.Over == "")) || (r.Prefer == nb && (r.Over == na || r.Over == "")) {
					covered = true
				}
			}
			if !covered {
				what := "the same required properties"
				if c.Keys == nil {
					what = "the same JSON kind"
				}
				return Errorf(u.Pos, "union %s: variants %s and %s have %s and nothing else tells them apart: add a PickRule to the override table", u.Name, na, nb, what)
			}
		}
	}
	return nil
}
