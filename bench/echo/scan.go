package echo

import "errors"

// errSyntax reports a line the client cannot read as a JSON object.
var errSyntax = errors.New("malformed JSON-RPC message")

// members finds the id, result and error members of a JSON-RPC message
// without decoding it, so that reading a response costs the client no
// allocations and the same work whatever the server's key order. A member
// that is absent is nil.
func members(msg []byte) (id, result, rpcErr []byte, err error) {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return nil, nil, nil, errSyntax
	}
	i = skipSpace(msg, i+1)
	if i < len(msg) && msg[i] == '}' {
		return nil, nil, nil, nil
	}
	for {
		if i >= len(msg) || msg[i] != '"' {
			return nil, nil, nil, errSyntax
		}
		start := i
		if i, err = skipString(msg, i); err != nil {
			return nil, nil, nil, err
		}
		key := msg[start+1 : i-1]
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != ':' {
			return nil, nil, nil, errSyntax
		}
		i = skipSpace(msg, i+1)
		start = i
		if i, err = skipValue(msg, i); err != nil {
			return nil, nil, nil, err
		}
		switch string(key) {
		case "id":
			id = msg[start:i]
		case "result":
			result = msg[start:i]
		case "error":
			rpcErr = msg[start:i]
		}
		i = skipSpace(msg, i)
		if i >= len(msg) {
			return nil, nil, nil, errSyntax
		}
		switch msg[i] {
		case ',':
			i = skipSpace(msg, i+1)
		case '}':
			return id, result, rpcErr, nil
		default:
			return nil, nil, nil, errSyntax
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
