package tasks

import (
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// scanner reads the few members of messages and results the client checks,
// without decoding anything else, so that reading costs it no allocations
// and the same work whatever the server's key order. The slices it returns
// alias its input.
type scanner struct {
	s jsonrpc.Scanner
}

// message is what the client reads of one JSON-RPC message.
type message struct {
	id     int64  // 0 when absent or not an integer
	method bool   // a request or notification from the server
	result []byte // the raw result, nil when absent
	err    []byte // the raw error, nil when absent
}

func (sc *scanner) message(line []byte) (message, error) {
	var m message
	err := sc.members(line, func(key []byte) (bool, error) {
		var err error
		switch string(key) {
		case "id":
			if sc.s.Peek() != jsonrpc.KindNumber {
				return true, sc.s.Skip()
			}
			m.id, err = sc.s.Int64()
		case "method":
			m.method = true
			err = sc.s.Skip()
		case "result":
			m.result, err = sc.s.Raw()
		case "error":
			m.err, err = sc.s.Raw()
		default:
			err = sc.s.Skip()
		}
		return true, err
	})
	return m, err
}

var errNoTask = errors.New("the result holds no task")

// taskID returns the id of the task a result describes: its taskId, or its
// task's (a 2025-11-25 CreateTaskResult). Only ids that need no escaping
// in JSON are accepted, so that the client may copy them into requests as
// they are.
func (sc *scanner) taskID(result []byte) ([]byte, error) {
	var id []byte
	err := sc.members(result, func(key []byte) (bool, error) {
		switch string(key) {
		case "taskId":
			var err error
			id, err = sc.s.StringBytes()
			return false, err
		case "task":
			if sc.s.Peek() != jsonrpc.KindObject {
				return true, sc.s.Skip()
			}
			raw, err := sc.s.Raw()
			if err != nil {
				return false, err
			}
			id, err = sc.taskID(raw)
			return false, err
		}
		return true, sc.s.Skip()
	})
	if err != nil {
		return nil, err
	}
	if id == nil {
		return nil, errNoTask
	}
	for _, b := range id {
		if b < 0x20 || b == '"' || b == '\\' || b >= 0x80 {
			return nil, fmt.Errorf("task id %q needs escaping", id)
		}
	}
	return id, nil
}

// task returns the members a 2026-07-28 answer about a task is read by:
// its resultType, status and, once it has ended, inlined result. Strings
// are returned without their quotes.
func (sc *scanner) task(result []byte) (resultType, status, inner []byte, err error) {
	err = sc.members(result, func(key []byte) (bool, error) {
		var err error
		switch string(key) {
		case "resultType":
			resultType, err = sc.s.StringBytes()
		case "status":
			status, err = sc.s.StringBytes()
		case "result":
			inner, err = sc.s.Raw()
		default:
			err = sc.s.Skip()
		}
		return true, err
	})
	return resultType, status, inner, err
}

// members calls f for each member of the object obj with the scanner at
// the member's value, which f must consume, until f returns false. The
// scanner is reset to obj, so f may not call members itself without
// returning false afterwards.
func (sc *scanner) members(obj []byte, f func(key []byte) (bool, error)) error {
	sc.s.Reset(obj)
	if err := sc.s.ObjectStart(); err != nil {
		return err
	}
	for {
		key, more, err := sc.s.NextKey()
		if err != nil || !more {
			return err
		}
		if more, err = f(key); err != nil || !more {
			return err
		}
	}
}
