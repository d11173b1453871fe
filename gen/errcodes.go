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
	seen := map[string]bool{}
	for _, t := range g.m.Types {
		if t.Kind != model.Struct || t.Synthetic || !strings.HasSuffix(t.Name, "Error") {
			continue
		}
		code := constField(t, "code")
		if code == "" {
			if ef := fieldOf(t, "error"); ef != nil {
				if et := g.named(ef.Type); et.Kind == model.Struct {
					code = constField(et, "code")
				}
			}
		}
		if code == "" {
			continue
		}
		name := "Code" + strings.TrimSuffix(t.Name, "Error")
		if seen[name] || g.m.Lookup(name) != nil {
			continue
		}
		seen[name] = true
		defs = append(defs, jen.Comment(name+" is the JSON-RPC error code of "+t.Name+".").Line().Id(name).Op("=").Id(code))
	}
	if len(defs) == 0 {
		return nil
	}
	f := g.newFile()
	f.Comment("Error codes fixed by the schema.")
	f.Const().Defs(defs...)
	return f
}

func fieldOf(t *model.Type, json string) *model.Field {
	for _, f := range t.Fields {
		if f.JSON == json {
			return f
		}
	}
	return nil
}

func constField(t *model.Type, json string) string {
	if f := fieldOf(t, json); f != nil && f.Type.Kind == model.Primitive && f.Type.Prim != model.String {
		return f.Type.Const
	}
	return ""
}
