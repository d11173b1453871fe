package jsonrpc

import (
	"errors"
	"fmt"
	"strconv"
)

// The error codes that JSON-RPC 2.0 reserves. Codes from -32000 to -32099
// are left for servers to define.
const (
	CodeParseError     = -32700 // the message is not well-formed JSON
	CodeInvalidRequest = -32600 // the JSON is not a valid JSON-RPC message
	CodeMethodNotFound = -32601 // no handler for the method
	CodeInvalidParams  = -32602 // params do not fit the method
	CodeInternalError  = -32603 // the handler failed
)

// Error is a JSON-RPC error object. Returned from a Handler it is sent to
// the peer as it is; returned from Conn.Call it is the peer's answer.
type Error struct {
	Code    int64  // one of the Code constants, or an application code
	Message string // a short description
	Data    []byte // raw JSON with more detail, or nil for none
}

// NewError returns an error with the code and message.
func NewError(code int64, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an error with the code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrMethodNotFound returns the -32601 error for a method the receiver does
// not know.
func ErrMethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// ErrInvalidParams returns a -32602 error with the message.
func ErrInvalidParams(message string) *Error {
	return &Error{Code: CodeInvalidParams, Message: message}
}

// ErrInternal returns a -32603 error with the message.
func ErrInternal(message string) *Error {
	return &Error{Code: CodeInternalError, Message: message}
}

// Error returns "jsonrpc: <message> (code N)".
func (e *Error) Error() string {
	return "jsonrpc: " + e.Message + " (code " + strconv.FormatInt(e.Code, 10) + ")"
}

// AsError turns what a handler returned into the error to send: an *Error
// anywhere in err's chain as it is, anything else as -32603 with err's text.
// Transports that answer outside a Conn use it to answer as a Conn would.
func AsError(err error) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}
