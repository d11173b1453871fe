package echo

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// loopback answers each echo request written to it with a canned result
// carrying the request's id, without allocating.
type loopback struct {
	out bytes.Buffer
}

func (l *loopback) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		i := bytes.LastIndex(line, []byte(`"id":`))
		id := bytes.TrimRight(line[i+len(`"id":`):], "}\n")
		l.out.WriteString(`{"jsonrpc":"2.0","id":`)
		l.out.Write(id)
		l.out.WriteString(`,"result":{"content":[{"type":"text","text":"` + Text + `"}]}}` + "\n")
	}
	return len(p), nil
}

func (l *loopback) Read(p []byte) (int, error) {
	if l.out.Len() == 0 {
		return 0, io.EOF
	}
	return l.out.Read(p)
}

// TestEchoAllocs pins the claim the in-process table rests on: the load
// loop itself allocates nothing, so allocs/op are the server's.
func TestEchoAllocs(t *testing.T) {
	l := &loopback{}
	l.out.Grow(64 << 10)
	c := NewClient(l, l)
	if n, err := c.Echo(100, 1, time.Time{}); err != nil || n != 100 {
		t.Fatalf("Echo = %d, %v", n, err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.Echo(1, 1, time.Time{}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Echo allocates %v times per call, want 0", allocs)
	}
}
