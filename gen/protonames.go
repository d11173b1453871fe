package gen

import (
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/model"
)

// The protocol package's names. Lowering names the schema's definitions,
// their fields and their enum values (model.GoName), and the model names
// the setters; every other package-level name of the generated package is
// made here, once, from those: the version constants and their bits, the
// method constants, the error codes, each union's sealed interface and
// each scalar union's constructors, the presence bits and required masks.
// Each is claimed in one table together with the definitions and the
// names the support files and the generator's fixed declarations take, so
// two of them never meet: a clash is refused with the schema position of
// what needs the name. Emitters look names up; they never build them.

// protoNames holds the names nameAll gives.
type protoNames struct {
	// version and versionBit are the version constants and their bits,
	// by version index: Version20250618, bitVersion20250618.
	version, versionBit []string
	// method is each method's constant: MethodCallTool.
	method map[*model.Method]string
	// errCode is the code constant of each error type whose code the
	// schema fixes, by the type's name: CodeInvalidParams.
	errCode map[string]string
	// variant is the sealed interface of each union that is not scalar,
	// by the union's name: ContentBlockVariant.
	variant map[string]string
	// from is the constructor of each scalar union variant, by union name
	// and variant kind name: ProgressTokenFromString.
	from map[string]map[string]string
	// bit is each struct field's presence bit, required each struct's mask
	// of required properties, by struct name (presence.go renders them).
	bit      map[*model.Field]string
	required map[string]string
}

// generatedExported are the exported package-level names the generator
// declares whatever the schema (versions.go, methods.go, dispatch.go).
var generatedExported = []string{"LatestVersion", "SupportedVersions", "Methods", "LookupMethod", "DecodeResult",
	"ServerHandler", "ClientHandler", "DispatchServerRequest", "DispatchClientRequest", "Client", "ClientAPI"}

// generatedUnexported are the unexported ones (versions.go, methods.go).
var generatedUnexported = []string{"allVersions", "methods", "messageTypes", "newMessage"}

// nameAll gives every name protoNames holds, refusing one that something
// else of the package already has.
func (g *generator) nameAll() error {
	taken, err := supportNames()
	if err != nil {
		return err
	}
	for _, name := range generatedExported {
		taken[name] = "the generated declaration " + name
	}
	for _, name := range generatedUnexported {
		taken[name] = "the generated declaration " + name
	}
	for _, t := range g.m.Types {
		if what, ok := taken[t.Name]; ok {
			return model.Errorf(t.Pos, "definition %s collides with %s, which mcpgen's protocol package declares", t.Name, what)
		}
		taken[t.Name] = "the definition " + t.Name
	}
	tab := &nameTable{taken: taken}
	g.nameConstants(tab)
	g.nameUnions(tab)
	g.namePresence(tab)
	return tab.err
}

// nameTable is the package's names, each with what holds it. The first
// clash is kept in err and ends the naming.
type nameTable struct {
	taken map[string]string
	err   error
}

// claim takes name for what, at pos, and returns it.
func (tab *nameTable) claim(name, what string, pos model.Pos) string {
	if tab.err != nil {
		return name
	}
	if prev, dup := tab.taken[name]; dup {
		tab.err = model.Errorf(pos, "%s needs the name %s, already %s", what, name, prev)
		return name
	}
	tab.taken[name] = what
	return name
}

// nameConstants names the version constants and bits, the method
// constants and the error codes.
func (g *generator) nameConstants(tab *nameTable) {
	n := &g.names
	for _, v := range g.m.Versions {
		id := tab.claim(versionIdent(v), "the constant of version "+v, model.Pos{})
		n.version = append(n.version, id)
		n.versionBit = append(n.versionBit, tab.claim("bit"+id, "the bit of version "+v, model.Pos{}))
	}
	n.method = map[*model.Method]string{}
	for _, me := range g.m.Methods {
		n.method[me] = tab.claim("Method"+strings.TrimSuffix(me.Message, "Request"), "the constant of method "+me.Name, posOf(g.m, me.Message))
	}
	n.errCode = map[string]string{}
	for _, t := range g.m.Types {
		if g.errorCode(t) != "" {
			n.errCode[t.Name] = tab.claim("Code"+strings.TrimSuffix(t.Name, "Error"), "the error code of "+t.Name, t.Pos)
		}
	}
}

// nameUnions names each union's sealed interface, or a scalar union's
// constructors.
func (g *generator) nameUnions(tab *nameTable) {
	n := &g.names
	n.variant, n.from = map[string]string{}, map[string]map[string]string{}
	for _, t := range g.m.Types {
		switch {
		case t.Kind != model.Union:
		case !g.scalarUnion(t):
			n.variant[t.Name] = tab.claim(t.Name+"Variant", "the variant interface of union "+t.Name, t.Pos)
		default:
			n.from[t.Name] = map[string]string{}
			for _, v := range scalarVariants(t) {
				n.from[t.Name][v.name] = tab.claim(t.Name+"From"+v.name, "the "+v.name+" constructor of union "+t.Name, t.Pos)
			}
		}
	}
}

// namePresence names each struct field's presence bit and each struct's
// mask of required properties.
func (g *generator) namePresence(tab *nameTable) {
	n := &g.names
	n.bit, n.required = map[*model.Field]string{}, map[string]string{}
	for _, t := range g.m.Types {
		if t.Kind != model.Struct {
			continue
		}
		for _, fd := range t.Fields {
			n.bit[fd] = tab.claim("bit"+t.Name+fd.GoName, fmt.Sprintf("the presence bit of %s.%s", t.Name, fd.JSON), fd.Pos)
		}
		if requiredFields(t) != nil {
			n.required[t.Name] = tab.claim("required"+t.Name, "the required properties of "+t.Name, t.Pos)
		}
	}
}

// versionIdent names a version's constant: Version20250618 for a dated
// version, VersionDraft for a label such as an extension's "draft".
func versionIdent(v string) string {
	if v != "" && v[0] >= 'a' && v[0] <= 'z' {
		v = strings.ToUpper(v[:1]) + v[1:]
	}
	return "Version" + strings.ReplaceAll(v, "-", "")
}

// posOf returns the position of the named type, or the zero position.
func posOf(m *model.Model, name string) model.Pos {
	if t := m.Lookup(name); t != nil {
		return t.Pos
	}
	return model.Pos{}
}
