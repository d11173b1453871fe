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
// the value, then, among objects, by a discriminating constant property,
// then by required and declared properties and the override table's rules.
type Pick struct {
	Groups []*PickGroup
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

func (m *Model) analyze() error {
	for _, t := range m.Types {
		if t.Kind != Union {
			continue
		}
		p, err := m.pick(t)
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

func (m *Model) pick(u *Type) (*Pick, error) {
	p := &Pick{}
	groups := map[JSONKind]*PickGroup{}
	for i, v := range u.Variants {
		k, err := m.VariantKind(v)
		if err != nil {
			return nil, errorf(u.Pos, "union %s: %v", u.Name, err)
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
			if err := m.objectCases(u, g); err != nil {
				return nil, err
			}
		case KindArray:
			c := &PickCase{Variants: g.Variants}
			c.Required = make([]uint64, len(c.Variants))
			c.Declared = make([]uint64, len(c.Variants))
			if err := m.rulesFor(u, c, true); err != nil {
				return nil, err
			}
			g.Cases = []*PickCase{c}
		default:
			var names []string
			for _, i := range g.Variants {
				names = append(names, u.Variants[i].Name())
			}
			return nil, errorf(u.Pos, "union %s has %d %s variants (%s): a value cannot choose among them", u.Name, len(g.Variants), g.Kind, strings.Join(names, ", "))
		}
	}
	return p, nil
}

// constValues returns the values a variant allows for key when it is a
// string constant or enum, and whether the key is required.
func (m *Model) constValues(st *Type, key string, vs VersionSet) (vals []string, required, ok bool) {
	f := st.field(key)
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

func (m *Model) objectCases(u *Type, g *PickGroup) error {
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
		if err := m.scoreCase(u, c); err != nil {
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
		if err := m.scoreCase(u, c); err != nil {
			return err
		}
		g.Cases = append(g.Cases, c)
	}
	return nil
}

// scoreCase fills the key masks of an object case and checks that every
// pair of variants the masks cannot separate has a rule.
func (m *Model) scoreCase(u *Type, c *PickCase) error {
	idx := map[string]int{}
	keyOf := func(k string) (uint64, error) {
		i, ok := idx[k]
		if !ok {
			if len(c.Keys) == 64 {
				return 0, errorf(u.Pos, "union %s: more than 64 distinct properties to score", u.Name)
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
	return m.rulesFor(u, c, len(c.Variants) > 1)
}

// rulesFor attaches the override rules that concern the case's variants and
// fails when two variants with the same required properties have none.
func (m *Model) rulesFor(u *Type, c *PickCase, check bool) error {
	in := map[string]bool{}
	for _, vi := range c.Variants {
		in[u.Variants[vi].Name()] = true
	}
	for i := range pickRules {
		r := &pickRules[i]
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
				return errorf(u.Pos, "union %s: variants %s and %s have %s and nothing else tells them apart: add a PickRule to the override table", u.Name, na, nb, what)
			}
		}
	}
	return nil
}
