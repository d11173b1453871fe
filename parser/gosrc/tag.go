package gosrc

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
const tagKeys = "minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, enum, default, minItems, maxItems, uniqueItems, title, deprecated, nullable"

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
	var enumText []string // the enum values as written, for messages
	var defaultText string
	for _, it := range items {
		if seen[it.key] {
			return r, "keyword " + it.key + " is given twice: keep one"
		}
		seen[it.key] = true
		if msg := applyRule(&r, it, v); msg != "" {
			return r, msg
		}
		switch it.key {
		case "enum":
			enumText = splitEnum(it.value)
		case "default":
			defaultText = it.value
		}
	}
	// The keywords are checked together once all are read, so that the
	// order they are written in does not matter.
	if msg := checkRange(&r, v); msg != "" {
		return r, msg
	}
	if msg := checkCounts(&r, v); msg != "" {
		return r, msg
	}
	if msg := checkEnum(&r, v, enumText); msg != "" {
		return r, msg
	}
	if msg := checkConstants(&r, v); msg != "" {
		return r, msg
	}
	if msg := checkDefault(&r, v, defaultText, enumText); msg != "" {
		return r, msg
	}
	return r, ""
}

// nullableRequired refuses nullable on a required field: the decoder reads
// a null as the property being absent only for optional fields and refuses
// it for a required one, so a schema admitting null there would pass what
// the decoder refuses.
const nullableRequired = "nullable applies to optional fields (a pointer, or omitempty/omitzero): " +
	"a required property that may be null is one that may be absent, and the decoder refuses a null for a required one; " +
	"make the field a pointer or add omitempty, or drop nullable"

// checkOptional returns the message for keywords a required field may not
// hold, "" when there is none.
func checkOptional(r *model.Rules, required bool) string {
	if required && r.Nullable {
		return nullableRequired
	}
	return ""
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
	case "uniqueItems", "deprecated", "nullable":
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
		if it.key == "nullable" {
			if v.Kind == model.ValAny || v.Kind == model.ValRaw {
				return "nullable applies to fields with one JSON type; this field is " + describe(v) + ", whose schema already admits null: drop nullable"
			}
			r.Nullable = b
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
		if v.Bits == 32 && math.Abs(f) > math.MaxFloat32 {
			if v.Go.Name != "float32" {
				return model.Literal{}, "out of range for " + v.Go.Name + ", a float32"
			}
			return model.Literal{}, "out of range for float32"
		}
		return model.Literal{Kind: model.LitFloat, F: f}, ""
	default: // integers
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return model.Literal{}, "write an integer"
		}
		if lo, hi := intRange(v); i < lo || i > hi {
			return model.Literal{}, fmt.Sprintf("out of range for %s, which holds %d to %d", v.Go.Name, lo, hi)
		}
		return model.Literal{Kind: model.LitInt, I: i}, ""
	}
}

// intRange returns the bounds of an integer kind, as far as the decoder
// (which reads integers as int64) can hold them.
func intRange(v *model.Value) (lo, hi int64) {
	bits := v.Bits
	if bits == 0 || bits == 64 {
		if v.Kind == model.ValUint {
			return 0, math.MaxInt64
		}
		return math.MinInt64, math.MaxInt64
	}
	if v.Kind == model.ValUint {
		return 0, 1<<bits - 1
	}
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// end is one end of the values a numeric field allows: a keyword of its
// tag, or for an integer kind the end of the kind's range (key "").
type end struct {
	key       string // minimum, exclusiveMinimum, maximum or exclusiveMaximum
	b         *model.Bound
	exclusive bool
}

// checkRange refuses bounds that leave no value between them, counting
// the ends of an integer kind's range among them. The values allowed are
// those above every lower end and below every upper one, so there are
// none exactly when some lower end passes some upper end: the first such
// pair is reported, the tag's keywords before the kind's range.
func checkRange(r *model.Rules, v *model.Value) string {
	if !isNumber(v) {
		return ""
	}
	integers := v.Kind != model.ValFloat
	lows := []end{{"minimum", r.Minimum, false}, {"exclusiveMinimum", r.ExclusiveMinimum, true}}
	highs := []end{{"maximum", r.Maximum, false}, {"exclusiveMaximum", r.ExclusiveMaximum, true}}
	if integers {
		lo, hi := intRange(v)
		lows = append(lows, end{b: &model.Bound{JSON: strconv.FormatInt(lo, 10), Float: float64(lo), Int: true, I: lo}})
		highs = append(highs, end{b: &model.Bound{JSON: strconv.FormatInt(hi, 10), Float: float64(hi), Int: true, I: hi}})
	}
	for _, l := range lows {
		for _, h := range highs {
			if l.b == nil || h.b == nil || l.key == "" && h.key == "" || !leavesNothing(l, h, integers) {
				continue
			}
			what := "number"
			if integers {
				what = "integer"
			}
			switch {
			case l.key == "":
				return fmt.Sprintf("%s=%s leaves no %s value (%s holds %s to %s): raise %s", h.key, h.b.JSON, v.Go.Name, v.Go.Name, l.b.JSON, highs[len(highs)-1].b.JSON, h.key)
			case h.key == "":
				return fmt.Sprintf("%s=%s leaves no %s value (%s holds %s to %s): lower %s", l.key, l.b.JSON, v.Go.Name, v.Go.Name, lows[len(lows)-1].b.JSON, h.b.JSON, l.key)
			case !l.exclusive && !h.exclusive:
				return fmt.Sprintf("%s=%s is greater than %s=%s: no value could pass; lower %s or raise %s", l.key, l.b.JSON, h.key, h.b.JSON, l.key, h.key)
			}
			return fmt.Sprintf("%s=%s and %s=%s leave no %s between them: lower %s or raise %s", l.key, l.b.JSON, h.key, h.b.JSON, what, l.key, h.key)
		}
	}
	return ""
}

// leavesNothing reports whether no value lies between the ends l and h;
// integers says that only integers count (the ends are then integers too,
// which parseBound has made sure of, held in I).
func leavesNothing(l, h end, integers bool) bool {
	if !integers {
		return l.b.Float > h.b.Float || l.b.Float == h.b.Float && (l.exclusive || h.exclusive)
	}
	switch {
	case l.b.I > h.b.I:
		return true
	case l.b.I == h.b.I:
		return l.exclusive || h.exclusive
	}
	// l < h: the unsigned difference cannot overflow.
	return l.exclusive && h.exclusive && uint64(h.b.I)-uint64(l.b.I) < 2
}

// checkCounts refuses lengths and item counts that no value could meet.
func checkCounts(r *model.Rules, v *model.Value) string {
	if r.MinLength != nil && r.MaxLength != nil && *r.MinLength > *r.MaxLength {
		return fmt.Sprintf("minLength=%d is greater than maxLength=%d: no string could pass; lower minLength or raise maxLength", *r.MinLength, *r.MaxLength)
	}
	if r.MinItems != nil && r.MaxItems != nil && *r.MinItems > *r.MaxItems {
		return fmt.Sprintf("minItems=%d is greater than maxItems=%d: no array could pass; lower minItems or raise maxItems", *r.MinItems, *r.MaxItems)
	}
	if v.Kind == model.ValArray {
		if r.MinItems != nil && *r.MinItems > v.Len {
			return fmt.Sprintf("minItems=%d is more than the array's length, %d, which is always its number of items: no value could pass; drop minItems", *r.MinItems, v.Len)
		}
		if r.MaxItems != nil && *r.MaxItems < v.Len {
			return fmt.Sprintf("maxItems=%d is less than the array's length, %d, which is always its number of items: no value could pass; drop maxItems", *r.MaxItems, v.Len)
		}
	}
	return ""
}

// checkEnum refuses an enum value written twice, one outside the
// constants of a named type that has some (an enum there narrows them, and
// never replaces them), and one that breaks the field's other keywords.
// text holds the values as written.
func checkEnum(r *model.Rules, v *model.Value, text []string) string {
	for i, l := range r.Enum {
		at := "enum value " + strconv.Quote(text[i])
		for _, prev := range r.Enum[:i] {
			if prev.JSON() == l.JSON() {
				return at + ": written twice: keep one"
			}
		}
		if v.Enum != nil && !hasLiteral(v.Enum, l) {
			return fmt.Sprintf("%s: not a constant of %s (%s): enum= on a type with constants keeps some of them; drop the value or declare a constant for it", at, v.Go.Name, literalList(v.Enum))
		}
		if why, key := breaks(l, r, v); why != "" {
			return fmt.Sprintf("%s: %s: every enum value must pass the field's other keywords; drop it or change %s", at, why, key)
		}
	}
	return ""
}

// checkConstants refuses keywords that every constant of a named type
// breaks, on a field without enum=: the constants are its enum, so no
// value could pass. Keywords that some constants pass are left alone;
// enum= is the way to narrow the constants.
func checkConstants(r *model.Rules, v *model.Value) string {
	if r.Enum != nil || len(v.Enum) == 0 {
		return ""
	}
	for _, c := range v.Enum {
		if why, _ := breaks(c, r, v); why == "" {
			return ""
		}
	}
	why, _ := breaks(v.Enum[0], r, v)
	first := v.Enum[0].JSON()
	if v.Enum[0].Kind == model.LitString {
		first = v.Enum[0].S
	}
	return fmt.Sprintf("no constant of %s (%s) passes the field's keywords (%s: %s): no value could pass; loosen them", v.Go.Name, literalList(v.Enum), first, why)
}

// checkDefault refuses a default that the field itself would refuse: one
// outside its enum, outside its named type's constants, or breaking its
// other keywords. The decoder fills a missing property with the default
// without checking it, so nothing else would catch it. text is the
// default as written, enumText the enum's values.
func checkDefault(r *model.Rules, v *model.Value, text string, enumText []string) string {
	if r.Default == nil {
		return ""
	}
	d := *r.Default
	at := "default=" + text
	switch {
	case r.Enum != nil && !hasLiteral(r.Enum, d):
		return fmt.Sprintf("%s: not one of enum=%s: make the default one of them", at, joinEnum(enumText))
	case r.Enum == nil && v.Enum != nil && !hasLiteral(v.Enum, d):
		return fmt.Sprintf("%s: not a constant of %s (%s): make the default one of them", at, v.Go.Name, literalList(v.Enum))
	}
	if why, key := breaks(d, r, v); why != "" {
		return fmt.Sprintf("%s: %s: the default must pass the field's other keywords; change the default or %s", at, why, key)
	}
	return ""
}

// breaks says how l breaks the keywords of r that constrain one value, and
// names the keyword; "" when it breaks none. It checks as the generated
// validator does: lengths in characters (Unicode code points, as JSON
// Schema counts them), the pattern with Go's regexp unanchored, and the
// formats the validator checks (date-time, date and byte).
func breaks(l model.Literal, r *model.Rules, v *model.Value) (why, key string) {
	switch l.Kind {
	case model.LitInt, model.LitFloat:
		for _, c := range []struct {
			key  string
			b    *model.Bound
			fail func(int) bool
			says string
		}{
			{"minimum", r.Minimum, func(c int) bool { return c < 0 }, "below"},
			{"exclusiveMinimum", r.ExclusiveMinimum, func(c int) bool { return c <= 0 }, "not above"},
			{"maximum", r.Maximum, func(c int) bool { return c > 0 }, "above"},
			{"exclusiveMaximum", r.ExclusiveMaximum, func(c int) bool { return c >= 0 }, "not below"},
		} {
			if c.b != nil && c.fail(compareBound(l, c.b)) {
				return c.says + " " + c.key + "=" + c.b.JSON, c.key
			}
		}
	case model.LitString:
		n := utf8.RuneCountInString(l.S)
		if r.MinLength != nil && n < *r.MinLength {
			return characters(n) + ", fewer than minLength=" + strconv.Itoa(*r.MinLength), "minLength"
		}
		if r.MaxLength != nil && n > *r.MaxLength {
			return characters(n) + ", more than maxLength=" + strconv.Itoa(*r.MaxLength), "maxLength"
		}
		if r.Pattern != "" && !regexp.MustCompile(r.Pattern).MatchString(l.S) { // applyRule compiled it
			return "does not match pattern=" + r.Pattern, "pattern"
		}
		if why := badFormat(r.Format, l.S); why != "" {
			return why, "format"
		}
	}
	return "", ""
}

// characters writes a count of characters.
func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// compareBound compares a number literal with a bound: -1, 0 or +1. On an
// integer field both are integers, compared exactly.
func compareBound(l model.Literal, b *model.Bound) int {
	if l.Kind == model.LitInt && b.Int {
		switch {
		case l.I < b.I:
			return -1
		case l.I > b.I:
			return 1
		}
		return 0
	}
	x := l.F
	if l.Kind == model.LitInt {
		x = float64(l.I)
	}
	switch {
	case x < b.Float:
		return -1
	case x > b.Float:
		return 1
	}
	return 0
}

// badFormat says how s fails format, for the formats the generated
// validator checks; "" when it passes or the format is not checked.
func badFormat(format, s string) string {
	var err error
	var want string
	switch format {
	case "date-time":
		_, err = time.Parse(time.RFC3339Nano, s)
		want = "not a date-time: format=date-time takes RFC 3339, such as 2024-05-01T09:30:00Z"
	case "date":
		_, err = time.Parse("2006-01-02", s)
		want = "not a date: format=date takes YYYY-MM-DD, such as 2024-05-01"
	case "byte":
		_, err = base64.StdEncoding.DecodeString(s)
		want = "not base64: format=byte takes standard base64 with padding, such as aGk="
	}
	if err != nil {
		return want
	}
	return ""
}

// hasLiteral reports whether l is one of ls, compared as JSON.
func hasLiteral(ls []model.Literal, l model.Literal) bool {
	for _, x := range ls {
		if x.JSON() == l.JSON() {
			return true
		}
	}
	return false
}

// literalList writes a type's constants as an enum= value would list them.
func literalList(ls []model.Literal) string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.JSON()
		if l.Kind == model.LitString {
			out[i] = l.S
		}
	}
	return joinEnum(out)
}

// joinEnum joins enum values as enum= writes them: separated by |, a bar
// inside one escaped.
func joinEnum(vals []string) string {
	out := make([]string, len(vals))
	for i, s := range vals {
		out[i] = strings.ReplaceAll(s, "|", `\|`)
	}
	return strings.Join(out, "|")
}
