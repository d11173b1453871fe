package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// errorCodes renders a constant per error type whose code the schema
// fixes, or nil when the schema fixes none.
func (g *generator) errorCodes() *jen.File {
	var defs []jen.Code
	for _, t := range g.m.Types {
		name := g.names.errCode[t.Name]
		if name == "" {
			continue
		}
		defs = append(defs, jen.Comment(name+" is the JSON-RPC error code of "+t.Name+".").Line().Id(name).Op("=").Id(g.errorCode(t)))
	}
	if len(defs) == 0 {
		return nil
	}
	f := g.newFile()
	f.Comment("Error codes fixed by the schema.")
	f.Const().Defs(defs...)
	return f
}

// errorCode returns the JSON of the code an error type's schema fixes, in
// its code property or in that of its error property, or "" when t is not
// such a type.
func (g *generator) errorCode(t *model.Type) string {
	if t.Kind != model.Struct || t.Synthetic || !strings.HasSuffix(t.Name, "Error") {
		return ""
	}
	if code := constField(t, "code"); code != "" {
		return code
	}
	if ef := fieldOf(t, "error"); ef != nil {
		if et := g.named(ef.Type); et.Kind == model.Struct {
			return constField(et, "code")
		}
	}
	return ""
}

// fieldOf returns the field of t with the JSON name json, or nil.
func fieldOf(t *model.Type, json string) *model.Field {
	for _, f := range t.Fields {
		if f.JSON == json {
			return f
		}
	}
	return nil
}

// constField returns the JSON of the constant a non-string property of t
// holds, or "" when it holds none.
func constField(t *model.Type, json string) string {
	if f := fieldOf(t, json); f != nil && f.Type.Kind == model.Primitive && f.Type.Prim != model.String {
		return f.Type.Const
	}
	return ""
}
