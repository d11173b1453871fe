// Package diff compares two protocol models, each built from one schema
// version, and lists what changed for a Go user of the protocol package:
// methods, types, fields, union variants, enum values and error codes.
package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/model"
)

// Op is what happened to a thing.
type Op string

// The operations.
const (
	Added   Op = "added"
	Removed Op = "removed"
	Changed Op = "changed"
)

// Section is what kind of thing changed; the report lists sections in this
// order.
type Section string

// The sections.
const (
	Methods    Section = "method"
	ErrorCodes Section = "error code"
	Types      Section = "type"
	Fields     Section = "field"
	Variants   Section = "variant"
	EnumValues Section = "enum value"
)

var sectionOrder = []Section{Methods, ErrorCodes, Types, Fields, Variants, EnumValues}

// Change is one difference.
type Change struct {
	Section Section `json:"section"`
	Op      Op      `json:"op"`
	// Name is the method, type, or Type.field / Union|Variant / Enum=value.
	Name string `json:"name"`
	// Aspect says what changed for Op Changed: kind, type, required,
	// params, result, direction, notification, code.
	Aspect string `json:"aspect,omitempty"`
	// Old and New are the aspect's values; for Added and Removed, New or Old
	// describes the thing.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// Report is every change from Old to New.
type Report struct {
	Old     string   `json:"old"`
	New     string   `json:"new"`
	Changes []Change `json:"changes"`
}

// Compare lists what changed from old to new. Each model must hold one
// version. oldName and newName label the report.
func Compare(oldName string, old *model.Model, newName string, new *model.Model) *Report {
	r := &Report{Old: oldName, New: newName, Changes: []Change{}}
	r.methods(old, new)
	r.errorCodes(old, new)
	r.types(old, new)
	slices.SortStableFunc(r.Changes, func(a, b Change) int {
		return cmp.Or(
			cmp.Compare(slices.Index(sectionOrder, a.Section), slices.Index(sectionOrder, b.Section)),
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(opOrder(a.Op), opOrder(b.Op)),
			cmp.Compare(a.Aspect, b.Aspect),
		)
	})
	return r
}

func opOrder(op Op) int { return slices.Index([]Op{Removed, Added, Changed}, op) }

func (r *Report) add(c Change) { r.Changes = append(r.Changes, c) }

// methods compares the method tables.
func (r *Report) methods(old, new *model.Model) {
	oldBy := map[string]*model.Method{}
	for _, m := range old.Methods {
		oldBy[m.Name] = m
	}
	newBy := map[string]*model.Method{}
	for _, m := range new.Methods {
		newBy[m.Name] = m
		o := oldBy[m.Name]
		if o == nil {
			r.add(Change{Section: Methods, Op: Added, Name: m.Name, New: methodSummary(m)})
			continue
		}
		for _, a := range []struct{ aspect, o, n string }{
			{"notification", kindOf(o), kindOf(m)},
			{"direction", o.Direction.String(), m.Direction.String()},
			{"params", orNone(o.Params), orNone(m.Params)},
			{"params required", yesNo(o.ParamsRequired != 0), yesNo(m.ParamsRequired != 0)},
			{"result", orNone(o.Result), orNone(m.Result)},
		} {
			if a.o != a.n {
				r.add(Change{Section: Methods, Op: Changed, Name: m.Name, Aspect: a.aspect, Old: a.o, New: a.n})
			}
		}
	}
	for _, m := range old.Methods {
		if newBy[m.Name] == nil {
			r.add(Change{Section: Methods, Op: Removed, Name: m.Name, Old: methodSummary(m)})
		}
	}
}

func kindOf(m *model.Method) string {
	if m.Notification {
		return "notification"
	}
	return "request"
}

func methodSummary(m *model.Method) string {
	s := kindOf(m) + ", " + m.Direction.String()
	if m.Params != "" {
		s += ", params " + m.Params
	}
	if m.Result != "" {
		s += ", result " + m.Result
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// errorCodes compares the codes that error types fix, keyed by type name.
func (r *Report) errorCodes(old, new *model.Model) {
	oc, nc := codes(old), codes(new)
	for _, name := range sortedKeys(nc) {
		switch o, ok := oc[name]; {
		case !ok:
			r.add(Change{Section: ErrorCodes, Op: Added, Name: name, New: nc[name]})
		case o != nc[name]:
			r.add(Change{Section: ErrorCodes, Op: Changed, Name: name, Aspect: "code", Old: o, New: nc[name]})
		}
	}
	for _, name := range sortedKeys(oc) {
		if _, ok := nc[name]; !ok {
			r.add(Change{Section: ErrorCodes, Op: Removed, Name: name, Old: oc[name]})
		}
	}
}

// codes maps each error type whose schema fixes a code (directly or in its
// error property) to that code, as the protocol package's Code constants do.
func codes(m *model.Model) map[string]string {
	out := map[string]string{}
	for _, t := range m.Types {
		if t.Kind != model.Struct || t.Synthetic || !strings.HasSuffix(t.Name, "Error") {
			continue
		}
		code := constOf(t, "code")
		if code == "" {
			if f := field(t, "error"); f != nil {
				if et := m.Resolve(f.Type); et != nil && et.Kind == model.Struct {
					code = constOf(et, "code")
				}
			}
		}
		if code != "" {
			out[t.Name] = code
		}
	}
	return out
}

func field(t *model.Type, json string) *model.Field {
	for _, f := range t.Fields {
		if f.JSON == json {
			return f
		}
	}
	return nil
}

func constOf(t *model.Type, json string) string {
	if f := field(t, json); f != nil && f.Type.Kind == model.Primitive {
		return f.Type.Const
	}
	return ""
}

// types compares the named types and, for those in both, their fields,
// variants and enum values.
func (r *Report) types(old, new *model.Model) {
	for _, t := range new.Types {
		o := old.Lookup(t.Name)
		if o == nil {
			r.add(Change{Section: Types, Op: Added, Name: t.Name, New: t.Kind.String()})
			continue
		}
		if o.Kind != t.Kind {
			r.add(Change{Section: Types, Op: Changed, Name: t.Name, Aspect: "kind", Old: o.Kind.String(), New: t.Kind.String()})
			continue
		}
		switch t.Kind {
		case model.Struct:
			r.fields(t.Name, o, t)
		case model.Union:
			r.variants(t.Name, o, t)
		case model.Enum:
			r.enumValues(t.Name, o, t)
		default:
			if od, nd := describe(o), describe(t); od != nd {
				r.add(Change{Section: Types, Op: Changed, Name: t.Name, Aspect: "type", Old: od, New: nd})
			}
		}
	}
	for _, t := range old.Types {
		if new.Lookup(t.Name) == nil {
			r.add(Change{Section: Types, Op: Removed, Name: t.Name, Old: t.Kind.String()})
		}
	}
}

func (r *Report) fields(typ string, old, new *model.Type) {
	for _, f := range new.Fields {
		name := typ + "." + f.JSON
		o := field(old, f.JSON)
		if o == nil {
			r.add(Change{Section: Fields, Op: Added, Name: name, New: fieldSummary(f)})
			continue
		}
		if od, nd := describe(o.Type), describe(f.Type); od != nd {
			r.add(Change{Section: Fields, Op: Changed, Name: name, Aspect: "type", Old: od, New: nd})
		}
		if or, nr := o.Required != 0, f.Required != 0; or != nr {
			r.add(Change{Section: Fields, Op: Changed, Name: name, Aspect: "required", Old: requiredness(or), New: requiredness(nr)})
		}
	}
	for _, f := range old.Fields {
		if field(new, f.JSON) == nil {
			r.add(Change{Section: Fields, Op: Removed, Name: typ + "." + f.JSON, Old: fieldSummary(f)})
		}
	}
}

func fieldSummary(f *model.Field) string {
	return describe(f.Type) + ", " + requiredness(f.Required != 0)
}

func requiredness(required bool) string {
	if required {
		return "required"
	}
	return "optional"
}

func (r *Report) variants(typ string, old, new *model.Type) {
	has := func(t *model.Type, name string) bool {
		return slices.ContainsFunc(t.Variants, func(v *model.Variant) bool { return v.Name() == name })
	}
	for _, v := range new.Variants {
		if !has(old, v.Name()) {
			r.add(Change{Section: Variants, Op: Added, Name: typ + "|" + v.Name()})
		}
	}
	for _, v := range old.Variants {
		if !has(new, v.Name()) {
			r.add(Change{Section: Variants, Op: Removed, Name: typ + "|" + v.Name()})
		}
	}
}

func (r *Report) enumValues(typ string, old, new *model.Type) {
	has := func(t *model.Type, value string) bool {
		return slices.ContainsFunc(t.Values, func(v *model.EnumValue) bool { return v.Value == value })
	}
	for _, v := range new.Values {
		if !has(old, v.Value) {
			r.add(Change{Section: EnumValues, Op: Added, Name: typ + "=" + v.Value})
		}
	}
	for _, v := range old.Values {
		if !has(new, v.Value) {
			r.add(Change{Section: EnumValues, Op: Removed, Name: typ + "=" + v.Value})
		}
	}
}

// describe writes a type the way a Go user would recognise it: the named
// type, or the shape of an anonymous one.
func describe(t *model.Type) string {
	if t == nil {
		return "none"
	}
	if t.Name != "" && t.Kind != model.Ref {
		return t.Name
	}
	switch t.Kind {
	case model.Ref, model.Alias:
		return t.Target
	case model.Primitive:
		s := t.Prim.String()
		if t.Const != "" {
			s += " " + t.Const
		}
		if t.Nullable {
			s += " or null"
		}
		return s
	case model.Array:
		return "[]" + describe(t.Elem)
	case model.Map:
		return "map[string]" + describe(t.Elem)
	case model.Raw:
		if t.RawKind == model.AnyObject {
			return "any object"
		}
		return "any"
	}
	return t.Kind.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
