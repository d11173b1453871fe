package echo

import "errors"

// errSyntax reports a line the client cannot read as a JSON object.
var errSyntax = errors.New("malformed JSON-RPC message")

// members finds the id, result and error members of a JSON-RPC message
// without decoding it, so that reading a response costs the client no
// allocations and the same work whatever the server's key order. A member
// that is absent is nil.
func members(msg []byte) (id, result, rpcErr []byte, err error) {
	err = walk(msg, func(key, value []byte) bool {
		switch string(key) {
		case "id":
			id = value
		case "result":
			result = value
		case "error":
			rpcErr = value
		}
		return true
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return id, result, rpcErr, nil
}

// member returns the raw value of the member key of the object obj, or nil
// when it has none. The object is checked only as far as key.
func member(obj []byte, key string) ([]byte, error) {
	var found []byte
	err := walk(obj, func(k, value []byte) bool {
		if string(k) == key {
			found = value
			return false
		}
		return true
	})
	return found, err
}

// walk calls f with the raw key (without quotes or unescaping) and value of
// each member of the JSON object msg, in order, until f returns false.
func walk(msg []byte, f func(key, value []byte) bool) error {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return errSyntax
	}
	i = skipSpace(msg, i+1)
	if i < len(msg) && msg[i] == '}' {
		return nil
	}
	for {
		if i >= len(msg) || msg[i] != '"' {
			return errSyntax
		}
		start := i
		var err error
		if i, err = skipString(msg, i); err != nil {
			return err
		}
		key := msg[start+1 : i-1]
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != ':' {
			return errSyntax
		}
		i = skipSpace(msg, i+1)
		start = i
		if i, err = skipValue(msg, i); err != nil {
			return err
		}
		if !f(key, msg[start:i]) {
			return nil
		}
		i = skipSpace(msg, i)
		if i >= len(msg) {
			return errSyntax
		}
		switch msg[i] {
		case ',':
			i = skipSpace(msg, i+1)
		case '}':
			return nil
		default:
			return errSyntax
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errSyntax
}

// skipValue returns the index just past the value starting at b[i]. It
// checks nesting and strings, not the grammar of numbers and literals.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errSyntax
	}
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if i == start {
				return 0, errSyntax
			}
			return i, nil
		}
		i++
	}
	return i, nil
}

// parseID reads a non-negative integer id; ok is false for anything else.
func parseID(b []byte) (id int64, ok bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int64(c-'0')
	}
	return id, true
}
