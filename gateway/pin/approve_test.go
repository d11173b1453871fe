package pin

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const (
	echoChanged = `{"name":"echo","description":"Echoes the input, louder.","inputSchema":{"type":"object"}}`
	freshTool   = `{"name":"fresh","description":"Brand new."}`
	slyTool     = `{"name":"sly","description":"Fine\u2066."}`
)

// before is the lock the approve tests start from: ev has echo, add and
// old; gone is an upstream no longer in the config.
func before(t *testing.T) *Lock {
	return lockOf(t, map[string][]json.RawMessage{
		"ev":   raws(echoTool, addTool, oldTool),
		"gone": raws(`{"name":"x"}`),
	})
}

// now is what the upstreams list at approve time.
var now = map[string][]json.RawMessage{
	"ev": raws(echoChanged, addTool, freshTool, slyTool),
	"kv": raws(`{"name":"echo","description":"Another echo."}`),
}

// toolsOf lists "upstream/tool" for every tool in l.
func toolsOf(l *Lock) []string {
	var out []string
	for u, tools := range l.Upstreams {
		for name := range tools {
			out = append(out, u+"/"+name)
		}
	}
	slices.Sort(out)
	return out
}

func names(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Upstream+"/"+r.Tool)
	}
	return out
}

func TestApprove(t *testing.T) {
	tests := []struct {
		name      string
		names     []string
		opts      Options
		wantTools []string
		approved  []string
		dropped   []string
		pending   []string
		pinned    int
	}{
		{
			name:      "everything",
			wantTools: []string{"ev/add", "ev/echo", "ev/fresh", "ev/sly", "kv/echo"},
			approved:  []string{"ev/echo", "ev/fresh", "ev/sly", "kv/echo"},
			dropped:   []string{"ev/old", "gone/x"},
			pinned:    1,
		},
		{
			name:      "by upstream/tool",
			names:     []string{"ev/echo", "ev/old"},
			wantTools: []string{"ev/add", "ev/echo", "gone/x"},
			approved:  []string{"ev/echo"},
			dropped:   []string{"ev/old"},
			pending:   []string{"ev/fresh", "ev/sly", "kv/echo"},
			pinned:    1,
		},
		{
			name:      "by namespaced name, default prefix",
			names:     []string{"kv__echo", "ev__fresh", "gone__x"},
			wantTools: []string{"ev/add", "ev/echo", "ev/fresh", "ev/old", "kv/echo"},
			approved:  []string{"ev/fresh", "kv/echo"},
			dropped:   []string{"gone/x"},
			pending:   []string{"ev/echo", "ev/sly"},
			pinned:    1,
		},
		{
			name:      "by namespaced name, configured prefix",
			names:     []string{"fresh", "k.echo"},
			opts:      Options{Prefixes: map[string]string{"ev": "", "kv": "k."}},
			wantTools: []string{"ev/add", "ev/echo", "ev/fresh", "ev/old", "gone/x", "kv/echo"},
			approved:  []string{"ev/fresh", "kv/echo"},
			pending:   []string{"ev/echo", "ev/sly"},
			pinned:    1,
		},
		{
			name:      "naming a pinned tool does nothing",
			names:     []string{"ev/add"},
			wantTools: []string{"ev/add", "ev/echo", "ev/old", "gone/x"},
			pending:   []string{"ev/echo", "ev/fresh", "ev/sly", "kv/echo"},
			pinned:    1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := before(t)
			orig, _ := l.Marshal()
			got, sum, err := Approve(l, now, tt.names, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := l.Marshal(); string(after) != string(orig) {
				t.Errorf("Approve modified the lock it was given")
			}
			if g := toolsOf(got); !reflect.DeepEqual(g, tt.wantTools) {
				t.Errorf("lock has %q, want %q", g, tt.wantTools)
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"approved", names(sum.Approved), tt.approved}, {"dropped", names(sum.Dropped), tt.dropped}, {"pending", names(sum.Pending), tt.pending}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if sum.Pinned != tt.pinned {
				t.Errorf("pinned = %d, want %d", sum.Pinned, tt.pinned)
			}
			// Every approved tool now checks as pinned.
			for _, r := range sum.Approved {
				for _, c := range got.Check(r.Upstream, now[r.Upstream]) {
					if c.Tool == r.Tool && c.Status != Pinned {
						t.Errorf("%s/%s after approve: %v", r.Upstream, r.Tool, c.Status)
					}
				}
			}
		})
	}
}

func TestApproveHiddenLiftsQuarantine(t *testing.T) {
	got, sum, err := Approve(before(t), now, []string{"ev/sly"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := names(sum.Hidden); !reflect.DeepEqual(h, []string{"ev/sly"}) {
		t.Errorf("Hidden = %q, want [ev/sly]", h)
	}
	for _, r := range got.Check("ev", now["ev"]) {
		if r.Tool == "sly" && (r.Status != Pinned || r.Quarantined()) {
			t.Errorf("sly after approve: %v, quarantined %v; want pinned and served", r.Status, r.Quarantined())
		}
	}
	if !strings.Contains(sum.String(), `hidden     ev/sly: approved with hidden characters (/description character 5: U+2066, a bidirectional control)`) {
		t.Errorf("Summary.String() =\n%s", sum)
	}
}

func TestApproveNameErrors(t *testing.T) {
	tools := map[string][]json.RawMessage{
		"ev":  raws(echoTool, `{"name":"bad"}`, `{"name":"bad","title":"Bad"}`),
		"ev2": raws(echoTool),
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"nope", Options{}, `approve "nope": no upstream lists such a tool and the lock does not have it`},
		{"ev/nope", Options{}, "no upstream lists such a tool"},
		{"echo", Options{Prefixes: map[string]string{"ev": "", "ev2": ""}}, `approve "echo": names both ev/echo and ev2/echo; use upstream/tool`},
		{"ev/bad", Options{}, `approve "ev/bad": cannot be recorded: definition cannot be pinned: the upstream lists 2 tools named "bad"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Approve(nil, tools, []string{tt.name}, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Approve error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.lock")
	tools := map[string][]json.RawMessage{"ev": raws(echoTool, `[]`), "empty": nil}
	sum, err := LockFile(path, tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Path != path || len(sum.Approved) != 1 || len(sum.Invalid) != 1 {
		t.Errorf("summary = %+v, want one approved and one invalid", sum)
	}
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if g := toolsOf(l); !reflect.DeepEqual(g, []string{"ev/echo"}) {
		t.Errorf("lock has %q", g)
	}
	if _, ok := l.Upstreams["empty"]; !ok {
		t.Errorf("upstream without tools not kept in the lock")
	}
	if e := l.Upstreams["ev"]["echo"]; e.Summary != "Echoes the input." || len(e.Members) != 3 {
		t.Errorf("entry = %+v", e)
	}

	_, err = LockFile(path, map[string][]json.RawMessage{"ev": nil}, Options{})
	if !errors.Is(err, ErrLockExists) {
		t.Fatalf("second LockFile error = %v, want ErrLockExists", err)
	}
	if _, err := LockFile(path, map[string][]json.RawMessage{"ev": nil}, Options{Force: true}); err != nil {
		t.Fatalf("LockFile with Force: %v", err)
	}
	if l, _ := Read(path); len(toolsOf(l)) != 0 {
		t.Errorf("forced lock still has %q", toolsOf(l))
	}
	assertOnlyFiles(t, filepath.Dir(path), "gateway.lock")
}

func TestApproveFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gateway.lock")
	if _, err := ApproveFile(path, now, nil, Options{}); !errors.Is(err, ErrNoLock) {
		t.Fatalf("ApproveFile without a lock: %v, want ErrNoLock", err)
	}
	if err := Write(path, before(t)); err != nil {
		t.Fatal(err)
	}
	sum, err := ApproveFile(path, now, []string{"ev/fresh"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Path != path || !reflect.DeepEqual(names(sum.Approved), []string{"ev/fresh"}) {
		t.Errorf("summary = %+v", sum)
	}
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Upstreams["ev"]["fresh"]; !ok {
		t.Errorf("ev/fresh not in the lock file")
	}

	// Nothing to do: the file is not rewritten.
	info, _ := os.Stat(path)
	os.Chmod(path, 0o600)
	sum, err = ApproveFile(path, now, []string{"ev/add"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Path != "" {
		t.Errorf("unchanged approve reports writing %q", sum.Path)
	}
	if after, _ := os.Stat(path); after.Mode().Perm() != 0o600 || !after.ModTime().Equal(info.ModTime()) {
		t.Errorf("unchanged approve rewrote the file")
	}
	if _, err := ApproveFile(path, now, []string{"nope"}, Options{}); err == nil || !strings.HasPrefix(err.Error(), path+": approve \"nope\"") {
		t.Errorf("ApproveFile with an unknown name: %v", err)
	}
	assertOnlyFiles(t, dir, "gateway.lock")
}

func TestSummaryString(t *testing.T) {
	_, sum, err := Approve(before(t), now, []string{"ev/echo", "ev/old"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum.Path = "gateway.lock"
	want := `gateway.lock: 1 approved, 1 dropped, 1 already pinned, 3 still quarantined
  approved   ev/echo: description changed
  dropped    ev/old: no longer listed
  pending    ev/fresh: new since the lock was written
  pending    ev/sly: new since the lock was written; hidden characters (/description character 5: U+2066, a bidirectional control)
  pending    kv/echo: new since the lock was written
`
	if got := sum.String(); got != want {
		t.Errorf("String =\n%s\nwant\n%s", got, want)
	}
}
