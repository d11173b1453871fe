package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// renderCode renders generated statements as Go source.
func renderCode(code []jen.Code) string { return fmt.Sprintf("%#v", jen.Block(code...)) }

// TestCodecSharedChecks holds the two lowerings to one meaning: a protocol
// type and a handler value with the same keywords get the same checks
// from the codec.
func TestCodecSharedChecks(t *testing.T) {
	one, five := 1.0, 5.0
	two, three := 2, 3
	bound := func(s string, f float64) *model.Bound { return &model.Bound{JSON: s, Float: f, Int: true, I: int64(f)} }
	float := &model.GoType{Name: "float64"}
	for _, tc := range []struct {
		name     string
		protocol *model.Type
		handler  *model.Value
		rules    *model.Rules
	}{
		{
			name:     "number bounds",
			protocol: &model.Type{Kind: model.Primitive, Prim: model.Number, Minimum: &one, Maximum: &five},
			handler:  &model.Value{Kind: model.ValFloat, Go: float},
			rules:    &model.Rules{Minimum: bound("1", 1), Maximum: bound("5", 5)},
		},
		{
			name:     "item counts",
			protocol: &model.Type{Kind: model.Array, Elem: &model.Type{Kind: model.Primitive, Prim: model.Number}, MinItems: &two, MaxItems: &three},
			handler:  &model.Value{Kind: model.ValSlice, Elem: &model.Value{Kind: model.ValFloat, Go: float}},
			rules:    &model.Rules{MinItems: &two, MaxItems: &three},
		},
	} {
		g := &generator{}
		h := &handlerGen{h: &model.Handlers{}}
		ret := func(err jen.Code) jen.Code { return jen.Return(err) }
		x := jen.Id("x")
		protocol := renderCode(protocolCodec.keywordChecks(x, g.codecType(tc.protocol, nil), ret))
		handler := renderCode(handlerCodec.keywordChecks(x, h.codecValue(tc.handler, tc.rules), ret))
		if protocol != handler {
			t.Errorf("%s: protocol checks\n%s\nhandler checks\n%s", tc.name, protocol, handler)
		}
		if !strings.Contains(protocol, "fielderr") {
			t.Errorf("%s: no checks written:\n%s", tc.name, protocol)
		}
	}
}

// TestCodecEnumMessage checks that an enum miss names the value it got,
// as fielderr.Enum does, whatever the value's kind.
func TestCodecEnumMessage(t *testing.T) {
	ret := func(err jen.Code) jen.Code { return jen.Return(err) }
	tests := []struct {
		name string
		scan scanKind
		want string
	}{
		{"string", scanString, `fielderr.Enum(x, "[1,2]")`},
		{"integer", scanInt, `got " + strconv.FormatInt(x, 10)`},
		{"number", scanFloat, `got " + strconv.FormatFloat(x, 'g', -1, 64)`},
		{"boolean", scanBool, `got " + strconv.FormatBool(x)`},
	}
	enum := []model.Literal{{Kind: model.LitInt, I: 1}, {Kind: model.LitInt, I: 2}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderCode([]jen.Code{enumCheck(jen.Id("x"), tt.scan, enum, ret)})
			if !strings.Contains(got, tt.want) {
				t.Errorf("enum check\n%s\nwants %s", got, tt.want)
			}
		})
	}
}
