package gosrc

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/model"
)

// lowerer turns go/types types into model values, sharing one model.Object
// per named struct type so that recursive types are found and referenced.
type lowerer struct {
	fset    *token.FileSet
	root    string               // the import path of the package being generated
	docs    map[token.Pos]string // field name position → its doc comment
	objects map[string]*model.Object
	ids     map[string]string // object ID → the type it names
	stack   []*model.Object   // structs being lowered, outermost first
	named   map[string]bool   // non-struct named types being lowered
}

func newLowerer(fset *token.FileSet, root string, files []*ast.File) *lowerer {
	l := &lowerer{
		fset:    fset,
		root:    root,
		docs:    map[token.Pos]string{},
		objects: map[string]*model.Object{},
		ids:     map[string]string{},
		named:   map[string]bool{},
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fd := range st.Fields.List {
				doc := fd.Doc
				if doc == nil {
					doc = fd.Comment
				}
				if doc == nil {
					continue
				}
				text := strings.TrimSpace(doc.Text())
				for _, name := range fd.Names {
					l.docs[name.Pos()] = fieldDescription(text, name.Name)
				}
				if len(fd.Names) == 0 { // embedded: the type's position
					l.docs[fd.Type.Pos()] = text
				}
			}
			return true
		})
	}
	return l
}

func (l *lowerer) pos(p token.Pos) model.SrcPos {
	position := l.fset.Position(p)
	if !position.IsValid() {
		return model.SrcPos{}
	}
	return model.SrcPos{File: baseName(position.Filename), Line: position.Line}
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// value lowers t, found at pos (used in messages) and reached as what
// (such as "field Name" or "the input").
func (l *lowerer) value(t types.Type, pos token.Pos, what string) (*model.Value, error) {
	fail := func(format string, args ...any) (*model.Value, error) {
		return nil, model.SrcErrorf(l.pos(pos), "%s: "+format, append([]any{what}, args...)...)
	}
	t = types.Unalias(t)
	switch t := t.(type) {
	case *types.Named:
		obj := t.Obj()
		path := ""
		if obj.Pkg() != nil {
			path = obj.Pkg().Path()
		}
		switch {
		case path == "time" && obj.Name() == "Time":
			return &model.Value{Kind: model.ValTime, Go: &model.GoType{Path: "time", Name: "Time"}}, nil
		case path == "encoding/json" && obj.Name() == "RawMessage":
			return &model.Value{Kind: model.ValRaw, Go: &model.GoType{Path: "encoding/json", Name: "RawMessage"}}, nil
		case path == "" && obj.Name() == "error":
			return fail("error values cannot be sent as JSON: use a string")
		}
		gt, err := l.goType(t, pos, what)
		if err != nil {
			return nil, err
		}
		if text, err := selfMarshaling(t); err != "" {
			return fail("%s", err)
		} else if text {
			return &model.Value{Kind: model.ValText, Go: gt}, nil
		}
		if st, ok := t.Underlying().(*types.Struct); ok {
			o, err := l.object(t, st, gt)
			if err != nil {
				return nil, err
			}
			return &model.Value{Kind: model.ValStruct, Go: gt, Object: o}, nil
		}
		key := types.TypeString(t, nil)
		if l.named[key] {
			return fail("%s refers to itself without a struct in between: wrap the recursion in a struct type", obj.Name())
		}
		l.named[key] = true
		v, err := l.value(t.Underlying(), pos, what)
		delete(l.named, key)
		if err != nil {
			return nil, err
		}
		v.Go = gt
		if v.Kind == model.ValString || v.Kind == model.ValInt || v.Kind == model.ValUint {
			v.Enum = enumOf(t, l.root)
		}
		return v, nil
	case *types.Basic:
		v := &model.Value{Go: &model.GoType{Name: t.Name()}}
		switch t.Kind() {
		case types.Bool:
			v.Kind = model.ValBool
		case types.String:
			v.Kind = model.ValString
		case types.Int:
			v.Kind = model.ValInt
		case types.Int8, types.Int16, types.Int32, types.Int64:
			v.Kind, v.Bits = model.ValInt, basicBits(t.Kind())
		case types.Uint, types.Uintptr:
			v.Kind = model.ValUint
		case types.Uint8, types.Uint16, types.Uint32, types.Uint64:
			v.Kind, v.Bits = model.ValUint, basicBits(t.Kind())
		case types.Float32:
			v.Kind, v.Bits = model.ValFloat, 32
		case types.Float64:
			v.Kind, v.Bits = model.ValFloat, 64
		case types.Complex64, types.Complex128:
			return fail("complex numbers have no JSON form: use two float64 fields")
		default:
			return fail("type %s has no JSON form", t.Name())
		}
		if t.Name() == "byte" || t.Name() == "rune" { // aliases: name the real type
			v.Go.Name = map[string]string{"byte": "uint8", "rune": "int32"}[t.Name()]
		}
		return v, nil
	case *types.Pointer:
		if _, ok := types.Unalias(t.Elem()).(*types.Pointer); ok {
			return fail("pointers to pointers are not supported: use one pointer")
		}
		elem, err := l.value(t.Elem(), pos, what)
		if err != nil {
			return nil, err
		}
		return &model.Value{Kind: model.ValPointer, Elem: elem}, nil
	case *types.Slice:
		if b, ok := types.Unalias(t.Elem()).(*types.Basic); ok && b.Kind() == types.Uint8 {
			return &model.Value{Kind: model.ValBytes}, nil
		}
		elem, err := l.value(t.Elem(), pos, what+" element")
		if err != nil {
			return nil, err
		}
		return &model.Value{Kind: model.ValSlice, Elem: elem}, nil
	case *types.Array:
		elem, err := l.value(t.Elem(), pos, what+" element")
		if err != nil {
			return nil, err
		}
		return &model.Value{Kind: model.ValArray, Elem: elem, Len: int(t.Len())}, nil
	case *types.Map:
		key, err := l.value(t.Key(), pos, what+" key")
		if err != nil {
			return nil, err
		}
		if key.Kind != model.ValString {
			return fail("map keys must be strings to become JSON objects: use map[string]T")
		}
		elem, err := l.value(t.Elem(), pos, what+" value")
		if err != nil {
			return nil, err
		}
		return &model.Value{Kind: model.ValMap, Key: key, Elem: elem}, nil
	case *types.Interface:
		if t.Empty() {
			return &model.Value{Kind: model.ValAny}, nil
		}
		return fail("interfaces with methods cannot be decoded from JSON: use a concrete type, or any")
	case *types.Struct:
		return fail("anonymous struct types are not supported: declare a named struct type")
	case *types.Chan:
		return fail("channels cannot be sent as JSON: remove the field or tag it json:\"-\"")
	case *types.Signature:
		return fail("functions cannot be sent as JSON: remove the field or tag it json:\"-\"")
	case *types.TypeParam:
		return fail("type parameter %s is not instantiated: use a concrete type", t.Obj().Name())
	}
	return fail("type %s has no JSON form", t)
}

func basicBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	}
	return 64
}

// selfMarshaling reports whether the named type t has a text form, both
// MarshalText and UnmarshalText, in the method set of *T (which holds
// T's): such a type is a JSON string read and written through them, as
// encoding/json does. A type that marshals itself as JSON without a text
// form, or has half a text form, is refused with the message returned:
// its methods may write any JSON at all, so no schema can be derived for
// it. time.Time, json.RawMessage and error are handled before.
//
// A type with both forms takes its text form, whatever its MarshalJSON
// writes (*big.Int's is a number), so that its schema is one mcpgen can
// state; and a struct that embeds a type with a text form has that form
// too, its methods promoted, as encoding/json sees it.
func selfMarshaling(t *types.Named) (text bool, problem string) {
	ms := types.NewMethodSet(types.NewPointer(t))
	has := func(name string, sig func(*types.Signature) bool) bool {
		sel := ms.Lookup(nil, name)
		if sel == nil {
			return false
		}
		fn, ok := sel.Obj().(*types.Func)
		return ok && sig(fn.Signature())
	}
	marshals := func(s *types.Signature) bool { // func() ([]byte, error)
		return s.Params().Len() == 0 && s.Results().Len() == 2 && isByteSlice(s.Results().At(0).Type()) && isError(s.Results().At(1).Type())
	}
	unmarshals := func(s *types.Signature) bool { // func([]byte) error
		return s.Params().Len() == 1 && s.Results().Len() == 1 && isByteSlice(s.Params().At(0).Type()) && isError(s.Results().At(0).Type())
	}
	mt, ut := has("MarshalText", marshals), has("UnmarshalText", unmarshals)
	mj, uj := has("MarshalJSON", marshals), has("UnmarshalJSON", unmarshals)
	name := typeName(t)
	switch {
	case mt && ut:
		return true, ""
	case mt || ut:
		have, lack := "MarshalText", "UnmarshalText"
		if ut {
			have, lack = lack, have
		}
		return false, fmt.Sprintf("%s has %s but no %s: mcpgen reads and writes a type that marshals itself as text through both; add %s", name, have, lack, lack)
	case mj || uj:
		iface := "json.Marshaler and json.Unmarshaler"
		if !mj {
			iface = "json.Unmarshaler"
		} else if !uj {
			iface = "json.Marshaler"
		}
		return false, fmt.Sprintf("%s implements %s: mcpgen cannot know its schema; give it a text form (MarshalText/UnmarshalText) or write the tool's schema with input-schema=FILE.json (output-schema=FILE.json for a result)", name, iface)
	}
	return false, ""
}

// goType names a named type, lowering its type arguments.
func (l *lowerer) goType(t *types.Named, pos token.Pos, what string) (*model.GoType, error) {
	obj := t.Obj()
	gt := &model.GoType{Name: obj.Name()}
	if obj.Pkg() != nil {
		gt.Path = obj.Pkg().Path()
	}
	if obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() {
		return nil, model.SrcErrorf(l.pos(pos), "%s: type %s is declared inside a function: declare it at package level", what, obj.Name())
	}
	if args := t.TypeArgs(); args != nil {
		for i := range args.Len() {
			a, err := l.value(args.At(i), pos, what+" type argument")
			if err != nil {
				return nil, err
			}
			gt.Args = append(gt.Args, a)
		}
	}
	return gt, nil
}

// enumOf returns the constants of type t declared in t's package, in
// declaration order. Types of the standard library (time.Duration and its
// units, say) are left alone: their constants are not a list of choices.
func enumOf(t *types.Named, root string) []model.Literal {
	pkg := t.Obj().Pkg()
	if pkg == nil || pkg.Path() != root && isStd(pkg.Path()) {
		return nil
	}
	var consts []*types.Const
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), t) {
			consts = append(consts, c)
		}
	}
	sort.SliceStable(consts, func(i, j int) bool { return consts[i].Pos() < consts[j].Pos() })
	var out []model.Literal
	seen := map[string]bool{}
	for _, c := range consts {
		var l model.Literal
		switch c.Val().Kind() {
		case constant.String:
			l = model.Literal{Kind: model.LitString, S: constant.StringVal(c.Val()), Name: c.Name()}
		case constant.Int:
			i, ok := constant.Int64Val(c.Val())
			if !ok {
				continue
			}
			l = model.Literal{Kind: model.LitInt, I: i, Name: c.Name()}
		default:
			continue
		}
		if seen[l.JSON()] { // aliases of one value appear once
			continue
		}
		seen[l.JSON()] = true
		out = append(out, l)
	}
	return out
}

// isStd reports whether path looks like a standard library package: no dot
// in its first element.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// object lowers a named struct type once; a type met again while it is
// being lowered is recursive, as is every struct between the two meetings.
func (l *lowerer) object(t *types.Named, st *types.Struct, gt *model.GoType) (*model.Object, error) {
	key := types.TypeString(t, nil)
	if o, ok := l.objects[key]; ok {
		for i := len(l.stack) - 1; i >= 0; i-- {
			if l.stack[i] == o {
				for _, s := range l.stack[i:] {
					s.Recursive = true
				}
				break
			}
		}
		return o, nil
	}
	o := &model.Object{ID: l.objectID(t, key), Go: gt, Pos: l.pos(t.Obj().Pos())}
	l.objects[key] = o
	l.stack = append(l.stack, o)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	props, err := l.properties(st, nil, 0, map[*types.Struct]bool{})
	if err != nil {
		return nil, err
	}
	o.Fields = props
	if gt.Path == l.root {
		o.Shape = l.shape(st)
	}
	return o, nil
}

// shape lists every field of st as Go declares it, for the generated
// guard that breaks the build when the struct changes without go generate
// being run again; nil when a field's type cannot be written from the
// model, which leaves the struct unguarded.
func (l *lowerer) shape(st *types.Struct) []*model.GoField {
	fields := make([]*model.GoField, st.NumFields())
	for i := range st.NumFields() {
		f := st.Field(i)
		if _, alias := f.Type().(*types.Alias); alias && f.Embedded() {
			return nil // embedded under the alias's name, which the model does not keep
		}
		t := l.shapeType(f.Type())
		if t == nil {
			return nil
		}
		fields[i] = &model.GoField{Name: f.Name(), Embedded: f.Embedded(), Type: t, Tag: st.Tag(i)}
	}
	return fields
}

// shapeType is a Go type as a model.Value that names it and nothing more,
// without lowering it (no rules, no objects, no errors): nil for a type
// the model cannot write, such as a channel, a function, a non-empty
// interface or an unexported type of another package.
func (l *lowerer) shapeType(t types.Type) *model.Value {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		obj := t.Obj()
		gt := &model.GoType{Name: obj.Name()}
		if obj.Pkg() != nil {
			gt.Path = obj.Pkg().Path()
			if gt.Path != l.root && !obj.Exported() || obj.Parent() != obj.Pkg().Scope() {
				return nil
			}
		}
		if args := t.TypeArgs(); args != nil {
			for i := range args.Len() {
				a := l.shapeType(args.At(i))
				if a == nil {
					return nil
				}
				gt.Args = append(gt.Args, a)
			}
		}
		return &model.Value{Kind: model.ValStruct, Go: gt}
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
			return nil
		}
		name := t.Name()
		if n, ok := map[string]string{"byte": "uint8", "rune": "int32"}[name]; ok {
			name = n
		}
		return &model.Value{Kind: model.ValString, Go: &model.GoType{Name: name}}
	case *types.Interface:
		if t.Empty() && !t.IsComparable() {
			return &model.Value{Kind: model.ValAny}
		}
	case *types.Pointer, *types.Slice, *types.Array, *types.Map:
		var v *model.Value
		switch t := t.(type) {
		case *types.Pointer:
			v = &model.Value{Kind: model.ValPointer, Elem: l.shapeType(t.Elem())}
		case *types.Slice:
			if isByteSlice(t) {
				return &model.Value{Kind: model.ValBytes} // written []byte
			}
			v = &model.Value{Kind: model.ValSlice, Elem: l.shapeType(t.Elem())}
		case *types.Array:
			v = &model.Value{Kind: model.ValArray, Elem: l.shapeType(t.Elem()), Len: int(t.Len())}
		case *types.Map:
			v = &model.Value{Kind: model.ValMap, Elem: l.shapeType(t.Elem()), Key: l.shapeType(t.Key())}
			if v.Key == nil {
				return nil
			}
		}
		if v.Elem == nil {
			return nil
		}
		return v
	}
	return nil
}

// objectID returns an identifier for a struct type unique in the package:
// its name, with its type arguments' names for an instantiation.
func (l *lowerer) objectID(t *types.Named, key string) string {
	var b strings.Builder
	b.WriteString(t.Obj().Name())
	if args := t.TypeArgs(); args != nil {
		for i := range args.Len() {
			b.WriteByte('_')
			for _, r := range types.TypeString(args.At(i), func(p *types.Package) string { return "" }) {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					b.WriteRune(r)
				}
			}
		}
	}
	id := b.String()
	for n := 2; l.ids[id] != "" && l.ids[id] != key; n++ {
		id = b.String() + "_" + strconv.Itoa(n)
	}
	l.ids[id] = key
	return id
}

// candidate is a property found while flattening embedded structs.
type candidate struct {
	prop   *model.Property
	depth  int
	tagged bool
	order  int
}

// properties lists the JSON properties of a struct as encoding/json sees
// them: embedded structs without a JSON name are flattened into their
// parent, and of several properties with one name the shallowest wins, a
// tagged one breaking ties, and a remaining tie hides them all.
func (l *lowerer) properties(st *types.Struct, path []string, depth int, visiting map[*types.Struct]bool) ([]*model.Property, error) {
	var cands []candidate
	if err := l.collect(st, path, depth, visiting, &cands); err != nil {
		return nil, err
	}
	byName := map[string][]int{}
	for i, c := range cands {
		byName[c.prop.JSONName] = append(byName[c.prop.JSONName], i)
	}
	var out []*model.Property
	for i, c := range cands {
		group := byName[c.prop.JSONName]
		if winner(cands, group) == i {
			out = append(out, c.prop)
		}
	}
	return out, nil
}

// winner returns the index of the candidate that encoding/json would keep
// among those sharing a name, or -1.
func winner(cands []candidate, group []int) int {
	minDepth := cands[group[0]].depth
	for _, i := range group {
		minDepth = min(minDepth, cands[i].depth)
	}
	var shallow, tagged []int
	for _, i := range group {
		if cands[i].depth == minDepth {
			shallow = append(shallow, i)
			if cands[i].tagged {
				tagged = append(tagged, i)
			}
		}
	}
	switch {
	case len(tagged) == 1:
		return tagged[0]
	case len(tagged) == 0 && len(shallow) == 1:
		return shallow[0]
	}
	return -1
}

func (l *lowerer) collect(st *types.Struct, path []string, depth int, visiting map[*types.Struct]bool, cands *[]candidate) error {
	visiting[st] = true
	defer delete(visiting, st)
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		jsonTag, hasJSON := tag.Lookup("json")
		if jsonTag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(jsonTag, ",")
		omitEmpty, omitZero := hasOpt(opts, "omitempty"), hasOpt(opts, "omitzero")
		if hasOpt(opts, "string") {
			return model.SrcErrorf(l.pos(f.Pos()), "field %s: the json \",string\" option is not supported: use a string field", f.Name())
		}
		fieldPath := append(append([]string(nil), path...), f.Name())
		if f.Embedded() {
			ft := types.Unalias(f.Type())
			if p, ok := ft.(*types.Pointer); ok {
				if _, isStruct := p.Elem().Underlying().(*types.Struct); isStruct && name == "" {
					return model.SrcErrorf(l.pos(f.Pos()), "embedded field *%s: embedded pointers are not supported: embed the struct by value", typeName(p.Elem()))
				}
			}
			if inner, ok := ft.Underlying().(*types.Struct); ok && name == "" && !isSpecial(ft) {
				if visiting[inner] {
					continue
				}
				if err := l.collect(inner, fieldPath, depth+1, visiting, cands); err != nil {
					return err
				}
				continue
			}
			if !f.Exported() {
				continue
			}
		} else if !f.Exported() {
			continue
		}
		_ = hasJSON
		what := "field " + f.Name()
		v, err := l.value(f.Type(), f.Pos(), what)
		if err != nil {
			return err
		}
		jsonName := name
		if jsonName == "" {
			jsonName = f.Name()
		}
		prop := &model.Property{
			Pos:         l.pos(f.Pos()),
			GoPath:      fieldPath,
			JSONName:    jsonName,
			Description: l.docs[f.Pos()],
			Required:    v.Kind != model.ValPointer && !omitEmpty && !omitZero,
			OmitEmpty:   omitEmpty,
			OmitZero:    omitZero,
			Value:       v,
		}
		if mcpTag, ok := tag.Lookup("mcp"); ok {
			target := v
			if v.Kind == model.ValPointer {
				target = v.Elem
			}
			rules, msg := parseRules(mcpTag, target)
			if msg == "" {
				msg = checkOptional(&rules, prop.Required)
			}
			if msg != "" {
				return model.SrcErrorf(prop.Pos, "field %s: mcp tag: %s", f.Name(), msg)
			}
			prop.Rules = rules
		}
		*cands = append(*cands, candidate{prop: prop, depth: depth, tagged: name != "", order: len(*cands)})
	}
	return nil
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// isSpecial reports whether t is a struct type that encodes as something
// other than its fields.
func isSpecial(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Time"
}

func typeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}
