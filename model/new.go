package model

import (
	"fmt"
	"sort"
)

// New returns the model of the given protocol versions, named types and
// methods, as a front end lowered them: every type, field, variant, value
// and method records the versions it exists in, and every reference names
// one of types.
//
// New takes types and methods over: it sorts them by name, checks the
// references, gives every union its Pick (choosing by ov where the generic
// rules cannot) and names the members that no front end names (enum value
// constants and field setters), failing with an *Error when two generated
// names collide.
func New(versions []string, types []*Type, methods []*Method, ov Overrides) (*Model, error) {
	if err := CheckVersions(versions); err != nil {
		return nil, err
	}
	m := &Model{Versions: versions, Types: types, Methods: methods, byName: map[string]*Type{}}
	for _, t := range types {
		if t.Name == "" {
			return nil, Errorf(t.Pos, "a %s type without a name among the named types", t.Kind)
		}
		if old := m.byName[t.Name]; old != nil {
			return nil, Errorf(t.Pos, "type %s is given twice (also at %s)", t.Name, old.Pos)
		}
		m.byName[t.Name] = t
	}
	sort.Slice(m.Types, func(i, j int) bool { return m.Types[i].Name < m.Types[j].Name })
	sort.Slice(m.Methods, func(i, j int) bool { return m.Methods[i].Name < m.Methods[j].Name })
	if err := m.checkRefs(); err != nil {
		return nil, err
	}
	if err := m.analyze(ov); err != nil {
		return nil, err
	}
	if err := m.nameMembers(); err != nil {
		return nil, err
	}
	return m, nil
}

// CheckVersions reports whether versions can be the versions of a model:
// at least one and at most 32 (a VersionSet has 32 bits), distinct and
// in ascending order. A front end that numbers versions while it lowers
// checks them before it starts.
func CheckVersions(versions []string) error {
	if len(versions) == 0 {
		return fmt.Errorf("model: no versions")
	}
	if len(versions) > 32 {
		return fmt.Errorf("model: at most 32 versions")
	}
	for i := 1; i < len(versions); i++ {
		if versions[i] <= versions[i-1] {
			return fmt.Errorf("model: versions must be distinct and in ascending order, got %s after %s", versions[i], versions[i-1])
		}
	}
	return nil
}

// checkRefs makes sure every reference names a type of the model.
func (m *Model) checkRefs() error {
	var check func(t *Type, at string) error
	check = func(t *Type, at string) error {
		if t == nil {
			return nil
		}
		if (t.Kind == Ref || t.Kind == Alias) && m.byName[t.Target] == nil {
			return Errorf(t.Pos, "%s refers to %s, which no version defines", at, t.Target)
		}
		if err := check(t.Elem, at+"[]"); err != nil {
			return err
		}
		if err := check(t.Extra, at+"{}"); err != nil {
			return err
		}
		for _, f := range t.Fields {
			if err := check(f.Type, at+"."+f.JSON); err != nil {
				return err
			}
		}
		for _, v := range t.Variants {
			if err := check(v.Type, at+"|"); err != nil {
				return err
			}
		}
		return nil
	}
	for _, t := range m.Types {
		if err := check(t, t.Name); err != nil {
			return err
		}
	}
	return nil
}

// structMethods are the exported methods the protocol package declares on
// every struct; no field or setter may take their names.
var structMethods = []string{"MarshalJSON", "UnmarshalJSON", "Validate", "ValidateVersion"}

// nameMembers gives enum values and field setters Go names and checks that
// no generated name is used twice: in the package, or among the fields and
// methods of a struct.
func (m *Model) nameMembers() error {
	used := map[string]string{}
	for _, t := range m.Types {
		used[t.Name] = "type " + t.Name
	}
	for _, t := range m.Types {
		if t.Kind == Struct {
			// seen maps each name the struct uses to what uses it.
			seen := map[string]string{"Extra": "the field of the properties the schema does not name"}
			for _, name := range structMethods {
				seen[name] = "a method of every struct"
			}
			for _, f := range t.Fields {
				if prev, dup := seen[f.GoName]; dup {
					return Errorf(f.Pos, "%s: property %q becomes the Go field %s, already %s", t.Name, f.JSON, f.GoName, prev)
				}
				seen[f.GoName] = fmt.Sprintf("the field of property %q", f.JSON)
			}
			for _, f := range t.Fields {
				if !m.needsSetter(t, f) {
					continue
				}
				name := "Set" + f.GoName
				if prev, dup := seen[name]; dup {
					return Errorf(f.Pos, "%s: property %q needs the setter %s, already %s", t.Name, f.JSON, name, prev)
				}
				seen[name] = fmt.Sprintf("the setter of property %q", f.JSON)
				f.Setter = name
			}
		}
		if t.Kind != Enum {
			continue
		}
		for _, v := range t.Values {
			v.GoName = t.Name + GoName(v.Value)
			if prev, dup := used[v.GoName]; dup {
				return Errorf(t.Pos, "enum value %q of %s becomes %s, already %s", v.Value, t.Name, v.GoName, prev)
			}
			used[v.GoName] = "a value of " + t.Name
		}
	}
	return nil
}

// needsSetter reports whether field f of struct t needs a setter: an
// integer, number or boolean property, whose zero is a value like any
// other, that some version requires but that a value built in Go does not
// always carry (see Type.AlwaysCarried), so that assigning it zero would
// read as absent. A nullable, constant or string property needs none: nil,
// the constant and "" say what they mean.
func (m *Model) needsSetter(t *Type, f *Field) bool {
	if f.Required == 0 || t.AlwaysCarried(f) {
		return false
	}
	p := m.Resolve(f.Type)
	return p != nil && p.Kind == Primitive && !p.Nullable && p.Const == "" && p.Prim != String
}
