package jsonrpc

// The Append functions below write envelopes around raw JSON that the
// caller vouches for: params, results and error data are copied as they
// are, without a check, and must each be one valid JSON value with no raw
// newline (stream transports frame messages by lines).

const version = `{"jsonrpc":"2.0"`

// AppendRequest appends a request to dst. A zero id makes it a
// notification, as AppendNotification writes. Nil params are left out.
func AppendRequest(dst []byte, id ID, method string, params []byte) []byte {
	dst = append(dst, version...)
	if !id.IsZero() {
		dst = append(dst, `,"id":`...)
		dst = id.AppendJSON(dst)
	}
	dst = append(dst, `,"method":`...)
	dst = AppendString(dst, method)
	if params != nil {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// AppendNotification appends a notification to dst. Nil params are left
// out.
func AppendNotification(dst []byte, method string, params []byte) []byte {
	return AppendRequest(dst, ID{}, method, params)
}

// AppendResult appends a successful response to dst. A nil result is
// written as null.
func AppendResult(dst []byte, id ID, result []byte) []byte {
	dst = append(dst, version...)
	dst = append(dst, `,"id":`...)
	dst = id.AppendJSON(dst)
	dst = append(dst, `,"result":`...)
	if result == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, result...)
	}
	return append(dst, '}')
}

// AppendError appends an error response to dst, with a null id when id is
// zero. A nil e is written as a -32603 error.
func AppendError(dst []byte, id ID, e *Error) []byte {
	if e == nil {
		e = &Error{Code: CodeInternalError, Message: "internal error"}
	}
	dst = append(dst, version...)
	dst = append(dst, `,"id":`...)
	dst = id.AppendJSON(dst)
	dst = append(dst, `,"error":{"code":`...)
	dst = AppendInt(dst, e.Code)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, e.Message)
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, "}}"...)
}

// AppendMessage appends m to dst in the form its Kind calls for: a request,
// a notification, or a response with its error or result. A Message of no
// kind is written as a response with a null result.
func AppendMessage(dst []byte, m *Message) []byte {
	switch {
	case m.Method != "":
		return AppendRequest(dst, m.ID, m.Method, m.Params)
	case m.Error != nil:
		return AppendError(dst, m.ID, m.Error)
	}
	return AppendResult(dst, m.ID, m.Result)
}
