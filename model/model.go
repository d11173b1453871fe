// Package model is mcpgen's intermediate representation: the protocol as plain
// data, independent of the schema it came from and of the Go code it becomes.
//
// A Model holds named types (one per schema definition, plus the inline
// objects, unions and enums that lowering hoists out and names), the method
// table, and the protocol versions everything exists in, with the queries
// back ends ask of them. Handlers is the same for the handlers of a user's
// Go package.
//
// Front ends build models; this package reads no input. parser/schema
// lowers and merges the MCP schema documents and hands the result to New,
// which does what every model needs whatever its source: it indexes and
// checks the references, gives each union its Pick, and names enum values
// and setters (GoName is the one namer). parser/gosrc lowers a Go package
// into Handlers. The package imports no front end, and neither the code
// generator nor go/types; every node carries the position of its cause,
// and Error reports a problem there.
//
// The model keeps two shapes of "a Go type with a JSON shape" because the
// two sources differ in what they can say. Protocol types (Type, with its
// Kind) are declared by the generator itself, exist in protocol versions,
// and have unions whose variant is chosen by pick rules; their checks are a
// separate Validate pass. Handler types (Value, Object, Property and
// Rules) are the user's own Go declarations, with kinds only Go has —
// sized integers, fixed-length arrays, time.Time, []byte, pointers — and
// keyword checks that run inline as each value is decoded. Folding one
// into the other would make every protocol type carry Go-only kinds and
// every handler type carry versions and picks. Below the level of objects
// and unions the two share one back end: gen's codec (gen/codec.go), into
// which both generators lower each value to decode, check and encode it.
package model

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strings"
)

// Version is an index into Model.Versions, oldest first.
type Version int

// VersionSet is a set of versions, bit i standing for Model.Versions[i].
type VersionSet uint32

// Has reports whether v is in the set.
func (s VersionSet) Has(v Version) bool { return s&(1<<v) != 0 }

// Newest returns the newest version in the set, -1 when it is empty.
func (s VersionSet) Newest() Version { return Version(bits.Len32(uint32(s)) - 1) }

// Oldest returns the oldest version in the set, -1 when it is empty.
func (s VersionSet) Oldest() Version {
	if s == 0 {
		return -1
	}
	return Version(bits.TrailingZeros32(uint32(s)))
}

// Only returns the set holding v alone.
func Only(v Version) VersionSet { return 1 << v }

// Pos is where a node comes from: a schema file and JSON pointer.
type Pos struct {
	File    string
	Pointer string
}

func (p Pos) String() string {
	if p.File == "" {
		return "<generated>"
	}
	return p.File + "#" + p.Pointer
}

// Kind is what shape a type has.
type Kind int

// The kinds of type.
const (
	// Struct is a JSON object with named properties.
	Struct Kind = iota + 1
	// Union is one of several variant types.
	Union
	// Enum is a string with a closed set of values.
	Enum
	// Map is a JSON object whose members all share one value type.
	Map
	// Array is a JSON array of one element type.
	Array
	// Primitive is a string, integer, number or boolean.
	Primitive
	// Raw is any JSON value, or any JSON object, kept as its bytes.
	Raw
	// Ref names another type of the model.
	Ref
	// Alias is a named type that is another named type under a second name.
	Alias
)

var kindNames = [...]string{"", "struct", "union", "enum", "map", "array", "primitive", "raw", "ref", "alias"}

func (k Kind) String() string { return kindNames[k] }

// Prim is a JSON primitive type.
type Prim int

// The primitive types.
const (
	String Prim = iota + 1
	Integer
	Number
	Boolean
)

var primNames = [...]string{"", "string", "integer", "number", "boolean"}

func (p Prim) String() string { return primNames[p] }

// RawKind says what a Raw type accepts.
type RawKind int

// The raw kinds.
const (
	// AnyValue accepts every JSON value.
	AnyValue RawKind = iota
	// AnyObject accepts every JSON object.
	AnyObject
)

// Type is a node of the model. Which fields are set depends on Kind.
type Type struct {
	Kind Kind
	// Name is set on named types (those in Model.Types).
	Name string
	Doc  string
	Pos  Pos
	// Versions are the versions a named type exists in.
	Versions VersionSet
	// Deprecated, when set, says what to use instead.
	Deprecated string
	// Synthetic marks a hoisted inline type, named by lowering rather than by
	// the schema.
	Synthetic bool
	// Package, when set, is the import path of the Go package that declares
	// this named type: a type of the core protocol that an extension's
	// schema repeats. The model keeps it so that references resolve; back
	// ends declare only the types without one.
	Package string

	// Ref and Alias: the named type.
	Target string

	// Primitive.
	Prim   Prim
	Format string
	// Const, when set, is the only value allowed, as JSON.
	Const string
	// Nullable primitives also accept null.
	Nullable                   bool
	Minimum, Maximum           *float64
	ExclusiveMin, ExclusiveMax *float64
	MinLength, MaxLength       *int

	// Array elements and Map values.
	Elem               *Type
	MinItems, MaxItems *int

	// Struct.
	Fields []*Field
	// Extra is the type of properties the schema allows without naming them;
	// nil when it forbids them.
	Extra *Type

	// Union.
	Variants []*Variant
	// Pick says how decoding chooses a variant; set by Analyze.
	Pick *Pick

	// Enum.
	Values []*EnumValue

	// Raw.
	RawKind RawKind
}

// Field is a property of a struct.
type Field struct {
	JSON   string
	GoName string
	Doc    string
	Type   *Type
	Pos    Pos
	// Versions the property exists in, and those it is required in.
	Versions VersionSet
	Required VersionSet
	// ObjectIn are the versions in which a property kept as raw JSON must
	// be an object (the merge widened it to any value for the others).
	ObjectIn VersionSet
	// Setter is the Go name of the method that sets the field and marks it
	// present. Only an integer, number or boolean property that some
	// version requires, but that a value built in Go does not always carry
	// (see Type.AlwaysCarried), has one: its zero would read as absent.
	Setter string
}

// AlwaysCarried reports whether a value of struct t built in Go always
// carries property f, even at its Go zero value: f exists in every version
// of t and the newest requires it. Other properties are carried only when
// set, so that a value built for an older version lacks what that version
// does not know.
func (t *Type) AlwaysCarried(f *Field) bool {
	return f.Required.Has(f.Versions.Newest()) && f.Versions&t.Versions == t.Versions
}

// Field returns the property of struct t whose JSON name is json, nil when
// t has none.
func (t *Type) Field(json string) *Field {
	for _, f := range t.Fields {
		if f.JSON == json {
			return f
		}
	}
	return nil
}

// Variant is one member of a union. Its type is a Ref to a named type.
type Variant struct {
	Type     *Type
	Versions VersionSet
}

// Name is the named type of the variant.
func (v *Variant) Name() string { return v.Type.Target }

// EnumValue is one value of an enum.
type EnumValue struct {
	Value    string
	GoName   string
	Versions VersionSet
}

// Direction says which side sends a method.
type Direction int

// The directions.
const (
	ClientToServer Direction = 1 << iota
	ServerToClient
	Both = ClientToServer | ServerToClient
)

func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "client→server"
	case ServerToClient:
		return "server→client"
	case Both:
		return "both"
	}
	return "none"
}

// Method is one JSON-RPC method of the protocol.
type Method struct {
	Name         string
	Notification bool
	// Message is the request or notification type (e.g. CallToolRequest).
	Message string
	// Params is the params type, "" when the method has no params property.
	Params         string
	ParamsRequired VersionSet
	// Result is the result type of a request.
	Result string
	// ResultNote says why Result is not Message with Request→Result.
	ResultNote string
	// Response is the versions' typed response envelope, when the schema
	// has one (e.g. CallToolResultResponse).
	Response  string
	Direction Direction
	// Directions per version, for methods whose direction changed.
	Versions VersionSet
}

// Model is the whole protocol.
type Model struct {
	// Versions are the protocol versions, oldest first.
	Versions []string
	// Types are the named types, sorted by name.
	Types []*Type
	// Methods are sorted by name.
	Methods []*Method
	byName  map[string]*Type
}

// All returns the set of every version.
func (m *Model) All() VersionSet { return VersionSet(1<<len(m.Versions) - 1) }

// Replacing returns a copy of m in which the named types of repl stand
// for those of the same name; m itself is left as it is, so that a back
// end can adjust a few types for its own rendering while others render m
// at the same time.
func (m *Model) Replacing(repl map[string]*Type) *Model {
	c := *m
	c.Types = slices.Clone(m.Types)
	c.byName = maps.Clone(m.byName)
	for i, t := range c.Types {
		if r := repl[t.Name]; r != nil {
			c.Types[i] = r
			c.byName[t.Name] = r
		}
	}
	return &c
}

// Declared returns a copy of m whose Types are those the generated
// package declares, leaving out the ones of another Package; Lookup and
// Resolve still find every type.
func (m *Model) Declared() *Model {
	c := *m
	c.Types = slices.DeleteFunc(slices.Clone(m.Types), func(t *Type) bool { return t.Package != "" })
	return &c
}

// Lookup returns the named type.
func (m *Model) Lookup(name string) *Type { return m.byName[name] }

// Resolve follows Ref and Alias to the named type they stand for; other
// types are returned as they are.
func (m *Model) Resolve(t *Type) *Type {
	for i := 0; t != nil && (t.Kind == Ref || t.Kind == Alias) && i < 64; i++ {
		t = m.byName[t.Target]
	}
	return t
}

// VersionNames lists the names of the versions in s.
func (m *Model) VersionNames(s VersionSet) []string {
	var out []string
	for i, v := range m.Versions {
		if s.Has(Version(i)) {
			out = append(out, v)
		}
	}
	return out
}

// Since describes s for a doc comment ("Since 2025-06-18.", "Removed in ...").
func (m *Model) Since(s VersionSet) string {
	all := m.All()
	if s == all || s == 0 {
		return ""
	}
	first, last := s.Oldest(), s.Newest()
	var parts []string
	if first > 0 {
		parts = append(parts, "Since "+m.Versions[first]+".")
	}
	if int(last) < len(m.Versions)-1 {
		parts = append(parts, "Removed in "+m.Versions[last+1]+".")
	}
	contiguous := s == VersionSet((1<<(last+1))-(1<<first))
	if !contiguous {
		parts = append(parts, "Exists in "+strings.Join(m.VersionNames(s), ", ")+".")
	}
	return strings.Join(parts, " ")
}

// Error is a problem in a model, or in the input a front end lowers to
// one, at the position of its cause.
type Error struct {
	Pos Pos
	Msg string
}

// Error returns "file#pointer: msg".
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf returns an *Error at pos, its message formatted as fmt.Sprintf
// does.
func Errorf(pos Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
