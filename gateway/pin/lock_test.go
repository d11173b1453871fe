package pin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var (
	hashA = "sha256:" + strings.Repeat("a", 64)
	hashB = "sha256:" + strings.Repeat("b", 64)
)

func sampleLock() *Lock {
	return &Lock{Version: Version, Upstreams: map[string]map[string]Entry{
		"zeta": {},
		"ev": {
			"echo":  {Hash: hashA, Summary: "Echoes <input> & more", Members: map[string]string{"name": hashB, "description": hashA}},
			"add":   {Hash: hashB},
			"multi": {Hash: hashA, Members: map[string]string{"inputSchema": hashA}},
		},
	}}
}

const sampleText = `{
  "version": 1,
  "upstreams": {
    "ev": {
      "add": {
        "hash": "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
      },
      "echo": {
        "hash": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "summary": "Echoes <input> & more",
        "members": {
          "description": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "name": "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
        }
      },
      "multi": {
        "hash": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "members": {
          "inputSchema": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        }
      }
    },
    "zeta": {}
  }
}
`

func TestLockMarshalIsStable(t *testing.T) {
	for range 5 { // map order varies from run to run; the text must not
		got, err := sampleLock().Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != sampleText {
			t.Fatalf("Marshal =\n%s\nwant\n%s", got, sampleText)
		}
	}
}

func TestLockRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.lock")
	if err := Write(path, sampleLock()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sampleLock()) {
		t.Errorf("Read = %+v, want %+v", got, sampleLock())
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
	assertOnlyFiles(t, filepath.Dir(path), "gateway.lock")
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"empty", ``, "g.lock: file is empty"},
		{"truncated", `{"version": 1, "upstreams": {`, "g.lock: file ends in the middle"},
		{"syntax", "{\n  \"version\": 1,\n  \"upstreams\": {]\n}", "g.lock:3:17: invalid character ']'"},
		{"type", "{\n  \"version\": \"1\"}", `g.lock:2:17: version is string, want int`},
		{"unknown member", `{"version":1,"upstreams":{},"extra":1}`, `g.lock: json: unknown field "extra"`},
		{"unknown entry member", `{"version":1,"upstreams":{"ev":{"a":{"hash":"` + hashA + `","sha":"x"}}}}`, `unknown field "sha"`},
		{"trailing", "{\"version\":1,\"upstreams\":{}}\n{}", "g.lock:2:1: data after the lock object"},
		{"no version", `{"upstreams":{}}`, "g.lock: version is 0; this mcpgen-gateway reads version 1"},
		{"future version", `{"version":2,"upstreams":{}}`, "version is 2"},
		{"no upstreams", `{"version":1}`, `no "upstreams" object`},
		{"null upstream", `{"version":1,"upstreams":{"ev":null}}`, "upstreams.ev is null"},
		{"empty upstream name", `{"version":1,"upstreams":{"":{}}}`, "an upstream has an empty name"},
		{"empty tool name", `{"version":1,"upstreams":{"ev":{"":{"hash":"` + hashA + `"}}}}`, "upstreams.ev has a tool with an empty name"},
		{"bad hash", `{"version":1,"upstreams":{"ev":{"echo":{"hash":"sha256:ABC"}}}}`, `g.lock: upstreams.ev.echo.hash: "sha256:ABC" is not`},
		{"missing hash", `{"version":1,"upstreams":{"ev":{"echo":{}}}}`, `upstreams.ev.echo.hash: "" is not`},
		{"bad member", `{"version":1,"upstreams":{"ev":{"echo":{"hash":"` + hashA + `","members":{"_meta":"` + hashA + `"}}}}}`, `upstreams.ev.echo.members: "_meta" is not one of name, title`},
		{"bad member hash", `{"version":1,"upstreams":{"ev":{"echo":{"hash":"` + hashA + `","members":{"title":"md5:x"}}}}}`, `upstreams.ev.echo.members.title: "md5:x" is not`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("g.lock", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestReadMissing(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "gateway.lock"))
	if !errors.Is(err, ErrNoLock) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read error = %v, want ErrNoLock and fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), "mcpgen-gateway lock --config FILE") {
		t.Errorf("Read error %q does not say to run lock", err)
	}
}

func TestWriteFailureLeavesNoTempFile(t *testing.T) {
	t.Run("target is a folder", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "gateway.lock")
		if err := os.Mkdir(target, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Write(target, sampleLock()); err == nil {
			t.Fatal("Write over a folder succeeded")
		}
		assertOnlyFiles(t, dir, "gateway.lock")
	})
	t.Run("unwritable folder", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes to any folder")
		}
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		if err := Write(filepath.Join(dir, "gateway.lock"), sampleLock()); err == nil {
			t.Fatal("Write to a read-only folder succeeded")
		}
		assertOnlyFiles(t, dir)
	})
	t.Run("missing folder", func(t *testing.T) {
		dir := t.TempDir()
		if err := Write(filepath.Join(dir, "no", "gateway.lock"), sampleLock()); err == nil {
			t.Fatal("Write into a missing folder succeeded")
		}
		assertOnlyFiles(t, dir)
	})
	t.Run("existing file kept", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "gateway.lock")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := write(path, sampleLock(), false)
		if !errors.Is(err, ErrLockExists) {
			t.Fatalf("write error = %v, want ErrLockExists", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Errorf("file now %q, want it untouched", b)
		}
		assertOnlyFiles(t, dir, "gateway.lock")
	})
}

// assertOnlyFiles fails unless dir holds exactly the names given.
func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, names) && !(len(got) == 0 && len(names) == 0) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func TestMarshalEscapesHiddenCharacters(t *testing.T) {
	l := &Lock{Version: Version, Upstreams: map[string]map[string]Entry{
		"ev": {"a\u202eb\U000E0041\u0085": {Hash: hashA, Summary: "x\u200by"}},
	}}
	text, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range string(text) {
		if classify(r) != 0 && r != '\n' {
			t.Fatalf("lock text holds U+%04X:\n%s", r, text)
		}
	}
	if !strings.Contains(string(text), `"a\u202eb\udb40\udc41\u0085"`) {
		t.Errorf("tool name not escaped as expected:\n%s", text)
	}
	back, err := Parse("g.lock", text)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, l) {
		t.Errorf("round trip = %+v, want %+v", back, l)
	}
}
