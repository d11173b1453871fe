package gosrc

import (
	"reflect"
	"strconv"
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
	vInt32   = &model.Value{Kind: model.ValInt, Bits: 32, Go: &model.GoType{Name: "int32"}}
	vInt64   = &model.Value{Kind: model.ValInt, Bits: 64, Go: &model.GoType{Name: "int64"}}
	vUint32  = &model.Value{Kind: model.ValUint, Bits: 32, Go: &model.GoType{Name: "uint32"}}
	vUint64  = &model.Value{Kind: model.ValUint, Bits: 64, Go: &model.GoType{Name: "uint64"}}
	vFloat32 = &model.Value{Kind: model.ValFloat, Bits: 32, Go: &model.GoType{Name: "float32"}}
	vFloat   = &model.Value{Kind: model.ValFloat, Bits: 64, Go: &model.GoType{Name: "float64"}}
	vBool    = &model.Value{Kind: model.ValBool, Go: &model.GoType{Name: "bool"}}
	vStrings = &model.Value{Kind: model.ValSlice, Elem: vString}
	vInts3   = &model.Value{Kind: model.ValArray, Len: 3, Elem: vInt}
	vStructs = &model.Value{Kind: model.ValSlice, Elem: &model.Value{Kind: model.ValStruct}}
	vMap     = &model.Value{Kind: model.ValMap, Key: vString, Elem: vInt}
	vBytes   = &model.Value{Kind: model.ValBytes}
	vTime    = &model.Value{Kind: model.ValTime}
	vAny     = &model.Value{Kind: model.ValAny}
	vRaw     = &model.Value{Kind: model.ValRaw}
	vStruct  = &model.Value{Kind: model.ValStruct}
	// vColor and vLevel are named types with constants, an enum of their own.
	vColor = &model.Value{Kind: model.ValString, Go: &model.GoType{Path: "example.com/p", Name: "Color"}, Enum: []model.Literal{
		{Kind: model.LitString, S: "red", Name: "Red"}, {Kind: model.LitString, S: "green", Name: "Green"}, {Kind: model.LitString, S: "blue", Name: "Blue"},
	}}
	vLevel = &model.Value{Kind: model.ValInt, Bits: 8, Go: &model.GoType{Path: "example.com/p", Name: "Level"}, Enum: []model.Literal{
		{Kind: model.LitInt, I: 1, Name: "Low"}, {Kind: model.LitInt, I: 2, Name: "Mid"}, {Kind: model.LitInt, I: 3, Name: "High"},
	}}
)

// Shorthands for the expected rules.
func bound(n int64) *model.Bound {
	return &model.Bound{JSON: strconv.FormatInt(n, 10), Float: float64(n), Int: true, I: n}
}
func str(s string) model.Literal   { return model.Literal{Kind: model.LitString, S: s} }
func strp(s string) *model.Literal { l := str(s); return &l }

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
		{"nullable bare", "nullable", vString, model.Rules{Nullable: true}},
		{"nullable=false", "nullable=false", vString, model.Rules{}},
		{"nullable with an enum", "nullable,enum=a|b", vString, model.Rules{Nullable: true, Enum: []model.Literal{str("a"), str("b")}}},
		{"nullable on a type with constants", "nullable", vColor, model.Rules{Nullable: true}},
		{"nullable on a struct", "nullable", vStruct, model.Rules{Nullable: true}},
		{"nullable on a slice with counts", "maxItems=2,nullable=true", vStrings, model.Rules{Nullable: true, MaxItems: intp(2)}},
		{"nullable on []byte", "nullable", vBytes, model.Rules{Nullable: true}},
		// The keywords agree with one another.
		{"exclusive bounds leave one integer", "exclusiveMinimum=0,exclusiveMaximum=2", vInt, model.Rules{ExclusiveMinimum: bound(0), ExclusiveMaximum: bound(2)}},
		{"a bound beyond the kind's range on one side", "minimum=-1000", vInt8, model.Rules{Minimum: bound(-1000)}},
		{"minimum at the kind's largest value", "minimum=127", vInt8, model.Rules{Minimum: bound(127)}},
		{"exclusiveMinimum just below int64's largest", "exclusiveMinimum=9223372036854775806", vInt, model.Rules{ExclusiveMinimum: bound(9223372036854775806)}},
		{"exclusive bounds far apart", "exclusiveMinimum=-9223372036854775808,exclusiveMaximum=9223372036854775807", vInt, model.Rules{ExclusiveMinimum: bound(-9223372036854775808), ExclusiveMaximum: bound(9223372036854775807)}},
		{"equal lengths", "minLength=2,maxLength=2", vString, model.Rules{MinLength: intp(2), MaxLength: intp(2)}},
		{"minItems at an array's length", "minItems=3,maxItems=3", vInts3, model.Rules{MinItems: intp(3), MaxItems: intp(3)}},
		{"default at maximum", "minimum=1,maximum=10,default=10", vInt, model.Rules{Minimum: bound(1), Maximum: bound(10), Default: &model.Literal{Kind: model.LitInt, I: 10}}},
		{"default above exclusiveMinimum", "exclusiveMinimum=0,default=0.5", vFloat, model.Rules{ExclusiveMinimum: &model.Bound{JSON: "0", Int: true}, Default: &model.Literal{Kind: model.LitFloat, F: 0.5}}},
		{"default meeting every string keyword", "minLength=2,maxLength=5,pattern='^[a-z]+$',default=abc", vString, model.Rules{MinLength: intp(2), MaxLength: intp(5), Pattern: "^[a-z]+$", Default: strp("abc")}},
		{"lengths count characters, not bytes", "maxLength=3,default=äöü", vString, model.Rules{MaxLength: intp(3), Default: strp("äöü")}},
		{"pattern unanchored", "pattern=b,default=abc", vString, model.Rules{Pattern: "b", Default: strp("abc")}},
		{"default date", "format=date,default=2024-05-01", vString, model.Rules{Format: "date", Default: strp("2024-05-01")}},
		{"default date-time", "format=date-time,default=2024-05-01T09:30:00.5+02:00", vString, model.Rules{Format: "date-time", Default: strp("2024-05-01T09:30:00.5+02:00")}},
		{"default byte", "format=byte,default=aGk=", vString, model.Rules{Format: "byte", Default: strp("aGk=")}},
		{"default of a format not checked", "format=email,default=nobody", vString, model.Rules{Format: "email", Default: strp("nobody")}},
		{"default in the enum", "enum=a|b,default=b", vString, model.Rules{Enum: []model.Literal{str("a"), str("b")}, Default: strp("b")}},
		{"default with a bar in the enum", `enum=a\|b|c,default=a|b`, vString, model.Rules{Enum: []model.Literal{str("a|b"), str("c")}, Default: strp("a|b")}},
		{"enum values within bounds", "enum=1|5,minimum=1,maximum=5", vInt, model.Rules{Enum: []model.Literal{{Kind: model.LitInt, I: 1}, {Kind: model.LitInt, I: 5}}, Minimum: bound(1), Maximum: bound(5)}},
		{"enum narrowing constants, in its own order", "enum=blue|red", vColor, model.Rules{Enum: []model.Literal{str("blue"), str("red")}}},
		{"enum of all the constants", "enum=red|green|blue", vColor, model.Rules{Enum: []model.Literal{str("red"), str("green"), str("blue")}}},
		{"default among the constants", "default=green", vColor, model.Rules{Default: strp("green")}},
		{"default in an enum narrowing constants", "enum=red|blue,default=blue", vColor, model.Rules{Enum: []model.Literal{str("red"), str("blue")}, Default: strp("blue")}},
		{"int enum narrowing constants", "enum=3|1,default=1", vLevel, model.Rules{Enum: []model.Literal{{Kind: model.LitInt, I: 3}, {Kind: model.LitInt, I: 1}}, Default: &model.Literal{Kind: model.LitInt, I: 1}}},
		{"float32 default within its range", "default=3e38", vFloat32, model.Rules{Default: &model.Literal{Kind: model.LitFloat, F: 3e38}}},
		{"bounds some constants pass", "minimum=2", vLevel, model.Rules{Minimum: bound(2)}},
		{"pattern some constants match", "pattern='^(red|blue)$'", vColor, model.Rules{Pattern: "^(red|blue)$"}},
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
		{"minimum above maximum", "minimum=5,maximum=4", vInt, "minimum=5 is greater than maximum=4: no value could pass; lower minimum or raise maximum"},
		{"maximum written before minimum", "maximum=0.5,minimum=1", vFloat, "minimum=1 is greater than maximum=0.5: no value could pass; lower minimum or raise maximum"},
		{"exclusive bounds that meet", "exclusiveMinimum=1,exclusiveMaximum=1", vFloat, "exclusiveMinimum=1 and exclusiveMaximum=1 leave no number between them: lower exclusiveMinimum or raise exclusiveMaximum"},
		{"minimum at exclusiveMaximum", "minimum=1.5,exclusiveMaximum=1.5", vFloat, "minimum=1.5 and exclusiveMaximum=1.5 leave no number between them: lower minimum or raise exclusiveMaximum"},
		{"exclusiveMinimum at maximum", "exclusiveMinimum=2,maximum=2", vInt, "exclusiveMinimum=2 and maximum=2 leave no integer between them: lower exclusiveMinimum or raise maximum"},
		{"exclusive bounds with no integer between", "exclusiveMinimum=0,exclusiveMaximum=1", vInt, "exclusiveMinimum=0 and exclusiveMaximum=1 leave no integer between them: lower exclusiveMinimum or raise exclusiveMaximum"},
		{"minimum above exclusiveMaximum", "minimum=3,exclusiveMaximum=1", vInt, "minimum=3 and exclusiveMaximum=1 leave no integer between them: lower minimum or raise exclusiveMaximum"},
		{"minimum above the kind's range", "minimum=200", vInt8, "minimum=200 leaves no int8 value (int8 holds -128 to 127): lower minimum"},
		{"maximum below the kind's range", "maximum=-1", vUint8, "maximum=-1 leaves no uint8 value (uint8 holds 0 to 255): raise maximum"},
		{"exclusiveMaximum at a uint's smallest", "exclusiveMaximum=0", vUint, "exclusiveMaximum=0 leaves no uint value (uint holds 0 to 9223372036854775807): raise exclusiveMaximum"},
		{"exclusiveMinimum at int64's largest", "exclusiveMinimum=9223372036854775807", vInt, "exclusiveMinimum=9223372036854775807 leaves no int value (int holds -9223372036854775808 to 9223372036854775807): lower exclusiveMinimum"},
		{"exclusiveMinimum at a named type's largest", "exclusiveMinimum=127", vLevel, "exclusiveMinimum=127 leaves no Level value (Level holds -128 to 127): lower exclusiveMinimum"},
		{"minLength above maxLength", "maxLength=3,minLength=5", vString, "minLength=5 is greater than maxLength=3: no string could pass; lower minLength or raise maxLength"},
		{"minItems above maxItems", "minItems=4,maxItems=2", vStrings, "minItems=4 is greater than maxItems=2: no array could pass; lower minItems or raise maxItems"},
		{"minItems above an array's length", "minItems=4", vInts3, "minItems=4 is more than the array's length, 3, which is always its number of items: no value could pass; drop minItems"},
		{"maxItems below an array's length", "maxItems=2", vInts3, "maxItems=2 is less than the array's length, 3, which is always its number of items: no value could pass; drop maxItems"},
		{"default below minimum", "minimum=1,default=0", vInt, "default=0: below minimum=1: the default must pass the field's other keywords; change the default or minimum"},
		{"default above maximum", "default=11,maximum=10", vInt, "default=11: above maximum=10: the default must pass the field's other keywords; change the default or maximum"},
		{"default at exclusiveMinimum", "exclusiveMinimum=0,default=0", vFloat, "default=0: not above exclusiveMinimum=0: the default must pass the field's other keywords; change the default or exclusiveMinimum"},
		{"default at exclusiveMaximum", "exclusiveMaximum=1.5,default=1.5", vFloat, "default=1.5: not below exclusiveMaximum=1.5: the default must pass the field's other keywords; change the default or exclusiveMaximum"},
		{"default just past a fractional bound", "maximum=0.1,default=0.10000000000000002", vFloat, "default=0.10000000000000002: above maximum=0.1: the default must pass the field's other keywords; change the default or maximum"},
		{"default of one character too short", "minLength=2,default=a", vString, "default=a: 1 character, fewer than minLength=2: the default must pass the field's other keywords; change the default or minLength"},
		{"default too long in characters", "maxLength=3,default=äöüß", vString, "default=äöüß: 4 characters, more than maxLength=3: the default must pass the field's other keywords; change the default or maxLength"},
		{"empty default under minLength", "minLength=1,default=", vString, "default=: 0 characters, fewer than minLength=1: the default must pass the field's other keywords; change the default or minLength"},
		{"default not matching the pattern", "pattern='^[a-z]+$',default=ABC", vString, "default=ABC: does not match pattern=^[a-z]+$: the default must pass the field's other keywords; change the default or pattern"},
		{"default not a date", "format=date,default=2024-13-01", vString, "default=2024-13-01: not a date: format=date takes YYYY-MM-DD, such as 2024-05-01: the default must pass the field's other keywords; change the default or format"},
		{"default not a date-time", "default=2024-05-01,format=date-time", vString, "default=2024-05-01: not a date-time: format=date-time takes RFC 3339, such as 2024-05-01T09:30:00Z: the default must pass the field's other keywords; change the default or format"},
		{"default not base64", "format=byte,default=a", vString, "default=a: not base64: format=byte takes standard base64 with padding, such as aGk=: the default must pass the field's other keywords; change the default or format"},
		{"default outside the enum", "enum=a|b,default=c", vString, "default=c: not one of enum=a|b: make the default one of them"},
		{"default outside an enum with a bar", `default=a,enum=a\|b|c`, vString, `default=a: not one of enum=a\|b|c: make the default one of them`},
		{"default outside a type's constants", "default=purple", vColor, "default=purple: not a constant of Color (red|green|blue): make the default one of them"},
		{"default a constant but outside the enum", "enum=red|blue,default=green", vColor, "default=green: not one of enum=red|blue: make the default one of them"},
		{"int default outside a type's constants", "default=4", vLevel, "default=4: not a constant of Level (1|2|3): make the default one of them"},
		{"enum beyond a type's constants", "enum=red|purple", vColor, `enum value "purple": not a constant of Color (red|green|blue): enum= on a type with constants keeps some of them; drop the value or declare a constant for it`},
		{"int enum beyond a type's constants", "enum=1|4", vLevel, `enum value "4": not a constant of Level (1|2|3): enum= on a type with constants keeps some of them; drop the value or declare a constant for it`},
		{"enum value twice", "enum=a|b|a", vString, `enum value "a": written twice: keep one`},
		{"enum value twice as numbers", "enum=1|1.0", vFloat, `enum value "1.0": written twice: keep one`},
		{"enum value above maximum", "enum=1|7,maximum=5", vInt, `enum value "7": above maximum=5: every enum value must pass the field's other keywords; drop it or change maximum`},
		{"enum value too short", "minLength=2,enum=ab|c", vString, `enum value "c": 1 character, fewer than minLength=2: every enum value must pass the field's other keywords; drop it or change minLength`},
		{"enum value not matching the pattern", "enum='ok|no way',pattern='^[a-z]+$'", vString, `enum value "no way": does not match pattern=^[a-z]+$: every enum value must pass the field's other keywords; drop it or change pattern`},
		{"float32 default out of range", "default=1e39", vFloat32, "default=1e39: out of range for float32"},
		{"bounds no constant passes", "minimum=5", vLevel, "no constant of Level (1|2|3) passes the field's keywords (1: below minimum=5): no value could pass; loosen them"},
		{"pattern no constant matches", "pattern=^x", vColor, "no constant of Color (red|green|blue) passes the field's keywords (red: does not match pattern=^x): no value could pass; loosen them"},
		{"float32 enum out of range", "enum=1|-1e39", &model.Value{Kind: model.ValFloat, Bits: 32, Go: &model.GoType{Name: "Ratio"}}, `enum value "-1e39": out of range for Ratio, a float32`},
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
		{"int8 default out of range", "default=128", vInt8, "default=128: out of range for int8, which holds -128 to 127"},
		{"uint default negative", "default=-1", vUint, "default=-1: out of range for uint, which holds 0 to 9223372036854775807"},
		{"uint8 enum out of range", "enum=1|256", vUint8, `enum value "256": out of range for uint8, which holds 0 to 255`},
		{"float default not a number", "default=x", vFloat, "default=x: write a number"},
		{"uniqueItems not a boolean", "uniqueItems=yes", vStrings, "uniqueItems=yes: write uniqueItems, uniqueItems=true or uniqueItems=false"},
		{"uniqueItems on a string", "uniqueItems", vString, "uniqueItems applies to slices and arrays; this field is a string"},
		{"uniqueItems on structs", "uniqueItems", vStructs, "uniqueItems needs elements that are strings, numbers or booleans; these are a struct"},
		{"deprecated not a boolean", "deprecated=soon", vString, "deprecated=soon: write deprecated, deprecated=true or deprecated=false"},
		{"nullable not a boolean", "nullable=maybe", vString, "nullable=maybe: write nullable, nullable=true or nullable=false"},
		{"nullable on any", "nullable", vAny, "nullable applies to fields with one JSON type; this field is any JSON value, whose schema already admits null: drop nullable"},
		{"nullable on json.RawMessage", "nullable", vRaw, "nullable applies to fields with one JSON type; this field is any JSON value, whose schema already admits null: drop nullable"},
		{"nullable twice", "nullable,nullable=false", vString, "keyword nullable is given twice: keep one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, msg := parseRules(tt.tag, tt.v); msg != tt.msg {
				t.Errorf("parseRules(%q) message\n%s\nwant\n%s", tt.tag, msg, tt.msg)
			}
		})
	}
}

// nullable needs an optional field: checkOptional refuses it on a
// required one and lets every other combination pass.
func TestCheckOptional(t *testing.T) {
	tests := []struct {
		name     string
		rules    model.Rules
		required bool
		msg      string
	}{
		{"nullable on a required field", model.Rules{Nullable: true}, true, nullableRequired},
		{"nullable on an optional field", model.Rules{Nullable: true}, false, ""},
		{"other keywords on a required field", model.Rules{Deprecated: true, MaxLength: intp(3)}, true, ""},
		{"no keywords on an optional field", model.Rules{}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if msg := checkOptional(&tt.rules, tt.required); msg != tt.msg {
				t.Errorf("checkOptional(%+v, %v) = %q, want %q", tt.rules, tt.required, msg, tt.msg)
			}
		})
	}
	want := "nullable applies to optional fields (a pointer, or omitempty/omitzero): " +
		"a required property that may be null is one that may be absent, and the decoder refuses a null for a required one; " +
		"make the field a pointer or add omitempty, or drop nullable"
	if nullableRequired != want {
		t.Errorf("the message for nullable on a required field is\n%s\nwant\n%s", nullableRequired, want)
	}
}

func TestIntRange(t *testing.T) {
	tests := []struct {
		name   string
		v      *model.Value
		lo, hi int64
	}{
		{"int8", vInt8, -128, 127},
		{"int", vInt, -1 << 63, 1<<63 - 1},
		{"int64", vInt64, -1 << 63, 1<<63 - 1},
		{"int32", vInt32, -1 << 31, 1<<31 - 1},
		{"uint8", vUint8, 0, 255},
		{"uint32", vUint32, 0, 1<<32 - 1},
		{"uint as far as int64 holds", vUint, 0, 1<<63 - 1},
		{"uint64 as far as int64 holds", vUint64, 0, 1<<63 - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if lo, hi := intRange(tt.v); lo != tt.lo || hi != tt.hi {
				t.Errorf("intRange = %v, %v, want %v, %v", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}
