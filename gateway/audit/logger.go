package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Config's zero fields.
const (
	DefaultQueueLines   = 4096
	DefaultMaxLineBytes = 16 << 10
	// MinMaxLineBytes is the least Config.MaxLineBytes: room for a line
	// with every field cut.
	MinMaxLineBytes = 1024
)

// cutStrings is the length strings are cut to when a line is too long.
const cutStrings = 128

// truncMark ends a string that was cut.
const truncMark = "…[truncated]"

// Config is the audit section of the gateway's configuration.
type Config struct {
	// File is the file lines are appended to, created with mode 0600.
	// Open uses it; New writes to the io.Writer it is given instead.
	File string `yaml:"file,omitempty"`
	// QueueLines bounds the lines waiting to be written; zero means
	// DefaultQueueLines. Lines beyond it are dropped and counted.
	QueueLines int `yaml:"queueLines,omitempty"`
	// MaxLineBytes bounds a line, its newline included; zero means
	// DefaultMaxLineBytes, and less than MinMaxLineBytes is refused.
	MaxLineBytes int `yaml:"maxLineBytes,omitempty"`
	// Arguments says whose argument values may be written: for each
	// tool name, or glob of tool names (path.Match), the fields allowed,
	// each a top-level argument name ("repo") or a JSON pointer
	// ("/options/mode"). A tool no key matches has no values written,
	// only its arguments' digest and names.
	Arguments map[string][]string `yaml:"arguments,omitempty"`
}

func (c Config) check() error {
	if c.QueueLines < 0 {
		return fmt.Errorf("audit: queueLines must not be negative, not %d", c.QueueLines)
	}
	if c.MaxLineBytes != 0 && c.MaxLineBytes < MinMaxLineBytes {
		return fmt.Errorf("audit: maxLineBytes must be at least %d, not %d", MinMaxLineBytes, c.MaxLineBytes)
	}
	for pattern := range c.Arguments {
		if _, err := path.Match(pattern, ""); err != nil {
			return fmt.Errorf("audit: arguments: bad glob %q: %w", pattern, err)
		}
	}
	return nil
}

// Logger writes audit lines. Its methods are safe for concurrent use.
//
// New starts its writer goroutine, which runs until Close.
type Logger struct {
	cfg     Config
	w       io.Writer
	closer  io.Closer // the file Open opened; nil for New
	now     func() time.Time
	queue   chan []byte
	done    chan struct{} // closed when the writer goroutine has returned
	dropped atomic.Uint64 // lines dropped, ever
	written atomic.Uint64 // lines written, ever

	mu     sync.RWMutex // held for reading while sending on queue, for writing to close it
	closed bool

	errMu sync.Mutex
	err   error // the first write error
}

// Option configures a Logger.
type Option func(*Logger)

// WithClock sets the clock that times records with a zero Time and the
// lines that report drops; tests use it.
func WithClock(now func() time.Time) Option { return func(l *Logger) { l.now = now } }

// New returns a Logger writing to w, and starts its writer goroutine.
func New(w io.Writer, c Config, opts ...Option) (*Logger, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.QueueLines == 0 {
		c.QueueLines = DefaultQueueLines
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	l := &Logger{
		cfg:   c,
		w:     w,
		now:   time.Now,
		queue: make(chan []byte, c.QueueLines),
		done:  make(chan struct{}),
	}
	for _, o := range opts {
		o(l)
	}
	go l.run()
	return l, nil
}

// Open returns a Logger appending to c.File.
func Open(c Config, opts ...Option) (*Logger, error) {
	if c.File == "" {
		return nil, errors.New("audit: no file")
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(c.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	l, err := New(f, c, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	l.closer = f
	return l, nil
}

// Log formats r and queues its line. It never blocks on the writer: when
// the queue is full, or the Logger is closed, the line is dropped and
// counted.
func (l *Logger) Log(r Record) {
	b := l.format(r)
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		l.dropped.Add(1)
		return
	}
	select {
	case l.queue <- b:
	default:
		l.dropped.Add(1)
	}
}

// Dropped returns the number of lines dropped since New: queued when the
// queue was full, logged after Close, or whose write failed.
func (l *Logger) Dropped() uint64 { return l.dropped.Load() }

// Written returns the number of audit lines written since New.
func (l *Logger) Written() uint64 { return l.written.Load() }

// Close stops taking lines, writes those queued and closes the file Open
// opened. It returns ctx's error if ctx is done first (the writer then
// finishes on its own), or else the first write error.
func (l *Logger) Close(ctx context.Context) error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.queue)
	}
	l.mu.Unlock()
	select {
	case <-l.done:
	case <-ctx.Done():
		return fmt.Errorf("audit: close: %w", ctx.Err())
	}
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// run writes the queued lines, one Write each, until the queue is closed
// and empty.
func (l *Logger) run() {
	defer close(l.done)
	defer func() {
		if l.closer != nil {
			l.setErr(l.closer.Close())
		}
	}()
	var reported uint64 // drops already reported in the log
	for b := range l.queue {
		if d := l.dropped.Load(); d > reported {
			note, _ := json.Marshal(dropLine{Time: formatTime(l.now()), Dropped: d - reported})
			if l.write(append(note, '\n')) {
				reported = d
			}
		}
		if l.write(b) {
			l.written.Add(1)
		} else {
			l.dropped.Add(1)
			reported++ // the failed line is not a gap to report: the error is returned
		}
	}
}

func (l *Logger) write(b []byte) bool {
	_, err := l.w.Write(b)
	l.setErr(err)
	return err == nil
}

func (l *Logger) setErr(err error) {
	if err == nil {
		return
	}
	l.errMu.Lock()
	if l.err == nil {
		l.err = fmt.Errorf("audit: write: %w", err)
	}
	l.errMu.Unlock()
}

// format returns r's line, newline included, at most MaxLineBytes long.
func (l *Logger) format(r Record) []byte {
	t := r.Time
	if t.IsZero() {
		t = l.now()
	}
	var allowed []string
	if r.Method == "tools/call" {
		allowed = allowedFields(l.cfg.Arguments, r.Name)
	}
	args := describeArguments(r.Arguments, allowed)
	ln := line{
		Time:        formatTime(t),
		Principal:   r.Principal,
		Server:      r.Server,
		Trust:       r.Trust,
		Upstream:    r.Upstream,
		Name:        scrubString(r.Name),
		Method:      r.Method,
		Decision:    r.Decision,
		Reason:      scrubString(r.Reason),
		LatencyMs:   float64(r.Latency.Microseconds()) / 1000,
		ResultBytes: r.ResultSize,
		ArgsDigest:  args.digest,
		ArgNames:    args.names,
		Args:        args.values,
	}
	if ln.Principal == "" {
		ln.Principal = "anonymous"
	}
	b := marshal(ln)
	if len(b) <= l.cfg.MaxLineBytes {
		return b
	}
	// Too long: the values go first, then the names, then long strings
	// are cut.
	ln.Truncated = true
	ln.Args = nil
	if b = marshal(ln); len(b) <= l.cfg.MaxLineBytes {
		return b
	}
	ln.ArgNames = nil
	// JSON escapes can make a string up to six times longer, so the cut
	// shrinks until the line fits; with every string empty but for its
	// mark it fits in MinMaxLineBytes.
	for n := cutStrings; ; n /= 4 {
		for _, s := range []*string{&ln.Principal, &ln.Server, &ln.Trust, &ln.Upstream, &ln.Name, &ln.Method, &ln.Reason} {
			*s = cut(*s, n)
		}
		ln.Decision = Decision(cut(string(ln.Decision), n))
		if b = marshal(ln); len(b) <= l.cfg.MaxLineBytes || n == 0 {
			return b
		}
	}
}

// cut shortens s to at most n bytes plus the mark, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n || strings.HasSuffix(s, truncMark) && len(s) <= n+len(truncMark) {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + truncMark
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func marshal(ln line) []byte {
	b, err := json.Marshal(ln)
	if err != nil {
		// A line holds strings, numbers and decoded JSON only.
		panic("audit: " + err.Error())
	}
	return append(b, '\n')
}
