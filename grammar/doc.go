// Package grammar is the reference for what mcpgen reads in a Go package:
// the //mcp: directives and their options, the mcp:"..." struct tag, the
// handler signatures it accepts, how Go types become JSON Schema, and what
// it refuses. It holds no code; read it with
//
//	go doc github.com/mcpgen/mcpgen/grammar
//
// mcpgen runs as //go:generate go tool mcpgen (with
// "tool github.com/mcpgen/mcpgen/cmd/mcpgen" in go.mod), reads the package
// in the current directory and writes mcpgen_gen.go beside it: each
// schema as a constant, a decoder and validator per input type, an
// encoder per output type, compile-time guards that break the build when
// a handler's signature drifts, and the Register functions that add
// everything to a server.Server. Every mistake below is an error at
// go generate time with file:line and what to write instead; nothing is
// left for run time, and nothing is written while there is an error.
//
// # Directives
//
// A directive is a line of a function's or method's doc comment, written
// with no space after the slashes (// mcp:tool is an error, not a comment):
//
//	//mcp:tool [name=N] [title="T"] [description="D"] [readonly] [destructive] [idempotent] [openworld] [task=optional|required [input-before-task]] [rate=N/s|N/m|N/h [burst=B]] [scopes=S|S...] [input-schema=F.json] [output-schema=F.json]
//	//mcp:prompt [name=N] [title="T"] [description="D"] [scopes=S|S...]
//	//mcp:resource uri=URI [name=N] [title="T"] [description="D"] [mime=type/subtype] [scopes=S|S...]
//	//mcp:resource uri-template=TEMPLATE [name=N] [title="T"] [description="D"] [mime=type/subtype] [scopes=S|S...]
//	//mcp:form                                   (on a struct type)
//	//mcp:schema draft-07|2020-12
//
// Options are separated by spaces and each is written once. An option is
// key=value or, for flags, a bare key. A value holding spaces is a Go
// double-quoted string (title="Add numbers"); a quote inside an unquoted
// value is an error. A function carries at most one directive; //mcp:form
// goes on a struct type and no other; a directive anywhere else is an
// error, and so is an unknown one.
//
// # //mcp:tool
//
//   - name=N: the tool's name, 1 to 128 of A-Z a-z 0-9 _ - and '.'.
//     Default: the Go name in snake_case (AddNumbers → add_numbers,
//     GetURLFor → get_url_for). Tool names are unique in the package.
//   - title="T": the display title.
//   - description="D": the description, sent as written instead of the
//     doc comment's (see What is generated); an empty one is refused.
//   - readonly, destructive, idempotent, openworld: the annotations
//     readOnlyHint, destructiveHint, idempotentHint and openWorldHint.
//     Bare means true; readonly=false and the like are written out as
//     false.
//   - task=optional|required: the tool runs as an MCP task when the client
//     can take one (optional) or only as one (required); without task= it
//     always answers at once. Register passes server.WithTaskSupport.
//   - input-before-task: only beside task=. A 2026-07-28 call starts
//     synchronously, asks for its input in rounds (server.Elicit and the
//     others) and becomes a task when the handler calls server.StartTask.
//     Register passes server.WithInputBeforeTask.
//   - rate=N/s, N/m or N/h: each caller (its principal, else its legacy
//     session) may make N calls a second, minute or hour on average, N
//     from 1 to 1,000,000. burst=B, only beside rate=, is how many may
//     come at once (default N). Register passes server.WithRateLimit;
//     calls over the limit are refused with server.CodeRateLimited.
//   - scopes=S|S...: the OAuth scopes a caller's credentials must grant,
//     separated by |, in the order written. Each is an RFC 6749 §3.3
//     scope token (printable ASCII without spaces, '"' or '\'); none may
//     be empty or repeated, and a scope holding | must be registered by
//     hand. Register passes server.WithScopes; a caller without them is
//     refused with server.CodeInsufficientScope before anything else
//     happens, the rate limit included.
//   - input-schema=F.json: the input schema is the file F.json beside the
//     package's sources instead of one derived from a Go type, for what
//     the type mapping cannot express. The input must be json.RawMessage.
//     The file must be a valid JSON Schema of the package's dialect with
//     "type": "object" at its root and no references to other documents.
//     Register passes rawschema.Validate(), which checks arguments against
//     it at run time.
//   - output-schema=F.json: the same for the output, which must then be
//     json.RawMessage.
//
// # //mcp:prompt
//
// name= (default: snake_case of the Go name, unique among prompts),
// title=, description= and scopes= (Register passes server.PromptScopes)
// as for tools.
//
// # //mcp:resource
//
// Exactly one of uri=URI (a fixed resource; no template braces) or
// uri-template=TEMPLATE (an RFC 6570 template, parsed by
// runtime/uritemplate), each unique in the package. name= (default:
// snake_case of the Go name), title=, description=, mime=type/subtype
// (the contents' mimeType) and scopes= (Register passes
// server.ResourceScopes).
//
// # //mcp:form
//
// On a struct type's doc comment, with no options: the struct becomes an
// elicitation form. The generated file holds its requestedSchema, a
// decoder that checks an answer against it, and
//
//	func ElicitT(ctx context.Context, message string, opts ...server.InputOption) (T, mcp.ElicitResultAction, error)
//
// (elicitT for an unexported T), which asks the form through
// server.ElicitForm in either era: a request to a legacy session's
// client, a round of a 2026-07-28 call, a question of a running task. The
// action says accept, decline or cancel; T is filled only on accept. Each
// field, with its JSON name, doc comment and mcp tag as in a tool's input,
// is a string (title, minLength, maxLength, format=email|uri|date|date-time,
// default), a string enum (a named string type with constants, or enum=),
// an integer or number (minimum, maximum, default) or a bool (default); a
// pointer, omitempty or omitzero makes it optional. Nested structs,
// slices, maps, time.Time, integer enums and other keywords are refused,
// since elicitation cannot ask them.
//
// # //mcp:schema
//
// A package option, not a handler's: a comment line of its own in any
// file, outside every declaration's doc comment (above the package clause,
// say). //mcp:schema draft-07 makes every generated schema JSON Schema
// draft-07, for clients that predate 2020-12: the draft-07 $schema URL,
// and recursive types under definitions instead of $defs.
// //mcp:schema 2020-12 is the default, said out loud. Files of one package
// must agree.
//
// # Handler signatures
//
// A handler is an ordinary function or a method of a non-generic named
// type (value or pointer receiver). Generic functions and methods of
// generic types are refused: wrap an instantiation in a function. ctx is a
// context.Context; the last result is error; variadic handlers are
// refused.
//
// Tools:
//
//	func(ctx context.Context, in In) (Out, error)
//	func(ctx context.Context) (Out, error)
//
// In is a struct or map[string]T (tool arguments are a JSON object), or
// json.RawMessage with input-schema=. A tool without In takes no
// arguments: its schema is {"type":"object","additionalProperties":false}.
// Out is one of
//
//   - a struct or map[string]T: the result carries it as structuredContent,
//     described by an outputSchema, and as JSON text in content for older
//     clients;
//   - string: one text block;
//   - *mcp.CallToolResult: sent as it is;
//   - json.RawMessage with output-schema=.
//
// Prompts:
//
//	func(ctx context.Context, in In) (Out, error)
//	func(ctx context.Context) (Out, error)
//
// In is a non-recursive struct whose fields are string or *string and
// carry no mcp tag (clients send prompt arguments unchecked); an argument
// is required or optional as a property is (see Struct fields). Each field's JSON name is the argument's name
// and its doc comment the argument's description. Out is
// []mcp.PromptMessage or *mcp.GetPromptResult.
//
// Resources:
//
//	func(ctx context.Context) (Out, error)             // uri=
//	func(ctx context.Context, vars V) (Out, error)     // uri-template=
//
// V is a struct with one string field per template variable, paired by
// JSON name (exactly, else ignoring case); a variable without a field and
// a field without a variable are both errors (tag a field json:"-" to
// leave it out). Out is string (a text resource), []byte (a blob),
// []mcp.ReadResourceResultContentsItem or *mcp.ReadResourceResult.
//
// # What is generated
//
// Register(s *server.Server) error adds the package's function handlers;
// each receiver type R with handler methods gets RegisterR(s, r *R) error,
// which refuses a nil r. The descriptions come from doc comments: a
// handler's doc comment (without its directive line) describes the tool,
// prompt or resource, and a field's doc comment, or else its line comment,
// describes the property or prompt argument. A handler's description
// drops the Go name a doc comment begins with when a verb in the third
// person follows it ("CreateIssue files a new issue." → "Files a new
// issue."), or "is"/"are" and an article ("Readme is the project's
// README." → "The project's README."); a field's drops only the second
// form ("Title is the title." → "The title."). Anything
// else is kept whole, and description= on the directive replaces the doc
// comment outright (for an imperative such as "List issues by label.",
// which the first rule would cut).
//
// # Struct fields
//
// Fields become properties as encoding/json sees them: the JSON name from
// the json tag, else the Go name; json:"-" and unexported fields are left
// out; embedded structs without a JSON name are flattened into their
// parent, and of several properties of one name the shallowest wins, a
// tagged one breaking a tie, a remaining tie hiding them all.
//
// A property is required unless its field is a pointer or its json tag
// says omitempty or omitzero. A pointer is optional and never ["null", T]
// unless the field asks for it: the schema does not list null, but the
// generated decoder reads null for an optional property as the property
// left out (models often send null for optional arguments); a required
// property refuses null. An optional field tagged mcp:"nullable" has a
// schema that admits null too, so that the schema and the decoder agree
// on it: its type becomes ["T","null"] ({"type":["string","null"]}), an
// enum gains null ("enum":["a","b",null]), and a recursive struct's $ref
// becomes "anyOf":[{"$ref":...},{"type":"null"}], the same forms in
// 2020-12 and draft-07. The decoder still reads the null as left out.
// Every object schema has "additionalProperties": false.
//
// # The mcp:"..." tag
//
// A field's mcp tag holds JSON Schema keywords:
//
//	B     float64  `json:"b" mcp:"minimum=0,maximum=100"`
//	Tags  []string `json:"tags" mcp:"maxItems=5,uniqueItems"`
//	Code  string   `json:"code" mcp:"pattern='^[A-Z]{2,3}$',title='Country code'"`
//	Mode  string   `json:"mode,omitempty" mcp:"enum=fast|safe,default=safe"`
//
// Items are key=value, separated by commas. Booleans may be bare
// (uniqueItems is uniqueItems=true, nullable is nullable=true). A value holding commas, spaces or
// quotes is single-quoted, a quote inside it written twice. Enum values are
// separated by |, with \| for a bar inside one. Each keyword is written
// once, and applies to the pointed-to value of a pointer field:
//
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum: numbers; an
//     integer field needs integer bounds; minimum may not exceed maximum.
//   - minLength, maxLength: strings, non-negative integers.
//   - minItems, maxItems: slices and arrays, non-negative integers.
//   - uniqueItems: slices and arrays of strings, numbers or booleans.
//   - pattern: strings; a regular expression that Go's regexp compiles.
//   - format: strings; written to the schema, and checked by the
//     generated validator for date-time (RFC 3339), date and byte (base64).
//   - enum, default: strings, numbers and booleans, each value parsed as
//     the field's type (and in its range, for sized integers).
//
// The keywords must agree with the field's type and with one another:
// bounds that leave no value (minimum above maximum, exclusive bounds
// with no integer between them, minimum=200 on an int8), minLength above
// maxLength and minItems above maxItems are refused; every enum value is
// distinct and passes the field's other keywords (bounds, lengths,
// pattern, and the formats the validator checks); the default passes them
// too and is one of the enum's values. On a named type with constants,
// enum= narrows the constants (a value that is not one is refused), and
// without enum= the default must be one of them.
//   - title: any field.
//   - deprecated: any field (an annotation).
//   - nullable: optional fields (a pointer, omitempty or omitzero) whose
//     schema has a type: the schema admits null as well (see Struct
//     fields). It is refused on a required field, since the decoder
//     refuses a null there; on any and json.RawMessage, whose schema has
//     no type and admits null already; and in an //mcp:form, whose fields
//     each have one type.
//
// # Type mapping
//
//	Go type                                     JSON Schema
//	bool                                        {"type":"boolean"}
//	string                                      {"type":"string"}
//	int, int64                                  {"type":"integer"}
//	int8, int16, int32                          {"type":"integer"} with the type's minimum and maximum
//	uint, uint64, uintptr                       {"type":"integer","minimum":0,"maximum":9223372036854775807}
//	uint8, uint16, uint32                       {"type":"integer"} with 0 and the type's maximum
//	float32, float64                            {"type":"number"}
//	time.Time                                   {"type":"string","format":"date-time"}
//	a type with MarshalText and UnmarshalText   {"type":"string"}, read with UnmarshalText and written
//	(netip.Addr, net.IP, slog.Level, ...)       with MarshalText; its error is the field's error
//	time.Duration                               {"type":"integer"}: nanoseconds, as encoding/json writes it
//	[]byte                                      {"type":"string","format":"byte","contentEncoding":"base64"}
//	[]T                                         {"type":"array","items":T}
//	[N]T                                        {"type":"array","items":T,"minItems":N,"maxItems":N}
//	map[string]T                                {"type":"object","additionalProperties":T}
//	struct                                      {"type":"object","properties":...,"required":[...],"additionalProperties":false}
//	*T                                          T's schema; the property is optional
//	any, json.RawMessage                        {} (any JSON value)
//	named type over string or an integer type   its underlying type's schema, with "enum" listing
//	                                            the constants of that type declared in its package
//	recursive struct                            {"$ref":"#/$defs/Name"}, defined once under $defs
//	                                            (definitions with //mcp:schema draft-07)
//
// A named map key type with constants gives "propertyNames" with their
// enum. Types of the standard library are not enums (time.Duration's
// units are not a list of choices). Instantiated generic types are
// lowered like any other. An mcp tag's enum narrows the constants. A
// type that marshals itself as JSON (json.Marshaler or json.Unmarshaler)
// without a text form is refused: mcpgen cannot know its schema; give it
// MarshalText and UnmarshalText, or write the schema with input-schema=
// or output-schema=.
//
// The generated file guards every struct its codecs read or write: a
// field's name, type or tag changed, or a field added or removed, without
// running go generate breaks the build at a line naming
// mcpgenStaleRunGoGenerate, instead of the codecs misreading the struct
// at run time.
//
// # Refused
//
// Each of these is an error naming the field or handler and what to
// write instead: complex numbers, channels, functions, interfaces with
// methods, the error type, anonymous struct types, types declared inside a
// function, uninstantiated type parameters, maps whose keys are not
// strings, pointers to pointers, embedded pointers to structs, the json
// ",string" option, named non-struct types that refer to themselves
// without a struct in between, a tool input that is not an object, a tool
// output that is not a struct, map, string, *mcp.CallToolResult or (with
// output-schema=) json.RawMessage, a json.RawMessage input without
// input-schema=, an mcp tag keyword on a field of the wrong kind, and two
// handlers with one name (or two resources with one URI or template).
package grammar
