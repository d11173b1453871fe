package jsonrpc

import (
	"context"
	"errors"
)

// Transport moves whole frames, each the JSON text of one message or one
// batch, between two peers. Package transport holds implementations:
// newline-delimited streams, stdio and in-memory pipes.
//
// Read and Write may be called concurrently with each other; a Conn calls
// Read from one goroutine and Write from one goroutine at a time, unless
// the transport is a ConcurrentWriter. Close
// makes pending and later Reads and Writes fail, and may be called more
// than once.
type Transport interface {
	// Read returns the next frame. The frame belongs to the caller: the
	// transport never touches it again. Read returns io.EOF when the peer
	// has finished sending (a Conn then shuts down gracefully), an error
	// wrapping ErrClosed when the transport was closed on this side (a
	// Conn then stops at once: whoever closed it has dealt with the
	// requests in progress), and ctx.Err() when ctx ends first. An error wrapping
	// ErrMessageTooLarge is not fatal: the transport has skipped that
	// message and the next Read carries on.
	Read(ctx context.Context) ([]byte, error)

	// Write sends one frame. The transport may keep the frame after Write
	// returns (an in-memory pipe hands it to the reader as it is), so the
	// caller must not modify it afterwards.
	Write(ctx context.Context, frame []byte) error

	// Close releases the transport.
	Close() error
}

// ConcurrentWriter is a Transport whose Write may be called from several
// goroutines at once, keeping each frame whole. A Conn otherwise sends one
// frame at a time; over a ConcurrentWriter it lets every Write through, so
// a Write that waits (for a slow peer to make room on one of the streams
// the transport multiplexes, say) holds back neither the Conn's other
// writers nor the responses its read loop sends, and each waits with its
// own ctx rather than behind a lock. WritesConcurrently does nothing: it
// marks the type.
type ConcurrentWriter interface {
	Transport
	WritesConcurrently()
}

// DirectReplier is a ConcurrentWriter whose Write may read the response
// to the request it sends, as an HTTP transport does when the reply to a
// POST is the response itself. Such a Write hands it to Reply instead of
// returning it from Read: the Call waiting for it then gets it on the
// goroutine that wrote the request, without passing through the Conn's
// read loop. A Call over a DirectReplier gives its Write a ctx that
// Reply recognizes. RepliesDirectly does nothing: it marks the type.
type DirectReplier interface {
	ConcurrentWriter
	RepliesDirectly()
}

// Replies reports whether ctx is that of a Write by a Call of a Conn over
// t, whose response Reply would take. Such a Write may read the reply on
// its own goroutine before returning, since the Conn reads what else the
// transport has for Read meanwhile; any other caller of Write may need
// it to return once the frame is sent.
func Replies(ctx context.Context, t Transport) bool {
	r, ok := ctx.Value(replyKey{}).(*replyTo)
	return ok && r.t == t
}

// Reply hands m, a response that t's Write read, to the Conn whose Call
// wrote with ctx, reporting whether it took it. It takes it only when
// Replies(ctx, t) and m is a response; otherwise t returns m from Read
// as usual. A response that no Call waits for is dropped as the read
// loop drops it.
func Reply(ctx context.Context, t Transport, m *Message) bool {
	r, ok := ctx.Value(replyKey{}).(*replyTo)
	if !ok || r.t != t || m.Kind() != MessageResponse {
		return false
	}
	r.c.deliver(m)
	return true
}

// ReplyThrough returns the ctx with which from, a DirectReplier that
// hands its Writes on to another transport, writes to to: Reply then
// takes what to reads for the Call that wrote to from. Any other ctx
// comes back as it is. From must return from Read whatever to's Read
// returns, as a wrapper does.
func ReplyThrough(ctx context.Context, from, to Transport) context.Context {
	r, ok := ctx.Value(replyKey{}).(*replyTo)
	if !ok || r.t != from {
		return ctx
	}
	return context.WithValue(ctx, replyKey{}, &replyTo{c: r.c, t: to})
}

// replyTo is what a Call over a DirectReplier puts in its Write's ctx:
// the Conn, and the transport whose Write may hand it the response.
type replyTo struct {
	c *Conn
	t Transport
}

// replyKey is the ctx key of a replyTo.
type replyKey struct{}

// ErrMessageTooLarge is wrapped by the error a transport's Read returns
// for an incoming message over its size limit.
var ErrMessageTooLarge = errors.New("message too large")

// TooLargeHead is how many of a skipped message's first bytes a
// TooLargeError keeps.
const TooLargeHead = 512

// TooLargeError is the error a transport's Read may return for a message
// it skipped for its size, with the message's first bytes: when they
// show a response (an id, then a result or an error, as senders write
// them), the Conn fails the Call waiting for it at once, instead of
// leaving it to wait for an answer that will never come.
type TooLargeError struct {
	// Err wraps ErrMessageTooLarge and says what the limit was.
	Err error
	// Head is the start of the message, at most TooLargeHead bytes.
	Head []byte
}

func (e *TooLargeError) Error() string { return e.Err.Error() }
func (e *TooLargeError) Unwrap() error { return e.Err }
