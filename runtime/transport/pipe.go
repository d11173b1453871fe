package transport

import (
	"context"
	"io"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// pipeBuffer is how many frames a pipe holds before Write waits for the
// reader. Some room lets two peers whose read loops are both busy still
// answer each other.
const pipeBuffer = 64

// NewPipe returns the two ends of an in-memory transport: what is written
// to one is read from the other.
//
// Frames are not copied: Read returns the very slice that was passed to
// Write, which is why the writer must not modify a frame after Write, as
// jsonrpc.Transport requires of every caller.
//
// Closing either end closes both. After that, Reads return the frames still
// buffered and then io.EOF, and Writes fail with io.ErrClosedPipe. Read and
// Write also return ctx.Err() when ctx ends while they wait.
func NewPipe() (a, b jsonrpc.Transport) {
	ab := make(chan []byte, pipeBuffer)
	ba := make(chan []byte, pipeBuffer)
	st := &pipeState{done: make(chan struct{})}
	return &pipeEnd{in: ba, out: ab, state: st}, &pipeEnd{in: ab, out: ba, state: st}
}

// pipeState is shared by the two ends of a pipe.
type pipeState struct {
	once sync.Once
	done chan struct{} // closed by the first Close
}

// pipeEnd is one end of a pipe.
type pipeEnd struct {
	in    <-chan []byte
	out   chan<- []byte
	state *pipeState
}

func (p *pipeEnd) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-p.in:
		return f, nil
	default:
	}
	select {
	case f := <-p.in:
		return f, nil
	case <-p.state.done:
		select {
		case f := <-p.in:
			return f, nil
		default:
			return nil, io.EOF
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipeEnd) Write(ctx context.Context, frame []byte) error {
	select {
	case <-p.state.done:
		return io.ErrClosedPipe
	default:
	}
	select {
	case p.out <- frame:
		return nil
	case <-p.state.done:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipeEnd) Close() error {
	p.state.once.Do(func() { close(p.state.done) })
	return nil
}
