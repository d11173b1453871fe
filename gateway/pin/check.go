package pin

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Status is how a tool an upstream lists compares with the lock.
type Status int

const (
	// Pinned: the tool's hash is the one in the lock.
	Pinned Status = iota + 1
	// Changed: the lock has the tool with another hash. Quarantined.
	Changed
	// New: the lock does not have the tool. Quarantined.
	New
	// Removed: the lock has the tool but the upstream no longer lists it.
	// Informational; approve drops it from the lock.
	Removed
	// Invalid: the definition cannot be pinned (not a JSON object, no
	// string name, a duplicate key, invalid UTF-8, or a name the upstream
	// lists twice). Quarantined, and approve cannot record it.
	Invalid
	// Unpinned: pinning is off (Scan), so only hidden characters
	// quarantine the tool.
	Unpinned
)

func (s Status) String() string {
	switch s {
	case Pinned:
		return "pinned"
	case Changed:
		return "changed"
	case New:
		return "new"
	case Removed:
		return "removed"
	case Invalid:
		return "invalid"
	case Unpinned:
		return "unpinned"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Result is the verdict on one tool of one upstream.
type Result struct {
	Upstream string
	// Tool is the tool's name as the upstream gives it; empty only for an
	// Invalid definition without a usable name.
	Tool   string
	Status Status
	// Index is the tool's position in the list Check was given, or -1 for
	// a Removed tool.
	Index int
	// Hash is the tool's current hash; empty for Removed and Invalid.
	Hash string
	// Was is the hash the lock has for a Changed tool.
	Was string
	// Changes names, for a Changed tool, each member that differs, as
	// "description changed", "outputSchema added" or "title removed", in
	// the order name, title, description, inputSchema, outputSchema,
	// annotations. A lock written without member hashes gives "definition
	// changed".
	Changes []string
	// Hidden lists the hidden characters in the definition. Any of them
	// quarantine the tool unless the lock approves this exact definition
	// (Pinned): an operator who approved it was shown each of them.
	Hidden []Finding
	// Err says why an Invalid definition cannot be pinned.
	Err error

	def *definition // nil for Removed and Invalid
}

// Quarantined reports whether the gateway must hide the tool and refuse
// calls to it.
func (r Result) Quarantined() bool {
	switch r.Status {
	case Changed, New, Invalid:
		return true
	case Unpinned:
		return len(r.Hidden) > 0
	}
	return false
}

// Reason says in a few words why the tool is quarantined (or, for a
// Removed tool, what happened), for logs and for Error.
func (r Result) Reason() string {
	var parts []string
	switch r.Status {
	case Changed:
		parts = append(parts, fmt.Sprintf("%s since it was approved (%s, now %s)", strings.Join(r.Changes, ", "), Short(r.Was), Short(r.Hash)))
	case New:
		parts = append(parts, "new since the lock was written")
	case Removed:
		parts = append(parts, "no longer listed by the upstream")
	case Invalid:
		parts = append(parts, "definition cannot be pinned: "+r.Err.Error())
	}
	if len(r.Hidden) > 0 && r.Status != Pinned {
		parts = append(parts, r.hiddenReason())
	}
	return strings.Join(parts, "; ")
}

// Short is the short form of a hash for messages: "sha256:" and its
// first 12 hex digits.
func Short(hash string) string {
	const n = len("sha256:") + 12
	if len(hash) > n {
		return hash[:n]
	}
	return hash
}

func (r Result) hiddenReason() string {
	h := make([]string, len(r.Hidden))
	for i, f := range r.Hidden {
		h[i] = f.String()
	}
	return "hidden characters (" + strings.Join(h, "; ") + ")"
}

// Error returns the error the gateway sends a client that calls a
// quarantined tool, or nil when the tool is not quarantined. served is the
// name the client used (the namespaced name); empty means Tool.
func (r Result) Error(served string) error {
	if !r.Quarantined() {
		return nil
	}
	return &QuarantineError{Served: served, Result: r}
}

// QuarantineError is the error a call to a quarantined tool fails with.
// Its text names the tool, the upstream and the change, and tells the
// client that an operator must approve the tool; it never contains a
// hidden character itself.
type QuarantineError struct {
	// Served is the name the client called the tool by, if it differs from
	// Result.Tool.
	Served string
	Result Result
}

func (e *QuarantineError) Error() string {
	r := e.Result
	name := quoteInvisible(r.Tool)
	var b strings.Builder
	if e.Served != "" && e.Served != r.Tool {
		fmt.Fprintf(&b, "tool %q (%q of upstream %q)", quoteInvisible(e.Served), name, r.Upstream)
	} else {
		fmt.Fprintf(&b, "tool %q of upstream %q", name, r.Upstream)
	}
	fmt.Fprintf(&b, " is quarantined: %s.", r.Reason())
	if r.Status == Invalid {
		b.WriteString(" The upstream must fix its definition.")
		return b.String()
	}
	if r.Status == Unpinned {
		b.WriteString(" The upstream must remove them, or an operator pin the gateway's tools and approve this definition.")
		return b.String()
	}
	fmt.Fprintf(&b, " An operator must review it and run `mcpgen-gateway approve --config FILE %s/%s`.", r.Upstream, name)
	return b.String()
}

// Check compares the tools an upstream lists now with the lock. It returns
// one Result per listed tool, in the order given, followed by one per
// tool the lock has for the upstream but the list lacks (Removed), sorted
// by name. tools holds the tool objects of the upstream's tools/list
// result, all pages, as the upstream sent them.
func (l *Lock) Check(upstream string, tools []json.RawMessage) []Result {
	var locked map[string]Entry
	if l != nil {
		locked = l.Upstreams[upstream]
	}
	out := make([]Result, 0, len(tools))
	byName := map[string][]int{} // tool name → indexes in out
	for i, raw := range tools {
		r := Result{Upstream: upstream, Index: i}
		d, err := parseDefinition(raw)
		if err != nil {
			r.Status, r.Err = Invalid, err
			out = append(out, r)
			continue
		}
		r.Tool, r.Hash, r.Hidden, r.def = d.name, d.hash, d.hidden, d
		e, ok := locked[d.name]
		switch {
		case !ok:
			r.Status = New
		case e.Hash == d.hash:
			r.Status = Pinned
		default:
			r.Status = Changed
			r.Was = e.Hash
			r.Changes = changes(e.Members, d.memberHashes())
		}
		byName[d.name] = append(byName[d.name], len(out))
		out = append(out, r)
	}
	for name, idx := range byName {
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			out[i].Status = Invalid
			out[i].Err = fmt.Errorf("the upstream lists %d tools named %q", len(idx), quoteInvisible(name))
			out[i].Changes, out[i].Hash, out[i].Was, out[i].def = nil, "", "", nil
		}
	}
	for _, name := range sortedKeys(locked) {
		if _, listed := byName[name]; !listed {
			out = append(out, Result{Upstream: upstream, Tool: name, Status: Removed, Index: -1})
		}
	}
	return out
}

// changes says which members differ between the member hashes in the lock
// and the current ones.
func changes(locked, now map[string]string) []string {
	var out []string
	for _, m := range pinnedMembers {
		was, inLock := locked[m]
		is, inNow := now[m]
		switch {
		case inLock && inNow && was != is:
			out = append(out, m+" changed")
		case inLock && !inNow:
			out = append(out, m+" removed")
		case !inLock && inNow && len(locked) > 0:
			out = append(out, m+" added")
		}
	}
	if len(out) == 0 {
		return []string{"definition changed"}
	}
	return out
}

// Scan is Check for a gateway that does not pin: every tool the
// upstream lists is Unpinned (quarantined only for hidden characters) or
// Invalid, and nothing is Removed.
func Scan(upstream string, tools []json.RawMessage) []Result {
	out := (*Lock)(nil).Check(upstream, tools)
	for i := range out {
		if out[i].Status == New {
			out[i].Status = Unpinned
		}
	}
	return out
}
