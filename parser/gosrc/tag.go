package gosrc

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/model"
)

// tagItem is one key or key=value of an mcp:"..." struct tag.
type tagItem struct {
	key, value string
	bare       bool
}

// splitTag splits the value of an mcp:"..." tag: items separated by
// commas, each key=value or a bare key; a value holding commas or spaces is
// single-quoted, with ” for a quote inside it.
func splitTag(tag string) ([]tagItem, string) {
	var items []tagItem
	for rest := tag; ; {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return items, ""
		}
		end := strings.IndexAny(rest, "=,")
		if end < 0 {
			end = len(rest)
		}
		it := tagItem{key: strings.TrimSpace(rest[:end]), bare: true}
		rest = rest[end:]
		if it.key == "" {
			return nil, "an empty keyword: write key=value items separated by commas"
		}
		if strings.HasPrefix(rest, "=") {
			it.bare = false
			rest = rest[1:]
			if strings.HasPrefix(rest, "'") {
				var b strings.Builder
				i := 1
				for {
					j := strings.IndexByte(rest[i:], '\'')
					if j < 0 {
						return nil, it.key + ": unterminated quoted value: close it with '"
					}
					b.WriteString(rest[i : i+j])
					i += j + 1
					if strings.HasPrefix(rest[i:], "'") {
						b.WriteByte('\'')
						i++
						continue
					}
					break
				}
				it.value, rest = b.String(), strings.TrimLeft(rest[i:], " ")
				if rest != "" && rest[0] != ',' {
					return nil, it.key + ": text after the closing quote: separate items with commas"
				}
			} else {
				end := strings.IndexByte(rest, ',')
				if end < 0 {
					end = len(rest)
				}
				it.value, rest = strings.TrimSpace(rest[:end]), rest[end:]
				if strings.ContainsAny(it.value, " '") {
					return nil, it.key + ": a value holding spaces or quotes must be single-quoted: " + it.key + "='...'"
				}
			}
		}
		items = append(items, it)
		rest = strings.TrimPrefix(rest, ",")
	}
}

// tagKeys lists the keywords an mcp tag may hold.
const tagKeys = "minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, enum, default, minItems, maxItems, uniqueItems, title, deprecated"

// parseRules reads an mcp:"..." tag for a property whose value is v (the
// pointed-to value for pointer fields). The returned message says what is
// wrong, without a position.
func parseRules(tag string, v *model.Value) (model.Rules, string) {
	var r model.Rules
	items, msg := splitTag(tag)
	if msg != "" {
		return r, msg
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.key] {
			return r, "keyword " + it.key + " is given twice: keep one"
		}
		seen[it.key] = true
		if msg := applyRule(&r, it, v); msg != "" {
			return r, msg
		}
	}
	if r.Minimum != nil && r.Maximum != nil && r.Minimum.Float > r.Maximum.Float {
		return r, "minimum is greater than maximum: no value could pass"
	}
	return r, ""
}

func applyRule(r *model.Rules, it tagItem, v *model.Value) string {
	need := func() string {
		if it.bare {
			return it.key + " needs a value: " + it.key + "=..."
		}
		return ""
	}
	switch it.key {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if m := need(); m != "" {
			return m
		}
		if !isNumber(v) {
			return it.key + " applies to numbers; this field is " + describe(v)
		}
		n, msg := parseBound(it.value, v)
		if msg != "" {
			return it.key + "=" + it.value + ": " + msg
		}
		switch it.key {
		case "minimum":
			r.Minimum = n
		case "maximum":
			r.Maximum = n
		case "exclusiveMinimum":
			r.ExclusiveMinimum = n
		default:
			r.ExclusiveMaximum = n
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		if m := need(); m != "" {
			return m
		}
		strings_ := it.key == "minLength" || it.key == "maxLength"
		if strings_ && v.Kind != model.ValString {
			return it.key + " applies to strings; this field is " + describe(v)
		}
		if !strings_ && v.Kind != model.ValSlice && v.Kind != model.ValArray {
			return it.key + " applies to slices and arrays; this field is " + describe(v)
		}
		n, err := strconv.Atoi(it.value)
		if err != nil || n < 0 {
			return it.key + "=" + it.value + ": write a non-negative integer"
		}
		switch it.key {
		case "minLength":
			r.MinLength = &n
		case "maxLength":
			r.MaxLength = &n
		case "minItems":
			r.MinItems = &n
		default:
			r.MaxItems = &n
		}
	case "uniqueItems", "deprecated":
		b := true
		if !it.bare {
			var err error
			if b, err = strconv.ParseBool(it.value); err != nil {
				return it.key + "=" + it.value + ": write " + it.key + ", " + it.key + "=true or " + it.key + "=false"
			}
		}
		if it.key == "deprecated" {
			r.Deprecated = b
			break
		}
		if v.Kind != model.ValSlice && v.Kind != model.ValArray {
			return "uniqueItems applies to slices and arrays; this field is " + describe(v)
		}
		if !isScalar(v.Elem) {
			return "uniqueItems needs elements that are strings, numbers or booleans; these are " + describe(v.Elem)
		}
		r.UniqueItems = b
	case "pattern":
		if m := need(); m != "" {
			return m
		}
		if v.Kind != model.ValString {
			return "pattern applies to strings; this field is " + describe(v)
		}
		if _, err := regexp.Compile(it.value); err != nil {
			return "pattern " + strconv.Quote(it.value) + " is not a valid regular expression: " + err.Error()
		}
		r.Pattern = it.value
	case "format":
		if m := need(); m != "" {
			return m
		}
		if v.Kind != model.ValString {
			return "format applies to strings; this field is " + describe(v)
		}
		r.Format = it.value
	case "title":
		if m := need(); m != "" {
			return m
		}
		r.Title = it.value
	case "enum":
		if m := need(); m != "" {
			return m
		}
		if !isScalar(v) {
			return "enum applies to strings, numbers and booleans; this field is " + describe(v)
		}
		for _, s := range splitEnum(it.value) {
			l, msg := parseLiteral(s, v)
			if msg != "" {
				return "enum value " + strconv.Quote(s) + ": " + msg
			}
			r.Enum = append(r.Enum, l)
		}
	case "default":
		if m := need(); m != "" {
			return m
		}
		if !isScalar(v) {
			return "default applies to strings, numbers and booleans; this field is " + describe(v)
		}
		l, msg := parseLiteral(it.value, v)
		if msg != "" {
			return "default=" + it.value + ": " + msg
		}
		r.Default = &l
	default:
		return "unknown keyword " + strconv.Quote(it.key) + ": use " + tagKeys
	}
	return ""
}

// splitEnum splits enum values at '|', with \| for a literal bar.
func splitEnum(s string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(out, b.String())
}

func isNumber(v *model.Value) bool {
	return v.Kind == model.ValInt || v.Kind == model.ValUint || v.Kind == model.ValFloat
}

func isScalar(v *model.Value) bool {
	return isNumber(v) || v.Kind == model.ValString || v.Kind == model.ValBool
}

// describe names a value's shape for messages.
func describe(v *model.Value) string {
	switch v.Kind {
	case model.ValBool:
		return "a boolean"
	case model.ValInt, model.ValUint:
		return "an integer"
	case model.ValFloat:
		return "a number"
	case model.ValString:
		return "a string"
	case model.ValBytes:
		return "[]byte (a base64 string)"
	case model.ValTime:
		return "a time.Time"
	case model.ValText:
		return "a type with its own text form (MarshalText and UnmarshalText)"
	case model.ValRaw, model.ValAny:
		return "any JSON value"
	case model.ValSlice:
		return "a slice"
	case model.ValArray:
		return "an array"
	case model.ValMap:
		return "a map"
	case model.ValStruct:
		return "a struct"
	default:
		return "a pointer"
	}
}

// parseBound reads a numeric keyword value for a value of kind v.
func parseBound(s string, v *model.Value) (*model.Bound, string) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, "write a number"
	}
	n := &model.Bound{Float: f, JSON: strconv.FormatFloat(f, 'g', -1, 64)}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		n.Int, n.I, n.JSON = true, i, strconv.FormatInt(i, 10)
	} else if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		n.Int, n.I = true, int64(f)
	}
	if v.Kind != model.ValFloat && !n.Int {
		return nil, "an integer field needs an integer bound"
	}
	return n, ""
}

// parseLiteral reads an enum or default value by the value's Go type.
func parseLiteral(s string, v *model.Value) (model.Literal, string) {
	switch v.Kind {
	case model.ValString:
		return model.Literal{Kind: model.LitString, S: s}, ""
	case model.ValBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return model.Literal{}, "write true or false"
		}
		return model.Literal{Kind: model.LitBool, B: b}, ""
	case model.ValFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return model.Literal{}, "write a number"
		}
		return model.Literal{Kind: model.LitFloat, F: f}, ""
	default: // integers
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return model.Literal{}, "write an integer"
		}
		if lo, hi := intRange(v); float64(i) < lo || float64(i) > hi {
			return model.Literal{}, "out of range for " + v.Go.Name
		}
		return model.Literal{Kind: model.LitInt, I: i}, ""
	}
}

// intRange returns the bounds of an integer kind, as far as the decoder
// (which reads integers as int64) can hold them.
func intRange(v *model.Value) (lo, hi float64) {
	bits := v.Bits
	if bits == 0 {
		bits = 64
	}
	if v.Kind == model.ValUint {
		if bits == 64 {
			return 0, math.MaxInt64
		}
		return 0, float64(uint64(1)<<bits - 1)
	}
	if bits == 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -float64(int64(1) << (bits - 1)), float64(int64(1)<<(bits-1) - 1)
}
