package gen

import (
	"github.com/dave/jennifer/jen"
)

// helpers writes the small unexported functions every mcpgen_gen.go
// carries. Errors are *mcp.FieldError, the protocol package's error type,
// so a handler package's errors read exactly like the protocol's own
// ("tags[2]: must be at most 10 characters long") and callers can find them
// with errors.As.
func (g *handlerGen) helpers() {
	f := g.f
	errT := jen.Op("*").Qual(mcpPkg, "FieldError")
	scanner := jen.Op("*").Qual(jsonrpcPkg, "Scanner")

	// The schema constants are indented for the reader, and mcp.Tool keeps
	// schemas as raw JSON that goes out as written: compacting the
	// definition keeps raw newlines out of frames, which a newline-delimited
	// transport (stdio) must refuse.
	f.Comment("mcpgenRegister builds a tool's definition from its JSON, compacted so that it fits on one line of a stdio stream, and adds it to s.")
	f.Func().Id("mcpgenRegister").Params(
		jen.Id("s").Op("*").Qual(serverPkg, "Server"),
		jen.Id("def").String(),
		jen.Id("h").Qual(serverPkg, "ToolHandler"),
		jen.Id("opts").Op("...").Qual(serverPkg, "ToolOption"),
	).Error().Block(
		jen.Var().Id("buf").Qual("bytes", "Buffer"),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Compact").Call(jen.Op("&").Id("buf"), jen.Index().Byte().Call(jen.Id("def"))), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("mcpgen: tool definition: %w"), jen.Err())),
		),
		jen.Var().Id("t").Qual(mcpPkg, "Tool"),
		jen.If(jen.Err().Op(":=").Id("t").Dot("UnmarshalJSON").Call(jen.Id("buf").Dot("Bytes").Call()), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("mcpgen: tool definition: %w"), jen.Err())),
		),
		jen.Return(jen.Id("s").Dot("AddTool").Call(jen.Id("t"), jen.Id("h"), jen.Id("opts").Op("..."))),
	)
	f.Line()

	f.Comment("mcpgenStructured makes a tool result of structured content, repeated as text for clients that read only content.")
	f.Func().Id("mcpgenStructured").Params(jen.Id("data").Index().Byte(), jen.Err().Error()).Params(jen.Op("*").Qual(mcpPkg, "CallToolResult"), jen.Error()).Block(
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("encode result: %w"), jen.Err()))),
		jen.Return(jen.Op("&").Qual(mcpPkg, "CallToolResult").Values(jen.Dict{
			jen.Id("Content"):           textContent(jen.String().Call(jen.Id("data"))),
			jen.Id("StructuredContent"): jen.Id("data"),
		}), jen.Nil()),
	)
	f.Line()

	f.Comment("mcpgenDecodeRoot runs decode over a whole JSON document; no arguments at all read as {}.")
	f.Func().Id("mcpgenDecodeRoot").Params(jen.Id("data").Index().Byte(), jen.Id("decode").Func().Params(scanner.Clone()).Error()).Error().Block(
		jen.If(jen.Len(jen.Id("data")).Op("==").Lit(0)).Block(jen.Id("data").Op("=").Index().Byte().Call(jen.Lit("{}"))),
		jen.Var().Id("s").Qual(jsonrpcPkg, "Scanner"),
		jen.Id("s").Dot("Reset").Call(jen.Id("data")),
		jen.If(jen.Err().Op(":=").Id("decode").Call(jen.Op("&").Id("s")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("mcpgenFieldError").Call(jen.Err()))),
		jen.If(jen.Err().Op(":=").Id("s").Dot("End").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("mcpgenFieldError").Call(jen.Err()))),
		jen.Return(jen.Nil()),
	)
	f.Line()

	f.Comment("mcpgenErr reports a problem with the value at an empty path; callers on the way out prepend its path.")
	f.Func().Id("mcpgenErr").Params(jen.Id("msg").String()).Error().Block(jen.Return(jen.Op("&").Qual(mcpPkg, "FieldError").Values(jen.Dict{jen.Id("Msg"): jen.Id("msg")})))
	f.Line()

	f.Comment("mcpgenFieldError returns err as an *mcp.FieldError, explaining the scanner's errors.")
	f.Func().Id("mcpgenFieldError").Params(jen.Err().Error()).Add(errT.Clone()).Block(
		jen.Var().Id("msg").String(),
		jen.Switch(jen.Id("e").Op(":=").Err().Assert(jen.Type())).Block(
			jen.Case(errT.Clone()).Block(jen.Return(jen.Id("e"))),
			jen.Case(jen.Op("*").Qual(jsonrpcPkg, "TypeError")).Block(jen.Id("msg").Op("=").Lit("expected ").Op("+").Id("e").Dot("Want").Op("+").Lit(", got ").Op("+").Id("e").Dot("Got").Dot("String").Call()),
			jen.Case(jen.Op("*").Qual(jsonrpcPkg, "NumberError")).Block(jen.Id("msg").Op("=").Lit("number ").Op("+").Id("e").Dot("Number").Op("+").Lit(" ").Op("+").Id("e").Dot("Msg")),
			jen.Case(jen.Op("*").Qual(jsonrpcPkg, "SyntaxError")).Block(jen.Id("msg").Op("=").Lit("invalid JSON: ").Op("+").Id("e").Dot("Msg").Op("+").Lit(" at offset ").Op("+").Qual("strconv", "Itoa").Call(jen.Id("e").Dot("Offset"))),
			jen.Default().Block(jen.Id("msg").Op("=").Err().Dot("Error").Call()),
		),
		jen.Return(jen.Op("&").Qual(mcpPkg, "FieldError").Values(jen.Dict{jen.Id("Msg"): jen.Id("msg"), jen.Id("Err"): jen.Err()})),
	)
	f.Line()

	f.Comment("mcpgenAtField prepends an object member to err's path: a name as is when it is an identifier, else quoted in brackets.")
	f.Func().Id("mcpgenAtField").Params(jen.Err().Error(), jen.Id("name").String()).Error().Block(
		jen.Id("seg").Op(":=").Id("name"),
		jen.For(jen.Id("i").Op(":=").Range().Id("name")).Block(
			jen.Id("c").Op(":=").Id("name").Index(jen.Id("i")),
			jen.If(jen.Id("c").Op("!=").LitRune('_').Op("&&").Parens(jen.Id("c").Op("|").Lit(0x20).Op("<").LitRune('a').Op("||").Id("c").Op("|").Lit(0x20).Op(">").LitRune('z')).Op("&&").Parens(jen.Id("i").Op("==").Lit(0).Op("||").Id("c").Op("<").LitRune('0').Op("||").Id("c").Op(">").LitRune('9'))).Block(
				jen.Id("seg").Op("=").Lit("[").Op("+").Qual("strconv", "Quote").Call(jen.Id("name")).Op("+").Lit("]"),
				jen.Break(),
			),
		),
		jen.If(jen.Id("name").Op("==").Lit("")).Block(jen.Id("seg").Op("=").Lit(`[""]`)),
		jen.Return(jen.Id("mcpgenAt").Call(jen.Err(), jen.Id("seg"))),
	)
	f.Line()

	f.Comment("mcpgenAtIndex prepends an array index to err's path.")
	f.Func().Id("mcpgenAtIndex").Params(jen.Err().Error(), jen.Id("i").Int()).Error().Block(
		jen.Return(jen.Id("mcpgenAt").Call(jen.Err(), jen.Lit("[").Op("+").Qual("strconv", "Itoa").Call(jen.Id("i")).Op("+").Lit("]"))),
	)
	f.Line()

	f.Func().Id("mcpgenAt").Params(jen.Err().Error(), jen.Id("seg").String()).Error().Block(
		jen.Id("fe").Op(":=").Id("mcpgenFieldError").Call(jen.Err()),
		jen.Switch().Block(
			jen.Case(jen.Id("fe").Dot("Path").Op("==").Lit("")).Block(jen.Id("fe").Dot("Path").Op("=").Id("seg")),
			jen.Case(jen.Id("fe").Dot("Path").Index(jen.Lit(0)).Op("==").LitRune('[')).Block(jen.Id("fe").Dot("Path").Op("=").Id("seg").Op("+").Id("fe").Dot("Path")),
			jen.Default().Block(jen.Id("fe").Dot("Path").Op("=").Id("seg").Op("+").Lit(".").Op("+").Id("fe").Dot("Path")),
		),
		jen.Return(jen.Id("fe")),
	)
	f.Line()

	if g.usesAny {
		f.Comment("mcpgenDecodeAny reads any JSON value as encoding/json would into an any: objects as map[string]any, arrays as []any, numbers as float64.")
		f.Func().Id("mcpgenDecodeAny").Params(jen.Id("s").Add(scanner.Clone())).Params(jen.Any(), jen.Error()).Block(
			jen.Switch(jen.Id("s").Dot("Peek").Call()).Block(
				jen.Case(jen.Qual(jsonrpcPkg, "KindObject")).Block(
					jen.If(jen.Err().Op(":=").Id("s").Dot("ObjectStart").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
					jen.Id("m").Op(":=").Map(jen.String()).Any().Values(),
					jen.For().Block(
						jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(),
						jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
						jen.If(jen.Op("!").Id("more")).Block(jen.Return(jen.Id("m"), jen.Nil())),
						jen.Id("k").Op(":=").String().Call(jen.Id("key")),
						jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("mcpgenDecodeAny").Call(jen.Id("s")),
						jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("mcpgenAtField").Call(jen.Err(), jen.Id("k")))),
						jen.Id("m").Index(jen.Id("k")).Op("=").Id("v"),
					),
				),
				jen.Case(jen.Qual(jsonrpcPkg, "KindArray")).Block(
					jen.If(jen.Err().Op(":=").Id("s").Dot("ArrayStart").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
					jen.Id("a").Op(":=").Index().Any().Values(),
					jen.For().Block(
						jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextElem").Call(),
						jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
						jen.If(jen.Op("!").Id("more")).Block(jen.Return(jen.Id("a"), jen.Nil())),
						jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("mcpgenDecodeAny").Call(jen.Id("s")),
						jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("mcpgenAtIndex").Call(jen.Err(), jen.Len(jen.Id("a"))))),
						jen.Id("a").Op("=").Append(jen.Id("a"), jen.Id("v")),
					),
				),
				jen.Case(jen.Qual(jsonrpcPkg, "KindString")).Block(jen.Return(jen.Id("s").Dot("String").Call())),
				jen.Case(jen.Qual(jsonrpcPkg, "KindNumber")).Block(jen.Return(jen.Id("s").Dot("Float64").Call())),
				jen.Case(jen.Qual(jsonrpcPkg, "KindBool")).Block(jen.Return(jen.Id("s").Dot("Bool").Call())),
			),
			jen.List(jen.Id("null"), jen.Err()).Op(":=").Id("s").Dot("Null").Call(),
			jen.If(jen.Err().Op("==").Nil().Op("&&").Op("!").Id("null")).Block(jen.Err().Op("=").Id("s").Dot("Skip").Call()),
			jen.Return(jen.Nil(), jen.Err()),
		)
		f.Line()
	}
}
