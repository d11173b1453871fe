package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// DefaultMaxMessageSize bounds an incoming message when
// StreamOptions.MaxMessageSize is zero: 16 MiB.
const DefaultMaxMessageSize = 16 << 20

// ErrClosed is returned by the Reads and Writes of a closed Stream.
var ErrClosed = errors.New("transport: closed")

// StreamOptions tune a Stream. The zero StreamOptions are ready to use.
type StreamOptions struct {
	// MaxMessageSize bounds an incoming message, in bytes, not counting
	// the line end. Zero or less means DefaultMaxMessageSize.
	MaxMessageSize int
}

// Stream is a transport of newline-delimited JSON over a reader and a
// writer: each message or batch is one line. Lines may be of any length up
// to MaxMessageSize, may end in "\r\n" as well as "\n", and empty or blank
// lines between messages are ignored. A message over MaxMessageSize is
// skipped up to its newline and reported by Read with an error wrapping
// jsonrpc.ErrMessageTooLarge and naming the limit; the next Read carries
// on with the following line. A last line without a newline is still a
// message.
//
// Read returns a fresh slice per frame, which the caller owns. Write copies
// the frame, so the caller may reuse it.
//
// Reading happens on a goroutine that the Stream starts at the first Read
// and that reads at most one frame ahead, so that Read can return when its
// ctx ends. The goroutine stops at the end of the input, at a read error,
// or when Close is called; but if it is blocked inside the reader's Read,
// it stops only when that returns, which Close brings about by closing the
// reader when the reader can be closed and its Read unblocked by that
// (pipes and sockets that Go's poller serves can, as Stdio arranges; a
// terminal or a blocking file descriptor cannot). Likewise a Write blocked
// in the writer cannot be abandoned when ctx ends, only ended by Close
// where closing the writer unblocks it.
type Stream struct {
	r       *bufio.Reader
	w       io.Writer
	closers []io.Closer
	max     int

	startOnce sync.Once
	frames    chan frame    // from the reading goroutine
	readErr   error         // the error that ended reading, set before frames is closed
	closed    chan struct{} // closed by Close
	closing   atomic.Bool   // set by Close before it closes anything
	closeOnce sync.Once
	closeErr  error

	wmu  sync.Mutex
	wbuf []byte // the frame and its newline, written with one call
}

// frame is what the reading goroutine hands to Read.
type frame struct {
	data []byte
	err  error // a non-fatal error: the message was skipped
}

// NewStream returns a Stream reading frames from r and writing them to w.
// Close closes r and w if they are io.Closers (once if they are the same
// value, such as a net.Conn).
func NewStream(r io.Reader, w io.Writer, opts StreamOptions) *Stream {
	max := opts.MaxMessageSize
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	s := &Stream{
		r:      bufio.NewReaderSize(r, 64<<10),
		w:      w,
		max:    max,
		frames: make(chan frame),
		closed: make(chan struct{}),
	}
	if c, ok := r.(io.Closer); ok {
		s.closers = append(s.closers, c)
	}
	if c, ok := w.(io.Closer); ok && !same(r, w) {
		s.closers = append(s.closers, c)
	}
	return s
}

// same reports whether a and b are the same comparable value.
func same(a, b any) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta != nil && ta.Comparable() && a == b
}

// Read returns the next message or batch, without its line end.
func (s *Stream) Read(ctx context.Context) ([]byte, error) {
	s.startOnce.Do(func() { go s.readLoop() })
	select {
	case f, ok := <-s.frames:
		if !ok {
			if s.closing.Load() {
				return nil, ErrClosed // reading failed because Close closed the reader
			}
			return nil, s.readErr
		}
		return f.data, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closed:
		return nil, ErrClosed
	}
}

// readLoop reads frames ahead of Read until reading fails or the Stream is
// closed.
func (s *Stream) readLoop() {
	for {
		data, err := s.readFrame()
		if err != nil && !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
			s.readErr = err
			close(s.frames)
			return
		}
		select {
		case s.frames <- frame{data, err}:
		case <-s.closed:
			return
		}
	}
}

// readFrame reads the next non-blank line.
func (s *Stream) readFrame() ([]byte, error) {
	for {
		line, err := s.r.ReadSlice('\n')
		var long []byte // a line that outgrew the bufio buffer, copied piece by piece
		var head []byte // the start of a line too long, for the error
		tooLarge := false
		for err == bufio.ErrBufferFull {
			if !tooLarge && len(long)+len(line) > s.max+len("\r\n") {
				head = append(long, line...)
				head = bytes.Clone(head[:min(len(head), jsonrpc.TooLargeHead)])
				tooLarge, long = true, nil // drop it, but read on to its end
			}
			if !tooLarge {
				long = append(long, line...)
			}
			line, err = s.r.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if tooLarge {
			return nil, &jsonrpc.TooLargeError{Err: s.tooLarge(), Head: head}
		}
		if long != nil {
			line = append(long, line...)
		}
		if len(line) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		msg := trimLineEnd(line)
		switch {
		case len(bytes.TrimLeft(msg, " \t\r")) == 0:
			if err == io.EOF {
				return nil, io.EOF
			}
			continue
		case len(msg) > s.max:
			return nil, &jsonrpc.TooLargeError{Err: s.tooLarge(), Head: bytes.Clone(msg[:min(len(msg), jsonrpc.TooLargeHead)])}
		case long == nil:
			msg = bytes.Clone(msg) // ReadSlice's buffer is reused by the next read
		}
		return msg, nil
	}
}

func (s *Stream) tooLarge() error {
	return fmt.Errorf("transport: message longer than the MaxMessageSize of %d bytes, skipped: %w",
		s.max, jsonrpc.ErrMessageTooLarge)
}

// trimLineEnd removes a trailing "\n" or "\r\n".
func trimLineEnd(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// Write writes frame followed by a newline, in one call to the writer. A
// frame holding a raw newline would end the line early, so it is refused;
// JSON needs none, as newlines in strings are escaped.
func (s *Stream) Write(ctx context.Context, frame []byte) error {
	if bytes.IndexByte(frame, '\n') >= 0 {
		return errors.New("transport: frame contains a raw newline")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	s.wbuf = append(append(s.wbuf[:0], frame...), '\n')
	_, err := s.w.Write(s.wbuf)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not hold on to the memory of one huge message
	}
	if err != nil {
		return fmt.Errorf("transport: write: %w", err)
	}
	return nil
}

// Close stops reading and closes the reader and writer that can be closed,
// returning the first error. Later calls return nil.
func (s *Stream) Close() error {
	err := error(nil)
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		// Close the reader and writer before waking waiting Reads, so that
		// a Read returning ErrClosed means they are closed.
		for _, c := range s.closers {
			if cerr := c.Close(); s.closeErr == nil {
				s.closeErr = cerr
			}
		}
		close(s.closed)
		err = s.closeErr
	})
	return err
}
