package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// This file holds the handler model: what parser/gosrc finds in a user's Go
// package (functions and methods annotated with //mcp:tool, //mcp:prompt or
// //mcp:resource) after lowering
// their Go types, and what gen renders as that package's mcpgen_gen.go.
// Like the protocol model it is plain data: Go types appear only as
// structured references (GoType), never as source text.
//
// It is a second shape beside Type, not a use of it, because these types
// are the user's Go declarations rather than ones mcpgen declares: they
// have Go-only kinds (sized integers, fixed arrays, time.Time, []byte,
// pointers), no protocol versions or pick rules, and Rules that the
// generated decoder checks inline. gen lowers a Value with its Rules into
// the same value-level back end as the protocol's types, the codec in
// gen/codec.go (see the package doc).

// Handlers is everything one Go package asks mcpgen to generate.
type Handlers struct {
	Package string  // the package name
	Path    string  // its import path
	Dir     string  // the directory that holds it
	Tools   []*Tool // in source order (file, then line)
	// Prompts and Resources are in source order too.
	Prompts   []*Prompt
	Resources []*Resource
	// Forms are the //mcp:form struct types, in source order.
	Forms []*Form
	// Draft is the JSON Schema dialect of the package's generated schemas,
	// set by a //mcp:schema directive.
	Draft Draft
	// Declared holds the package's own package-level identifiers (those
	// of a previous mcpgen_gen.go aside) and where each is declared, so
	// that the generated file's names keep clear of them.
	Declared map[string]SrcPos
}

// Empty reports whether the package asks for nothing.
func (h *Handlers) Empty() bool {
	return len(h.Tools) == 0 && len(h.Prompts) == 0 && len(h.Resources) == 0 && len(h.Forms) == 0
}

// Draft is a JSON Schema dialect.
type Draft int

const (
	// Draft2020 is JSON Schema 2020-12, the default.
	Draft2020 Draft = iota
	// Draft07 is JSON Schema draft-07, for clients that predate 2020-12:
	// recursive types go under definitions instead of $defs.
	Draft07
)

// SrcPos is a position in Go source: file (as given to the loader) and
// 1-based line. The handler model carries one on everything a user wrote.
type SrcPos struct {
	File string
	Line int
}

// String returns "file:line", or "" for the zero position.
func (p SrcPos) String() string {
	if p.File == "" {
		return ""
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// PosError is a mistake in a user's package, reported with its position and
// a message saying what to do about it.
type PosError struct {
	Pos SrcPos
	Msg string
}

// Error returns "file:line: msg".
func (e *PosError) Error() string {
	if e.Pos.File == "" {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// SrcErrorf returns a *PosError at pos.
func SrcErrorf(pos SrcPos, format string, args ...any) *PosError {
	return &PosError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Tool is one //mcp:tool handler.
type Tool struct {
	Pos         SrcPos
	GoName      string // the function or method name
	Recv        string // the receiver's type name for a method, "" for a function
	Name        string // the MCP tool name
	Title       string
	Description string // the doc comment without directive lines

	// Hints are the annotation hints the directive wrote, in the order
	// destructive, idempotent, openworld, readonly; hints not written are
	// omitted from the tool's annotations.
	Hints []Hint

	// Task says whether the tool may or must run as an MCP task (task=).
	Task TaskSupport
	// InputBeforeTask (input-before-task, only beside task=) says that the
	// handler gathers its input in rounds as a synchronous call and makes
	// the call a task itself, with server.StartTask.
	InputBeforeTask bool
	// RateLimit (rate=N/UNIT [burst=B]) limits each caller's calls of
	// the tool; nil for none.
	RateLimit *RateLimit
	// Scopes (scopes=a|b) are the OAuth scopes a caller's credentials
	// must grant for the tool to be called, in the order written; nil for
	// none.
	Scopes []string

	// Input is the handler's input type, nil for func(ctx) (Out, error).
	Input *Value
	// InputSchema is the JSON of input-schema=FILE, in which case Input is
	// json.RawMessage and the runtime validates arguments with the schema.
	InputSchema []byte
	InputFile   string // FILE of input-schema=FILE, for messages

	Output Output
}

// Prompt is one //mcp:prompt handler: func(ctx, in In) (Out, error) or
// func(ctx) (Out, error).
type Prompt struct {
	Pos         SrcPos
	GoName      string
	Recv        string // the receiver's type name for a method
	Name        string // the MCP prompt name
	Title       string
	Description string
	// Scopes (scopes=a|b) are the OAuth scopes a caller's credentials
	// must grant for the prompt to be got, in the order written; nil for
	// none.
	Scopes []string

	// Input is the handler's struct of string fields, nil when the handler
	// takes no input; Args are its fields as prompt arguments.
	Input *Value
	Args  []*PromptArg

	// Result reports that Out is *mcp.GetPromptResult; otherwise it is
	// []mcp.PromptMessage.
	Result bool
}

// PromptArg is one prompt argument: a string field of the input struct.
type PromptArg struct {
	Pos         SrcPos
	GoPath      []string // field names from the struct down through embedded structs
	Name        string   // the argument name: the field's JSON name
	Description string
	Required    bool   // neither a pointer nor omitempty/omitzero
	Value       *Value // ValString, or ValPointer to ValString
}

// Resource is one //mcp:resource handler: func(ctx) (Out, error) for a
// fixed URI, func(ctx, vars V) (Out, error) for a URI template.
type Resource struct {
	Pos         SrcPos
	GoName      string
	Recv        string
	Name        string // the MCP resource name
	Title       string
	Description string
	MIME        string
	// Scopes (scopes=a|b) are the OAuth scopes a caller's credentials
	// must grant for the resource, or a URI of the template, to be read,
	// in the order written; nil for none.
	Scopes []string

	URI      string // uri=, for a fixed resource
	Template string // uri-template=, for a template

	// Vars is the handler's struct of template variables (templates only);
	// TemplateVars pairs each variable with its field.
	Vars         *Value
	TemplateVars []*TemplateVar

	Output ResourceOutput
}

// TemplateVar is one variable of a URI template and the field it fills.
type TemplateVar struct {
	Name   string   // the variable's name in the template
	GoPath []string // the field that receives it
	Value  *Value   // ValString
}

// ResourceOutput says how a resource handler's Out becomes a
// ReadResourceResult.
type ResourceOutput int

const (
	// ResourceContents: Out is []mcp.ReadResourceResultContentsItem.
	ResourceContents ResourceOutput = iota
	// ResourceText: Out is a string, one text content of the resource's MIME type.
	ResourceText
	// ResourceBlob: Out is []byte, one base64 blob content.
	ResourceBlob
	// ResourceResult: Out is *mcp.ReadResourceResult, sent as it is.
	ResourceResult
)

// RateLimit is a tool's rate= and burst=: each caller may call it Count
// times per Per on average, and Burst times at once.
type RateLimit struct {
	Count int
	Per   RatePeriod
	Burst int
}

// RatePeriod is the unit of a rate=: a second, a minute or an hour.
type RatePeriod int

const (
	PerSecond RatePeriod = iota
	PerMinute
	PerHour
)

// Seconds returns the period's length in seconds.
func (p RatePeriod) Seconds() int {
	switch p {
	case PerMinute:
		return 60
	case PerHour:
		return 3600
	}
	return 1
}

// TaskSupport says whether a tool may run as an MCP task: the tool's
// execution.taskSupport on the wire.
type TaskSupport int

const (
	// TaskForbidden: the tool always answers at once. It is the default,
	// for a directive without task=.
	TaskForbidden TaskSupport = iota
	// TaskOptional (task=optional): the tool runs as a task when the
	// client can take one, and answers at once otherwise.
	TaskOptional
	// TaskRequired (task=required): the tool runs only as a task.
	TaskRequired
)

// Hint is one tool annotation hint written in a directive.
type Hint struct {
	Key   string // the annotation property: destructiveHint, idempotentHint, openWorldHint, readOnlyHint
	Value bool
}

// OutputKind says how a tool's result is built from the handler's Out.
type OutputKind int

const (
	// OutputStructured: Out encodes as a JSON object; it becomes
	// structuredContent, its JSON text the content, and its schema the
	// outputSchema.
	OutputStructured OutputKind = iota
	// OutputText: Out is a string, sent as one text block.
	OutputText
	// OutputResult: Out is *mcp.CallToolResult, sent as it is.
	OutputResult
	// OutputRaw: Out is json.RawMessage described by output-schema=FILE;
	// it becomes structuredContent and the runtime checks it with the schema.
	OutputRaw
)

// Output is what a tool handler returns besides its error.
type Output struct {
	Kind   OutputKind
	Value  *Value // the Go type for OutputStructured and OutputText
	Schema []byte // the JSON of output-schema=FILE for OutputRaw
	File   string // FILE of output-schema=FILE, for messages
}

// ValueKind is the JSON shape a Go type takes.
type ValueKind int

// The kinds of Value.
const (
	ValBool    ValueKind = iota
	ValInt               // a signed integer kind; Bits 0 means int
	ValUint              // an unsigned integer kind; Bits 0 means uint (or uintptr)
	ValFloat             // float32 or float64 (Bits)
	ValString            // string
	ValBytes             // []byte: a base64 string
	ValTime              // time.Time: a date-time string
	ValRaw               // json.RawMessage: any JSON, kept as written
	ValAny               // any: any JSON, decoded to map[string]any, []any, ...
	ValSlice             // []Elem
	ValArray             // [Len]Elem
	ValMap               // map[string-kind]Elem
	ValStruct            // a named struct type: Struct
	ValPointer           // *Elem: the value is optional
	// ValText is a type that marshals itself as text
	// (encoding.TextMarshaler and encoding.TextUnmarshaler): a string,
	// read with UnmarshalText and written with MarshalText.
	ValText
)

// GoType names a Go type: a predeclared type (Path ""), a defined type, or
// an instantiation of a generic type (Args).
type GoType struct {
	Path string   // import path of the declaring package, "" for predeclared types
	Name string   // the type name, such as int32, Time or Page
	Args []*Value // type arguments of a generic instantiation
}

// Value is the lowered form of one Go type: its JSON shape, the rules the
// type itself imposes, and how to name it in Go.
type Value struct {
	Kind ValueKind
	// Go names the type when it is named or predeclared; nil for unnamed
	// composite types ([]T, map[string]T, *T, []byte) and for any.
	Go   *GoType
	Bits int // size of sized integer and float kinds; 0 for int, uint and uintptr

	Elem   *Value  // ValSlice, ValArray, ValMap, ValPointer
	Len    int     // ValArray
	Key    *Value  // ValMap: the key type (string kind)
	Object *Object // ValStruct: shared by every use of the type

	// Enum lists the constants of a named string or integer type declared in
	// its package, in declaration order.
	Enum []Literal
}

// Object is a named struct type as JSON sees it: its properties after
// flattening embedded structs.
type Object struct {
	ID        string // unique among the package's structs, an identifier: Tree, Page_Item
	Go        *GoType
	Pos       SrcPos
	Fields    []*Property
	Recursive bool // reaches itself: written once under $defs and referenced
	// Shape is every field of the struct as Go declares it, in order,
	// for the generated file's guard against a struct edited since: nil
	// when a field's type cannot be written from the model (a channel, a
	// function, an unexported type of another package), and for structs
	// of other packages, which the guard leaves alone.
	Shape []*GoField
}

// GoField is one field of a struct declaration as Go sees it, whether or
// not JSON does: its name, type and tag.
type GoField struct {
	Name     string // the field name; for an embedded field its type's name
	Embedded bool
	Type     *Value // only Go, Kind and Elem, Len, Key are meaningful
	Tag      string // the whole tag as written, without quotes
}

// Property is one property of a struct.
type Property struct {
	Pos         SrcPos
	GoPath      []string // field names from the struct down through embedded structs
	JSONName    string
	Description string // the field's doc comment
	Required    bool   // not a pointer and neither omitempty nor omitzero
	OmitEmpty   bool
	OmitZero    bool
	Value       *Value
	Rules       Rules // from the mcp:"..." tag
}

// Rules are the JSON Schema keywords of an mcp:"..." struct tag. For a
// pointer field they apply to the value pointed to.
type Rules struct {
	Minimum          *Bound
	Maximum          *Bound
	ExclusiveMinimum *Bound
	ExclusiveMaximum *Bound
	MinLength        *int
	MaxLength        *int
	MinItems         *int
	MaxItems         *int
	Pattern          string
	Format           string
	Title            string
	Enum             []Literal
	Default          *Literal
	UniqueItems      bool
	Deprecated       bool
	// Nullable (nullable) lets the schema of an optional field take null
	// as well; the decoder reads a null as the field being absent either
	// way.
	Nullable bool
}

// Empty reports whether no keyword is set.
func (r *Rules) Empty() bool {
	return r.Minimum == nil && r.Maximum == nil && r.ExclusiveMinimum == nil && r.ExclusiveMaximum == nil &&
		r.MinLength == nil && r.MaxLength == nil && r.MinItems == nil && r.MaxItems == nil &&
		r.Pattern == "" && r.Format == "" && r.Title == "" && r.Enum == nil && r.Default == nil &&
		!r.UniqueItems && !r.Deprecated && !r.Nullable
}

// Bound is a numeric keyword value as written, checked against the field's type.
type Bound struct {
	JSON  string  // canonical JSON text
	Float float64 // the value
	Int   bool    // whether it is integral and fits an int64
	I     int64   // the value when Int
}

// LitKind is the JSON kind of a Literal.
type LitKind int

// The kinds of Literal.
const (
	LitString LitKind = iota
	LitInt
	LitFloat
	LitBool
)

// Literal is a constant of a field's or type's Go type: an enum member or a
// default value.
type Literal struct {
	Kind LitKind
	S    string
	I    int64
	F    float64
	B    bool
	Name string // the Go constant's name, for enums taken from constants
}

// JSON returns the literal as JSON text.
func (l Literal) JSON() string {
	switch l.Kind {
	case LitString:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(l.S) // a string always encodes
		return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	case LitInt:
		return strconv.FormatInt(l.I, 10)
	case LitFloat:
		return strconv.FormatFloat(l.F, 'g', -1, 64)
	default:
		return strconv.FormatBool(l.B)
	}
}
