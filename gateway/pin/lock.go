package pin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Version is the lock file format this package reads and writes.
const Version = 1

// Lock is the content of a lock file: the approved definition of every
// tool of every upstream. A nil *Lock holds no tools. Check and Approve
// only read a Lock, so goroutines may share one as long as none writes it.
type Lock struct {
	// Version is the file format; Read accepts only Version.
	Version int `json:"version"`
	// Upstreams maps an upstream name from the gateway config to its tools
	// by the name the upstream gives them (not the namespaced name). An
	// upstream with no tools is kept, as an empty object.
	Upstreams map[string]map[string]Entry `json:"upstreams"`
}

// Entry is the approved definition of one tool.
type Entry struct {
	// Hash is what Hash returned for the tool when it was approved.
	Hash string `json:"hash"`
	// Summary is the first line of the description, cut short, with hidden
	// characters spelled out, for people reviewing a change to the lock.
	// Nothing checks it.
	Summary string `json:"summary,omitempty"`
	// Members holds the hash of the canonical JSON of each member present
	// (name, title, ...), so that a changed tool says what changed.
	Members map[string]string `json:"members,omitempty"`
}

// newEntry records d as approved.
func newEntry(d *definition) Entry {
	return Entry{Hash: d.hash, Summary: summaryOf(d), Members: d.memberHashes()}
}

// maxSummary bounds Entry.Summary, in characters.
const maxSummary = 100

func summaryOf(d *definition) string {
	raw, ok := d.members["description"]
	var desc string
	if !ok || json.Unmarshal(raw, &desc) != nil {
		return ""
	}
	line, _, _ := strings.Cut(desc, "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > maxSummary {
		line = string([]rune(line)[:maxSummary-1]) + "…"
	}
	return quoteInvisible(line)
}

// clone returns a copy of l, never nil, whose maps can be changed without
// changing l. Entries are shared; nothing modifies one in place.
func (l *Lock) clone() *Lock {
	out := &Lock{Version: Version, Upstreams: map[string]map[string]Entry{}}
	if l == nil {
		return out
	}
	for u, tools := range l.Upstreams {
		out.Upstreams[u] = maps.Clone(tools)
		if out.Upstreams[u] == nil {
			out.Upstreams[u] = map[string]Entry{}
		}
	}
	return out
}

// Marshal returns the lock file text: indented JSON, keys in a fixed
// order (maps sorted), no HTML escaping, ending in a newline. The same lock
// always gives the same bytes, so the file diffs well under version
// control.
func (l *Lock) Marshal() ([]byte, error) {
	c := l.clone()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return escapeHidden(b.Bytes()), nil
}

// escapeHidden writes every hidden character in JSON text as a \u escape,
// so that a tool name holding one cannot reorder or hide text in a review
// of the lock file. The text keeps its meaning: outside strings JSON is
// ASCII, and encoding/json has escaped the control characters already.
func escapeHidden(text []byte) []byte {
	if !bytes.ContainsFunc(text, func(r rune) bool { return classify(r) != 0 }) {
		return text
	}
	var b bytes.Buffer
	for _, r := range string(text) {
		if classify(r) == 0 {
			b.WriteRune(r)
			continue
		}
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.Bytes()
}

var hashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Parse reads lock file text. It is strict: unknown members, a missing or
// other version, a malformed hash, a member hash for something that is not
// a pinned member, and anything after the object are errors, and syntax
// and type errors give the line and column. name is used in messages.
func Parse(name string, data []byte) (*Lock, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, decodeError(name, data, err)
	}
	rest := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		for rest < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[rest])) {
			rest++
		}
		line, col := lineCol(data, rest)
		return nil, fmt.Errorf("%s:%d:%d: data after the lock object", name, line, col)
	}
	if l.Version != Version {
		return nil, fmt.Errorf("%s: version is %d; this mcpgen-gateway reads version %d", name, l.Version, Version)
	}
	if l.Upstreams == nil {
		return nil, fmt.Errorf("%s: no \"upstreams\" object", name)
	}
	for _, u := range sortedKeys(l.Upstreams) {
		if u == "" {
			return nil, fmt.Errorf("%s: an upstream has an empty name", name)
		}
		if l.Upstreams[u] == nil {
			return nil, fmt.Errorf("%s: upstreams.%s is null, not an object", name, u)
		}
		for _, t := range sortedKeys(l.Upstreams[u]) {
			e := l.Upstreams[u][t]
			at := fmt.Sprintf("%s: upstreams.%s.%s", name, u, t)
			if t == "" {
				return nil, fmt.Errorf("%s: upstreams.%s has a tool with an empty name", name, u)
			}
			if !hashPattern.MatchString(e.Hash) {
				return nil, fmt.Errorf("%s.hash: %q is not \"sha256:\" and 64 lowercase hex digits", at, e.Hash)
			}
			for _, m := range sortedKeys(e.Members) {
				if !slices.Contains(pinnedMembers, m) {
					return nil, fmt.Errorf("%s.members: %q is not one of %s", at, m, strings.Join(pinnedMembers, ", "))
				}
				if !hashPattern.MatchString(e.Members[m]) {
					return nil, fmt.Errorf("%s.members.%s: %q is not \"sha256:\" and 64 lowercase hex digits", at, m, e.Members[m])
				}
			}
		}
	}
	return &l, nil
}

// decodeError adds the file name and, where encoding/json gives an offset,
// the line and column.
func decodeError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset-1) // Offset counts the bad byte
		return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset)
		return fmt.Errorf("%s:%d:%d: %s is %s, want %s", name, line, col, typ.Field, typ.Value, typ.Type)
	case err == io.EOF:
		return fmt.Errorf("%s: file is empty", name)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: file ends in the middle of the JSON", name)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// ErrNoLock is wrapped by Read when the lock file does not exist.
var ErrNoLock = errors.New("lock file does not exist")

// Read reads and parses the lock file at path. A missing file gives an
// error wrapping both ErrNoLock and fs.ErrNotExist that tells the operator
// to run `mcpgen-gateway lock`.
func Read(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s; run `mcpgen-gateway lock --config FILE` to write it from the tools the upstreams list now (%w)", ErrNoLock, path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	return Parse(path, data)
}

// Write writes l to path atomically: the text goes to a temporary file in
// the same folder, which is synced and then renamed over path, and the
// folder is synced, so that a reader (or a crash) sees the old file or
// the new one, never a part. On any error the temporary file is removed.
// The file's mode is 0644.
func Write(path string, l *Lock) error {
	return write(path, l, true)
}

// ErrLockExists is returned by LockFile, unless told to overwrite, when the
// lock file is already there.
var ErrLockExists = errors.New("lock file exists")

// write is Write; with replace unset it fails with ErrLockExists, and
// leaves the file alone, when path already exists.
func write(path string, l *Lock, replace bool) (err error) {
	data, err := l.Marshal()
	if err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	if replace {
		err = os.Rename(tmp.Name(), path)
	} else {
		err = installNew(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write lock %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// installNew moves tmp to path unless path exists. A hard link fails
// rather than replace, so two runs cannot both win; where the file system
// has no hard links it falls back to a check before the rename.
func installNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		os.Remove(tmp) // path holds the whole file now; a leftover link is harmless
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s", ErrLockExists, path)
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fmt.Errorf("%w: %s", ErrLockExists, path)
	}
	return os.Rename(tmp, path)
}

// syncDir makes a rename in dir durable. Its errors are ignored: the
// rename has happened, and some systems cannot sync a folder.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
