package fielderr

import "strconv"

// AtField returns err with the object member name prepended to its path:
// the name as it is when it is an identifier ([A-Za-z_][A-Za-z0-9_]*),
// else quoted in brackets (["$schema"]). A nil err stays nil.
func AtField(err error, name string) error {
	if err == nil {
		return nil
	}
	return prepend(err, memberSegment(name))
}

// AtKey returns err with the map member key prepended to its path. It
// renders keys exactly as AtField renders names; the two are separate so
// that generated code says which it means. A nil err stays nil.
func AtKey(err error, key string) error {
	if err == nil {
		return nil
	}
	return prepend(err, memberSegment(key))
}

// AtIndex returns err with the array index i prepended to its path. A nil
// err stays nil.
func AtIndex(err error, i int) error {
	if err == nil {
		return nil
	}
	return prepend(err, "["+strconv.Itoa(i)+"]")
}

// prepend adds seg, a member name or "[...]", in front of the path of err,
// first turning err into a *FieldError if it is not one.
func prepend(err error, seg string) error {
	fe := From(err)
	switch {
	case fe.Path == "":
		fe.Path = seg
	case fe.Path[0] == '[':
		fe.Path = seg + fe.Path
	default:
		fe.Path = seg + "." + fe.Path
	}
	return fe
}

// memberSegment writes name as a path segment.
func memberSegment(name string) string {
	if isIdentifier(name) {
		return name
	}
	return "[" + strconv.Quote(name) + "]"
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}
