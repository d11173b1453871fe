package gosrc

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

// Values of the kinds the tag keywords apply to or refuse.
var (
	vString  = &model.Value{Kind: model.ValString, Go: &model.GoType{Name: "string"}}
	vInt     = &model.Value{Kind: model.ValInt, Go: &model.GoType{Name: "int"}}
	vInt8    = &model.Value{Kind: model.ValInt, Bits: 8, Go: &model.GoType{Name: "int8"}}
	vUint8   = &model.Value{Kind: model.ValUint, Bits: 8, Go: &model.GoType{Name: "uint8"}}
	vUint    = &model.Value{Kind: model.ValUint, Go: &model.GoType{Name: "uint"}}
	vFloat   = &model.Value{Kind: model.ValFloat, Bits: 64, Go: &model.GoType{Name: "float64"}}
	vBool    = &model.Value{Kind: model.ValBool, Go: &model.GoType{Name: "bool"}}
	vStrings = &model.Value{Kind: model.ValSlice, Elem: vString}
	vInts3   = &model.Value{Kind: model.ValArray, Len: 3, Elem: vInt}
	vStructs = &model.Value{Kind: model.ValSlice, Elem: &model.Value{Kind: model.ValStruct}}
	vMap     = &model.Value{Kind: model.ValMap, Key: vString, Elem: vInt}
	vBytes   = &model.Value{Kind: model.ValBytes}
	vTime    = &model.Value{Kind: model.ValTime}
	vAny     = &model.Value{Kind: model.ValAny}
	vStruct  = &model.Value{Kind: model.ValStruct}
)

func intp(n int) *int { return &n }

func TestSplitTag(t *testing.T) {
	tests := []struct {
		name, tag string
		want      string // items as key=value (bare: key) joined by |
		msg       string
	}{
		{"empty", ``, "", ""},
		{"one bare key", `uniqueItems`, "uniqueItems", ""},
		{"items in order", `pattern='^[a-z,]+$',maxLength=20,uniqueItems,title='it''s'`, "pattern=^[a-z,]+$|maxLength=20|uniqueItems|title=it's", ""},
		{"blanks around items", ` minimum=1 , maximum = 2 ,deprecated`, "minimum=1|maximum=2|deprecated", ""},
		{"empty value", `title=`, "title=", ""},
		{"quoted empty value", `title=''`, "title=", ""},
		{"quoted value with spaces and commas", `title='a, b c'`, "title=a, b c", ""},
		{"only a doubled quote", `title=''''`, "title='", ""},
		{"trailing comma", `minimum=1,`, "minimum=1", ""},
		{"empty keyword", `minimum=1,,maximum=2`, "", "an empty keyword: write key=value items separated by commas"},
		{"no key before =", `=1`, "", "an empty keyword: write key=value items separated by commas"},
		{"unterminated quote", `pattern='open`, "", "pattern: unterminated quoted value: close it with '"},
		{"text after the closing quote", `title='a'b`, "", "title: text after the closing quote: separate items with commas"},
		{"space in a bare value", `title=two words`, "", "title: a value holding spaces or quotes must be single-quoted: title='...'"},
		{"quote in a bare value", `title=it's`, "", "title: a value holding spaces or quotes must be single-quoted: title='...'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, msg := splitTag(tt.tag)
			if msg != tt.msg {
				t.Fatalf("splitTag(%q) message %q, want %q", tt.tag, msg, tt.msg)
			}
			var got []string
			for _, it := range items {
				if it.bare {
					got = append(got, it.key)
				} else {
					got = append(got, it.key+"="+it.value)
				}
			}
			if strings.Join(got, "|") != tt.want {
				t.Errorf("splitTag(%q) = %s, want %s", tt.tag, strings.Join(got, "|"), tt.want)
			}
		})
	}
}

func TestSplitEnum(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"one", "a", []string{"a"}},
		{"several", "a|b|c", []string{"a", "b", "c"}},
		{"escaped bar", `a|b\|c|`, []string{"a", "b|c", ""}},
		{"backslash kept elsewhere", `a\b`, []string{`a\b`}},
		{"empty", "", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitEnum(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitEnum(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Each keyword of an mcp:"..." tag in the forms it accepts.
func TestParseRules(t *testing.T) {
	tests := []struct {
		name, tag string
		v         *model.Value
		want      model.Rules
	}{
		{"minimum", "minimum=0", vInt, model.Rules{Minimum: &model.Bound{JSON: "0", Int: true}}},
		{"maximum negative", "maximum=-5", vInt, model.Rules{Maximum: &model.Bound{JSON: "-5", Float: -5, Int: true, I: -5}}},
		{"integral float on an int", "minimum=1e2", vInt, model.Rules{Minimum: &model.Bound{JSON: "100", Float: 100, Int: true, I: 100}}},
		{"fraction on a float", "exclusiveMinimum=0.5", vFloat, model.Rules{ExclusiveMinimum: &model.Bound{JSON: "0.5", Float: 0.5}}},
		{"integer on a float", "exclusiveMaximum=10", vFloat, model.Rules{ExclusiveMaximum: &model.Bound{JSON: "10", Float: 10, Int: true, I: 10}}},
		{"bounds on a uint", "minimum=1,maximum=255", vUint8, model.Rules{
			Minimum: &model.Bound{JSON: "1", Float: 1, Int: true, I: 1},
			Maximum: &model.Bound{JSON: "255", Float: 255, Int: true, I: 255},
		}},
		{"equal bounds", "minimum=3,maximum=3", vInt, model.Rules{
			Minimum: &model.Bound{JSON: "3", Float: 3, Int: true, I: 3},
			Maximum: &model.Bound{JSON: "3", Float: 3, Int: true, I: 3},
		}},
		{"string lengths", "minLength=1,maxLength=20", vString, model.Rules{MinLength: intp(1), MaxLength: intp(20)}},
		{"item counts on a slice", "minItems=0,maxItems=4", vStrings, model.Rules{MinItems: intp(0), MaxItems: intp(4)}},
		{"item counts on an array", "maxItems=3", vInts3, model.Rules{MaxItems: intp(3)}},
		{"pattern quoted", "pattern='^[a-z, ]+$'", vString, model.Rules{Pattern: "^[a-z, ]+$"}},
		{"format", "format=email", vString, model.Rules{Format: "email"}},
		{"title on any kind", "title='The map'", vMap, model.Rules{Title: "The map"}},
		{"string enum", "enum=a|b\\|c|", vString, model.Rules{Enum: []model.Literal{{Kind: model.LitString, S: "a"}, {Kind: model.LitString, S: "b|c"}, {Kind: model.LitString, S: ""}}}},
		{"int enum", "enum=-1|0|7", vInt, model.Rules{Enum: []model.Literal{{Kind: model.LitInt, I: -1}, {Kind: model.LitInt}, {Kind: model.LitInt, I: 7}}}},
		{"float enum", "enum=0.5|2", vFloat, model.Rules{Enum: []model.Literal{{Kind: model.LitFloat, F: 0.5}, {Kind: model.LitFloat, F: 2}}}},
		{"bool enum", "enum=true", vBool, model.Rules{Enum: []model.Literal{{Kind: model.LitBool, B: true}}}},
		{"string default quoted", "default='a b'", vString, model.Rules{Default: &model.Literal{Kind: model.LitString, S: "a b"}}},
		{"empty string default", "default=", vString, model.Rules{Default: &model.Literal{Kind: model.LitString}}},
		{"int8 default at its bound", "default=-128", vInt8, model.Rules{Default: &model.Literal{Kind: model.LitInt, I: -128}}},
		{"uint8 default at its bound", "default=255", vUint8, model.Rules{Default: &model.Literal{Kind: model.LitInt, I: 255}}},
		{"bool default", "default=false", vBool, model.Rules{Default: &model.Literal{Kind: model.LitBool}}},
		{"uniqueItems bare", "uniqueItems", vStrings, model.Rules{UniqueItems: true}},
		{"uniqueItems false", "uniqueItems=false", vInts3, model.Rules{}},
		{"deprecated bare", "deprecated", vStruct, model.Rules{Deprecated: true}},
		{"deprecated=true", "deprecated=true", vString, model.Rules{Deprecated: true}},
		{"empty tag", "", vString, model.Rules{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := parseRules(tt.tag, tt.v)
			if msg != "" {
				t.Fatalf("parseRules(%q): %s", tt.tag, msg)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseRules(%q) =\n%+v\nwant\n%+v", tt.tag, got, tt.want)
			}
		})
	}
}

// Each keyword's refusals, with the message the user sees.
func TestParseRulesRefused(t *testing.T) {
	tests := []struct {
		name, tag string
		v         *model.Value
		msg       string
	}{
		{"unknown keyword", "max=3", vInt, `unknown keyword "max": use ` + tagKeys},
		{"keyword twice", "minimum=1,minimum=2", vInt, "keyword minimum is given twice: keep one"},
		{"splitting fails", "title='x", vString, "title: unterminated quoted value: close it with '"},
		{"bare minimum", "minimum", vInt, "minimum needs a value: minimum=..."},
		{"maximum on a string", "maximum=3", vString, "maximum applies to numbers; this field is a string"},
		{"exclusiveMinimum not a number", "exclusiveMinimum=ten", vFloat, "exclusiveMinimum=ten: write a number"},
		{"infinite bound", "maximum=1e999", vFloat, "maximum=1e999: write a number"},
		{"NaN bound", "minimum=NaN", vFloat, "minimum=NaN: write a number"},
		{"fraction on an int", "exclusiveMaximum=1.5", vInt, "exclusiveMaximum=1.5: an integer field needs an integer bound"},
		{"minimum above maximum", "minimum=5,maximum=4", vInt, "minimum is greater than maximum: no value could pass"},
		{"bare maxLength", "maxLength", vString, "maxLength needs a value: maxLength=..."},
		{"minLength on a slice", "minLength=1", vStrings, "minLength applies to strings; this field is a slice"},
		{"maxLength on []byte", "maxLength=1", vBytes, "maxLength applies to strings; this field is []byte (a base64 string)"},
		{"minItems on a string", "minItems=1", vString, "minItems applies to slices and arrays; this field is a string"},
		{"maxItems on a map", "maxItems=1", vMap, "maxItems applies to slices and arrays; this field is a map"},
		{"negative length", "minLength=-1", vString, "minLength=-1: write a non-negative integer"},
		{"fractional count", "maxItems=1.5", vStrings, "maxItems=1.5: write a non-negative integer"},
		{"bare pattern", "pattern", vString, "pattern needs a value: pattern=..."},
		{"pattern on an int", "pattern=x", vInt, "pattern applies to strings; this field is an integer"},
		{"bad pattern", "pattern='(a'", vString, `pattern "(a" is not a valid regular expression: error parsing regexp: missing closing ): ` + "`(a`"},
		{"bare format", "format", vString, "format needs a value: format=..."},
		{"format on time.Time", "format=date", vTime, "format applies to strings; this field is a time.Time"},
		{"bare title", "title", vString, "title needs a value: title=..."},
		{"bare enum", "enum", vString, "enum needs a value: enum=..."},
		{"enum on a slice", "enum=a|b", vStrings, "enum applies to strings, numbers and booleans; this field is a slice"},
		{"int enum not an integer", "enum=1|x", vInt, `enum value "x": write an integer`},
		{"float enum not a number", "enum=Inf", vFloat, `enum value "Inf": write a number`},
		{"bool enum not a boolean", "enum=yes", vBool, `enum value "yes": write true or false`},
		{"bare default", "default", vInt, "default needs a value: default=..."},
		{"default on any", "default=1", vAny, "default applies to strings, numbers and booleans; this field is any JSON value"},
		{"default on a struct", "default=x", vStruct, "default applies to strings, numbers and booleans; this field is a struct"},
		{"int8 default out of range", "default=128", vInt8, "default=128: out of range for int8"},
		{"uint default negative", "default=-1", vUint, "default=-1: out of range for uint"},
		{"uint8 enum out of range", "enum=1|256", vUint8, `enum value "256": out of range for uint8`},
		{"float default not a number", "default=x", vFloat, "default=x: write a number"},
		{"uniqueItems not a boolean", "uniqueItems=yes", vStrings, "uniqueItems=yes: write uniqueItems, uniqueItems=true or uniqueItems=false"},
		{"uniqueItems on a string", "uniqueItems", vString, "uniqueItems applies to slices and arrays; this field is a string"},
		{"uniqueItems on structs", "uniqueItems", vStructs, "uniqueItems needs elements that are strings, numbers or booleans; these are a struct"},
		{"deprecated not a boolean", "deprecated=soon", vString, "deprecated=soon: write deprecated, deprecated=true or deprecated=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, msg := parseRules(tt.tag, tt.v); msg != tt.msg {
				t.Errorf("parseRules(%q) message\n%s\nwant\n%s", tt.tag, msg, tt.msg)
			}
		})
	}
}

func TestIntRange(t *testing.T) {
	tests := []struct {
		name   string
		v      *model.Value
		lo, hi float64
	}{
		{"int8", vInt8, -128, 127},
		{"int", vInt, -(1 << 63), 1<<63 - 1},
		{"uint8", vUint8, 0, 255},
		{"uint as far as int64 holds", vUint, 0, 1<<63 - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if lo, hi := intRange(tt.v); lo != tt.lo || hi != tt.hi {
				t.Errorf("intRange = %v, %v, want %v, %v", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}
