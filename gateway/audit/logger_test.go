package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var clock = WithClock(func() time.Time { return time.Date(2026, 12, 3, 11, 0, 0, 0, time.FixedZone("CET", 3600)) })

// lines logs records to a fresh Logger and returns what it wrote.
func lines(t *testing.T, c Config, rs ...Record) []string {
	t.Helper()
	var buf bytes.Buffer
	l, err := New(&buf, c, clock)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		l.Log(r)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func TestLine(t *testing.T) {
	got := lines(t, Config{Arguments: map[string][]string{"gh__issue_read": {"repo"}}}, Record{
		Principal:  Principal("alice", "https://idp.example"),
		Server:     "default",
		Upstream:   "gh",
		Name:       "gh__issue_read",
		Method:     "tools/call",
		Decision:   Allowed,
		Latency:    12500 * time.Microsecond,
		ResultSize: 2048,
		Arguments:  []byte(`{"repo": "mcpgen/mcpgen", "issue": 17}`),
	})
	sum := sha256.Sum256([]byte(`{"issue":17,"repo":"mcpgen/mcpgen"}`))
	want := `{"time":"2026-12-03T10:00:00.000Z","principal":"alice@https://idp.example","server":"default","upstream":"gh",` +
		`"name":"gh__issue_read","method":"tools/call","decision":"allowed","latencyMs":12.5,"resultBytes":2048,` +
		`"argsDigest":"sha256:` + hex.EncodeToString(sum[:]) + `","argNames":["issue","repo"],"args":{"repo":"mcpgen/mcpgen"}}`
	if len(got) != 1 || got[0] != want {
		t.Errorf("line\n%s\nwant\n%s", strings.Join(got, ""), want)
	}
}

func TestArguments(t *testing.T) {
	cfg := Config{Arguments: map[string][]string{
		"fs__*":    {"path", "/options/mode", "/list/1"},
		"fs__read": {"encoding"},
		"db__*":    {"apiToken", "/conn/password", "/conn"},
	}}
	tests := []struct {
		name, tool, args string
		wantArgs         string // the "args" member, "" for none
		wantNames        string
	}{
		{"no config, no values", "gh__x", `{"a":1,"b":"x"}`, ``, `["a","b"]`},
		{"glob", "fs__write", `{"path":"/tmp/a","data":"..."}`, `{"path":"/tmp/a"}`, `["data","path"]`},
		{"glob and exact", "fs__read", `{"path":"/a","encoding":"utf8"}`, `{"encoding":"utf8","path":"/a"}`, `["encoding","path"]`},
		{"pointer", "fs__open", `{"options":{"mode":"r","x":1},"list":["a","b"]}`, `{"/list/1":"b","/options/mode":"r"}`, `["list","options"]`},
		{"missing field", "fs__open", `{"other":1}`, ``, `["other"]`},
		{"credential name allowed anyway", "db__q", `{"apiToken":"t0"}`, `{"apiToken":"[redacted]"}`, `["apiToken"]`},
		{"credential in pointer", "db__q", `{"conn":{"password":"p","host":"h"}}`, `{"/conn":{"host":"h","password":"[redacted]"},"/conn/password":"[redacted]"}`, `["conn"]`},
		{"not an object", "fs__x", `[1,2]`, ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lines(t, cfg, Record{Name: tt.tool, Method: "tools/call", Arguments: []byte(tt.args)})
			var ln struct {
				Args       json.RawMessage `json:"args"`
				ArgNames   json.RawMessage `json:"argNames"`
				ArgsDigest string          `json:"argsDigest"`
			}
			if err := json.Unmarshal([]byte(got[0]), &ln); err != nil {
				t.Fatal(err)
			}
			if string(ln.Args) != tt.wantArgs || string(ln.ArgNames) != tt.wantNames {
				t.Errorf("args %s names %s, want %s %s", ln.Args, ln.ArgNames, tt.wantArgs, tt.wantNames)
			}
			if ln.ArgsDigest != Digest([]byte(tt.args)) || !strings.HasPrefix(ln.ArgsDigest, "sha256:") {
				t.Errorf("digest %q, want %q", ln.ArgsDigest, Digest([]byte(tt.args)))
			}
		})
	}
}

func TestValuesOnlyForCalls(t *testing.T) {
	got := lines(t, Config{Arguments: map[string][]string{"*": {"q"}}},
		Record{Name: "p", Method: "prompts/get", Arguments: []byte(`{"q":"v"}`)})
	if strings.Contains(got[0], `"args"`) {
		t.Errorf("prompts/get line has values: %s", got[0])
	}
}

func TestDigest(t *testing.T) {
	a := Digest([]byte(`{"b": [1, 2.50, {"y":1,"x":"<&>"}], "a": null}`))
	b := Digest([]byte(`{"a":null,"b":[1,2.50,{"x":"<&>","y":1}]}`))
	if a != b {
		t.Errorf("key order and spaces change the digest: %s %s", a, b)
	}
	sum := sha256.Sum256([]byte(`{"a":null,"b":[1,2.50,{"x":"<&>","y":1}]}`))
	if want := "sha256:" + hex.EncodeToString(sum[:]); a != want {
		t.Errorf("Digest = %s, want %s", a, want)
	}
	if Digest([]byte(`{"a":1}`)) == Digest([]byte(`{"a":2}`)) {
		t.Error("different values, same digest")
	}
	if Digest(nil) != "" || Digest([]byte("null")) != "" {
		t.Error("no arguments should have no digest")
	}
	if d := Digest([]byte(`{"a":`)); !strings.HasPrefix(d, "sha256:") {
		t.Errorf("malformed arguments: digest %q", d)
	}
}

// TestNoSecrets plants a secret everywhere a careless log would write it.
func TestNoSecrets(t *testing.T) {
	const secret = "s3cr3t-PLANTED-v4lue"
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0." + secret
	var buf bytes.Buffer
	l, err := New(&buf, Config{Arguments: map[string][]string{"*": {"token", "/auth", "note", "/headers", "client_secret", "url"}}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{
		"token":         secret,
		"auth":          map[string]any{"bearer": secret, "Authorization": "Bearer " + secret},
		"note":          "use Bearer " + secret + " or " + jwt,
		"headers":       map[string]any{"X-Api-Key": secret, "Cookie": "sid=" + secret},
		"client_secret": secret,
		"url":           "https://api.example/x?access_token=" + secret + "&page=2",
		"password":      secret,
	})
	l.Log(Record{
		Name: "gh__call", Method: "tools/call", Decision: Error, Arguments: args,
		Reason: "upstream answered 401 to Authorization: Bearer " + secret + " (api_key=" + secret + ")",
	})
	l.Log(Record{Name: "file:///x?token=" + secret, Method: "resources/read", Decision: Denied})
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, secret) {
		t.Fatalf("the log holds the planted secret:\n%s", out)
	}
	// The allowed fields that are not secrets are still there.
	for _, want := range []string{`page=2"`, `"note":"use [redacted] or [redacted]"`, `"reason":"upstream answered 401 to Authorization: [redacted]`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

func TestConcurrentLinesDoNotInterleave(t *testing.T) {
	w := &callWriter{}
	l, err := New(w, Config{QueueLines: 10000}, clock)
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 16, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				l.Log(Record{Name: strings.Repeat("n", g*10+i%7), Method: "tools/call", Decision: Allowed,
					Arguments: []byte(`{"i":` + string(rune('0'+i%10)) + `}`)})
			}
		})
	}
	wg.Wait()
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(w.writes) != goroutines*each || l.Written() != goroutines*each || l.Dropped() != 0 {
		t.Fatalf("%d writes, %d written, %d dropped; want %d lines", len(w.writes), l.Written(), l.Dropped(), goroutines*each)
	}
	for _, b := range w.writes {
		if !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != 1 || !json.Valid(b) {
			t.Fatalf("a Write is not one JSON line: %q", b)
		}
	}
}

type callWriter struct {
	mu     sync.Mutex
	writes [][]byte
}

func (w *callWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(b))
	return len(b), nil
}

// stuckWriter blocks its first Write until released.
type stuckWriter struct {
	entered, release chan struct{}
	once             sync.Once
	buf              bytes.Buffer
}

func (w *stuckWriter) Write(b []byte) (int, error) {
	w.once.Do(func() {
		close(w.entered)
		<-w.release
	})
	return w.buf.Write(b)
}

func TestDropWhenSlow(t *testing.T) {
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	l, err := New(w, Config{QueueLines: 2}, clock)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(n string) Record { return Record{Name: n, Method: "tools/call", Decision: Allowed} }
	l.Log(rec("first"))
	<-w.entered // the writer holds "first"; the queue is empty
	for i := range 9 {
		l.Log(rec(string(rune('a' + i)))) // a and b are queued, the rest dropped
	}
	if d := l.Dropped(); d != 7 {
		t.Errorf("Dropped = %d, want 7", d)
	}
	close(w.release)
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.Log(rec("late"))
	if d := l.Dropped(); d != 8 {
		t.Errorf("Dropped after a Log after Close = %d, want 8", d)
	}
	got := strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
	want := []string{`"name":"first"`, `{"time":"2026-12-03T10:00:00.000Z","dropped":7}`, `"name":"a"`, `"name":"b"`}
	if len(got) != len(want) {
		t.Fatalf("lines:\n%s", w.buf.String())
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("line %d = %s, want it to hold %s", i, got[i], want[i])
		}
	}
}

func TestCloseTimesOut(t *testing.T) {
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	l, err := New(w, Config{}, clock)
	if err != nil {
		t.Fatal(err)
	}
	l.Log(Record{Method: "tools/list"})
	<-w.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v, want context.Canceled", err)
	}
	close(w.release)
	if err := l.Close(context.Background()); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	l, err := New(failWriter{}, Config{}, clock)
	if err != nil {
		t.Fatal(err)
	}
	l.Log(Record{Method: "tools/list"})
	l.Log(Record{Method: "tools/list"})
	if err := l.Close(context.Background()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Close = %v, want the write error", err)
	}
	if l.Dropped() != 2 || l.Written() != 0 {
		t.Errorf("dropped %d written %d, want 2 and 0", l.Dropped(), l.Written())
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("x", 5000)
	ctl := strings.Repeat("\x01", 5000) // escaped six times longer
	tests := []struct {
		name string
		rec  Record
		keep string // a member that survives
	}{
		{"long values", Record{Name: "t", Method: "tools/call", Arguments: []byte(`{"v":"` + long + `"}`)}, `"argNames":["v"]`},
		{"long reason", Record{Name: "t", Method: "tools/call", Decision: Error, Reason: long}, `"name":"t"`},
		{"escaped strings", Record{Name: ctl, Upstream: ctl, Server: ctl, Principal: ctl, Method: ctl, Reason: ctl, Decision: Decision(ctl)}, `"truncated":true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lines(t, Config{MaxLineBytes: MinMaxLineBytes, Arguments: map[string][]string{"t": {"v"}}}, tt.rec)
			ln := got[0]
			if len(ln) > MinMaxLineBytes || !json.Valid([]byte(ln)) || !strings.Contains(ln, `"truncated":true`) || !strings.Contains(ln, tt.keep) {
				t.Errorf("%d bytes: %s", len(ln), ln)
			}
		})
	}
	if got := cut("héllo", 2); got != "h"+truncMark {
		t.Errorf("cut on a rune boundary = %q", got)
	}
}

func TestOpen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	for _, name := range []string{"one", "two"} {
		l, err := Open(Config{File: file}, clock)
		if err != nil {
			t.Fatal(err)
		}
		l.Log(Record{Name: name, Method: "tools/call", Decision: Allowed})
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 2 || !bytes.Contains(b, []byte(`"name":"one"`)) || !bytes.Contains(b, []byte(`"name":"two"`)) {
		t.Errorf("file holds %d lines:\n%s", n, b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{QueueLines: -1},
		{MaxLineBytes: 100},
		{Arguments: map[string][]string{"[": {"x"}}},
	} {
		if _, err := New(&bytes.Buffer{}, c); err == nil {
			t.Errorf("New accepted %+v", c)
		}
	}
	if _, err := Open(Config{}); err == nil {
		t.Error("Open accepted no file")
	}
}

func TestPrincipal(t *testing.T) {
	if p := Principal("", ""); p != "anonymous" {
		t.Errorf("Principal() = %q", p)
	}
	if p := Principal("bob", "https://idp"); p != "bob@https://idp" {
		t.Errorf("Principal(bob) = %q", p)
	}
	got := lines(t, Config{}, Record{Method: "tools/list", Decision: Allowed})
	if !strings.Contains(got[0], `"principal":"anonymous"`) {
		t.Errorf("empty principal: %s", got[0])
	}
}
