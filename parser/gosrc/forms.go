package gosrc

import (
	"go/ast"
	"go/types"

	"github.com/mcpgen/mcpgen/model"
)

// Elicitation forms (//mcp:form on a struct type).
//
// An elicitation's requestedSchema is a restricted JSON Schema: an object
// of top-level properties, each a string (with minLength, maxLength and
// a format of email, uri, date or date-time), a number or integer (with
// minimum and maximum), a boolean, or a string enum; every one may have a
// title, a description and a default. A form's struct must fit that
// shape, or the scanner refuses it here, at the field, rather than let a
// client refuse the form at run time.

// formFormats are the string formats elicitation allows.
var formFormats = map[string]bool{"email": true, "uri": true, "date": true, "date-time": true}

// form checks one //mcp:form struct type and adds it to the model.
func (p *scanner) form(ts *ast.TypeSpec, d *directive) error {
	name := ts.Name.Name
	if len(d.opts) > 0 {
		return model.SrcErrorf(d.pos, "//mcp:form takes no options (found %s): the form's message is given when it is asked", d.opts[0].key)
	}
	pos := p.l.pos(ts.Name.Pos())
	if ts.TypeParams != nil {
		return model.SrcErrorf(pos, "%s is generic: a form is an ordinary struct type", name)
	}
	if ts.Assign.IsValid() {
		return model.SrcErrorf(pos, "%s is an alias: put //mcp:form on the struct type it names", name)
	}
	tn, _ := p.info.Defs[ts.Name].(*types.TypeName)
	if tn == nil {
		return model.SrcErrorf(pos, "%s: no type information", name)
	}
	if _, ok := tn.Type().Underlying().(*types.Struct); !ok {
		return model.SrcErrorf(pos, "%s is not a struct type: a form is a struct whose fields are its questions", name)
	}
	v, err := p.l.value(tn.Type(), ts.Name.Pos(), name)
	if err != nil {
		return err
	}
	if len(v.Object.Fields) == 0 {
		return model.SrcErrorf(pos, "form %s has no exported fields: it would ask nothing", name)
	}
	for _, f := range v.Object.Fields {
		if err := formField(name, f); err != nil {
			return err
		}
	}
	p.h.Forms = append(p.h.Forms, &model.Form{Pos: pos, GoName: name, Value: v})
	return nil
}

// formField checks that one property fits elicitation's restricted schema.
func formField(form string, f *model.Property) error {
	fail := func(format string, args ...any) error {
		return model.SrcErrorf(f.Pos, "form %s: field %s: "+format, append([]any{form, f.GoPath[len(f.GoPath)-1]}, args...)...)
	}
	v := f.Value
	if v.Kind == model.ValPointer {
		v = v.Elem
	}
	switch v.Kind {
	case model.ValBool, model.ValInt, model.ValUint, model.ValFloat, model.ValString:
	case model.ValStruct, model.ValMap:
		return fail("is %s, but an elicitation form is flat: its fields are strings, numbers, integers, booleans or string enums; ask a second form, or flatten the struct into this one", describe(v))
	case model.ValSlice, model.ValArray:
		return fail("is %s, but an elicitation form asks for single values: strings, numbers, integers, booleans or string enums", describe(v))
	case model.ValTime:
		return fail("is time.Time: use a string with mcp:\"format=date-time\" (or date) and parse it after the answer")
	default:
		return fail("is %s, which an elicitation form cannot ask for: use a string, number, integer, boolean or string enum", describe(v))
	}
	r := f.Rules
	enum := r.Enum
	if enum == nil {
		enum = v.Enum
	}
	if v.Kind != model.ValString && enum != nil {
		return fail("an elicitation enum is a list of strings: make the field a named string type with constants, or a string with enum=")
	}
	switch {
	case r.Pattern != "":
		return fail("pattern is not among the keywords an elicitation form allows (title, description, default, minLength, maxLength, format, minimum, maximum, enum): check it after the answer")
	case r.ExclusiveMinimum != nil || r.ExclusiveMaximum != nil:
		return fail("exclusiveMinimum and exclusiveMaximum are not allowed in an elicitation form: use minimum and maximum")
	case r.MinItems != nil || r.MaxItems != nil || r.UniqueItems:
		return fail("minItems, maxItems and uniqueItems apply to arrays, which an elicitation form does not ask for")
	case r.Deprecated:
		return fail("deprecated is not allowed in an elicitation form: drop the field")
	case r.Nullable:
		return fail("nullable is not allowed in an elicitation form, whose fields have one type each: a field left unanswered is already absent; drop nullable")
	case r.Format != "" && !formFormats[r.Format]:
		return fail("format=%s: an elicitation form allows the formats email, uri, date and date-time", r.Format)
	case enum != nil && (r.MinLength != nil || r.MaxLength != nil || r.Format != ""):
		return fail("an enum field takes no minLength, maxLength or format: its values are the choices")
	}
	return nil
}

// typeDirectives handles the directives of one type declaration: one
// //mcp:form, or a refusal.
func (p *scanner) typeDirectives(ts *ast.TypeSpec, ds []*directive) {
	for i, d := range ds {
		switch {
		case d.kind != "form":
			p.fail(model.SrcErrorf(d.pos, "//mcp:%s belongs on %s, not on a type declaration", d.kind, directiveTarget(d.kind)))
		case i > 0 && ds[0].kind == "form":
			p.fail(model.SrcErrorf(d.pos, "%s has //mcp:form twice: keep one", ts.Name.Name))
		default:
			if err := p.form(ts, d); err != nil {
				p.fail(err)
			}
		}
	}
}

// directiveTarget says what a directive of kind is written on.
func directiveTarget(kind string) string {
	if kind == "form" {
		return "a struct type"
	}
	return "a function or method"
}
