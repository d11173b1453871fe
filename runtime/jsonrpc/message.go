package jsonrpc

import "strconv"

// MessageKind tells requests, notifications and responses apart.
type MessageKind uint8

// The kinds of message. MessageInvalid is the kind of the zero Message.
const (
	MessageInvalid      MessageKind = iota
	MessageRequest                  // a method and an id: expects a response
	MessageNotification             // a method and no id: expects nothing
	MessageResponse                 // an id and a result or an error
)

// String returns "request", "notification", "response" or "invalid".
func (k MessageKind) String() string {
	switch k {
	case MessageRequest:
		return "request"
	case MessageNotification:
		return "notification"
	case MessageResponse:
		return "response"
	}
	return "invalid"
}

// Message is one JSON-RPC 2.0 message, with its params, result and error
// data kept as raw JSON for the layer above to decode.
//
// A Message from DecodeMessage or DecodeBatch aliases the input: Params,
// Result and Error.Data are slices of it, so the input must not be
// modified while they are in use.
type Message struct {
	ID     ID     // zero for a notification, and for an error response with a null id
	Method string // set for requests and notifications
	Params []byte // raw JSON object or array, or nil when absent
	Result []byte // raw JSON of a successful response (never nil then; "null" is a result)
	Error  *Error // set for an error response
}

// Kind reports what m is, judging by the members that are set.
func (m *Message) Kind() MessageKind {
	switch {
	case m.Method != "" && m.ID.IsZero():
		return MessageNotification
	case m.Method != "":
		return MessageRequest
	case m.Result != nil || m.Error != nil:
		return MessageResponse
	}
	return MessageInvalid
}

// DecodeMessage reads one JSON-RPC 2.0 message, checking the envelope
// strictly: "jsonrpc" must be "2.0"; an id is a string or an integer, and
// null only on an error response; a request or notification has a
// non-empty method and no result or error; params, when present, are an
// object or an array; a response has an id and exactly one of result and
// error, whose code is an integer and message a string. Members the
// specification does not name are ignored; a member given twice is an
// error.
//
// The error is always an *Error that a server can send back: -32700
// (CodeParseError) for malformed JSON, -32600 (CodeInvalidRequest) for a
// batch or for JSON that is not a valid message. With -32600 the returned
// Message carries the id when one could be read, for the answer to
// echo.
//
// The Message aliases data; see Message.
func DecodeMessage(data []byte) (Message, error) {
	var d decoder
	d.s.Reset(data)
	if d.s.Peek() == KindArray {
		if err := d.s.Skip(); err != nil {
			return Message{}, parseError(err)
		}
		return Message{}, &Error{Code: CodeInvalidRequest, Message: "invalid request: a batch where one message was expected"}
	}
	m, err := d.message()
	if err != nil {
		return m, err
	}
	return m, nil
}

// DecodeBatch reads a message or a batch of them. When data is a JSON array
// it returns its messages with isBatch true; otherwise it returns the one
// message that DecodeMessage reads, with isBatch false.
//
// Malformed JSON anywhere is one -32700 error, and an empty array a -32600
// error, for the batch as a whole. Elements that are not valid messages
// are left out of the result and reported together in a *BatchError, each
// with the error to answer it with; the valid ones are returned with it.
//
// The Messages alias data; see Message.
func DecodeBatch(data []byte) (msgs []Message, isBatch bool, err error) {
	var d decoder
	d.s.Reset(data)
	if d.s.Peek() != KindArray {
		m, err := d.message()
		if err != nil {
			return nil, false, err
		}
		return []Message{m}, false, nil
	}
	msgs, invalid, perr := d.batch()
	if perr != nil {
		return nil, true, perr
	}
	if invalid != nil {
		return msgs, true, &BatchError{Invalid: invalid}
	}
	return msgs, true, nil
}

// BatchError reports the elements of a batch that are not valid messages.
type BatchError struct {
	Invalid []InvalidElement // in the order of the batch
}

// InvalidElement is one element of a batch that is not a valid message.
type InvalidElement struct {
	Index int    // position in the batch, from 0
	ID    ID     // the element's id if it could be read, for the answer
	Err   *Error // the error to answer it with
}

// Error returns the first element's error and how many more there are.
func (e *BatchError) Error() string {
	first := e.Invalid[0]
	msg := "jsonrpc: batch element " + strconv.Itoa(first.Index) + ": " + first.Err.Message
	if n := len(e.Invalid) - 1; n > 0 {
		msg += " (and " + strconv.Itoa(n) + " more invalid elements)"
	}
	return msg
}

// decoder reads envelopes. Its methods keep the Scanner's buffers between
// messages, and methods may intern method names so that a Conn does not
// allocate a string per message for the few methods a peer uses.
type decoder struct {
	s       Scanner
	methods map[string]string // interned method names, or nil to allocate each
}

// maxInterned bounds the method names a decoder keeps.
const maxInterned = 64

// The members of an envelope, as bits, to catch duplicates.
const (
	hasVersion = 1 << iota
	hasID
	hasMethod
	hasParams
	hasResult
	hasError
)

// message reads one message from the Scanner's input, which must hold
// nothing after it.
func (d *decoder) message() (Message, *Error) {
	m, err := d.value()
	if err != nil && err.Code == CodeParseError {
		return Message{}, err
	}
	if endErr := d.s.End(); endErr != nil {
		return Message{}, parseError(endErr)
	}
	return m, err
}

// batch reads a JSON array of messages.
func (d *decoder) batch() (msgs []Message, invalid []InvalidElement, err *Error) {
	if err := d.s.ArrayStart(); err != nil {
		return nil, nil, parseError(err)
	}
	for i := 0; ; i++ {
		more, serr := d.s.NextElem()
		if serr != nil {
			return nil, nil, parseError(serr)
		}
		if !more {
			if i == 0 {
				return nil, nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: empty batch"}
			}
			break
		}
		m, err := d.value()
		switch {
		case err == nil:
			msgs = append(msgs, m)
		case err.Code == CodeParseError:
			return nil, nil, err
		default:
			invalid = append(invalid, InvalidElement{Index: i, ID: m.ID, Err: err})
		}
	}
	if err := d.s.End(); err != nil {
		return nil, nil, parseError(err)
	}
	return msgs, invalid, nil
}

// value reads one message at the Scanner's position. Malformed JSON stops
// it with a -32700 error. A problem with the envelope is noted and the walk
// goes on, so that malformed JSON later still counts as a parse error and a
// batch can carry on with its next element; the message is then returned,
// with the id if it was read, along with a -32600 error.
func (d *decoder) value() (m Message, _ *Error) {
	s := &d.s
	if k := s.Peek(); k != KindObject {
		if err := s.Skip(); err != nil {
			return Message{}, parseError(err)
		}
		return Message{}, invalidRequest("a message must be an object, not " + k.String())
	}
	if err := s.ObjectStart(); err != nil {
		return Message{}, parseError(err)
	}
	var (
		seen    int
		problem string // the first thing wrong with the envelope
		nullID  bool
	)
	note := func(p string) {
		if problem == "" {
			problem = p
		}
	}
	for {
		key, ok, err := s.NextKey()
		if err != nil {
			return Message{}, parseError(err)
		}
		if !ok {
			break
		}
		var bit int
		switch string(key) {
		case "jsonrpc":
			bit = hasVersion
		case "id":
			bit = hasID
		case "method":
			bit = hasMethod
		case "params":
			bit = hasParams
		case "result":
			bit = hasResult
		case "error":
			bit = hasError
		default:
			if err := s.Skip(); err != nil {
				return Message{}, parseError(err)
			}
			continue
		}
		if seen&bit != 0 {
			note("member " + strconv.Quote(string(key)) + " appears twice")
		}
		seen |= bit
		switch bit {
		case hasVersion:
			v, err := s.StringBytes()
			bad, err := d.typed(err)
			if err != nil {
				return Message{}, parseError(err)
			}
			if bad || string(v) != "2.0" {
				note(`"jsonrpc" must be "2.0"`)
			}
		case hasID:
			id, null, err := readID(s)
			if _, ok := err.(*SyntaxError); ok {
				return Message{}, parseError(err)
			}
			if err != nil {
				note(idProblem(err))
			}
			m.ID, nullID = id, null
		case hasMethod:
			v, err := s.StringBytes()
			bad, err := d.typed(err)
			if err != nil {
				return Message{}, parseError(err)
			}
			switch {
			case bad:
				note(`"method" must be a string`)
			case len(v) == 0:
				note(`"method" must not be empty`)
			default:
				m.Method = d.intern(v)
			}
		case hasParams:
			k := s.Peek()
			raw, err := s.Raw()
			if err != nil {
				return Message{}, parseError(err)
			}
			if k != KindObject && k != KindArray {
				note(`"params" must be an object or an array, not ` + k.String())
			}
			m.Params = raw
		case hasResult:
			raw, err := s.Raw()
			if err != nil {
				return Message{}, parseError(err)
			}
			m.Result = raw
		case hasError:
			e, p, err := d.errorObject()
			if err != nil {
				return Message{}, parseError(err)
			}
			if p != "" {
				note(p)
			}
			m.Error = e
		}
	}
	switch {
	case problem != "":
	case seen&hasVersion == 0:
		problem = `"jsonrpc" is missing`
	case seen&hasMethod != 0:
		switch {
		case seen&(hasResult|hasError) != 0:
			problem = "a request must not have a result or an error"
		case nullID:
			problem = "a request id must not be null"
		}
	case seen&(hasResult|hasError) == 0:
		problem = `a message needs a "method", a "result" or an "error"`
	case seen&hasResult != 0 && seen&hasError != 0:
		problem = `a response must not have both "result" and "error"`
	case seen&hasID == 0:
		problem = `a response needs an "id"`
	case nullID && seen&hasResult != 0:
		problem = "a result's id must not be null"
	case seen&hasParams != 0:
		problem = `a response must not have "params"`
	}
	if problem != "" {
		return Message{ID: m.ID}, invalidRequest(problem)
	}
	return m, nil
}

// errorObject reads the "error" member of a response. It returns what is
// wrong with it in problem, or a syntax error in err.
func (d *decoder) errorObject() (e *Error, problem string, err error) {
	s := &d.s
	if k := s.Peek(); k != KindObject {
		if err := s.Skip(); err != nil {
			return nil, "", err
		}
		return nil, `"error" must be an object, not ` + k.String(), nil
	}
	if err := s.ObjectStart(); err != nil {
		return nil, "", err
	}
	e = new(Error)
	var seen int
	const hasCode, hasMessage, hasData = 1, 2, 4
	for {
		key, ok, err := s.NextKey()
		if err != nil {
			return nil, "", err
		}
		if !ok {
			break
		}
		var bit int
		var field string
		switch string(key) {
		case "code":
			bit, field = hasCode, "code"
			code, err := s.Int64()
			bad, err := d.typed(err)
			if err != nil {
				return nil, "", err
			}
			if bad && problem == "" {
				problem = `"error.code" must be an integer`
			}
			e.Code = code
		case "message":
			bit, field = hasMessage, "message"
			v, err := s.StringBytes()
			bad, err := d.typed(err)
			if err != nil {
				return nil, "", err
			}
			if bad && problem == "" {
				problem = `"error.message" must be a string`
			}
			e.Message = string(v)
		case "data":
			bit, field = hasData, "data"
			raw, err := s.Raw()
			if err != nil {
				return nil, "", err
			}
			e.Data = raw
		default:
			if err := s.Skip(); err != nil {
				return nil, "", err
			}
			continue
		}
		if seen&bit != 0 && problem == "" {
			problem = `member "error.` + field + `" appears twice`
		}
		seen |= bit
	}
	switch {
	case problem != "":
	case seen&hasCode == 0:
		problem = `"error.code" is missing`
	case seen&hasMessage == 0:
		problem = `"error.message" is missing`
	}
	return e, problem, nil
}

// typed sorts the error from one of the Scanner's typed reads. A value of
// the wrong kind or a number that does not fit is a problem with the
// envelope: typed reports it as bad, skipping the value if it is still
// there. Anything else is malformed JSON, returned as err.
func (d *decoder) typed(err error) (bad bool, _ error) {
	switch err.(type) {
	case nil:
		return false, nil
	case *TypeError:
		return true, d.s.Skip()
	case *NumberError:
		return true, nil
	}
	return false, err
}

// intern returns b as a string, allocating only for a method name it has
// not seen before, or when it is not asked to intern.
func (d *decoder) intern(b []byte) string {
	if d.methods == nil {
		return string(b)
	}
	if m, ok := d.methods[string(b)]; ok {
		return m
	}
	m := string(b)
	if len(d.methods) < maxInterned {
		d.methods[m] = m
	}
	return m
}

// idProblem words what readID found wrong with an id.
func idProblem(err error) string {
	if e, ok := err.(*idError); ok {
		return e.msg
	}
	return "bad id: " + err.Error()
}

// parseError wraps a Scanner's syntax error as a -32700 error.
func parseError(err error) *Error {
	return &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
}

// invalidRequest returns a -32600 error for the problem.
func invalidRequest(problem string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: " + problem}
}
