package gen

import "github.com/dave/jennifer/jen"

// Generated code reports every decoding and validation problem with
// runtime/fielderr, the protocol package and handler files alike. This
// file is the one place in the generator that knows that package's API:
// the emitters name its functions only through errCall and the wrappers
// below.

const fielderrPkg = "github.com/mcpgen/mcpgen/runtime/fielderr"

// fielderrFuncs lists the functions of runtime/fielderr that generated
// code may call. TestErrFuncs keeps it equal to the package's exported
// functions, so that a rename there fails here, at generation, rather than
// in the compilation of every generated file.
var fielderrFuncs = map[string]bool{
	"New": true, "From": true, "AtField": true, "AtKey": true, "AtIndex": true,
	"Required": true, "Const": true, "Enum": true, "Type": true, "Format": true,
	"Minimum": true, "Maximum": true, "ExclusiveMinimum": true, "ExclusiveMaximum": true,
	"MultipleOf": true, "MinLength": true, "MaxLength": true, "Pattern": true,
	"MinItems": true, "MaxItems": true, "UniqueItems": true,
	"MinProperties": true, "MaxProperties": true,
	"UnknownProperty": true, "UnknownVariant": true, "NoVariant": true,
}

// errCall emits a call of the runtime/fielderr function name, such as
// errCall("Required") for fielderr.Required(). An unknown name is a bug
// in the generator.
func errCall(name string, args ...jen.Code) *jen.Statement {
	if !fielderrFuncs[name] {
		panic("gen: runtime/fielderr has no function " + name)
	}
	return jen.Qual(fielderrPkg, name).Call(args...)
}

// fieldErr emits an error with the message msg at an empty path, for what
// fielderr's named constructors do not cover.
func fieldErr(msg string) jen.Code { return errCall("New", jen.Lit(msg)) }

// A wrapFunc puts an error on its way out of a generated decoder,
// validator or encoder, typically by prepending a path segment. The
// emitters pass one down as they descend into a value, composing them.
type wrapFunc func(jen.Code) jen.Code

// plainErr leaves an error as it is: the wrapFunc of a whole value.
func plainErr(err jen.Code) jen.Code { return err }

// compose returns the wrapFunc that applies inner, then outer.
func compose(inner, outer wrapFunc) wrapFunc {
	return func(err jen.Code) jen.Code { return outer(inner(err)) }
}

// atField prepends the object member name, known now, to the error's path.
func atField(name string) wrapFunc {
	return func(err jen.Code) jen.Code { return errCall("AtField", err, jen.Lit(name)) }
}

// atFieldVar prepends the object member whose name the generated code
// holds in the expression name, such as string(key).
func atFieldVar(name string) wrapFunc {
	return func(err jen.Code) jen.Code { return errCall("AtField", err, jen.Id(name)) }
}

// atKey prepends the map key that the generated code holds in the
// variable k.
func atKey(k string) wrapFunc {
	return func(err jen.Code) jen.Code { return errCall("AtKey", err, jen.Id(k)) }
}

// atIndex prepends the array index that the generated code holds in the
// variable i.
func atIndex(i string) wrapFunc {
	return func(err jen.Code) jen.Code { return errCall("AtIndex", err, jen.Id(i)) }
}
