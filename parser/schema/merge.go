package schema

import (
	"sort"

	"github.com/mcpgen/mcpgen/model"
)

// merge merges the lowered versions, newest first so that the newest shape
// and order lead, into the named types of one model, keyed by name; a
// definition renamed between versions keeps its old name as a deprecated
// alias.
func merge(vers []*version, versions []string) (map[string]*model.Type, error) {
	byName := map[string]*model.Type{}
	mg := &merger{vers: vers}
	var names []string
	seen := map[string]bool{}
	for i := len(vers) - 1; i >= 0; i-- {
		for _, n := range vers[i].order {
			if !seen[n] && vers[i].types[n] != nil {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		var merged *model.Type
		for i := len(vers) - 1; i >= 0; i-- {
			t := vers[i].types[n]
			if t == nil {
				continue
			}
			if merged == nil {
				merged = t
				continue
			}
			var err error
			if merged, err = mergeNamed(merged, t, mg); err != nil {
				return nil, err
			}
		}
		byName[n] = merged
	}
	for old, cur := range renames {
		var vs model.VersionSet
		for _, ver := range vers {
			if _, ok := ver.doc.Lookup(old); ok {
				vs |= model.Only(ver.v)
			}
		}
		if vs == 0 || byName[cur] == nil {
			continue
		}
		// When the newest version given still uses the old name, no version
		// here says when the name changed.
		doc := old + " is the name " + cur + " has in the older versions of the schema."
		if next := int(vs.Newest()) + 1; next < len(versions) {
			doc = old + " is the name " + cur + " had before " + versions[next] + "."
		}
		byName[old] = &model.Type{Kind: model.Alias, Name: old, Target: cur, Versions: vs, Pos: byName[cur].Pos,
			Doc: doc, Deprecated: "use " + cur + "."}
	}
	return byName, nil
}

type merger struct {
	vers []*version
}

// lookup finds a named type in the newest version that has it.
func (mg *merger) lookup(name string) *model.Type {
	if mg == nil {
		return nil
	}
	for i := len(mg.vers) - 1; i >= 0; i-- {
		if t := mg.vers[i].resolve(name); t != nil {
			return t
		}
	}
	return nil
}

// fold merges hoisted inline types into the definitions that later versions
// put in their place: ListToolsRequest.params is an inline object in
// 2024-11-05 and PaginatedRequestParams from 2025-11-25, so the inline type
// becomes a version of PaginatedRequestParams.
func fold(vers []*version) {
	into := map[string]string{}
	for changed := true; changed; {
		changed = false
		spots := map[string]map[string]model.Version{} // spot → ref target → newest version
		isDef := map[string]bool{}
		// coexist reports names defined side by side in one version
		// that do not merge: those are different types, never folded
		// together.
		coexist := func(a, b string) bool {
			for _, ver := range vers {
				ta, tb := ver.types[a], ver.types[b]
				if ta != nil && tb != nil {
					if _, err := mergeNamed(ta, tb, &merger{vers: []*version{ver}}); err != nil {
						return true
					}
				}
			}
			return false
		}
		for _, ver := range vers {
			for _, n := range ver.order {
				t := ver.types[n]
				if t == nil {
					continue
				}
				if !t.Synthetic {
					isDef[n] = true
				}
				if t.Kind != model.Struct {
					continue
				}
				for _, f := range t.Fields {
					target := refTarget(f.Type)
					if target == "" {
						continue
					}
					spot := n + "." + f.JSON
					if spots[spot] == nil {
						spots[spot] = map[string]model.Version{}
					}
					spots[spot][target] = ver.v
				}
			}
		}
		var spotNames []string
		for s := range spots {
			spotNames = append(spotNames, s)
		}
		sort.Strings(spotNames)
		for _, s := range spotNames {
			targets := spots[s]
			if len(targets) != 2 {
				continue
			}
			var def, syn []string
			for t := range targets {
				if isDef[t] {
					def = append(def, t)
				} else {
					syn = append(syn, t)
				}
			}
			switch {
			case len(def)+len(syn) == 2 && coexist(spotPair(targets)):
				// Distinct types in one version: the override table decides.
			case len(def) == 1 && len(syn) == 1 && into[syn[0]] == "":
				into[syn[0]] = def[0]
				changed = true
			case len(syn) == 2:
				// Two inline types in one place, named after parents that
				// were renamed: the newer name wins.
				older, newer := syn[0], syn[1]
				if targets[older] > targets[newer] {
					older, newer = newer, older
				}
				if into[older] == "" && targets[older] != targets[newer] {
					into[older] = newer
					changed = true
				}
			}
		}
		if changed {
			for _, ver := range vers {
				ver.applyFold(into)
			}
		}
	}
}

func spotPair(targets map[string]model.Version) (string, string) {
	var names []string
	for n := range targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names[0], names[1]
}

func refTarget(t *model.Type) string {
	for t != nil && (t.Kind == model.Array || t.Kind == model.Map) {
		t = t.Elem
	}
	if t != nil && t.Kind == model.Ref {
		return t.Target
	}
	return ""
}

func (ver *version) applyFold(into map[string]string) {
	for from, to := range into {
		t := ver.types[from]
		if t == nil {
			continue
		}
		delete(ver.types, from)
		if existing := ver.types[to]; existing != nil {
			if merged, err := mergeNamed(existing, t, nil); err == nil {
				ver.types[to] = merged
			} else {
				// Keep the definition; the merge will report the mismatch.
				ver.types[from] = t
				continue
			}
		} else {
			moved := *t
			moved.Name = to
			ver.types[to] = &moved
			ver.order = append(ver.order, to)
		}
	}
	var walk func(t *model.Type)
	walk = func(t *model.Type) {
		if t == nil {
			return
		}
		if (t.Kind == model.Ref || t.Kind == model.Alias) && into[t.Target] != "" && ver.types[t.Target] == nil {
			t.Target = into[t.Target]
		}
		walk(t.Elem)
		walk(t.Extra)
		for _, f := range t.Fields {
			walk(f.Type)
		}
		for _, v := range t.Variants {
			walk(v.Type)
		}
	}
	for _, n := range ver.order {
		walk(ver.types[n])
	}
}

// mergeNamed merges an older version of a named type into a newer one.
func mergeNamed(a, b *model.Type, mg *merger) (*model.Type, error) {
	out := *a
	out.Versions |= b.Versions
	out.Synthetic = a.Synthetic && b.Synthetic
	if out.Doc == "" {
		out.Doc = b.Doc
	}
	switch {
	case a.Kind == model.Union && b.Kind == model.Alias, a.Kind == model.Union && b.Kind == model.Ref:
		return addVariant(&out, b.Target, b.Versions, b.Pos)
	case a.Kind == model.Alias && b.Kind == model.Union, a.Kind == model.Ref && b.Kind == model.Union:
		u := *b
		u.Versions |= a.Versions
		u.Name, u.Doc, u.Pos = a.Name, out.Doc, a.Pos
		return addVariant(&u, a.Target, a.Versions, a.Pos)
	case a.Kind != b.Kind && (a.Kind == model.Raw || b.Kind == model.Raw):
		t, err := mergeExpr(a.Name, "", a, b, mg)
		if err != nil {
			return nil, err
		}
		t.Name, t.Versions, t.Doc, t.Pos, t.Synthetic = out.Name, out.Versions, out.Doc, out.Pos, out.Synthetic
		return t, nil
	case a.Kind != b.Kind:
		return nil, model.Errorf(a.Pos, "%s is a %s here and a %s at %s: add an entry to the override table", a.Name, a.Kind, b.Kind, b.Pos)
	}
	switch a.Kind {
	case model.Struct:
		out.Fields = nil
		for _, f := range a.Fields {
			c := *f
			out.Fields = append(out.Fields, &c)
		}
		for _, f := range b.Fields {
			old := out.Field(f.JSON)
			if old == nil {
				c := *f
				out.Fields = append(out.Fields, &c)
				continue
			}
			t, err := mergeExpr(a.Name, f.JSON, old.Type, f.Type, mg)
			if err != nil {
				return nil, err
			}
			old.Type = t
			old.Versions |= f.Versions
			old.Required |= f.Required
			old.ObjectIn |= f.ObjectIn
			if old.Doc == "" {
				old.Doc = f.Doc
			}
		}
		switch {
		case a.Extra == nil:
			out.Extra = b.Extra
		case b.Extra != nil:
			t, err := mergeExpr(a.Name, "additionalProperties", a.Extra, b.Extra, mg)
			if err != nil {
				return nil, err
			}
			out.Extra = t
		}
	case model.Union:
		out.Variants = nil
		for _, v := range a.Variants {
			c := *v
			out.Variants = append(out.Variants, &c)
		}
		for _, v := range b.Variants {
			found := false
			for _, o := range out.Variants {
				if sameVariant(o.Type, v.Type, mg) {
					o.Versions |= v.Versions
					found = true
				}
			}
			if !found {
				c := *v
				out.Variants = append(out.Variants, &c)
			}
		}
	case model.Enum:
		out.Values = nil
		for _, v := range a.Values {
			c := *v
			out.Values = append(out.Values, &c)
		}
		for _, v := range b.Values {
			found := false
			for _, o := range out.Values {
				if o.Value == v.Value {
					o.Versions |= v.Versions
					found = true
				}
			}
			if !found {
				c := *v
				out.Values = append(out.Values, &c)
			}
		}
	case model.Alias:
		if a.Target != b.Target {
			return nil, model.Errorf(a.Pos, "%s names %s here and %s at %s", a.Name, a.Target, b.Target, b.Pos)
		}
	default:
		t, err := mergeExpr(a.Name, "", a, b, mg)
		if err != nil {
			return nil, err
		}
		t.Name, t.Versions, t.Doc, t.Pos = out.Name, out.Versions, out.Doc, out.Pos
		return t, nil
	}
	return &out, nil
}

func sameVariant(a, b *model.Type, mg *merger) bool {
	if a.Kind == model.Ref && b.Kind == model.Ref {
		return a.Target == b.Target
	}
	prim := func(t *model.Type) model.Prim {
		if t.Kind == model.Ref {
			t = mg.lookup(t.Target)
		}
		if t != nil && t.Kind == model.Primitive {
			return t.Prim
		}
		return 0
	}
	pa := prim(a)
	return pa != 0 && pa == prim(b)
}

func addVariant(u *model.Type, target string, vs model.VersionSet, pos model.Pos) (*model.Type, error) {
	out := *u
	out.Variants = nil
	found := false
	for _, v := range u.Variants {
		c := *v
		if v.Type.Kind == model.Ref && v.Type.Target == target {
			c.Versions |= vs
			found = true
		}
		out.Variants = append(out.Variants, &c)
	}
	if !found {
		out.Variants = append(out.Variants, &model.Variant{Type: &model.Type{Kind: model.Ref, Target: target, Pos: pos}, Versions: vs})
	}
	return &out, nil
}

// mergeExpr merges two versions of an unnamed type found at owner.field:
// equal shapes merge, a shape that contains the other widens it, anything
// else needs an override.
func mergeExpr(owner, field string, a, b *model.Type, mg *merger) (*model.Type, error) {
	at := owner
	if field != "" {
		at += "." + field
	}
	if w, ok := widenFor(owner, field); ok {
		return &model.Type{Kind: model.Raw, RawKind: w.To, Pos: a.Pos, Doc: a.Doc}, nil
	}
	if k, ok := keepFor(owner, field); ok {
		return &model.Type{Kind: model.Ref, Target: k.Target, Pos: a.Pos, Doc: a.Doc}, nil
	}
	if a.Kind == model.Raw || b.Kind == model.Raw {
		r, o := a, b
		if r.Kind != model.Raw {
			r, o = b, a
		}
		out := *r
		if r.RawKind == model.AnyObject && o.Kind == model.Ref && mg.openStruct(o.Target) {
			// An open object in one version and a definition that accepts
			// unknown members in another: the definition keeps its typing.
			// Its fields exist only in its own versions, so nothing more is
			// checked where the property was open.
			c := *o
			if c.Doc == "" {
				c.Doc = r.Doc
			}
			return &c, nil
		}
		if r.RawKind == model.AnyValue || isObjectShape(o, mg) {
			if a.Doc != "" {
				out.Doc = a.Doc
			}
			if o.Kind == model.Raw && o.RawKind == model.AnyValue {
				out.RawKind = model.AnyValue
			}
			return &out, nil
		}
		return nil, model.Errorf(a.Pos, "%s: a JSON object here and a %s at %s; neither contains the other: add a widening to the override table", at, o.Kind, b.Pos)
	}
	if a.Kind != b.Kind {
		if u := unionHolding(a, b, mg); u != nil {
			return u, nil
		}
		return nil, model.Errorf(a.Pos, "%s is a %s here and a %s at %s: add an entry to the override table", at, a.Kind, b.Kind, b.Pos)
	}
	out := *a
	if out.Doc == "" {
		out.Doc = b.Doc
	}
	switch a.Kind {
	case model.Ref:
		if a.Target == b.Target {
			return &out, nil
		}
		if u := unionHolding(a, b, mg); u != nil {
			return u, nil
		}
		// An inline object whose place a definition takes in another
		// version widens to the definition when the definition accepts
		// every property it declares.
		for _, p := range [][2]*model.Type{{a, b}, {b, a}} {
			def, inline := p[0], p[1]
			if mg.synthetic(inline.Target) && !mg.synthetic(def.Target) && mg.contains(def, inline, 0) {
				c := *def
				return &c, nil
			}
		}
		return nil, model.Errorf(a.Pos, "%s is %s here and %s at %s: add an entry to the override table", at, a.Target, b.Target, b.Pos)
	case model.Array, model.Map:
		elem, err := mergeExpr(owner, field+"[]", a.Elem, b.Elem, mg)
		if err != nil {
			return nil, err
		}
		out.Elem = elem
		if b.MinItems == nil {
			out.MinItems = nil
		}
		if b.MaxItems == nil {
			out.MaxItems = nil
		}
		return &out, nil
	case model.Primitive:
		if a.Prim != b.Prim {
			if (a.Prim == model.Integer && b.Prim == model.Number) || (a.Prim == model.Number && b.Prim == model.Integer) {
				out.Prim = model.Number
				return &out, nil
			}
			return nil, model.Errorf(a.Pos, "%s is %s here and %s at %s", at, a.Prim, b.Prim, b.Pos)
		}
		if a.Const != b.Const {
			return nil, model.Errorf(a.Pos, "%s is the constant %s here and %s at %s", at, a.Const, b.Const, b.Pos)
		}
		out.Nullable = a.Nullable || b.Nullable
		if a.Format != b.Format {
			out.Format = "" // widen: the version without a format accepts more.
		}
		return &out, nil
	}
	return nil, model.Errorf(a.Pos, "%s: cannot merge two %s types", at, a.Kind)
}

// synthetic reports whether no version defines name: it is an inline type
// named by lowering.
func (mg *merger) synthetic(name string) bool {
	if mg == nil {
		return false
	}
	found := false
	for _, ver := range mg.vers {
		if t := ver.types[name]; t != nil {
			if !t.Synthetic {
				return false
			}
			found = true
		}
	}
	return found
}

// contains reports whether every value small describes is one big
// accepts, requiredness aside (it is kept per version).
func (mg *merger) contains(big, small *model.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	if big.Kind == model.Ref && small.Kind == model.Ref && big.Target == small.Target {
		return true
	}
	if big.Kind == model.Ref {
		if big = mg.lookup(big.Target); big == nil {
			return false
		}
	}
	if small.Kind == model.Ref {
		if small = mg.lookup(small.Target); small == nil {
			return false
		}
	}
	if big.Kind == model.Raw {
		return big.RawKind == model.AnyValue || isObjectShape(small, mg)
	}
	if big.Kind != small.Kind {
		return false
	}
	switch big.Kind {
	case model.Struct:
		for _, f := range small.Fields {
			bf := big.Field(f.JSON)
			if bf == nil || !mg.contains(bf.Type, f.Type, depth+1) {
				return false
			}
		}
		return true
	case model.Array, model.Map:
		return mg.contains(big.Elem, small.Elem, depth+1)
	case model.Primitive:
		return big.Prim == small.Prim || (big.Prim == model.Number && small.Prim == model.Integer)
	case model.Enum:
		for _, v := range small.Values {
			found := false
			for _, w := range big.Values {
				found = found || w.Value == v.Value
			}
			if !found {
				return false
			}
		}
		return true
	}
	return false
}

// openStruct reports whether the named type is a struct that keeps
// members it does not name.
func (mg *merger) openStruct(name string) bool {
	t := mg.lookup(name)
	return t != nil && t.Kind == model.Struct && t.Extra != nil && t.Extra.Kind == model.Raw && t.Extra.RawKind == model.AnyValue
}

// isObjectShape reports whether t always describes a JSON object.
func isObjectShape(t *model.Type, mg *merger) bool {
	switch t.Kind {
	case model.Struct, model.Map:
		return true
	case model.Raw:
		return t.RawKind == model.AnyObject
	case model.Ref:
		n := mg.lookup(t.Target)
		return n != nil && n.Kind != model.Ref && isObjectShape(n, mg)
	}
	return false
}

// unionHolding returns the side that is a reference to a union listing the
// other side as a variant.
func unionHolding(a, b *model.Type, mg *merger) *model.Type {
	for _, p := range [][2]*model.Type{{a, b}, {b, a}} {
		u, o := p[0], p[1]
		if u.Kind != model.Ref || o.Kind != model.Ref {
			continue
		}
		n := mg.lookup(u.Target)
		if n == nil || n.Kind != model.Union {
			continue
		}
		for _, v := range n.Variants {
			if v.Type.Kind == model.Ref && v.Type.Target == o.Target {
				c := *u
				return &c
			}
		}
	}
	return nil
}
