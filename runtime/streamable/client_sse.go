package streamable

import (
	"bytes"
	"io"
	"strconv"
	"time"
)

// clientEvent is one SSE event as the client transport reads it: the
// fields that matter to MCP, each as the event set it.
type clientEvent struct {
	id       string
	hasID    bool // an id field was present, even an empty one
	kind     string
	data     []byte // nil when the event had no data lines
	retry    time.Duration
	hasRetry bool
	tooLarge bool // data went over the limit and was dropped
}

// eventScanner reads SSE events from a response body, as the
// text/event-stream format defines them: lines ending in LF, CRLF or CR;
// "field: value" with one optional space after the colon; comments
// starting with a colon; an empty line ending the event.
type eventScanner struct {
	r          io.Reader
	buf        []byte // buf[start:end] is read but not yet scanned
	start, end int
	max        int  // bound on an event's data
	started    bool // the byte order mark, if any, has been skipped
	lastCR     bool // the previous line ended in CR: an LF right after belongs to it
	err        error
}

func newEventScanner(r io.Reader, max int) *eventScanner {
	return &eventScanner{r: r, buf: make([]byte, 4<<10), max: max}
}

// next returns the next event, with empty-data events included so that
// the caller sees their id and retry fields. At the end of the input it
// returns io.EOF; an event cut off by the end is dropped, as the format
// requires.
func (s *eventScanner) next() (clientEvent, error) {
	var ev clientEvent
	seen := false
	for {
		line, tooLong, err := s.line()
		if err != nil {
			return clientEvent{}, err
		}
		if tooLong {
			seen, ev.tooLarge, ev.data = true, true, nil
			continue
		}
		if len(line) == 0 {
			if !seen {
				continue
			}
			if ev.data != nil {
				ev.data = ev.data[:len(ev.data)-1] // the last line's LF
			}
			return ev, nil
		}
		seen = true
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "data":
			if ev.tooLarge {
				continue
			}
			if len(ev.data)+len(value) > s.max {
				ev.tooLarge, ev.data = true, nil
				continue
			}
			if ev.data == nil {
				ev.data = make([]byte, 0, len(value)+1)
			}
			ev.data = append(append(ev.data, value...), '\n')
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id, ev.hasID = string(value), true
			}
		case "event":
			ev.kind = string(value)
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil && value[0] >= '0' && value[0] <= '9' {
				ev.retry, ev.hasRetry = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

// line returns the next line without its end; it is valid until the next
// call. A line longer than the data limit allows is read through and
// reported with tooLong instead, so that a hostile stream cannot make the
// client buffer it.
func (s *eventScanner) line() (line []byte, tooLong bool, err error) {
	skipped := false
	for {
		if s.lastCR && s.start < s.end {
			s.lastCR = false
			if s.buf[s.start] == '\n' {
				s.start++
			}
		}
		if i := bytes.IndexAny(s.buf[s.start:s.end], "\r\n"); i >= 0 {
			line := s.buf[s.start : s.start+i]
			s.lastCR = s.buf[s.start+i] == '\r'
			s.start += i + 1
			if skipped {
				return nil, true, nil
			}
			return s.strip(line), false, nil
		}
		if s.err != nil {
			return nil, false, s.err // a line cut off by the end is dropped
		}
		if s.start > 0 {
			s.end = copy(s.buf, s.buf[s.start:s.end])
			s.start = 0
		}
		if s.end == len(s.buf) {
			if len(s.buf) > s.max+64 {
				skipped, s.end = true, 0 // too long for any event: drop what was read
			} else {
				s.buf = append(s.buf, make([]byte, len(s.buf))...)
			}
		}
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
		}
	}
}

func (s *eventScanner) strip(line []byte) []byte {
	if !s.started {
		s.started = true
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line
}
